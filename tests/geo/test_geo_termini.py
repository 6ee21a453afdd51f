"""Street termini (rulebook section 6 and "Street or Path") on a tiny synthetic map.

The map, 0.001° being about 110 m (lat, lon offsets from 10°N 20°E)::

    K (dead end)            U (dead end)
    |  Oak Avenue           |
    |                 W --- V --- X   (two unnamed roads crossing at a shared vertex V)
    |                       |
    A ---- M ---- B ------- C
     Main Street   Main Street East
         E-+ (Elm Road ends on Main Street's line, between two of its vertices)

Main Street is two segments (A-M, M-B) that touch: it ends at A (a dead end) and at B
(where it becomes Main Street East), not at M. Oak Avenue ends at M (a T-junction with
Main Street) and at K. An unnamed road runs C-V-U, another W-V-X.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from shapely.geometry import LineString, Polygon

from hideseek_chat.chat import referee
from hideseek_chat.geo import (
    MapIndex,
    MapPack,
    Pin,
    Station,
    Terminus,
    ZoneError,
    choose_street_zone,
    street_termini,
)
from hideseek_chat.geo.answers import HiderFix
from hideseek_chat.geo.mappack import ROAD_KIND, Feature
from hideseek_chat.rules import hiding
from hideseek_chat.rules.ruleset import HiderPosition
from hideseek_chat.store import Ping

LAT, LON = 10.0, 20.0
AT = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)


def point(north: float, east: float) -> tuple[float, float]:
    """(lon, lat) of a point ``north`` and ``east`` thousandths of a degree from the origin."""
    return (round(LON + east / 1000, 7), round(LAT + north / 1000, 7))


A, M, B, C = point(0, 0), point(0, 1), point(0, 2), point(0, 3)
K = point(1, 1)
V, U, W, X = point(0.5, 3), point(1, 3), point(0.5, 2.5), point(0.5, 3.5)
ELM_END, ELM_START = point(0, 1.5), point(-1, 1.5)


def road(name: str, *points: tuple[float, float]) -> Feature:
    return Feature(ROAD_KIND, name, LineString(points))


ROADS = (
    road("Main Street", A, M),
    road("Main  Street", M, B),  # the same name, spelt with a double space
    road("Main Street East", B, C),
    road("Oak Avenue", M, K),
    road("Elm Road", ELM_START, ELM_END),
    road("", C, V, U),
    road("", W, V, X),
)


def pack(roads: tuple[Feature, ...] = ROADS) -> MapPack:
    box = Polygon([(19.99, 9.99), (20.01, 9.99), (20.01, 10.01), (19.99, 10.01)])
    stop = Station("s1", "Far Stop", 10.005, 20.005)
    return MapPack("tiny", box, (stop,), roads, frozenset({ROAD_KIND}))


def ends(termini: list[Terminus]) -> dict[tuple[str, tuple[float, float]], Terminus]:
    return {(t.street, (t.lon, t.lat)): t for t in termini}


def test_a_street_ends_where_its_name_changes_or_it_dead_ends_not_where_segments_meet() -> None:
    found = ends(street_termini(pack()))
    main = {where for street, where in found if street == "Main Street"}
    assert main == {A, B}, "M joins two segments of Main Street: it is not an end"
    assert found["Main Street", A].dead_end
    assert found["Main Street", A].label == "Main Street (dead end)"
    assert found["Main Street", B].crossing == ("Main Street East",)
    assert found["Main Street East", B].crossing == ("Main Street",)
    assert {where for street, where in found if street == "Main Street East"} == {B, C}


def test_a_side_street_ends_at_the_t_junction_and_at_its_dead_end() -> None:
    found = ends(street_termini(pack()))
    assert {where for street, where in found if street == "Oak Avenue"} == {M, K}
    assert found["Oak Avenue", M].crossing == ("Main Street",)
    assert found["Oak Avenue", M].label == "Oak Avenue / Main Street"
    assert found["Oak Avenue", K].dead_end


def test_an_unnamed_road_ends_at_its_ends_and_at_every_intersection() -> None:
    found = ends(street_termini(pack()))
    assert {where for street, where in found if street == ""} == {C, V, U, W, X}
    assert found["", C].crossing == ("Main Street East",)
    assert found["Main Street East", C].meets_unnamed
    assert found["", V].meets_unnamed and not found["", V].dead_end
    assert found["", U].label == "unnamed road (dead end)"


def test_the_index_sees_a_street_ending_on_another_between_its_vertices() -> None:
    index = MapIndex(pack())
    near_elm = index.nearest_terminus(LAT + 0.00001, LON + 0.0015)
    assert near_elm is not None
    assert near_elm.item.street == "Elm Road" and near_elm.item.crossing == ("Main Street",)
    # Several streets end at B: the nearest terminus is one of them, chosen stably.
    at_b = index.nearest_terminus(B[1], B[0])
    assert at_b is not None and at_b.item.street == "Main Street" and at_b.distance_m < 0.01


def test_the_zone_of_a_car_game_is_centred_on_the_nearest_street_end() -> None:
    index = MapIndex(pack())
    hider = Pin(LAT + 0.0003, LON - 0.0001, AT, accuracy_m=10.0)  # 35 m from A
    zone = choose_street_zone(index, hider, 500.0)
    assert (zone.lat, zone.lon) == (A[1], A[0])
    assert zone.station.name == "Main Street (dead end)"
    assert zone.station.id == "terminus:10.000000,20.000000:Main Street"
    assert hiding.is_street_end(zone.station.id)
    at_a = index.nearest_terminus(A[1], A[0])
    assert at_a is not None and index.terminus(zone.station.id) == at_a.item
    # The referee: on the street end in a car game, on the stop in a transit game.
    ping = Ping(1, 1, 1, hider.lat, hider.lon, 10.0, "live", False, AT)
    on_street = referee.zone_fixed(index, ping, 500.0, streets=True)
    assert on_street is not None and on_street.station_ref == zone.station.id
    assert on_street.station_name == "Main Street (dead end)"
    on_stop = referee.zone_fixed(index, ping, 500.0)
    assert on_stop is not None and on_stop.station_name == "Far Stop"


def test_the_station_name_length_question_counts_the_street_names() -> None:
    index = MapIndex(pack())
    zone = choose_street_zone(index, Pin(A[1], A[0], AT, accuracy_m=5.0), 500.0)
    fix = HiderFix(A[1], A[0], 5.0, HiderPosition.LIVE)
    near_oak = Pin(K[1] + 0.0001, K[0], AT, accuracy_m=5.0)  # Oak Avenue's dead end
    answer = referee.street_name_length(index, zone, near_oak, fix)
    # "Main Street" (11) against "Oak Avenue" (10): the label's "(dead end)" never counts.
    assert (answer.answer, answer.facts["hider_chars"], answer.facts["seeker_chars"]) == (
        "no",
        11,
        10,
    )
    near_elm = Pin(ELM_START[1], ELM_START[0], AT, accuracy_m=5.0)  # "Elm Road" (8)
    assert referee.street_name_length(index, zone, near_elm, fix).answer == "no"
    near_main = Pin(B[1], B[0], AT, accuracy_m=5.0)
    assert referee.street_name_length(index, zone, near_main, fix).answer == "yes"
    near_u = Pin(U[1] + 0.0001, U[0], AT, accuracy_m=5.0)  # an unnamed road's end
    assert referee.street_name_length(index, zone, near_u, fix).reason == "unnamed_street"


def test_a_map_without_roads_has_no_street_end_and_falls_back_on_stations() -> None:
    index = MapIndex(pack(roads=()))
    hider = Pin(LAT, LON, AT, accuracy_m=10.0)
    assert not index.has_street_termini() and index.nearest_terminus(LAT, LON) is None
    with pytest.raises(ZoneError) as error:
        choose_street_zone(index, hider, 500.0)
    assert error.value.reason == "no_streets"
    assert referee.far_from_street_ends(index, LAT, LON, 500.0) is None
