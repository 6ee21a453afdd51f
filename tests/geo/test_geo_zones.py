"""Zones, end game, transit inference, catching and hiding-spot advice, with fixed times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from hideseek_chat.geo import (
    CatchVerdict,
    MapIndex,
    Pin,
    PinSource,
    Zone,
    ZoneError,
    advise_hiding_spot,
    check_catch,
    check_end_game,
    check_in_zone,
    choose_zone,
    destination,
    estimate_transit,
    freeze_hiding_spot,
    is_on_transit,
    load_map_pack,
)
from hideseek_chat.geo.zones import HidingSpot

T0 = datetime(2025, 5, 1, 14, 0, tzinfo=UTC)
QUARTER_MILE = 402.336
FRESH = timedelta(minutes=5)
STUDENT_UNION = (36.1219912, -97.0677365)  # stop 2
HESTER_4TH_SOUTH = (36.1178609, -97.0668834)  # stop 157


@pytest.fixture(scope="module")
def index() -> MapIndex:
    return MapIndex(load_map_pack("stillwater"))


def test_zone_is_the_nearest_station_unless_another_is_chosen(index: MapIndex) -> None:
    # A few metres from the Student Union stop; Student Union/Alumni Center (29) is 137 m away.
    hider = Pin(36.12195, -97.06770, T0, accuracy_m=5)
    zone = choose_zone(index, hider, QUARTER_MILE)
    assert zone.station.id == "2" and zone.station.name == "Student Union"
    assert zone.radius_m == QUARTER_MILE
    chosen = choose_zone(index, hider, QUARTER_MILE, chosen_station_id="29")
    assert chosen.station.name == "Student Union/Alumni Center"
    with pytest.raises(ZoneError) as caught:
        choose_zone(index, hider, QUARTER_MILE, chosen_station_id="129")  # North Boomer Lake
    assert caught.value.reason == "not_in_chosen_zone"
    with pytest.raises(ZoneError) as caught:
        choose_zone(index, hider, QUARTER_MILE, chosen_station_id="no-such-stop")
    assert caught.value.reason == "unknown_station"


def test_leaving_the_zone(index: MapIndex) -> None:
    zone = Zone(load_map_pack("stillwater").station("2"), QUARTER_MILE)
    inside = check_in_zone(zone, Pin(*HESTER_4TH_SOUTH, T0, accuracy_m=5))  # about 465 m
    assert not inside.inside and inside.distance_m == pytest.approx(465, abs=5)
    lat, lon = destination(*STUDENT_UNION, 90.0, 400.0)
    near_edge = check_in_zone(zone, Pin(lat, lon, T0, accuracy_m=5))
    assert near_edge.inside and near_edge.too_close_to_call
    lat, lon = destination(*STUDENT_UNION, 180.0, 100.0)
    deep = check_in_zone(zone, Pin(lat, lon, T0, accuracy_m=5))
    assert deep.inside and not deep.too_close_to_call


def track(speed_kmh: float, *, every_s: int = 15, count: int = 9,
          accuracy: float = 5.0) -> list[Pin]:
    pins = []
    for n in range(count):
        lat, lon = destination(*STUDENT_UNION, 0.0, speed_kmh / 3.6 * every_s * n)
        pins.append(Pin(lat, lon, T0 + timedelta(seconds=every_s * n), accuracy_m=accuracy,
                        source=PinSource.LIVE, live_period=3600))
    return pins


def test_transit_speed_from_live_updates() -> None:
    now = T0 + timedelta(minutes=2, seconds=5)
    bus = estimate_transit(track(30), now)
    assert bus.on_transit is True and bus.reason == "moving"
    assert bus.speed_kmh == pytest.approx(30, rel=1e-6)
    walking = estimate_transit(track(5), now)
    assert walking.on_transit is False and walking.reason == "still"
    # GPS jitter of a standing player: 25 m jumps with 20 m accuracy are not riding.
    jitter = [Pin(*STUDENT_UNION, T0, accuracy_m=20),
              Pin(*destination(*STUDENT_UNION, 45, 25), T0 + timedelta(seconds=12),
                  accuracy_m=20)]
    assert estimate_transit(jitter, T0 + timedelta(seconds=20)).on_transit is False
    assert estimate_transit(track(16), now).on_transit is True
    assert estimate_transit(track(16), now, threshold_kmh=20).on_transit is False
    assert estimate_transit([], now).reason == "no_track"
    assert estimate_transit(track(30), now + timedelta(minutes=10)).reason == "stale_pin"
    assert estimate_transit(track(30, count=1), T0 + timedelta(seconds=5)).reason == "too_short"


def test_a_trackers_measured_speed_tells_riding_from_walking_in_one_pin() -> None:
    # A GPS tracker app reports the speed its receiver measured: one pin says it.
    now = T0 + timedelta(seconds=5)
    riding = Pin(*STUDENT_UNION, T0, accuracy_m=5, source=PinSource.TRACKER, speed_kmh=35.0)
    walking = Pin(*STUDENT_UNION, T0, accuracy_m=5, source=PinSource.TRACKER, speed_kmh=4.0)
    assert estimate_transit([riding], now).on_transit is True
    assert estimate_transit([walking], now).on_transit is False
    assert estimate_transit([walking], now).speed_kmh == 4.0
    # The newest pin's measured speed wins over the positions before it.
    later = Pin(*STUDENT_UNION, T0 + timedelta(seconds=45), source=PinSource.TRACKER,
                speed_kmh=3.0)
    assert estimate_transit([*track(30, count=3), later], later.at).on_transit is False
    # ... but not once it is stale.
    assert estimate_transit([walking], now + timedelta(minutes=10)).reason == "stale_pin"


def test_only_the_recent_window_counts() -> None:
    # Rode a bus for two minutes, then stood still for two minutes.
    rode = track(40, count=9)
    last = rode[-1]
    stood = [Pin(last.lat, last.lon, last.at + timedelta(seconds=15 * n), accuracy_m=5)
             for n in range(1, 10)]
    now = stood[-1].at + timedelta(seconds=5)
    assert estimate_transit(rode + stood, now).on_transit is False


def test_seekers_override_wins() -> None:
    now = T0 + timedelta(minutes=2, seconds=5)
    bus = estimate_transit(track(30), now)
    assert is_on_transit(bus) is True
    assert is_on_transit(bus, override=False) is False
    assert is_on_transit(estimate_transit([], now)) is False
    assert is_on_transit(estimate_transit([], now), override=True) is True


def test_end_game_starts_inside_the_zone_off_transit() -> None:
    zone = Zone(load_map_pack("stillwater").station("2"), QUARTER_MILE)
    lat, lon = destination(*STUDENT_UNION, 200.0, 250.0)
    seeker = Pin(lat, lon, T0, accuracy_m=8)
    now = T0 + timedelta(seconds=30)
    starts = check_end_game(zone, seeker, now, on_transit=False, max_pin_age=FRESH)
    assert starts.starts and starts.reason == "inside_zone"
    assert starts.distance_m == pytest.approx(250, abs=0.01)
    riding = check_end_game(zone, seeker, now, on_transit=True, max_pin_age=FRESH)
    assert not riding.starts and riding.reason == "on_transit"
    outside = Pin(*HESTER_4TH_SOUTH, T0)
    assert check_end_game(zone, outside, now, on_transit=False,
                          max_pin_age=FRESH).reason == "outside_zone"
    forwarded = Pin(lat, lon, T0, forwarded=True)
    assert check_end_game(zone, forwarded, now, on_transit=False,
                          max_pin_age=FRESH).reason == "forwarded"
    late = now + timedelta(minutes=6)
    assert check_end_game(zone, seeker, late, on_transit=False,
                          max_pin_age=FRESH).reason == "stale_pin"


def test_hiding_spot_is_frozen() -> None:
    hider = Pin(*STUDENT_UNION, T0, accuracy_m=4)
    spot = freeze_hiding_spot(hider, T0 + timedelta(seconds=3))
    assert (spot.lat, spot.lon, spot.accuracy_m) == (*STUDENT_UNION, 4.0)
    assert spot.frozen_at == T0 + timedelta(seconds=3)


@pytest.mark.parametrize(
    ("away", "seeker_acc", "hider_acc", "verdict"),
    [
        (0.5, 0.5, 0.5, CatchVerdict.CAUGHT),  # 0.5 + 1.0 <= 2
        (0.99, 0.5, 0.5, CatchVerdict.CAUGHT),  # 1.99 m even with the error
        (1.5, 0.5, 0.5, CatchVerdict.INCONCLUSIVE),
        (1.5, 5.0, 5.0, CatchVerdict.INCONCLUSIVE),  # typical phone GPS: ask the hider
        (12.5, 5.0, 5.0, CatchVerdict.NOT_CAUGHT),  # at least 2.5 m apart
        (3.0, 0.0, 0.0, CatchVerdict.NOT_CAUGHT),
        (1.0, None, 0.5, CatchVerdict.INCONCLUSIVE),  # unknown accuracy never "caught"
        (30.0, None, None, CatchVerdict.NOT_CAUGHT),
    ],
)
def test_catch(away: float, seeker_acc: float | None, hider_acc: float | None,
               verdict: CatchVerdict) -> None:
    spot = HidingSpot(*STUDENT_UNION, hider_acc, T0)
    lat, lon = destination(*STUDENT_UNION, 33.0, away)
    seeker = Pin(lat, lon, T0 + timedelta(minutes=40), accuracy_m=seeker_acc)
    check = check_catch(seeker, spot, 2.0)
    assert check.verdict == verdict
    assert check.distance_m == pytest.approx(away, abs=1e-6)
    assert (check.seeker_accuracy_m, check.hider_accuracy_m) == (seeker_acc, hider_acc)
    assert check.catch_distance_m == 2.0


def test_hiding_spot_advice_on_real_roads(index: MapIndex) -> None:
    # The Hester & 4th South stop is 3.7 m from South Hester Street's centre line.
    at_stop = HidingSpot(*HESTER_4TH_SOUTH, 5, T0)
    advice = advise_hiding_spot(at_stop, index, 3.0)
    assert advice.ok is False and advice.reason == "far_from_road"
    assert advice.road_name == "South Hester Street"
    assert advice.road_distance_m == pytest.approx(3.7, abs=0.1)
    assert advise_hiding_spot(at_stop, index, 5.0).ok is True
    # Eskimo Joe's is 83 m from South Knoblock Street, the nearest mapped road.
    joes = HidingSpot(36.12206, -97.06425, 5, T0)
    far = advise_hiding_spot(joes, index, 3.0)
    assert far.ok is False and far.road_name == "South Knoblock Street"
    assert far.road_distance_m == pytest.approx(82.7, abs=0.5)
