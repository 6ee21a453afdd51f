"""Generated map packs for the seekers' map tests and benchmark: a country-size box of
random stations (names of many lengths, a few lines each) cut into four ``admin-1``
divisions."""

from __future__ import annotations

import random

from shapely.geometry import box

from hideseek_chat.geo import Feature, MapPack, Station

LINES = tuple(f"L{n}" for n in range(40))


def country_pack(
    stations: int = 8_500,
    seed: int = 19,
    west: float = -1.0,
    south: float = 43.5,
    east: float = 7.0,
    north: float = 49.5,
) -> MapPack:
    """A pack the size of a country (by default about 640 x 670 km)."""
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
    return MapPack(
        name="country",
        boundary=box(west, south, east, north),
        stations=made,
        features=divisions,
        kinds=frozenset({"admin-1"}),
    )
