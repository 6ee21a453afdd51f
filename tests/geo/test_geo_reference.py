"""Answers against an independent reference (geographiclib used directly), on random cases
including the antimeridian, high latitudes and distances exactly at the threshold."""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime

import pytest
from geographiclib.geodesic import Geodesic
from shapely.geometry import MultiPolygon, Point, box

from hideseek_chat.geo import (
    Feature,
    HiderFix,
    MapIndex,
    MapPack,
    Pin,
    Station,
    answer_measuring,
    answer_radar,
    answer_tentacle,
    answer_thermometer,
    distance_m,
)
from hideseek_chat.rules.ruleset import HiderPosition

NOW = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)
G = Geodesic.WGS84


def ref(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    return float(G.Inverse(lat1, lon1, lat2, lon2)["s12"])


def ref_point(lat: float, lon: float, azimuth: float, s: float) -> tuple[float, float]:
    line = G.Direct(lat, lon, azimuth, s)
    return float(line["lat2"]), float(line["lon2"])


def random_position(rng: random.Random) -> tuple[float, float]:
    """Uniform on the sphere, with extra weight on the poles and the antimeridian."""
    pick = rng.random()
    if pick < 0.2:
        return rng.uniform(80, 90) * rng.choice((-1, 1)), rng.uniform(-180, 180)
    if pick < 0.4:
        return rng.uniform(-80, 80), rng.choice((179.999, -179.999, 180.0, -180.0)) - \
            rng.uniform(-0.5, 0.5) * 0.001
    lat = math.degrees(math.asin(rng.uniform(-1, 1)))
    return lat, rng.uniform(-180, 180)


def wrap(lon: float) -> float:
    return (lon + 180.0) % 360.0 - 180.0


def test_distance_matches_geographiclib() -> None:
    rng = random.Random(1)
    for _ in range(5000):
        lat1, lon1 = random_position(rng)
        lat2, lon2 = random_position(rng) if rng.random() < 0.5 else ref_point(
            lat1, wrap(lon1), rng.uniform(0, 360), rng.uniform(0, 50_000))
        expected = ref(lat1, wrap(lon1), lat2, lon2)
        assert distance_m(lat1, wrap(lon1), lat2, lon2) == pytest.approx(expected, abs=1e-6)


def test_radar_matches_geographiclib_including_exact_thresholds() -> None:
    rng = random.Random(2)
    flagged_at_threshold = 0
    for n in range(5000):
        lat1, lon1 = random_position(rng)
        lon1 = wrap(lon1)
        radius = rng.choice((500.0, 1000.0, 1609.344, 5000.0, 40_000.0, 160_934.4))
        s = radius if n % 3 == 0 else rng.uniform(0, 2 * radius)  # every third on the edge
        lat2, lon2 = ref_point(lat1, lon1, rng.uniform(0, 360), s)
        seeker = Pin(lat1, lon1, NOW, accuracy_m=0.0)
        hider = HiderFix(lat2, lon2, 0.0, HiderPosition.LIVE)
        result = answer_radar(seeker, hider, radius)
        expected = ref(lat1, lon1, lat2, lon2)
        assert result.distance_m == pytest.approx(expected, abs=1e-6)
        if abs(expected - radius) < 1e-6:
            assert result.too_close_to_call
            flagged_at_threshold += 1
        else:
            assert result.answer == ("yes" if expected <= radius else "no")
    assert flagged_at_threshold > 1500


def test_thermometer_matches_geographiclib() -> None:
    rng = random.Random(3)
    for n in range(3000):
        lat_h, lon_h = random_position(rng)
        lon_h = wrap(lon_h)
        start = ref_point(lat_h, lon_h, rng.uniform(0, 360), rng.uniform(100, 20_000))
        required = rng.choice((500.0, 3000.0, 10_000.0))
        step = required if n % 4 == 0 else rng.uniform(0, 2 * required)
        end = ref_point(*start, rng.uniform(0, 360), step)
        result = answer_thermometer(
            Pin(*start, NOW, accuracy_m=0.0), Pin(*end, NOW, accuracy_m=0.0),
            HiderFix(lat_h, lon_h, 0.0, HiderPosition.LIVE), required,
        )
        travelled = ref(*start, *end)
        before, after = ref(*start, lat_h, lon_h), ref(*end, lat_h, lon_h)
        assert result.travelled_m == pytest.approx(travelled, abs=1e-6)
        if abs(travelled - required) < 1e-6:
            continue  # exactly the required distance: either reading is rounding
        if travelled < required:
            assert result.answer is None and result.reason == "not_far_enough"
        elif abs(before - after) > 1e-6:
            assert result.answer == ("hotter" if after < before else "colder")


AREAS = {
    # name: (boundary, centre lat, centre lon, spread in metres)
    "stillwater": (box(-97.2, 36.0, -96.9, 36.3), 36.15, -97.05, 15_000.0),
    "antimeridian": (
        MultiPolygon([box(179.0, -17.5, 180.0, -16.0), box(-180.0, -17.5, -179.0, -16.0)]),
        -16.75, 180.0, 60_000.0,
    ),
    "svalbard": (box(10.0, 77.0, 30.0, 80.5), 78.7, 20.0, 150_000.0),
}


def random_area_pack(name: str, rng: random.Random, count: int) -> MapPack:
    boundary, lat, lon, spread = AREAS[name]
    features = []
    while len(features) < count:
        p_lat, p_lon = ref_point(lat, lon, rng.uniform(0, 360), spread * math.sqrt(rng.random()))
        if boundary.covers(Point(p_lon, p_lat)):
            features.append(Feature("museum", f"m{len(features)}", Point(p_lon, p_lat)))
    stations = tuple(
        Station(f"s{n}", f.name, f.geometry.y, f.geometry.x) for n, f in enumerate(features[:50])
    )
    return MapPack(name, boundary, stations, tuple(features))


@pytest.mark.parametrize("area", sorted(AREAS))
def test_nearest_feature_matches_brute_force(area: str) -> None:
    rng = random.Random(area)
    pack = random_area_pack(area, rng, 150)
    index = MapIndex(pack)
    _, lat, lon, spread = AREAS[area]
    points = [(f.geometry.y, f.geometry.x, f) for f in pack.features_of("museum")]
    for _ in range(150):
        q_lat, q_lon = ref_point(lat, lon, rng.uniform(0, 360), spread * 1.3 * rng.random())
        distances = sorted((ref(q_lat, q_lon, p_lat, p_lon), f.name) for p_lat, p_lon, f in points)
        hit = index.nearest("museum", q_lat, q_lon)
        assert hit is not None
        assert hit.distance_m == pytest.approx(distances[0][0], abs=1e-6)
        if distances[1][0] - distances[0][0] > 1e-6:
            assert hit.item.name == distances[0][1]
        radius = rng.choice((1000.0, 5000.0, 20_000.0))
        within = {h.item.name for h in index.within("museum", q_lat, q_lon, radius)}
        expected = {name for d, name in distances if d <= radius - 1e-6}
        borderline = {name for d, name in distances if abs(d - radius) <= 1e-6}
        assert expected <= within <= expected | borderline
        station = index.nearest_station(q_lat, q_lon)
        assert station is not None
        best = min(ref(q_lat, q_lon, s.lat, s.lon) for s in pack.stations)
        assert station.distance_m == pytest.approx(best, abs=1e-6)


@pytest.mark.parametrize("area", sorted(AREAS))
def test_measuring_and_tentacle_match_brute_force(area: str) -> None:
    rng = random.Random(f"{area}-answers")
    pack = random_area_pack(area, rng, 100)
    index = MapIndex(pack)
    _, lat, lon, spread = AREAS[area]
    points = [(f.geometry.y, f.geometry.x, f.name) for f in pack.features_of("museum")]

    for _ in range(100):
        s_lat, s_lon = ref_point(lat, lon, rng.uniform(0, 360), spread * rng.random())
        h_lat, h_lon = ref_point(s_lat, s_lon, rng.uniform(0, 360), rng.uniform(0, 10_000))
        seeker = Pin(s_lat, s_lon, NOW, accuracy_m=0.0)
        hider = HiderFix(h_lat, h_lon, 0.0, HiderPosition.LIVE)
        measured = answer_measuring(index, "museum", seeker, hider)
        from_hider = [ref(h_lat, h_lon, p_lat, p_lon) for p_lat, p_lon, _ in points]
        from_seeker = [ref(s_lat, s_lon, p_lat, p_lon) for p_lat, p_lon, _ in points]
        d_h, d_s = min(from_hider), min(from_seeker)
        assert measured.hider_distance_m == pytest.approx(d_h, abs=1e-6)
        assert measured.seeker_distance_m == pytest.approx(d_s, abs=1e-6)
        if abs(d_h - d_s) > 1e-6:
            assert measured.answer == ("closer" if d_h < d_s else "further")
        reach = rng.choice((2000.0, 5000.0, 15_000.0))
        tentacle = answer_tentacle(index, "museum", seeker, hider, reach)
        apart = ref(s_lat, s_lon, h_lat, h_lon)
        reachable = [(d, point[2]) for d, d_seeker, point in
                     zip(from_hider, from_seeker, points, strict=True) if d_seeker <= reach]
        if abs(apart - reach) < 1e-6:
            continue
        if apart > reach or not reachable:
            assert tentacle.answer == "not_in_reach"
        else:
            reachable.sort()
            if len(reachable) < 2 or reachable[1][0] - reachable[0][0] > 1e-6:
                assert tentacle.answer == reachable[0][1]
