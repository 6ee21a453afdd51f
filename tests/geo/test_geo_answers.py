"""Automatic answers on hand-checked cases from the real Stillwater map."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest
from geographiclib.geodesic import Geodesic
from shapely.geometry import Point, box

from hideseek_chat.geo import (
    Feature,
    HiderFix,
    MapIndex,
    MapPack,
    Pin,
    PositionUnavailable,
    Station,
    Zone,
    answer_matching,
    answer_measuring,
    answer_radar,
    answer_station_name_length,
    answer_tentacle,
    answer_thermometer,
    answer_transit_line,
    hider_fix,
    load_map_pack,
    public_answer,
)
from hideseek_chat.rules.ruleset import HiderPosition
from hideseek_chat.rules.units import parse_distance

NOW = datetime(2025, 5, 1, 15, 0, tzinfo=UTC)
FRESH = timedelta(minutes=5)
WGS84 = Geodesic.WGS84

# Real places in Stillwater, OK (lat, lon) from the shipped map data.
STUDENT_UNION = (36.1219912, -97.0677365)  # bus stop 2
HESTER_4TH_SOUTH = (36.1178609, -97.0668834)  # bus stop 157
ESKIMO_JOES = (36.12206, -97.06425)  # restaurant, on Elm Ave
STILLWATER_HIGH = (36.13636, -97.06305)  # school, north of McElroy, west of Husband
JUNIOR_HIGH = (36.14042, -97.03884)  # school, north of McElroy, east of Husband
HIGHLAND_PARK_ELEMENTARY = (36.11793, -97.02629)  # school, south-east
MEDICAL_CENTER = (36.1146243, -97.0740291)  # bus stop 77


@pytest.fixture(scope="module")
def index() -> MapIndex:
    return MapIndex(load_map_pack("stillwater"))


def pin(place: tuple[float, float], accuracy: float | None = 5.0) -> Pin:
    return Pin(place[0], place[1], NOW, accuracy_m=accuracy)


def live_hider(place: tuple[float, float], accuracy: float | None = 5.0) -> HiderFix:
    return HiderFix(place[0], place[1], accuracy, HiderPosition.LIVE)


def reference(a: tuple[float, float], b: tuple[float, float]) -> float:
    return float(WGS84.Inverse(a[0], a[1], b[0], b[1])["s12"])


def test_radar_student_union_to_hester_and_4th() -> None:
    # 0.00413° of latitude (about 459 m) and 0.00085° of longitude (about 77 m): ~465 m.
    seeker = pin(STUDENT_UNION)
    hider = live_hider(HESTER_4TH_SOUTH)
    result = answer_radar(seeker, hider, parse_distance("0.5 km"))
    assert result.answer == "yes"
    assert result.distance_m == pytest.approx(465, abs=5)
    assert result.distance_m == pytest.approx(reference(STUDENT_UNION, HESTER_4TH_SOUTH), abs=1e-6)
    assert not result.too_close_to_call
    assert result.hider_basis == HiderPosition.LIVE
    assert result.seeker_accuracy_m == 5.0 and result.hider_accuracy_m == 5.0
    assert answer_radar(seeker, hider, parse_distance("1/4 mi")).answer == "no"  # 402 m
    edge = answer_radar(seeker, hider, parse_distance("1500 ft"))  # 457.2 m: 8 m short
    assert edge.answer == "no"
    assert edge.too_close_to_call is True  # 8 m is less than the 5 m + 5 m accuracies


def test_radar_too_close_to_call_uses_both_accuracies() -> None:
    seeker = pin(STUDENT_UNION, accuracy=10)
    hider = live_hider(HESTER_4TH_SOUTH, accuracy=10)
    d = reference(STUDENT_UNION, HESTER_4TH_SOUTH)
    assert answer_radar(seeker, hider, d + 19).too_close_to_call
    assert not answer_radar(seeker, hider, d + 21).too_close_to_call
    assert answer_radar(seeker, hider, d).answer == "yes"  # on the edge counts as within


def test_thermometer_walk_from_medical_center_towards_the_union() -> None:
    hider = live_hider(STUDENT_UNION)
    start = pin(MEDICAL_CENTER)
    end = pin(HESTER_4TH_SOUTH)
    result = answer_thermometer(start, end, hider, parse_distance("0.2 mi"))
    assert result.travelled_m == pytest.approx(reference(MEDICAL_CENTER, HESTER_4TH_SOUTH))
    assert result.travelled_m > 321.8
    assert result.answer == "hotter"
    assert result.end_distance_m < result.start_distance_m
    backwards = answer_thermometer(end, start, hider, parse_distance("0.2 mi"))
    assert backwards.answer == "colder"
    short = answer_thermometer(start, end, hider, parse_distance("1 km"))
    assert short.answer is None and short.reason == "not_far_enough"


def test_thermometer_equal_distances_is_colder_and_flagged() -> None:
    hider = live_hider((36.12, -97.07), accuracy=0.0)
    start = Pin(36.13, -97.07, NOW, accuracy_m=0.0)
    end = Pin(36.11, -97.07, NOW, accuracy_m=0.0)  # mirror image: almost equal distances
    result = answer_thermometer(start, end, hider, 100)
    assert abs(result.start_distance_m - result.end_distance_m) < 30
    assert result.answer == ("hotter" if result.end_distance_m < result.start_distance_m
                             else "colder")
    tied = answer_thermometer(start, start.__class__(36.13, -97.07, NOW, accuracy_m=0.0),
                              hider, 0)
    assert tied.answer == "colder" and tied.too_close_to_call


def test_hider_position_setting_is_stated() -> None:
    station = Station("2", "Student Union", *STUDENT_UNION, ("Scarlet",))
    zone = Zone(station, 402.336)
    live = Pin(*ESKIMO_JOES, NOW - timedelta(minutes=1), accuracy_m=7)
    fix = hider_fix(HiderPosition.LIVE, NOW, live=live, zone=zone, max_pin_age=FRESH)
    assert (fix.lat, fix.lon, fix.accuracy_m, fix.basis) == (*ESKIMO_JOES, 7.0, "live")
    fix = hider_fix(HiderPosition.STATION, NOW, live=live, zone=zone, max_pin_age=FRESH)
    assert (fix.lat, fix.lon, fix.basis, fix.station_id) == (*STUDENT_UNION, "station", "2")
    radar = answer_radar(pin(HESTER_4TH_SOUTH), fix, 500)
    assert radar.hider_basis == HiderPosition.STATION
    stale = Pin(*ESKIMO_JOES, NOW - timedelta(minutes=6))
    for kwargs, reason in [
        ({"live": stale}, "stale_pin"),
        ({"live": Pin(*ESKIMO_JOES, NOW, forwarded=True)}, "forwarded"),
        ({}, "no_live_pin"),
    ]:
        with pytest.raises(PositionUnavailable) as caught:
            hider_fix(HiderPosition.LIVE, NOW, max_pin_age=FRESH, **kwargs)  # type: ignore[arg-type]
        assert caught.value.reason == reason
    with pytest.raises(PositionUnavailable) as caught:
        hider_fix(HiderPosition.STATION, NOW, max_pin_age=FRESH)
    assert caught.value.reason == "no_zone"


def test_measuring_restaurant_hider_at_eskimo_joes(index: MapIndex) -> None:
    result = answer_measuring(index, "restaurant", pin(MEDICAL_CENTER), live_hider(ESKIMO_JOES))
    assert result.answer == "closer"
    assert result.hider_feature is not None and result.hider_feature.name == "Eskimo Joe's"
    assert result.hider_distance_m is not None and result.hider_distance_m < 5
    assert result.seeker_feature is not None and result.seeker_feature.name == "McDonald's"
    assert result.seeker_distance_m == pytest.approx(376, abs=1)
    flipped = answer_measuring(index, "restaurant", pin(ESKIMO_JOES), live_hider(MEDICAL_CENTER))
    assert flipped.answer == "further"


def test_measuring_without_data_or_features(index: MapIndex) -> None:
    seeker, hider = pin(STUDENT_UNION), live_hider(ESKIMO_JOES)
    assert answer_measuring(index, "museum", seeker, hider).reason == "no_map_data"
    assert answer_measuring(index, "museum", seeker, hider).answer is None
    sea = answer_measuring(index, "sea-level", seeker, hider)
    assert sea.answer is None and sea.reason == "no_elevation_data"
    empty = MapPack("x", box(-97.1, 36.1, -97.0, 36.2), (), (), kinds=frozenset({"museum"}))
    result = answer_measuring(MapIndex(empty), "museum", seeker, hider)
    assert (result.answer, result.reason) == ("null", "no_feature_in_boundary")


@pytest.mark.parametrize(
    ("hider_place", "seeker_place", "answer", "hider_quadrant", "seeker_quadrant"),
    [
        (STUDENT_UNION, ESKIMO_JOES, "yes", "SW", "SW"),
        (STILLWATER_HIGH, JUNIOR_HIGH, "no", "NW", "NE"),
        (HIGHLAND_PARK_ELEMENTARY, STUDENT_UNION, "no", "SE", "SW"),
        (JUNIOR_HIGH, (36.13847, -97.04134), "yes", "NE", "NE"),  # Skyline Elementary
    ],
)
def test_matching_quadrants(
    index: MapIndex,
    hider_place: tuple[float, float],
    seeker_place: tuple[float, float],
    answer: str,
    hider_quadrant: str,
    seeker_quadrant: str,
) -> None:
    result = answer_matching(index, "admin-4", pin(seeker_place), live_hider(hider_place))
    assert (result.answer, result.hider_value, result.seeker_value) == (
        answer, hider_quadrant, seeker_quadrant
    )
    assert not result.too_close_to_call


def test_matching_quadrant_near_mcelroy_is_too_close_to_call(index: MapIndex) -> None:
    # Stop 36 "McElroy & Main" is about 130 m north of McElroy Road's centre line.
    near_line = (36.13055, -97.07)  # a few metres from McElroy Road
    result = answer_matching(index, "admin-4", pin(near_line, 10), live_hider(STUDENT_UNION))
    assert result.too_close_to_call
    assert result.seeker_number is not None and result.seeker_number < 10


def test_matching_nearest_restaurant_and_school(index: MapIndex) -> None:
    same = answer_matching(index, "restaurant", pin((36.12210, -97.06430)),
                           live_hider(ESKIMO_JOES))
    assert same.answer == "yes" and same.hider_value == "Eskimo Joe's"
    other = answer_matching(index, "restaurant", pin(MEDICAL_CENTER), live_hider(ESKIMO_JOES))
    assert (other.answer, other.seeker_value) == ("no", "McDonald's")
    school = answer_matching(index, "school", pin(STILLWATER_HIGH), live_hider(JUNIOR_HIGH))
    assert school.answer == "no"
    outside = answer_matching(index, "admin-4", pin((36.25, -97.03)), live_hider(JUNIOR_HIGH))
    assert (outside.answer, outside.reason) == (None, "not_in_any_division")
    assert school.hider_value == "Stillwater Junior High School"
    assert school.seeker_value == "Stillwater High School"
    nothing = answer_matching(index, "zoo", pin(STILLWATER_HIGH), live_hider(JUNIOR_HIGH))
    assert (nothing.answer, nothing.reason) == (None, "no_map_data")


def test_matching_nearest_restaurant_rivals_make_it_too_close(index: MapIndex) -> None:
    # Near Hester & 4th South several restaurants are within a few metres of each other.
    result = answer_matching(index, "restaurant", pin(HESTER_4TH_SOUTH, 5),
                             live_hider(HESTER_4TH_SOUTH, 5))
    assert result.answer == "yes"
    assert result.too_close_to_call  # Hideaway Pizza 205 m, Nooki 207 m


def test_matching_street(index: MapIndex) -> None:
    result = answer_matching(index, "street", pin(STUDENT_UNION, 3),
                             live_hider(HESTER_4TH_SOUTH, 1))
    assert result.answer == "yes"
    assert result.hider_value == result.seeker_value == "South Hester Street"
    other = answer_matching(index, "street", pin(MEDICAL_CENTER), live_hider(HESTER_4TH_SOUTH))
    assert (other.answer, other.seeker_value) == ("no", "West 6th Avenue")


def test_transit_line_and_station_name_length() -> None:
    pack = load_map_pack("stillwater")
    union = pack.station("2")
    fix = live_hider(STUDENT_UNION)
    assert answer_transit_line("Scarlet", union, fix).answer == "yes"
    assert answer_transit_line("scarlet ", union, fix).answer == "yes"
    assert answer_transit_line("Gray", union, fix).answer == "no"
    medical = pack.station("77")  # "*Stillwater Medical Center (77)" lists no route
    assert answer_transit_line("Gray", medical, fix).reason == "no_map_data"
    mcelroy = pack.station("36")  # "McElroy & Main": 14 characters
    cimarron = next(s for s in pack.stations if s.name == "Cimarron Plaza")  # 14 characters
    same = answer_station_name_length(mcelroy, cimarron, fix)
    assert (same.answer, same.hider_number, same.seeker_number) == ("yes", 14.0, 14.0)
    assert answer_station_name_length(union, cimarron, fix).answer == "no"  # 13 vs 14


def test_tentacle_restaurants_around_the_union(index: MapIndex) -> None:
    seeker = pin(STUDENT_UNION)
    result = answer_tentacle(index, "restaurant", seeker, live_hider(ESKIMO_JOES), 500)
    assert result.answer == "Eskimo Joe's"
    assert result.feature is not None and result.hider_to_feature_m is not None
    assert result.hider_to_feature_m < 5
    names = [hit.item.name for hit in result.in_reach]
    assert names[0] == "The Ranchers Club" and "Eskimo Joe's" in names
    assert all(hit.distance_m <= 500 for hit in result.in_reach)
    away = answer_tentacle(index, "restaurant", seeker, live_hider(JUNIOR_HIGH), 500)
    assert (away.answer, away.reason) == ("not_in_reach", "hider_out_of_reach")
    lonely = answer_tentacle(index, "restaurant", pin(JUNIOR_HIGH), live_hider(JUNIOR_HIGH), 300)
    assert (lonely.answer, lonely.reason) == ("not_in_reach", "no_feature_in_reach")
    museum = answer_tentacle(index, "museum", seeker, live_hider(ESKIMO_JOES), 500)
    assert (museum.answer, museum.reason) == (None, "no_map_data")


def test_line_and_polygon_features_measure_to_their_nearest_point() -> None:
    coast = Feature("coastline", "Shore", Point(0, 0).buffer(0.01).exterior)
    lake = Feature("body-of-water", "Lake", box(0.05, -0.01, 0.07, 0.01))
    pack = MapPack("t", box(-1, -1, 1, 1), (), (coast, lake))
    index = MapIndex(pack)
    inside_lake = index.nearest("body-of-water", 0.0, 0.06)
    assert inside_lake is not None and inside_lake.distance_m == 0.0
    west_of_lake = index.nearest("body-of-water", 0.0, 0.04)
    assert west_of_lake is not None
    expected = WGS84.Inverse(0.0, 0.04, 0.0, 0.05)["s12"]
    assert west_of_lake.distance_m == pytest.approx(expected, rel=1e-4)
    centre = index.nearest("coastline", 0.0, 0.0)
    assert centre is not None
    assert centre.distance_m == pytest.approx(1106, abs=10)  # 0.01° ≈ 1.1 km


def test_the_public_view_of_an_answer_holds_no_hider_numbers(index: MapIndex) -> None:
    seeker, hider = pin(STUDENT_UNION), live_hider(HESTER_4TH_SOUTH)
    results = [
        answer_radar(seeker, hider, 500.0),
        answer_thermometer(pin(MEDICAL_CENTER), seeker, hider, 100.0),
        answer_measuring(index, "restaurant", seeker, hider),
        answer_matching(index, "restaurant", seeker, hider),
        answer_tentacle(index, "restaurant", seeker, hider, 2000.0),
    ]
    for result in results:
        view = public_answer(result)
        assert {f.name for f in dataclasses.fields(view)} == {"answer", "reason", "too_close_to_call"}
        assert view.answer == result.answer and view.reason == result.reason
        # no distance, accuracy, station or feature of the hider survives
        assert not any(isinstance(v, float) for v in dataclasses.astuple(view))
    station_result = answer_station_name_length(
        Station("157", "Hester & 4th South", *HESTER_4TH_SOUTH, ("Scarlet",)),
        Station("2", "Student Union", *STUDENT_UNION, ("Scarlet",)),
        hider,
    )
    assert "Hester" not in repr(public_answer(station_result))
