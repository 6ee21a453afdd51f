"""Generated map packs for the seekers' map tests and benchmark: a country-size box of
random stations (names of many lengths, a few lines each) cut into four ``admin-1``
divisions; with ``places`` also points of interest, the stations as ``rail-station``
features, a coastline-like line and city street grids."""

from __future__ import annotations

import random

from shapely.geometry import LineString, Point, box

from hideseek_chat.geo import Feature, MapPack, Station
from hideseek_chat.geo.mappack import ROAD_KIND

LINES = tuple(f"L{n}" for n in range(40))


def country_pack(
    stations: int = 8_500,
    seed: int = 19,
    west: float = -1.0,
    south: float = 43.5,
    east: float = 7.0,
    north: float = 49.5,
    places: bool = False,
) -> MapPack:
    """A pack the size of a country (by default about 640 x 670 km).

    ``places`` adds, from a random stream of their own (the stations stay the same):
    ``POI_COUNTS`` points per kind, every station as a ``rail-station`` point, a
    ``coastline`` line along the west edge and ``CITIES`` grids of named ``road`` lines.
    """
    rng = random.Random(seed)
    mid_lon, mid_lat = (west + east) / 2, (south + north) / 2
    divisions = tuple(
        Feature("admin-1", name, box(*corners))
        for name, corners in (
            ("south-west", (west, south, mid_lon, mid_lat)),
            ("south-east", (mid_lon, south, east, mid_lat)),
            ("north-west", (west, mid_lat, mid_lon, north)),
            ("north-east", (mid_lon, mid_lat, east, north)),
        )
    )
    made = tuple(
        Station(
            id=f"s{n}",
            name="x" * rng.randint(3, 24),
            lat=rng.uniform(south + 0.01, north - 0.01),
            lon=rng.uniform(west + 0.01, east - 0.01),
            routes=tuple(sorted(rng.sample(LINES, rng.randint(1, 3)))),
        )
        for n in range(stations)
    )
    features: tuple[Feature, ...] = divisions
    kinds = {"admin-1"}
    if places:
        extra = _places(made, random.Random(seed + 1), west, south, east, north)
        features += extra
        kinds |= {f.kind for f in extra}
    return MapPack(
        name="country",
        boundary=box(west, south, east, north),
        stations=made,
        features=features,
        kinds=frozenset(kinds),
    )


#: Points of interest per kind in a ``places`` pack.
POI_COUNTS = {"airport": 30, "park": 300, "museum": 200}
#: City street grids in a ``places`` pack, and streets each way in each.
CITIES = 3
STREETS = 12


def _places(
    stations: tuple[Station, ...], rng: random.Random,
    west: float, south: float, east: float, north: float,
) -> tuple[Feature, ...]:
    made: list[Feature] = []
    for kind, count in POI_COUNTS.items():
        made.extend(
            Feature(kind, f"{kind} {n}", Point(rng.uniform(west, east), rng.uniform(south, north)))
            for n in range(count)
        )
    made.extend(Feature("rail-station", s.name, Point(s.lon, s.lat)) for s in stations)
    # A wavy line a little inside the west edge, like a coast.
    lats = [south + (north - south) * n / 60 for n in range(61)]
    made.append(Feature("coastline", "", LineString(
        [(west + 0.3 + 0.2 * rng.random(), lat) for lat in lats]
    )))
    for city in range(CITIES):
        lon0 = rng.uniform(west + 1.0, east - 1.0)
        lat0 = rng.uniform(south + 1.0, north - 1.0)
        step = 0.004  # about 300 m between streets
        size = step * (STREETS - 1)
        for n in range(STREETS):
            made.append(Feature(ROAD_KIND, f"C{city} avenue {n}", LineString(
                [(lon0 + n * step, lat0), (lon0 + n * step, lat0 + size)])))
            made.append(Feature(ROAD_KIND, f"C{city} street {n}", LineString(
                [(lon0, lat0 + n * step), (lon0 + size, lat0 + n * step)])))
    return tuple(made)
