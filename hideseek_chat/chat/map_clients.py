"""What the chat layer needs from the map library (``hideseek_chat.maps``): its geocoder and
its fetcher, as protocols; the values they return are the library's own (``Place``,
``KindProgress``, ``FetchedPack``).

``app.py`` builds ``MapClients`` from the real geocoder, Overpass client and pack builder
(``maps.places``, ``maps.overpass``, ``maps.fetch``, ``maps.modes``); a test hands in
fakes with the same methods. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from hideseek_chat.maps.fetch import FetchedPack, KindProgress
from hideseek_chat.maps.places import Place
from hideseek_chat.rules.ruleset import Size


class GeocoderLike(Protocol):
    def search(self, query: str, *, language: str = "en", limit: int = 5) -> Sequence[Place]:
        """Up to ``limit`` places; empty when none; raise MapFetchError when it failed."""
        ...


class FetchLike(Protocol):
    """``maps.fetch.fetch_pack`` with its Overpass client bound."""

    def __call__(
        self,
        boundary: Any,
        *,
        name: str,
        title: str,
        modes: frozenset[str],
        country_code: str = "",
        progress: Callable[[KindProgress], None] | None = None,
    ) -> FetchedPack: ...


@dataclass(frozen=True)
class MapClients:
    """The map library as the chat layer uses it (see the module docstring)."""

    geocoder: GeocoderLike
    fetch: FetchLike
    #: ``maps.fetch.pack_name(place_key, modes, radius_m)``: area + modes -> a pack's name
    pack_name: Callable[[str, frozenset[str], int | None], str]
    #: ``maps.places.circle(lat, lon, radius_m)``: the area of a point result
    circle: Callable[[float, float, float], Any]
    #: ``maps.modes.MODES`` and ``maps.modes.default_modes(size)``
    modes: tuple[str, ...] = ("rail", "subway", "tram", "bus", "ferry")
    default_modes: Callable[[Size], frozenset[str]] = lambda size: frozenset({"rail", "subway"})
