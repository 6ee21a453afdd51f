"""Map fetch benchmark: run ``python bench/bench_maps_fetch.py``; figures go to docs/maps.md.

Fetches and builds a generated city from the fake Overpass server on 127.0.0.1 (the one the
tests use): 1,000 stations (each a platform, a stop position and a stop area; 60 bus and
tram routes), 20,000 POIs over twelve kinds (a quarter of them closed ways, parks and golf
courses as polygons), 5,000 named streets and four admin divisions, in one query per kind.

The floor, measured in the same run, is ``json.loads`` of the very response bytes the
server sends: no client can build the pack faster than it can read the answers. Target:
the whole fetch and build in at most 10 s.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import sys
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shapely.geometry import Polygon

from hideseek_chat.maps.fetch import KindProgress, fetch_pack
from hideseek_chat.maps.overpass import Overpass
from tests.maps.fakes import FakeServer, Recorded, Reply, query_kind

LAT, LON = 47.37, 8.54
SPAN = 0.09  # about 20 km across
STATIONS, POIS, STREETS, RUNS = 1_000, 20_000, 5_000, 5
POI_KINDS = {  # kind -> (key, value, share of the POIs)
    "restaurant": ("amenity", "restaurant", 0.40),
    "school": ("amenity", "school", 0.10),
    "park": ("leisure", "park", 0.10),
    "place-of-worship": ("amenity", "place_of_worship", 0.08),
    "museum": ("tourism", "museum", 0.05),
    "hospital": ("amenity", "hospital", 0.05),
    "library": ("amenity", "library", 0.05),
    "movie-theater": ("amenity", "cinema", 0.05),
    "golf-course": ("leisure", "golf_course", 0.04),
    "consulate": ("office", "diplomatic", 0.04),
    "zoo": ("tourism", "zoo", 0.02),
    "mountain": ("natural", "peak", 0.02),
}


def boundary() -> Polygon:
    ring = [
        (LON + SPAN * math.cos(a) * 1.45, LAT + SPAN * math.sin(a))
        for a in (2 * math.pi * i / 96 for i in range(96))
    ]
    return Polygon(ring)


def spot(rng: random.Random) -> tuple[float, float]:
    radius, angle = SPAN * math.sqrt(rng.random()) * 0.98, rng.uniform(0, 2 * math.pi)
    return LAT + radius * math.sin(angle), LON + radius * math.cos(angle) * 1.45


def square(lat: float, lon: float, half: float) -> list[dict[str, float]]:
    corners = [(-1, -1), (1, -1), (1, 1), (-1, 1), (-1, -1)]
    return [{"lat": lat + dy * half, "lon": lon + dx * half * 1.45} for dx, dy in corners]


def city() -> dict[str, list[dict[str, Any]]]:
    """Return every query's elements for the generated city, keyed by kind."""
    rng = random.Random(17)
    stations: list[dict[str, Any]] = []
    routes: dict[int, list[dict[str, Any]]] = {}
    for i in range(STATIONS):
        lat, lon = spot(rng)
        name = f"Station {i}"
        mode = {"tram": "yes"} if i % 4 == 0 else {"bus": "yes"}
        stations.append(
            {
                "type": "node",
                "id": 1_000_000 + i,
                "lat": lat,
                "lon": lon,
                "tags": {"public_transport": "platform", "name": name, **mode},
            }
        )
        stations.append(
            {
                "type": "node",
                "id": 2_000_000 + i,
                "lat": lat + 0.0002,
                "lon": lon,
                "tags": {"public_transport": "stop_position", **mode},
            }
        )
        stations.append(
            {
                "type": "relation",
                "id": 3_000_000 + i,
                "members": [
                    {"type": "node", "ref": 1_000_000 + i, "role": "platform"},
                    {"type": "node", "ref": 2_000_000 + i, "role": "stop"},
                ],
                "tags": {"type": "public_transport", "public_transport": "stop_area", "name": name},
            }
        )
        for route in rng.sample(range(60), 3):
            routes.setdefault(route, []).append(
                {"type": "node", "ref": 2_000_000 + i, "role": "stop"}
            )
    for route, members in routes.items():
        stations.append(
            {
                "type": "relation",
                "id": 4_000_000 + route,
                "members": members,
                "tags": {
                    "type": "route",
                    "route": "tram" if route < 15 else "bus",
                    "ref": str(route),
                },
            }
        )
    by_kind: dict[str, list[dict[str, Any]]] = {"station": stations}
    next_id = 5_000_000
    for kind, (key, value, share) in POI_KINDS.items():
        items = by_kind.setdefault(kind, [])
        for n in range(int(POIS * share)):
            next_id += 1
            lat, lon = spot(rng)
            tags = {key: value, "name": f"{kind} {n}"}
            if kind in ("park", "golf-course") or n % 4 == 0:
                items.append(
                    {
                        "type": "way",
                        "id": next_id,
                        "tags": tags,
                        "geometry": square(lat, lon, 0.0008),
                    }
                )
            else:
                items.append({"type": "node", "id": next_id, "lat": lat, "lon": lon, "tags": tags})
    roads = by_kind.setdefault("road", [])
    for n in range(STREETS):
        next_id += 1
        lat, lon = spot(rng)
        geometry = [
            {"lat": lat + 0.0005 * k, "lon": lon + 0.0007 * k * (-1) ** n} for k in range(8)
        ]
        roads.append(
            {
                "type": "way",
                "id": next_id,
                "geometry": geometry,
                "tags": {"highway": "residential", "name": f"Street {n}"},
            }
        )
    quadrants = by_kind.setdefault("admin-4", [])
    for q, (sx, sy) in enumerate(((1, 1), (-1, 1), (-1, -1), (1, -1))):
        ring = [
            (LAT, LON),
            (LAT + sy * SPAN * 1.1, LON),
            (LAT + sy * SPAN * 1.1, LON + sx * SPAN * 1.6),
            (LAT, LON + sx * SPAN * 1.6),
            (LAT, LON),
        ]
        quadrants.append(
            {
                "type": "relation",
                "id": 6_000_000 + q,
                "members": [
                    {
                        "type": "way",
                        "ref": 6_100_000 + q,
                        "role": "outer",
                        "geometry": [{"lat": a, "lon": b} for a, b in ring],
                    }
                ],
                "tags": {
                    "type": "boundary",
                    "boundary": "administrative",
                    "admin_level": "10",
                    "name": f"Q{q}",
                },
            }
        )
    return by_kind


