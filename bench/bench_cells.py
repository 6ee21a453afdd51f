"""Cells benchmark: run ``python bench/bench_cells.py``.

On generated packs of 8,500 point features (a country 1000 km across and a city 40 km
across, both big enough that cells are refined geodesically), it
times the first place_cell (building the Voronoi diagram), place_cell of places not asked
before, the same again (cached), a tentacle's place_cell among 12 places, and a distance
band; on Stillwater, street cells. Each figure is also given as a multiple of one pyproj
``Geod.inv`` call measured in the same run (the floor).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import shapely
from shapely.geometry import Point, box

from hideseek_chat.geo import Feature, MapIndex, MapPack, load_map_pack
from hideseek_chat.geo.cells import distance_band, place_cell, street_cell
from hideseek_chat.geo.distance import WGS84

COUNT = 8_500


def generated(half_width_deg: float, seed: int = 1) -> MapPack:
    """COUNT named points at random in a square around 47N 10E."""
    rnd = random.Random(seed)
    lat0, lon0 = 47.0, 10.0
    dlat, dlon = half_width_deg, half_width_deg * 1.45
    boundary = shapely.segmentize(box(lon0 - dlon, lat0 - dlat, lon0 + dlon, lat0 + dlat), 0.05)
    features = tuple(
        Feature("station", f"Station {i}",
                Point(rnd.uniform(lon0 - dlon, lon0 + dlon), rnd.uniform(lat0 - dlat, lat0 + dlat)))
        for i in range(COUNT)
    )
    return MapPack(name="generated", boundary=boundary, stations=(), features=features)


def floor_us() -> float:
    """One Geod.inv call on plain floats, best of 5 (µs)."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(20_000):
            WGS84.inv(10.0, 47.0, 10.5, 47.3)
        best = min(best, (time.perf_counter() - start) / 20_000)
    return best * 1e6


def timed(func: Callable[[], object]) -> float:
    start = time.perf_counter()
    func()
    return (time.perf_counter() - start) * 1000.0


def report(label: str, samples_ms: list[float], floor: float) -> None:
    ordered = sorted(samples_ms)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    print(f"{label:<44} p50 {p50:8.2f} ms  p99 {p99:8.2f} ms  "
          f"({p50 * 1000 / floor:,.0f}x Geod.inv)")


def one(label: str, ms: float, floor: float) -> None:
    print(f"{label:<44} {ms:8.1f} ms  ({ms * 1000 / floor:,.0f}x Geod.inv)")


def bench_pack(title: str, pack: MapPack, floor: float) -> None:
    index = MapIndex(pack)
    index._layer("station").places  # noqa: B018  (place clustering is MapIndex's own cost)
    features = list(pack.features_of("station"))
    rnd = random.Random(2)
    print(f"-- {title}")
    first = timed(lambda: place_cell(index, "station", features[0]))
    one("first place_cell (diagram build)", first, floor)
    fresh = MapIndex(pack)
    fresh._layer("station").places  # noqa: B018
    forty = rnd.sample(features, 40)
    scratch = timed(lambda: [place_cell(fresh, "station", f) for f in forty])
    one("40 place_cells from scratch (build + 40)", scratch, floor)
    asked = rnd.sample(features, 200)
    report("place_cell, new place", [timed(lambda f=f: place_cell(index, "station", f))
                                     for f in asked], floor)
    report("place_cell, cached", [timed(lambda f=f: place_cell(index, "station", f))
                                  for f in asked], floor)
    samples = []
    for f in rnd.sample(features, 40):
        hits = index.within("station", f.geometry.y, f.geometry.x, 1e9)[:12]  # type: ignore[attr-defined]
        among = [hit.item for hit in hits]
        samples.append(timed(lambda f=f, among=among: place_cell(index, "station", f, among)))
    report("place_cell among 12 (tentacle, new)", samples, floor)
    for metres in (1000.0, 10_000.0):
        band = timed(lambda m=metres: distance_band(index, "station", m))
        one(f"distance_band {metres / 1000:g} km, 8,500 points", band, floor)


def main() -> None:
    floor = floor_us()
    print(f"floor: one Geod.inv {floor:.2f} µs")
    bench_pack("country, 1000 km across (geodesic refinement)", generated(4.5), floor)
    bench_pack("city, 40 km across (still refined: its projection moves bisectors 0.4 m)",
               generated(0.18), floor)
    index = MapIndex(load_map_pack("stillwater"))
    names = sorted({f.name.casefold() for f in index.pack.features_of("road") if f.name.strip()})
    print("-- Stillwater streets")
    one("first street_cell (diagram build)", timed(lambda: street_cell(index, names[0])), floor)
    report("street_cell, new street", [timed(lambda n=n: street_cell(index, n))
                                       for n in names[1:]], floor)
    report("street_cell, cached", [timed(lambda n=n: street_cell(index, n)) for n in names],
           floor)


if __name__ == "__main__":
    main()
