"""Seekers' map benchmark: run ``python bench/bench_seeking.py``; figures go to docs/geo.md.

A generated 8,500-station country (tests/geo/synthetic.py, with places), a hider at a random
station, 40 answers computed truthfully. Two mixes: ``full`` (every kind the seekers' map
handles: radar, thermometer, transit line, name length, admin-1, measuring to rail stations,
airports and the coast, matching the nearest airport, park, museum and street, museum
tentacles; the seekers' pins close in on the hider as the game goes) and ``old`` (the first
five kinds only, pins anywhere, for comparison with earlier figures). Prints the time of
``seeker_map`` from scratch and of each ``with_clue`` step (p50 / p99, overall and per clue
kind), both as ratios of one ``Geod.inv`` call measured in the same run, and checks the
candidates and the remaining area against brute force. Measuring answers' bands are drawn
when the area is first read: "from scratch" reads it; per answer is timed twice, once with
the stations alone (the update path: the caption's count, ``/stations``) and once reading
the area after every answer (what a picture after each answer costs).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import shapely

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hideseek_chat.geo import (
    HiderFix,
    MapIndex,
    Pin,
    Station,
    answer_matching,
    answer_measuring,
    answer_radar,
    answer_station_name_length,
    answer_tentacle,
    answer_thermometer,
    answer_transit_line,
    cells,
    distance_m,
    nearness,
    voronoi,
)
from hideseek_chat.geo.seeking import Clue, SeekerMap, seeker_map, with_clue
from hideseek_chat.rules.ruleset import HiderPosition
from tests.geo.synthetic import country_pack

NOW = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)
ZONE_M = 800.0
ANSWERS = 40


def _pin(index: MapIndex, rng: random.Random) -> Pin:
    minx, miny, maxx, maxy = index.pack.boundary.bounds
    return Pin(rng.uniform(miny, maxy), rng.uniform(minx, maxx), NOW)


OLD_MIX = (
    "radar",
    "thermometer",
    "radar",
    "transit-line",
    "station-name-length",
    "admin-1",
    "thermometer",
)
# 40 questions, in the order asked.
FULL_MIX = (
    "radar",
    "measuring:rail-station",
    "thermometer",
    "matching:airport",
    "admin-1",
    "measuring:airport",
    "radar",
    "transit-line",
    "thermometer",
    "measuring:coastline",
    "matching:park",
    "radar",
    "measuring:rail-station",
    "station-name-length",
    "tentacle:museum",
    "thermometer",
    "matching:museum",
    "measuring:airport",
    "radar",
    "transit-line",
    "matching:airport",
    "measuring:rail-station",
    "thermometer",
    "matching:park",
    "tentacle:museum",
    "radar",
    "matching:street",
    "admin-1",
    "measuring:coastline",
    "thermometer",
    "matching:museum",
    "station-name-length",
    "measuring:rail-station",
    "radar",
    "transit-line",
    "tentacle:museum",
    "thermometer",
    "matching:street",
    "measuring:airport",
    "radar",
)


def _near(index: MapIndex, hider: Station, ref: int, rng: random.Random) -> Pin:
    """A seeker's pin, closer to the hider as the game goes (300 km away at first, 20 km
    at the end), in the map."""
    spread = max(20e3, 300e3 * (1 - ref / ANSWERS))
    minx, miny, maxx, maxy = index.pack.boundary.bounds
    lat = hider.lat + rng.uniform(-1, 1) * spread / 111e3
    lon = hider.lon + rng.uniform(-1, 1) * spread / 78e3
    return Pin(min(max(lat, miny), maxy), min(max(lon, minx), maxx), NOW)


def _question(index: MapIndex, ref: int, rng: random.Random, hider: Station | None = None) -> Clue:
    """A question as asked: the seekers' pins and numbers, no answer yet (``hider``: the
    full mix, whose pins close in on the hider)."""
    if hider is None:
        kind, seeker = OLD_MIX[ref % 7], _pin(index, rng)
    else:
        kind, seeker = FULL_MIX[ref % len(FULL_MIX)], _near(index, hider, ref, rng)
    category, _, subject = kind.partition(":")
    if category == "matching" and subject == "street":
        road = rng.choice(index.pack.features_of("road")).geometry.interpolate(0.5, normalized=True)
        seeker = Pin(road.y + rng.uniform(-0.002, 0.002), road.x + rng.uniform(-0.002, 0.002), NOW)
    if category in ("measuring", "matching"):
        return Clue(ref, category, subject, seeker=seeker)
    if category == "tentacle":
        return Clue(ref, "tentacle", subject, distance_m=25e3, seeker=seeker)
    if kind == "radar":
        return Clue(ref, "radar", distance_m=rng.choice([5e3, 2e4, 5e4, 1.6e5]), seeker=seeker)
    if kind == "thermometer":
        end = Pin(seeker.lat + rng.uniform(-0.1, 0.1), seeker.lon + rng.uniform(-0.1, 0.1), NOW)
        return Clue(ref, "thermometer", seeker=seeker, end=end)
    if kind == "transit-line":
        return Clue(ref, "matching", kind, detail=rng.choice(index.pack.routes), seeker=seeker)
    return Clue(ref, "matching", kind, seeker=seeker)


def _answer(index: MapIndex, question: Clue, station: Station) -> str | None:
    """The truthful answer with the hider at ``station`` (answers from the station)."""
    fix = HiderFix(station.lat, station.lon, 0.0, HiderPosition.STATION, station.id)
    seeker = question.seeker
    assert seeker is not None
    if question.category == "radar":
        assert question.distance_m is not None
        return answer_radar(seeker, fix, question.distance_m).answer
    if question.category == "thermometer":
        assert question.end is not None
        return answer_thermometer(seeker, question.end, fix, 0.0).answer
    if question.category == "measuring":
        return answer_measuring(index, question.subject, seeker, fix).answer
    if question.category == "tentacle":
        assert question.distance_m is not None
        return answer_tentacle(index, question.subject, seeker, fix, question.distance_m).answer
    if question.subject == "transit-line":
        return answer_transit_line(question.detail or "", station, fix).answer
    if question.subject == "station-name-length":
        near = index.nearest_station(seeker.lat, seeker.lon)
        assert near is not None
        return answer_station_name_length(station, near.item, fix).answer
    return answer_matching(index, question.subject, seeker, fix).answer


def _answered(question: Clue, answer: str | None) -> Clue:
    if question.category == "tentacle" and answer not in (None, "null", "not_in_reach"):
        return Clue(
            question.ref,
            question.category,
            question.subject,
            "named",
            answer,
            question.distance_m,
            question.seeker,
            question.end,
        )
    return Clue(
        question.ref,
        question.category,
        question.subject,
        answer,
        question.detail,
        question.distance_m,
        question.seeker,
        question.end,
    )


def _label(clue: Clue) -> str:
    return f"{clue.category}:{clue.subject}" if clue.subject else clue.category


def main() -> None:
    build = time.perf_counter()
    pack = country_pack(places=True)
    index = MapIndex(pack)
    print(
        f"pack: {len(pack.stations)} stations, {len(pack.features)} features, "
        f"built in {time.perf_counter() - build:.1f} s"
    )
    floor = min(_timed(lambda: distance_m(45.0, 3.0, 46.0, 4.0), 2_000) for _ in range(5))
    print(f"one Geod.inv (distance_m):  {floor * 1e6:8.2f} µs")
    for mix in ("full", "old"):
        rng = random.Random(19)
        hider = rng.choice(pack.stations)
        questions = [
            _question(index, ref, rng, hider if mix == "full" else None) for ref in range(ANSWERS)
        ]
        clues = [_answered(q, _answer(index, q, hider)) for q in questions]
        _run(index, mix, hider, clues, floor)
        _exactness(index, questions, clues, rng)


def _forget_answers() -> None:
    """Drop what earlier answers left in the caches (bands, cells, tentacle diagrams); keep
    what belongs to the map alone (the station table, each kind's whole diagram)."""
    for store in (cells._BANDS, voronoi.AMONG):
        store._items.clear()
    for _, (_, diagram) in list(voronoi.DIAGRAMS._items.items()):
        diagram._cells._items.clear()


def _run(index: MapIndex, mix: str, hider: Station, clues: list[Clue], floor: float) -> None:
    first = _timed(lambda: seeker_map(index, clues, ZONE_M).remaining, 1)
    print(f"[{mix}] first map on this index (the kinds' diagrams built too): {first * 1e3:7.1f} ms")
    # Like the diagrams, each station's distance to a kind and nearest place belong to
    # the map alone: measured once (answers otherwise do it on first use).
    measuring = {c.subject for c in clues if c.category == "measuring"}
    matching = {c.subject for c in clues if c.category == "matching"} - {
        "transit-line",
        "station-name-length",
        "admin-1",
    }
    tables = _timed(lambda: nearness.prepare(index, measuring, matching), 1)
    print(
        f"[{mix}] every station measured and looked up for the kinds asked: "
        f"{tables * 1e3:7.1f} ms (once per map)"
    )
    for basis in HiderPosition:
        tag = f"[{mix} {basis}]"
        cold, cpu = [], []
        for _ in range(3):
            _forget_answers()
            took, used = _timed_cpu(lambda b=basis: seeker_map(index, clues, ZONE_M, b).remaining)
            cold.append(took)
            cpu.append(used)
        stations = []
        for _ in range(3):
            _forget_answers()
            stations.append(_timed(lambda b=basis: seeker_map(index, clues, ZONE_M, b), 1))
        scratch = min(cold)
        print(
            f"{tag} from scratch, {ANSWERS} answers, area and stations: {scratch * 1e3:7.1f} ms "
            f"(of 3: {', '.join(f'{t * 1e3:.0f}' for t in cold)} ms; CPU "
            f"{min(cpu) * 1e3:.0f} ms; {scratch / floor:,.0f} x Geod.inv); stations only "
            f"{min(stations) * 1e3:7.1f} ms"
        )
        for read, what in (
            (False, "stations (area not read)"),
            (True, "stations + area read after each"),
        ):
            _forget_answers()
            steps, cpus, sizes = _steps(index, clues, basis, read)
            p50, p99 = statistics.median(steps), float(np.percentile(steps, 99))
            print(
                f"{tag} per answer, {what}: p50 {p50 * 1e3:6.2f} ms, p99 {p99 * 1e3:7.2f} ms,"
                f" max {max(steps) * 1e3:7.2f} ms (CPU p50 {statistics.median(cpus) * 1e3:.2f}"
                f" ms, p99 {float(np.percentile(cpus, 99)) * 1e3:.2f} ms; "
                f"{p50 / floor:,.0f} x / {p99 / floor:,.0f} x Geod.inv)"
            )
            if read:
                _over(tag, clues, steps, sizes)
            kinds: dict[str, list[float]] = {}
            for clue, took in zip(clues, steps, strict=True):
                kinds.setdefault(_label(clue), []).append(took)
            for label, times in sorted(kinds.items()):
                print(
                    f"{tag}   {label:28s} n={len(times):2d} p50 "
                    f"{statistics.median(times) * 1e3:7.2f} ms, p99 "
                    f"{float(np.percentile(times, 99)) * 1e3:7.2f} ms"
                )
        view = seeker_map(index, clues, ZONE_M, basis)
        print(
            f"{tag} {len(view.candidates)} candidates, {len(view.not_applied)} not applied"
            f", hider kept: {hider in view.candidates}; area "
            f"{len(shapely.get_coordinates(view.remaining)):,} vertices"
        )


def _timed_cpu(func: object) -> tuple[float, float]:
    """Wall and CPU time of one call."""
    assert callable(func)
    start, cpu = time.perf_counter(), time.process_time()
    func()
    return time.perf_counter() - start, time.process_time() - cpu


def _timed(func: object, repeat: int) -> float:
    assert callable(func)
    start = time.perf_counter()
    for _ in range(repeat):
        func()
    return (time.perf_counter() - start) / repeat


def _steps(
    index: MapIndex, clues: list[Clue], basis: HiderPosition, read: bool
) -> tuple[list[float], list[float], list[tuple[int, float]]]:
    """Each answer's ``with_clue`` (and, with ``read``, reading the area after it, as a
    picture after each answer does): wall and CPU times; with ``read``, each area's
    vertices and the floor under any exact drawing of it (untimed, see :func:`_floor`)."""
    view = seeker_map(index, [], ZONE_M, basis)
    times, cpus, sizes = [], [], []
    for clue in clues:
        # Once each: a second call would find its band or cell kept.
        start, cpu = time.perf_counter(), time.process_time()
        view = with_clue(index, view, clue)
        if read:
            _ = view.remaining
        times.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
        if read:
            sizes.append(_floor(view.remaining))
    return times, cpus, sizes


def _floor(area: shapely.Geometry) -> tuple[int, float]:
    """The area's vertices, and a floor under any exact drawing of it: building the
    finished geometry from its own bytes, which no overlay producing it can beat (best of
    3; an overlay also finds every one of those vertices)."""
    wkb = shapely.to_wkb(area)
    best = min(_timed(lambda: shapely.from_wkb(wkb), 1) for _ in range(3))
    return len(shapely.get_coordinates(area)), best


def _over(tag: str, clues: list[Clue], steps: list[float], sizes: list[tuple[int, float]]) -> None:
    """The answers whose area read took over 20 ms, each beside its floor."""
    for clue, took, (vertices, floor) in zip(clues, steps, sizes, strict=True):
        if took > 0.020:
            print(
                f"{tag}   over 20 ms: #{clue.ref:2d} {_label(clue):28s} {took * 1e3:8.1f} ms,"
                f" area {vertices:8,} vertices, floor {floor * 1e3:6.2f} ms"
            )


def _exactness(
    index: MapIndex, questions: list[Clue], clues: list[Clue], rng: random.Random
) -> None:
    """Candidates (answers from the station) against every station answered by brute force;
    the remaining area against random points answered by brute force."""
    view: SeekerMap = seeker_map(index, clues, ZONE_M, HiderPosition.STATION)
    # A tentacle's truthful answer is the place's name (the clue says "named" + detail).
    wanted = [
        c.detail if c.category == "tentacle" and c.answer == "named" else c.answer for c in clues
    ]
    consistent = {
        s.id
        for s in index.pack.stations
        if all(_answer(index, q, s) == w for q, w in zip(questions, wanted, strict=True))
    }
    got = {s.id for s in view.candidates}
    print(
        f"candidates vs brute force: {len(got)} found, {len(consistent)} consistent, "
        f"{len(consistent - got)} missed, {len(got - consistent)} extra"
    )
    minx, miny, maxx, maxy = index.pack.boundary.bounds
    wrong = checked = 0
    area_clues = [
        (q, c)
        for q, c in zip(questions, clues, strict=True)
        if c.category in ("radar", "thermometer")
    ]
    # Sample near the remaining area so both sides of its edges are tried.
    rminx, rminy, rmaxx, rmaxy = (
        view.remaining.bounds if not view.remaining.is_empty else (minx, miny, maxx, maxy)
    )
    for _ in range(20_000):
        lat = rng.uniform(max(miny, rminy - 0.05), min(maxy, rmaxy + 0.05))
        lon = rng.uniform(max(minx, rminx - 0.05), min(maxx, rmaxx + 0.05))
        point = Station("p", "", lat, lon)
        margin = min(_margin(q, point) for q, _ in area_clues)
        if margin < 1.0:
            continue
        checked += 1
        truth = all(_answer(index, q, point) == c.answer for q, c in area_clues)
        inside = bool(shapely.intersects_xy(_area_only(index, clues), lon, lat))
        wrong += truth != inside
    print(
        f"remaining area (radar + thermometer clues) vs brute force: {checked} points "
        f">= 1 m from an edge, {wrong} wrong"
    )


_AREA: dict[int, shapely.Geometry] = {}


def _area_only(index: MapIndex, clues: list[Clue]) -> shapely.Geometry:
    key = id(clues)
    if key not in _AREA:
        view = seeker_map(
            index,
            [c for c in clues if c.category in ("radar", "thermometer")],
            ZONE_M,
            HiderPosition.STATION,
        )
        shapely.prepare(view.remaining)
        _AREA[key] = view.remaining
    return _AREA[key]


def _margin(question: Clue, point: Station) -> float:
    """How far (roughly, metres) a point is from the question's edge."""
    seeker = question.seeker
    assert seeker is not None
    if question.category == "radar":
        assert question.distance_m is not None
        return abs(distance_m(seeker.lat, seeker.lon, point.lat, point.lon) - question.distance_m)
    assert question.end is not None
    gap = distance_m(seeker.lat, seeker.lon, point.lat, point.lon) - distance_m(
        question.end.lat, question.end.lon, point.lat, point.lon
    )
    return abs(gap) / 2


if __name__ == "__main__":
    main()
