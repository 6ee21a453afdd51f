"""Pins from chat locations and from text: accepted forms, rejections, staleness."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hideseek_chat.geo.pins import (
    Pin,
    PinRejected,
    PinSource,
    check_own_position,
    is_stale,
    parse_pin_text,
    pin_from_location,
)

NOW = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)
# The Student Union bus stop, Stillwater (36.1219912, -97.0677365), written many ways.
LAT, LON = 36.1156, -97.0584


@pytest.mark.parametrize(
    "text",
    [
        "36.1156, -97.0584",
        "36.1156,-97.0584",
        "36.1156 -97.0584",
        "  36.1156 ; -97.0584  ",
        "+36.1156, −97.0584",
        "36.1156 N 97.0584 W",
        "36.1156N 97.0584W",
        "36.1156° N, 97.0584° W",
        "N 36.1156 W 97.0584",
        "97.0584 W 36.1156 N",
        "n36.1156 w97.0584",
        "geo:36.1156,-97.0584",
        "geo:36.1156,-97.0584,312",
        "geo:0,0?q=36.1156,-97.0584(Hider)",
        "https://www.google.com/maps?q=36.1156,-97.0584",
        "https://maps.google.com/?q=36.1156,-97.0584&z=17",
        "https://www.google.com/maps/search/?api=1&query=36.1156%2C-97.0584",
        "https://www.google.com/maps/@36.1156,-97.0584,17z",
        "https://www.google.com/maps/place/Eskimo+Joe's/@36.1,-97.1,17z/data=!4m6!3m5!8m2!3d36.1156!4d-97.0584",
        "https://maps.apple.com/?ll=36.1156,-97.0584&q=Dropped%20Pin",
        "https://maps.apple.com/?q=36.1156,-97.0584",
        "https://www.openstreetmap.org/?mlat=36.1156&mlon=-97.0584#map=19/36.2/-97.1",
        "https://www.openstreetmap.org/#map=19/36.1156/-97.0584",
        "I'm here: https://www.openstreetmap.org/#map=19/36.1156/-97.0584 come quick",
        "www.google.com/maps?q=36.1156,-97.0584",
    ],
)
def test_decimal_forms_and_links_give_the_same_point(text: str) -> None:
    pin = parse_pin_text(text, NOW)
    assert pin.lat == pytest.approx(LAT, abs=1e-9)
    assert pin.lon == pytest.approx(LON, abs=1e-9)
    assert pin.source == PinSource.TEXT
    assert pin.at == NOW


@pytest.mark.parametrize(
    ("text", "lat", "lon"),
    [
        ("36°06'56.2\"N 97°03'30.2\"W", 36 + 6 / 60 + 56.2 / 3600, -(97 + 3 / 60 + 30.2 / 3600)),
        ("36° 6' 56.2\" N, 97° 3' 30.2\" W", 36 + 6 / 60 + 56.2 / 3600,
         -(97 + 3 / 60 + 30.2 / 3600)),
        ("36°06′56″N 97°03′30″W", 36 + 6 / 60 + 56 / 3600, -(97 + 3 / 60 + 30 / 3600)),
        ("N 36°06.937' W 97°03.504'", 36 + 6.937 / 60, -(97 + 3.504 / 60)),
        ("36°06'56.2\", -97°03'30.2\"", 36 + 6 / 60 + 56.2 / 3600, -(97 + 3 / 60 + 30.2 / 3600)),
        ("16°55'S 145°46'E", -(16 + 55 / 60), 145 + 46 / 60),
        ("-16.92, 145.77", -16.92, 145.77),
        ("90, 180", 90.0, 180.0),
        ("-90, -180", -90.0, -180.0),
    ],
)
def test_degrees_minutes_seconds(text: str, lat: float, lon: float) -> None:
    pin = parse_pin_text(text, NOW)
    assert pin.lat == pytest.approx(lat, abs=1e-9)
    assert pin.lon == pytest.approx(lon, abs=1e-9)


def test_geo_uri_uncertainty_becomes_the_accuracy() -> None:
    pin = parse_pin_text("geo:36.1156,-97.0584;u=35", NOW)
    assert pin.accuracy_m == 35.0
    assert parse_pin_text("36.1156, -97.0584", NOW, accuracy_m=8).accuracy_m == 8.0
    assert parse_pin_text("36.1156, -97.0584", NOW).accuracy_m is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("hello there", "garbage"),
        ("36.1156", "garbage"),
        ("36.1 -97.0 5", "garbage"),
        ("nan, nan", "garbage"),
        ("91, 0", "out_of_range"),
        ("0, 181", "out_of_range"),
        ("-90.0001, 0", "out_of_range"),
        ("36°61'00\"N 97°00'00\"W", "out_of_range"),
        ("36.1 N 97.0 N", "ambiguous"),
        ("-36.1 N 97.0 W", "ambiguous"),
        ("36.1 N", "ambiguous"),
        ("https://goo.gl/maps/xyz", "no_coordinates_in_link"),
        ("https://www.openstreetmap.org/?mlat=95&mlon=0", "out_of_range"),
        ("geo:abc", "garbage"),
        ("1" * 3000, "too_long"),
    ],
)
def test_rejections_have_a_reason(text: str, reason: str) -> None:
    with pytest.raises(PinRejected) as caught:
        parse_pin_text(text, NOW)
    assert caught.value.reason == reason


@settings(max_examples=1500, deadline=None)
@given(st.text(max_size=80))
def test_parser_never_raises_anything_else(text: str) -> None:
    try:
        pin = parse_pin_text(text, NOW)
    except PinRejected as rejected:
        assert rejected.reason
        return
    assert -90 <= pin.lat <= 90 and -180 <= pin.lon <= 180


coordinate_alphabet = st.sampled_from(list("0123456789.,;:-+ °'\"NSEWnsew/@?=&#geo:q"))


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=coordinate_alphabet, max_size=40))
def test_parser_fuzzed_with_coordinate_characters(text: str) -> None:
    try:
        pin = parse_pin_text(text, NOW)
    except PinRejected as rejected:
        assert rejected.reason
        return
    assert math.isfinite(pin.lat) and math.isfinite(pin.lon)
    assert -90 <= pin.lat <= 90 and -180 <= pin.lon <= 180


@settings(max_examples=500, deadline=None)
@given(
    st.floats(min_value=-90, max_value=90),
    st.floats(min_value=-180, max_value=180),
)
def test_decimal_round_trip(lat: float, lon: float) -> None:
    pin = parse_pin_text(f"{lat:.7f}, {lon:.7f}", NOW)
    assert pin.lat == pytest.approx(lat, abs=1e-7)
    assert pin.lon == pytest.approx(lon, abs=1e-7)


def test_chat_location_fields() -> None:
    sent = datetime(2025, 5, 1, 11, 50, tzinfo=UTC)
    edited = datetime(2025, 5, 1, 11, 59, tzinfo=UTC)
    live = pin_from_location(
        36.1219912, -97.0677365, date=sent, edit_date=edited, horizontal_accuracy=12.5,
        live_period=3600, heading=90,
    )
    assert live.source == PinSource.LIVE
    assert live.at == edited
    assert live.accuracy_m == 12.5 and live.heading == 90 and live.live_period == 3600
    once = pin_from_location(36.1219912, -97.0677365, date=sent, forwarded=True)
    assert once.source == PinSource.PIN and once.at == sent and once.forwarded


def test_times_are_normalised_to_utc_and_must_be_aware() -> None:
    local = datetime(2025, 5, 1, 7, 0, tzinfo=timezone(timedelta(hours=-5)))
    assert Pin(36.0, -97.0, local).at == datetime(2025, 5, 1, 12, 0, tzinfo=UTC)
    with pytest.raises(PinRejected) as caught:
        Pin(36.0, -97.0, datetime(2025, 5, 1, 12, 0))
    assert caught.value.reason == "naive_time"


@pytest.mark.parametrize(
    ("lat", "lon", "accuracy", "reason"),
    [
        (float("nan"), 0.0, None, "not_a_number"),
        (0.0, float("nan"), None, "not_a_number"),
        (float("inf"), 0.0, None, "out_of_range"),
        (100.0, 0.0, None, "out_of_range"),
        (0.0, -180.5, None, "out_of_range"),
        (0.0, 0.0, -1.0, "bad_accuracy"),
        (0.0, 0.0, float("nan"), "bad_accuracy"),
    ],
)
def test_bad_location_values(lat: float, lon: float, accuracy: float | None, reason: str) -> None:
    with pytest.raises(PinRejected) as caught:
        pin_from_location(lat, lon, date=NOW, horizontal_accuracy=accuracy)
    assert caught.value.reason == reason


def test_forwarded_and_stale_pins_are_not_own_positions() -> None:
    limit = timedelta(minutes=5)
    fresh = Pin(36.1, -97.1, NOW - timedelta(minutes=4, seconds=59))
    assert check_own_position(fresh, NOW, limit) is fresh
    assert not is_stale(fresh, NOW, limit)
    old = Pin(36.1, -97.1, NOW - timedelta(minutes=5, seconds=1))
    assert is_stale(old, NOW, limit)
    for pin, reason in [
        (old, "stale_pin"),
        (Pin(36.1, -97.1, NOW, forwarded=True), "forwarded"),
        (Pin(36.1, -97.1, NOW + timedelta(minutes=10)), "future_pin"),
    ]:
        with pytest.raises(PinRejected) as caught:
            check_own_position(pin, NOW, limit)
        assert caught.value.reason == reason
