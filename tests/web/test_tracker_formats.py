"""Reading each tracker app's message (``web.tracker_formats``): units, times, and nothing
but ``BadPing`` or ``Ignored`` for garbage (hypothesis)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hideseek_chat.web import tracker_formats as formats
from hideseek_chat.web.tracker_formats import BadPing, Ignored

NOW = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)
STAMP = int(NOW.timestamp())


def test_owntracks_units() -> None:
    body = json.dumps(
        {"_type": "location", "lat": 52.5, "lon": 13.4, "tst": STAMP, "acc": 12, "vel": 30}
    ).encode()
    fix = formats.owntracks(body, NOW)
    assert (fix.lat, fix.lon, fix.at, fix.accuracy_m, fix.speed_kmh) == (
        52.5,
        13.4,
        NOW,
        12.0,
        30.0,
    )


def test_osmand_speed_is_knots_and_times_come_in_three_shapes() -> None:
    base = {"id": "1", "lat": "52.5", "lon": "13.4"}
    for stamp in (
        str(STAMP),
        str(STAMP * 1000),
        "2026-05-02T09:00:00Z",
        "2026-05-02T11:00:00+02:00",
    ):
        fix = formats.osmand({**base, "timestamp": stamp, "speed": "10"}, b"", NOW)
        assert fix.at == NOW
        assert fix.speed_kmh == pytest.approx(18.52)


def test_gpslogger_speed_is_metres_a_second_and_negative_means_unknown() -> None:
    params = {"lat": "52.5", "lon": "13.4", "time": str(STAMP), "spd": "2"}
    assert formats.gpslogger(params, NOW).speed_kmh == pytest.approx(7.2)
    assert formats.gpslogger({**params, "spd": "-1"}, NOW).speed_kmh is None


def test_a_battery_level_nobody_reads_never_costs_a_ping() -> None:
    params = {"lat": "52.5", "lon": "13.4", "time": str(STAMP)}
    for batt in ("full", "1e999", "-", "x" * 50):
        assert formats.gpslogger({**params, "batt": batt}, NOW).lat == 52.5
        assert formats.osmand({**params, "timestamp": str(STAMP), "batt": batt}, b"", NOW)
    body = {"_type": "location", "lat": 52.5, "lon": 13.4, "tst": STAMP, "batt": "full"}
    assert formats.owntracks(json.dumps(body).encode(), NOW).lon == 13.4


def test_a_naive_iso_time_is_refused() -> None:
    with pytest.raises(BadPing):
        formats.gpslogger({"lat": "1", "lon": "2", "time": "2026-05-02T09:00:00"}, NOW)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=6,
)
fields = st.dictionaries(
    st.sampled_from(["_type", "lat", "lon", "tst", "acc", "vel", "batt", "x"]), json_values
)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.one_of(st.binary(max_size=200), fields.map(lambda v: json.dumps(v).encode())))
def test_owntracks_never_crashes(body: bytes) -> None:
    try:
        fix = formats.owntracks(body, NOW)
    except (BadPing, Ignored):
        return
    assert -90 <= fix.lat <= 90 and -180 <= fix.lon <= 180 and fix.at <= NOW.replace(minute=10)


params = st.dictionaries(
    st.sampled_from(["lat", "lon", "timestamp", "time", "speed", "spd", "accuracy", "acc"]),
    st.text(max_size=30) | st.integers().map(str) | st.floats().map(str),
)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(params, st.binary(max_size=100))
def test_osmand_and_gpslogger_never_crash(query: dict[str, str], body: bytes) -> None:
    for parse in (lambda: formats.osmand(query, body, NOW), lambda: formats.gpslogger(query, NOW)):
        try:
            fix = parse()
        except BadPing:
            continue
        assert -90 <= fix.lat <= 90 and -180 <= fix.lon <= 180
        assert fix.speed_kmh is None or 0 <= fix.speed_kmh <= formats.MAX_SPEED_KMH
