"""The conversation-layer tests' table: Alice, Bob and Carol (``play.new_table``)."""

from __future__ import annotations

import pytest

from hideseek_chat.console.table import Table
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.play import new_table


@pytest.fixture
def table(uow_factory: UnitOfWorkFactory) -> Table:
    return new_table(uow_factory)
