"""Fixtures: the fake Overpass and Nominatim servers, started and stopped per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.maps.fakes import FakeNominatim, FakeOverpass


@pytest.fixture
def fake_overpass() -> Iterator[FakeOverpass]:
    with FakeOverpass() as server:
        yield server


@pytest.fixture
def fake_nominatim() -> Iterator[FakeNominatim]:
    with FakeNominatim() as server:
        yield server
