"""Geo engine benchmark: run ``python bench/bench_geo.py``; figures go to docs/geo.md.

Measures one geodesic inverse, a radar and a thermometer answer, nearest-feature lookups on
the Stillwater pack, measuring/matching answers, and the import of a synthetic
10,000-stop GTFS feed (written with the csv module into a temporary folder and a zip).
"""

from __future__ import annotations

import csv
import io
import random
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hideseek_chat.geo import (
    HiderFix,
    MapIndex,
    Pin,
    answer_matching,
    answer_measuring,
    answer_radar,
    answer_thermometer,
    distance_m,
    import_gtfs,
    load_map_pack,
)
from hideseek_chat.rules.ruleset import HiderPosition

NOW = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)


def per_call(label: str, func: Callable[[], object], repeat: int) -> float:
    """Print and return the best-of-5 time per call in microseconds."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat):
            func()
        best = min(best, (time.perf_counter() - start) / repeat)
    micro = best * 1e6
    print(f"{label:<48} {micro:10.2f} µs")
    return micro


def write_feed(folder: Path, stops: int = 10_000, routes: int = 200,
               trips_per_route: int = 20, stops_per_trip: int = 60) -> int:
    """Write a synthetic GTFS feed; return the number of stop_times rows."""
    rng = random.Random(7)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "stops.txt").open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["stop_id", "stop_name", "stop_lat", "stop_lon", "location_type"])
        for n in range(stops):
            out.writerow([f"S{n}", f"Stop {n}", f"{-27.5 + rng.uniform(-0.4, 0.4):.6f}",
                          f"{153.0 + rng.uniform(-0.4, 0.4):.6f}", "0"])
    with (folder / "routes.txt").open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["route_id", "route_short_name", "route_long_name", "route_type"])
        for r in range(routes):
            out.writerow([f"R{r}", str(100 + r), f"Route {r}", "3"])
    rows = 0
    with (folder / "trips.txt").open("w", newline="", encoding="utf-8") as trips, \
            (folder / "stop_times.txt").open("w", newline="", encoding="utf-8") as times:
        trip_out, time_out = csv.writer(trips), csv.writer(times)
        trip_out.writerow(["route_id", "service_id", "trip_id"])
        time_out.writerow(["trip_id", "arrival_time", "departure_time", "stop_id",
                           "stop_sequence"])
        for r in range(routes):
            pattern = rng.sample(range(stops), stops_per_trip)
            for t in range(trips_per_route):
                trip = f"R{r}T{t}"
                trip_out.writerow([f"R{r}", "WK", trip])
                for seq, stop in enumerate(pattern):
                    clock = f"{6 + t:02d}:{seq % 60:02d}:00"
                    time_out.writerow([trip, clock, clock, f"S{stop}", seq])
                    rows += 1
    return rows


def main() -> None:
    seeker = Pin(36.1219912, -97.0677365, NOW, accuracy_m=5.0)
    end = Pin(36.1146243, -97.0740291, NOW, accuracy_m=5.0)
    hider = HiderFix(36.12206, -97.06425, 5.0, HiderPosition.LIVE)
    print("geo benchmark (best of 5)")
    per_call("geodesic inverse (distance_m)",
             lambda: distance_m(36.1219912, -97.0677365, 36.12206, -97.06425), 100_000)
    per_call("radar answer", lambda: answer_radar(seeker, hider, 500.0), 100_000)
    per_call("thermometer answer", lambda: answer_thermometer(seeker, end, hider, 321.9),
             100_000)

    start = time.perf_counter()
    pack = load_map_pack("stillwater")
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    index = MapIndex(pack)
    index.nearest("restaurant", 36.12, -97.06)
    index.nearest("road", 36.12, -97.06)
    index.containing("admin-4", 36.12, -97.06)
    built = time.perf_counter() - start
    print(f"{'load Stillwater pack (cold)':<48} {loaded * 1000:10.2f} ms")
    print(f"{'index restaurant + road + quadrant layers':<48} {built * 1000:10.2f} ms")
    per_call("nearest restaurant (92 points, STRtree)",
             lambda: index.nearest("restaurant", 36.1219912, -97.0677365), 5_000)
    per_call("nearest road (616 lines, STRtree)",
             lambda: index.nearest("road", 36.1219912, -97.0677365), 2_000)
    per_call("nearest station (171 stops)",
             lambda: index.nearest_station(36.1219912, -97.0677365), 5_000)
    per_call("measuring answer (restaurant)",
             lambda: answer_measuring(index, "restaurant", seeker, hider), 2_000)
    per_call("matching answer (admin-4 quadrant)",
             lambda: answer_matching(index, "admin-4", seeker, hider), 2_000)
    per_call("matching answer (street)",
             lambda: answer_matching(index, "street", seeker, hider), 1_000)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "feed"
        rows = write_feed(folder)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in folder.iterdir():
                archive.write(path, path.name)
        data = buffer.getvalue()
        for label, source in (("folder", folder), ("zip", data)):
            start = time.perf_counter()
            feed = import_gtfs(source, name="synthetic")
            took = time.perf_counter() - start
            print(f"{f'GTFS 10,000 stops, {rows:,} stop_times ({label})':<48} "
                  f"{took:10.3f} s  ({len(feed.stations)} stations, {len(feed.routes)} routes)")


if __name__ == "__main__":
    main()
