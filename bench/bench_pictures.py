"""Picture benchmark: run ``python bench/bench_pictures.py [runs]``.

Draws the 1024x1024 seekers' map of a generated 8,500-station pack (60 by 45 km, 4,000
roads, the remaining area cut by ten circles and a half-plane) three ways: on the pack's
vectors (no tile fetch), on tiles from a local fake tile server already in the disk cache,
and the hider's 768x768 zone picture; then the seekers' maps that geo.seeking.seeker_map
works out on bench_seeking's 8,500-station country after 10 and 40 truthful answers.
Prints p50/p99 against a floor measured in the same run: encoding a blank 1024x1024
picture as PNG the same way (the least any picture costs).
"""

from __future__ import annotations

import math
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image
from shapely.geometry import LineString, Point, box
from shapely.prepared import prep

from hideseek_chat.geo.mappack import Feature, MapPack, Station
from hideseek_chat.geo.seeking import SeekerMap
from hideseek_chat.pictures import frame as fr
from hideseek_chat.pictures.seekmap import seekers_picture, zone_picture
from hideseek_chat.pictures.tiles import TileClient
from hideseek_chat.rules.ruleset import HiderPosition
from tests.pictures.fakes import FakeTiles

try:  # the geometry of issue 19 (bench_seeking's country and its truthful answers)
    from bench.bench_seeking import ZONE_M, _answer, _answered, _question
    from hideseek_chat.geo import MapIndex
    from hideseek_chat.geo.seeking import seeker_map
    from tests.geo.synthetic import country_pack
except ImportError:  # pragma: no cover - a branch without it
    country_pack = None  # type: ignore[assignment]

TARGET_MS = 300.0


def generated_pack(stations: int = 8_500, roads: int = 4_000, seed: int = 19) -> MapPack:
    """A flat made-up city: stations and wiggly roads scattered over a 60 x 45 km box."""
    rng = random.Random(seed)
    west, south, east, north = 11.2, 47.9, 12.0, 48.3
    items = tuple(
        Station(f"s{n}", f"Stop {n}", rng.uniform(south, north), rng.uniform(west, east))
        for n in range(stations)
    )
    features = []
    for n in range(roads):
        x, y = rng.uniform(west, east), rng.uniform(south, north)
        points = [(x, y)]
        for _ in range(rng.randint(2, 12)):
            x, y = x + rng.uniform(-0.004, 0.004), y + rng.uniform(-0.003, 0.003)
            points.append((x, y))
        features.append(Feature("road", f"Road {n}", LineString(points)))
    return MapPack(
        name="bench",
        boundary=box(west, south, east, north),
        stations=items,
        features=tuple(features),
        attribution="Generated for the benchmark",
    )


def seeker_view(pack: MapPack, seed: int = 40) -> SeekerMap:
    """The pack's boundary cut by radar-like circles and a thermometer-like half-plane."""
    rng = random.Random(seed)
    west, south, east, north = pack.boundary.bounds
    remaining = pack.boundary.intersection(box(west, south, (west + east) / 2 + 0.1, north))
    for _ in range(10):
        centre = Point(rng.uniform(west, east), rng.uniform(south, north))
        # ~ a 1 m chord error on a few-km circle, as geo/ densifies them.
        remaining = remaining.difference(centre.buffer(rng.uniform(0.01, 0.05), 128))
    ready = prep(remaining)
    candidates = tuple(s for s in pack.stations if ready.intersects(Point(s.lon, s.lat)))
    return SeekerMap(pack.boundary, remaining, candidates, (), (), 400.0, HiderPosition.LIVE)


def timed(label: str, func: Callable[[], object], runs: int, floor_ms: float) -> float:
    """Print wall-clock p50/p99 and the CPU time's p50 (steadier on a shared machine)."""
    func()  # warm: fonts, the pack's projected roads
    samples, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        func()
        samples.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    samples.sort()
    p50 = statistics.median(samples)
    p99 = samples[min(len(samples) - 1, math.ceil(len(samples) * 0.99) - 1)]
    print(
        f"{label:<36} p50 {p50:6.1f} ms  p99 {p99:6.1f} ms  cpu p50 {statistics.median(cpu):6.1f}"
        f" ms  ({p50 / floor_ms:4.1f}x floor)"
    )
    return p99


def blank_png() -> bytes:
    return fr.png(Image.new("RGB", (1024, 1024), fr.LAND))


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    pack = generated_pack()
    view = seeker_view(pack)
    pins = [("Ann", 48.1, 11.5), ("Bo", 48.0, 11.7), ("Cy", 48.2, 11.4)]
    print(f"pack: {len(pack.stations)} stations, {len(pack.features)} roads; "
          f"{len(view.candidates)} candidates; {runs} runs")
    floor = statistics.median(_times(blank_png, 10))
    print(f"{'floor: blank 1024x1024 PNG':<36} p50 {floor:6.1f} ms")
    vector = timed(
        "seekers' map 1024, vectors",
        lambda: seekers_picture(view, pins, pack=pack),
        runs,
        floor,
    )
    with (
        FakeTiles() as server,
        tempfile.TemporaryDirectory() as cache,
        TileClient(
            server.template, user_agent="hideseek_chat-bench", cache_dir=Path(cache),
            rate_per_s=1000.0,
        ) as tiles,
    ):
        seekers_picture(view, pins, pack=pack, tiles=tiles)  # fills the cache
        fetched = len(server.requests)
        cached = timed(
            "seekers' map 1024, cached tiles",
            lambda: seekers_picture(view, pins, pack=pack, tiles=tiles),
            runs,
            floor,
        )
        assert len(server.requests) == fetched, "the cached runs fetched tiles"
        print(f"  ({fetched} tiles fetched once, none after)")
    if country_pack is not None:
        country = country_pack()
        index = MapIndex(country)
        rng = random.Random(19)
        hider = rng.choice(country.stations)
        questions = [_question(index, ref, rng) for ref in range(40)]
        clues = [_answered(q, _answer(index, q, hider)) for q in questions]
        for answers in (10, 40):
            real = seeker_map(index, clues[:answers], ZONE_M)
            timed(
                f"seeker_map, {answers} answers ({len(real.candidates)} left)",
                lambda real=real: seekers_picture(real, pins, pack=country),
                runs,
                floor,
            )
    station = pack.stations[0]
    timed(
        "zone 768, vectors",
        lambda: zone_picture(pack, station.lat, station.lon, 400.0, station.name),
        runs,
        floor,
    )
    verdict = "met" if max(vector, cached) <= TARGET_MS else "NOT met"
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"target p99 <= {TARGET_MS:.0f} ms for the seekers' map: {verdict} (load {load})")


def _times(func: Callable[[], object], runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


if __name__ == "__main__":
    main()
