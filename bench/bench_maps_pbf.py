"""Country-size extract benchmark: run ``python bench/bench_maps_pbf.py``; figures in the report.

Writes a generated Japan-size extract with osmium's writer (8,500 stations in 300 city
clusters, each with platforms, a stop position and a stop area; 300 train routes with their
tracks; 100,000 POIs of ten kinds as nodes and closed ways; 200,000 named streets on city
grids; 100,000 buildings nobody keeps; one country boundary relation of 40 ways), then, each
in a child process so that the generator's memory does not count:

- ``read``: ``maps.pbf.read_elements`` over the whole file (wall time, peak RSS);
- ``builder``: ``maps.pbf.build_from_pbf`` with ``maps.build.build_from_elements`` (as
  ``hideseek-chat map build`` does; ``--builder MODULE:FUNCTION`` for another);
- answers (on the built pack): nearest station, measuring (restaurant), matching
  (park, street) on the pack's MapIndex at 2,000 points near stations; per point the best
  of 3 calls, then p50/p99 (wall and CPU) against one pyproj ``Geod.inv`` call (the floor)
  and against the same answers on the shipped Stillwater pack.

Targets (issue 17): peak RSS <= 1 GB while building; answers <= 1 ms.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import osmium
from osmium.osm.mutable import Node, Relation, Way

SOUTH, WEST, NORTH, EAST = 30.0, 129.0, 44.0, 146.0
POI_KINDS: tuple[tuple[str, str, str], ...] = (  # (key, value, pack kind)
    ("amenity", "restaurant", "restaurant"),
    ("amenity", "cafe", "restaurant"),
    ("amenity", "hospital", "hospital"),
    ("amenity", "library", "library"),
    ("amenity", "cinema", "movie-theater"),
    ("tourism", "museum", "museum"),
    ("tourism", "zoo", "zoo"),
    ("tourism", "aquarium", "aquarium"),
    ("leisure", "park", "park"),
    ("leisure", "golf_course", "golf-course"),
)
#: The pack builder the ``builder`` stage calls through ``maps.pbf.build_from_pbf``.
DEFAULT_BUILDER = "hideseek_chat.maps.build:build_from_elements"
#: Each answer is timed this many times at each point; the best counts (a busy machine's
#: descheduling is not the answer's cost). p50/p99 are then taken across the points.
REPEAT = 3


def _keep(modes: tuple[str, ...]) -> Callable[[Mapping[str, str]], bool]:
    from hideseek_chat.cli_maps import find_keep

    return find_keep(modes)


# --- the generated extract ---------------------------------------------------------------


class _Ids:
    def __init__(self) -> None:
        self.node = self.way = self.relation = 0

    def next_node(self) -> int:
        self.node += 1
        return self.node

    def next_way(self) -> int:
        self.way += 1
        return self.way

    def next_relation(self) -> int:
        self.relation += 1
        return self.relation


def write_extract(
    path: Path,
    *,
    cities: int = 300,
    stations: int = 8_500,
    pois: int = 100_000,
    roads: int = 200_000,
    buildings: int = 100_000,
    seed: int = 7,
) -> dict[str, int]:
    """Write the synthetic country to ``path``; return what it holds."""
    rng = random.Random(seed)
    ids = _Ids()
    ways: list[tuple[int, list[int], dict[str, str]]] = []
    relations: list[tuple[int, list[tuple[str, int, str]], dict[str, str]]] = []
    counts = dict.fromkeys(("nodes", "stations", "lifecycle", "routes", "pois", "roads"), 0)
    grid = max(2, round((roads / cities * 2.5) ** 0.5))  # 2 * grid * (grid - 1) / 5 streets
    with osmium.SimpleWriter(str(path)) as writer:

        def node(lat: float, lon: float, tags: dict[str, str] | None = None) -> int:
            node_id = ids.next_node()
            writer.add_node(Node(id=node_id, location=(lon, lat), tags=tags or {}))
            counts["nodes"] += 1
            return node_id

        def square(lat: float, lon: float, size: float) -> list[int]:
            corners = [(lat, lon), (lat, lon + size), (lat + size, lon + size), (lat + size, lon)]
            refs = [node(a, b) for a, b in corners]
            return [*refs, refs[0]]

        for c in range(cities):
            city = f"City{c:03d}"
            lat0, lon0 = rng.uniform(SOUTH + 1, NORTH - 1), rng.uniform(WEST + 1, EAST - 1)
            # stations, each a station node, a platform and a stop position in a stop area
            stops: list[int] = []
            for s in range(stations * c // cities, stations * (c + 1) // cities):
                lat, lon = lat0 + rng.uniform(-0.05, 0.05), lon0 + rng.uniform(-0.05, 0.05)
                name = f"{city} {'Higashi' if s % 3 else 'Nishi'}-{s}"
                if rng.random() < 0.02:
                    node(lat, lon, {"disused:railway": "station", "name": name})
                    counts["lifecycle"] += 1
                    continue
                station = node(
                    lat, lon, {"railway": "station", "public_transport": "station", "name": name}
                )
                platform = node(
                    lat + 0.0002,
                    lon,
                    {"railway": "platform", "public_transport": "platform", "name": name},
                )
                stop = node(
                    lat + 0.0001,
                    lon + 0.0001,
                    {"public_transport": "stop_position", "train": "yes", "name": name},
                )
                stops.append(stop)
                relations.append(
                    (
                        ids.next_relation(),
                        [("n", station, ""), ("n", platform, "platform"), ("n", stop, "stop")],
                        {"type": "public_transport", "public_transport": "stop_area", "name": name},
                    )
                )
                counts["stations"] += 1
            # one train line through the city's stations, with its tracks
            members: list[tuple[str, int, str]] = []
            for a, b in pairwise(stops):
                track = ids.next_way()
                ways.append((track, [a, b], {"railway": "rail", "usage": "main"}))
                members.extend([("n", a, "stop"), ("w", track, "")])
            if stops:
                members.append(("n", stops[-1], "stop"))
                relations.append(
                    (
                        ids.next_relation(),
                        members,
                        {"type": "route", "route": "train", "name": f"{city} Line"},
                    )
                )
                counts["routes"] += 1
            # POIs: seven in ten as nodes, the rest as closed ways
            for p in range(pois * c // cities, pois * (c + 1) // cities):
                key, value, _kind = POI_KINDS[p % len(POI_KINDS)]
                lat, lon = lat0 + rng.uniform(-0.06, 0.06), lon0 + rng.uniform(-0.06, 0.06)
                tags = {key: value, "name": f"{value.title()} {p}"}
                if p % 10 < 7:
                    node(lat, lon, tags)
                else:
                    ways.append((ids.next_way(), square(lat, lon, 0.0005), tags))
                counts["pois"] += 1
            # a street grid, five blocks to a named street
            origin_lat, origin_lon = lat0 - 0.04, lon0 - 0.04
            grid_ids = [
                [node(origin_lat + i * 0.002, origin_lon + j * 0.002) for j in range(grid)]
                for i in range(grid)
            ]
            for i in range(grid):
                for start in range(0, grid - 1, 5):
                    for line, street in (
                        ([grid_ids[i][j] for j in range(start, min(start + 6, grid))], "Dori"),
                        ([grid_ids[j][i] for j in range(start, min(start + 6, grid))], "Suji"),
                    ):
                        ways.append(
                            (
                                ids.next_way(),
                                line,
                                {"highway": "residential", "name": f"{city} {street} {i}"},
                            )
                        )
                        counts["roads"] += 1
            # buildings nobody keeps
            for _ in range(buildings // cities):
                lat, lon = lat0 + rng.uniform(-0.05, 0.05), lon0 + rng.uniform(-0.05, 0.05)
                ways.append((ids.next_way(), square(lat, lon, 0.0002), {"building": "yes"}))
        # the country: a rectangle drawn with 40 ways of 1,000 nodes each
        corners = [(SOUTH, WEST), (SOUTH, EAST), (NORTH, EAST), (NORTH, WEST), (SOUTH, WEST)]
        perimeter: list[int] = []
        for (a_lat, a_lon), (b_lat, b_lon) in pairwise(corners):
            for k in range(10_000):
                t = k / 10_000
                perimeter.append(node(a_lat + (b_lat - a_lat) * t, a_lon + (b_lon - a_lon) * t))
        perimeter.append(perimeter[0])
        border: list[tuple[str, int, str]] = []
        for start in range(0, len(perimeter) - 1, 1_000):
            way_id = ids.next_way()
            ways.append((way_id, perimeter[start : start + 1_001], {}))
            border.append(("w", way_id, "outer"))
        relations.append(
            (
                ids.next_relation(),
                border,
                {
                    "type": "boundary",
                    "boundary": "administrative",
                    "admin_level": "2",
                    "name": "Benchland",
                    "name:en": "Benchland",
                },
            )
        )
        for way_id, refs, tags in ways:
            writer.add_way(Way(id=way_id, nodes=refs, tags=tags))
        for relation_id, members, tags in relations:
            writer.add_relation(Relation(id=relation_id, members=members, tags=tags))
    counts["ways"], counts["relations"] = len(ways), len(relations)
    return counts


# --- the child processes ------------------------------------------------------------------


def _peak_rss_mb() -> float:
    """This process's peak resident set, in MiB.

    Linux's ``ru_maxrss`` carries the forking parent's peak over ``exec`` (the generator's
    600 MB showed up in the reader's figure), so the kernel's per-process high-water mark
    ``VmHWM`` is read first.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _quantile(samples: list[float], q: float) -> float:
    """The ``q`` quantile of ``samples`` (seconds) in microseconds."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1e6


def _time_answers(pack: Any, queries: int, seed: int, jitter: float = 0.02) -> dict[str, Any]:
    """Per-call wall and CPU p50/p99 of the answers at ``queries`` points near stations."""
    from pyproj import Geod

    from hideseek_chat.geo import HiderFix, MapIndex, Pin, answer_matching, answer_measuring
    from hideseek_chat.rules.ruleset import HiderPosition

    now = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)
    rng = random.Random(seed)
    started = time.perf_counter()
    index = MapIndex(pack)
    here = pack.stations[0]
    index.nearest_station(here.lat, here.lon)
    for kind in ("restaurant", "park", "road"):
        index.nearest(kind, here.lat, here.lon)
    answer_matching(
        index,
        "street",
        Pin(here.lat, here.lon, now),
        HiderFix(here.lat, here.lon, 5.0, HiderPosition.LIVE),
    )
    indexed = time.perf_counter() - started
    near = [(s.lat, s.lon) for s in rng.sample(pack.stations, min(queries, len(pack.stations)))]
    points = [
        (lat + rng.uniform(-jitter, jitter), lon + rng.uniform(-jitter, jitter))
        for lat, lon in near
    ]
    geod = Geod(ellps="WGS84")
    calls: dict[str, Callable[[float, float, float, float], object]] = {
        "floor: one pyproj Geod.inv": lambda a, b, c, d: geod.inv(b, a, d, c),
        "nearest station": lambda a, b, c, d: index.nearest_station(a, b),
        "measuring answer (restaurant)": lambda a, b, c, d: answer_measuring(
            index, "restaurant", Pin(a, b, now, 5.0), HiderFix(c, d, 5.0, HiderPosition.LIVE)
        ),
        "matching answer (park)": lambda a, b, c, d: answer_matching(
            index, "park", Pin(a, b, now, 5.0), HiderFix(c, d, 5.0, HiderPosition.LIVE)
        ),
        "matching answer (street)": lambda a, b, c, d: answer_matching(
            index, "street", Pin(a, b, now, 5.0), HiderFix(c, d, 5.0, HiderPosition.LIVE)
        ),
    }
    results: dict[str, Any] = {"index_s": indexed, "queries": len(points)}
    for label, call in calls.items():
        wall: list[float] = []
        cpu: list[float] = []
        for i, (a, b) in enumerate(points):
            c, d = points[(i + 1) % len(points)]
            best, best_cpu = float("inf"), float("inf")
            for _ in range(REPEAT):  # best of REPEAT per point, as bench_geo's best of 5
                start, start_cpu = time.perf_counter(), time.thread_time()
                call(a, b, c, d)
                best_cpu = min(best_cpu, time.thread_time() - start_cpu)
                best = min(best, time.perf_counter() - start)
            cpu.append(best_cpu)
            wall.append(best)
        results[label] = {
            "p50_us": _quantile(wall, 0.5),
            "p99_us": _quantile(wall, 0.99),
            "cpu_p50_us": _quantile(cpu, 0.5),
            "cpu_p99_us": _quantile(cpu, 0.99),
        }
    return results


def _stillwater(queries: int) -> dict[str, Any]:
    """The same answers on the shipped Stillwater pack (171 stops), for comparison."""
    from hideseek_chat.geo import load_map_pack

    return _time_answers(load_map_pack("stillwater"), queries, 11, jitter=0.005)


def child(
    stage: str, path: str, modes: tuple[str, ...], queries: int, builder: str = DEFAULT_BUILDER
) -> dict[str, Any]:
    from hideseek_chat.maps import pbf

    keep = _keep(modes)
    started = time.perf_counter()
    out: dict[str, Any] = {"stage": stage}
    if stage == "read":
        counts: dict[str, int] = {}
        for element in pbf.read_elements(path, keep):
            counts[element["type"]] = counts.get(element["type"], 0) + 1
        out["elements"] = counts
    elif stage == "builder":
        module, _, function = builder.partition(":")
        try:
            build = getattr(importlib.import_module(module), function)
        except (ImportError, AttributeError) as err:
            return {"stage": stage, "skipped": f"{builder} is absent ({err})"}
        boundary = pbf.boundary_from_pbf(path, "Benchland")
        pack = pbf.build_from_pbf(
            path,
            boundary,
            name="benchland",
            title="Benchland",
            modes=modes,
            keep=keep,
            build=build,
            member_geometry=pbf.not_routes,
        )
        out["built_s"] = time.perf_counter() - started
        out["pack"] = {"stations": len(pack.stations), "features": len(pack.features)}
        out["answers"] = _time_answers(pack, queries, 11)
        out["stillwater"] = _stillwater(queries)
    out["wall_s"] = time.perf_counter() - started
    out["peak_rss_mb"] = _peak_rss_mb()
    return out


def _run_child(
    stage: str, path: Path, modes: str, queries: int, builder: str = DEFAULT_BUILDER
) -> dict[str, Any]:
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            stage,
            "--builder",
            builder,
            "--modes",
            modes,
            "--queries",
            str(queries),
            str(path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"child {stage} failed:\n{done.stderr}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _print_answers(answers: Mapping[str, Any], stillwater: Mapping[str, Any]) -> None:
    print(f"  MapIndex built and warmed        {answers['index_s'] * 1000:10.1f} ms")
    floor = answers["floor: one pyproj Geod.inv"]
    for label, figures in answers.items():
        if not isinstance(figures, dict):
            continue
        ratio = figures["p50_us"] / floor["p50_us"]
        small = stillwater[label]["p50_us"]
        print(
            f"  {label:<30} p50 {figures['p50_us']:7.1f} µs  p99 {figures['p99_us']:7.1f} µs"
            f"  (CPU p99 {figures['cpu_p99_us']:7.1f})  {ratio:5.1f}x floor;"
            f" Stillwater p50 {small:6.1f} µs ({figures['p50_us'] / small:4.1f}x)"
        )
    for clock, key in (("wall", "p99_us"), ("CPU", "cpu_p99_us")):
        worst = max(v[key] for v in answers.values() if isinstance(v, dict))
        print(
            f"  worst {clock} p99 {worst / 1000:.3f} ms (target <= 1 ms): "
            f"{'ok' if worst <= 1000 else 'OVER'}"
        )
    print(f"  (per point the best of {REPEAT} calls; CPU time leaves out time descheduled)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("extract", nargs="?", help="reuse this extract instead of generating")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--modes", default="rail,subway,tram,ferry")
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument(
        "--builder", default=DEFAULT_BUILDER, help=f"MODULE:FUNCTION (default {DEFAULT_BUILDER})"
    )
    parser.add_argument("--keep-extract", help="write the generated extract here and keep it")
    parser.add_argument(
        "--buildings",
        type=int,
        default=100_000,
        help="buildings nobody keeps (bulk that must not raise the peak RSS)",
    )
    args = parser.parse_args()
    modes = tuple(m for m in args.modes.split(",") if m)
    if args.child:
        print(json.dumps(child(args.child, args.extract, modes, args.queries, args.builder)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.extract or args.keep_extract or Path(tmp) / "benchland.osm.pbf")
        if not args.extract:
            started = time.perf_counter()
            counts = write_extract(path, buildings=args.buildings)
            took = time.perf_counter() - started
            print(
                f"generated {path.name}: {path.stat().st_size / 1e6:.1f} MB in {took:.1f} s; "
                + ", ".join(f"{v:,} {k}" for k, v in counts.items())
            )
        read = _run_child("read", path, args.modes, args.queries)
        print(
            f"read_elements: {read['wall_s']:.1f} s, peak RSS "
            f"{read['peak_rss_mb']:.0f} MB (target <= 1024); elements {read['elements']}"
        )
        built = _run_child("builder", path, args.modes, args.queries, args.builder)
        if "skipped" in built:
            print(f"build_from_pbf with {args.builder}: skipped, {built['skipped']}")
        else:
            print(
                f"build_from_pbf with {args.builder}: {built['built_s']:.1f} s, peak RSS "
                f"{built['peak_rss_mb']:.0f} MB (target <= 1024); pack {built['pack']}"
            )
            _print_answers(built["answers"], built["stillwater"])


if __name__ == "__main__":
    main()
