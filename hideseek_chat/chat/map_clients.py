"""What the chat layer needs from the map library (``hideseek_chat.maps``), as protocols.

``app.py`` builds ``MapClients`` from the real geocoder, Overpass client and pack builder
(``maps.places``, ``maps.overpass``, ``maps.fetch``, ``maps.modes``); a test hands in
fakes with the same methods. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from hideseek_chat.geo import MapPack
from hideseek_chat.rules.ruleset import Size


class PlaceLike(Protocol):
    """A place the geocoder found (``maps.places.Place``)."""

    @property
    def key(self) -> str: ...  # "r123": the OSM object, for the pack's name

    @property
    def name(self) -> str: ...

    @property
    def label(self) -> str: ...  # the button: "Stillwater · city · United States"

    @property
    def kind(self) -> str: ...

    @property
    def country_code(self) -> str: ...

    @property
    def lat(self) -> float: ...

    @property
    def lon(self) -> float: ...

    @property
    def boundary(self) -> Any: ...  # a shapely (Multi)Polygon, None for a point


class GeocoderLike(Protocol):
    def search(self, query: str, *, language: str = "en", limit: int = 5) -> Sequence[PlaceLike]:
        """Up to ``limit`` places; empty when none; raise MapFetchError when it failed."""
        ...


class KindProgressLike(Protocol):
    """One kind of a fetch that arrived (``maps.fetch.KindProgress``)."""

    @property
    def kind(self) -> str: ...

    @property
    def count(self) -> int | None: ...

    @property
    def ok(self) -> bool: ...

    @property
    def done(self) -> int: ...

    @property
    def total(self) -> int: ...


class FetchedLike(Protocol):
    """A fetched pack (``maps.fetch.FetchedPack``): kinds that failed are not covered."""

    @property
    def pack(self) -> MapPack: ...

    @property
    def counts(self) -> Mapping[str, int]: ...

    @property
    def failed(self) -> tuple[str, ...]: ...


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
        progress: Callable[[KindProgressLike], None] | None = None,
    ) -> FetchedLike: ...


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
