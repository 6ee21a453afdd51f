"""In-process stand-ins for the map library (``hideseek_chat.maps``): a geocoder that
knows a few places and a fetcher that builds its pack from the shipped Stillwater pack,
reporting each kind as it "arrives", able to fail as a whole or for one kind. Both have
the real clients' signatures (``chat.map_clients``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from shapely.geometry import Point

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.drive import Capabilities
from hideseek_chat.chat.map_clients import MapClients
from hideseek_chat.console.table import CAPABILITIES, Table
from hideseek_chat.geo import MapPack, load_map_pack
from hideseek_chat.geo.mappack import Feature
from hideseek_chat.maps.errors import MapFetchError
from hideseek_chat.maps.fetch import FetchedPack, KindProgress
from hideseek_chat.maps.places import Place
from hideseek_chat.rules.ruleset import Size
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.play import NAMES, START

MODES = ("rail", "subway", "tram", "bus", "ferry")


STILLWATER = load_map_pack("stillwater")
CITY = Place(
    "relation",
    123,
    "Stillwater",
    "Stillwater · city · United States",
    "city",
    "US",
    36.1156,
    -97.0584,
    STILLWATER.boundary,
)
LIBRARY = Place(
    "node",
    456,
    "Edmon Low Library",
    "Edmon Low Library · library · United States",
    "library",
    "US",
    36.1228,
    -97.0690,
    None,
)
STILLWATER_MN = Place(
    "relation",
    789,
    "Stillwater",
    "Stillwater · city · Minnesota, United States",
    "city",
    "US",
    45.0564,
    -92.8060,
    Point(-92.806, 45.056).buffer(0.05),
)


@dataclass
class FakeGeocoder:
    places: Sequence[Place] = (CITY, STILLWATER_MN, LIBRARY)
    error: MapFetchError | None = None
    queries: list[str] = field(default_factory=list)

    def search(self, query: str, *, language: str = "en", limit: int = 5) -> list[Place]:
        self.queries.append(query)
        if self.error is not None:
            raise self.error
        words = query.lower().split(",")[0].strip()
        return [p for p in self.places if words in p.name.lower()][:limit]


#: The kinds the fake fetcher reports, in order (museum: one, made up, near the library).
KINDS = ("station", "park", "museum", "school", "road")
MUSEUM = Feature("museum", "Oklahoma Museum of Higher Education", Point(-97.0714, 36.1230))


@dataclass
class FakeFetcher:
    """``fetch_pack`` with the Stillwater pack as OpenStreetMap's answer."""

    error: MapFetchError | None = None
    failing_kind: str | None = None
    no_stations: bool = False
    calls: list[dict[str, Any]] = field(default_factory=list)

    def __call__(
        self,
        boundary: Any,
        *,
        name: str,
        title: str,
        modes: frozenset[str],
        country_code: str = "",
        progress: Callable[[Any], None] | None = None,
    ) -> FetchedPack:
        self.calls.append({"boundary": boundary, "name": name, "title": title, "modes": modes})
        counts: dict[str, int] = {}
        failed: list[str] = []
        stations = () if self.no_stations else STILLWATER.stations
        for done, kind in enumerate(KINDS, start=1):
            if kind == "station" and self.error is not None:
                raise self.error
            ok = kind != self.failing_kind
            count = (
                len(stations)
                if kind == "station"
                else (1 if kind == "museum" else len(STILLWATER.features_of(kind)))
            )
            if ok:
                counts[kind] = count
            else:
                failed.append(kind)
            if progress is not None:
                progress(KindProgress(kind, count if ok else None, ok, done, len(KINDS)))
        features = [f for f in STILLWATER.features if f.kind not in failed]
        if "museum" not in failed:
            features.append(MUSEUM)
        kinds = frozenset(k for k in KINDS if k not in failed and k != "station")
        pack = MapPack(
            name=name,
            boundary=boundary,
            stations=stations,
            features=tuple(features),
            kinds=kinds | (STILLWATER.kinds - set(failed)),
            title=title,
            attribution="© OpenStreetMap contributors, ODbL",
        )
        return FetchedPack(pack, counts, tuple(failed))


def pack_name(place_key: str, modes: frozenset[str], radius_m: int | None = None) -> str:
    name = f"osm-{place_key}-{'-'.join(m for m in MODES if m in modes)}"
    return f"{name}-{radius_m}m" if radius_m else name


def circle(lat: float, lon: float, radius_m: float) -> Any:
    return Point(lon, lat).buffer(radius_m / 111_000)


def default_modes(size: Size) -> frozenset[str]:
    return frozenset({"bus", "tram", "subway"} if size == Size.SMALL else {"rail", "subway"})


def clients(geocoder: FakeGeocoder | None = None, fetcher: FakeFetcher | None = None) -> MapClients:
    return MapClients(
        geocoder=geocoder or FakeGeocoder(),
        fetch=fetcher or FakeFetcher(),
        pack_name=pack_name,
        circle=circle,
        modes=MODES,
        default_modes=default_modes,
    )


def map_table(
    uow_factory: UnitOfWorkFactory,
    map_clients: MapClients | None,
    capabilities: Capabilities = CAPABILITIES,
    seed: int = 11,
) -> Table:
    """Alice, Bob and Carol at a table whose bot can get maps from ``map_clients``."""
    conversation = Conversation(uow_factory, seeds=lambda: seed, map_clients=map_clients)
    conversation.services.map_progress_every = 0.0  # every kind edits the progress
    table = Table(conversation, START, capabilities=capabilities)
    for name in NAMES:
        table.person(name)
    return table