def main() -> None:
    bodies = {
        kind: json.dumps({"version": 0.6, "elements": items}).encode()
        for kind, items in city().items()
    }
    empty = json.dumps({"version": 0.6, "elements": []}).encode()
    replies = {
        kind: Reply(200, body, {"Content-Type": "application/json"})
        for kind, body in bodies.items()
    }
    fallback = Reply(200, empty, {"Content-Type": "application/json"})

    def respond(request: Recorded) -> Reply:
        return replies.get(query_kind(request), fallback)

    size = sum(len(b) for b in bodies.values())
    print(
        f"fake Overpass city: {STATIONS:,} stations, {POIS:,} POIs, {STREETS:,} streets, "
        f"{size / 1e6:.1f} MB of JSON"
    )
    area = boundary()
    totals, floors, per_query = [], [], []
    with FakeServer(respond) as server:
        overpass = Overpass(
            [server.base_url + "/api/interpreter"], "hideseek-bench/1.0", sleep=lambda _: None
        )
        for _ in range(RUNS):
            floor_start = time.perf_counter()
            for body in bodies.values():
                json.loads(body)
            floors.append(time.perf_counter() - floor_start)
            marks = [time.perf_counter()]

            def heard(_: KindProgress, marks: list[float] = marks) -> None:
                marks.append(time.perf_counter())

            start = time.perf_counter()
            fetched = fetch_pack(
                overpass,
                area,
                name="osm-bench",
                title="Bench City",
                modes={"bus", "tram"},
                country_code="CH",
                progress=heard,
            )
            totals.append(time.perf_counter() - start)
            per_query += [b - a for a, b in pairwise(marks)]
    pack = fetched.pack
    features = sum(fetched.counts.values()) - fetched.counts["station"]
    print(
        f"built: {len(pack.stations):,} stations, {features:,} features in "
        f"{len(pack.kinds)} covered kinds, failed={fetched.failed}"
    )
    best, median = min(totals), statistics.median(totals)
    floor = min(floors)
    ordered = sorted(per_query)
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
    print(f"{'fetch + build, best of ' + str(RUNS):<40} {best:8.3f} s  (median {median:.3f} s)")
    print(f"{'floor: json.loads of the same bytes':<40} {floor:8.3f} s")
    print(f"{'ratio to the floor (best)':<40} {best / floor:8.1f} x")
    print(
        f"{'per query+build, p50 / p99':<40} {statistics.median(ordered) * 1000:8.1f} ms"
        f" / {p99 * 1000:.1f} ms  ({len(ordered)} queries)"
    )
    verdict = "meets" if best <= 10.0 else "MISSES"
    print(f"target ≤ 10 s: {verdict} ({best:.2f} s)")


if __name__ == "__main__":
    main()
