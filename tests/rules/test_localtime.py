"""The game's time zone: typed zones, stored names, and rest windows on the local wall clock
across daylight saving time changes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hideseek_chat.rules.clock import active_rest_window, next_rest_window
from hideseek_chat.rules.errors import SetupError
from hideseek_chat.rules.events import SettingsChanged
from hideseek_chat.rules.localtime import (
    TimeZoneError,
    fixed_offset_min,
    is_time_zone,
    offset_name,
    parse_time_zone,
    zone_info,
)
from hideseek_chat.rules.ruleset import RulesetError
from hideseek_chat.rules.ruleset_loader import load_ruleset, parse_ruleset
from hideseek_chat.rules.units import units_for_country
from tests.rules.harness import Game

NIGHT = (("22:00", "07:00"),)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


# ----------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("+2", "UTC+02:00"),
        ("UTC+2", "UTC+02:00"),
        ("+05:30", "UTC+05:30"),
        ("utc-5:30", "UTC-05:30"),
        ("GMT-3", "UTC-03:00"),
        ("−4", "UTC-04:00"),  # the minus sign people paste
        ("+0545", "UTC+05:45"),
        ("UTC", "UTC"),
        ("gmt", "UTC"),
        ("+0", "UTC"),
        ("Europe/Zurich", "Europe/Zurich"),
        ("america/chicago", "America/Chicago"),
        ("  Asia/Kolkata ", "Asia/Kolkata"),
        ("america/new york", "America/New_York"),
        ("Etc/GMT-2", "Etc/GMT-2"),
        ("+15", "UTC+15:00"),  # named, and refused where it is set (beyond ±14 h)
    ],
)
def test_typed_zones_become_stored_names(typed: str, stored: str) -> None:
    assert parse_time_zone(typed) == stored


@pytest.mark.parametrize("typed", ["Mars", "2", "+2:75", "Europe/Atlantis", "", "UTC+", "+1:5"])
def test_anything_else_is_not_a_zone(typed: str) -> None:
    with pytest.raises(TimeZoneError):
        parse_time_zone(typed)


def test_stored_names_resolve_and_fixed_offsets_read_back() -> None:
    assert offset_name(120) == "UTC+02:00" and offset_name(-330) == "UTC-05:30"
    assert fixed_offset_min("UTC-05:30") == -330 and fixed_offset_min("UTC") == 0
    assert fixed_offset_min("Europe/Zurich") is None
    at = utc(2026, 1, 15, 12)
    assert zone_info("UTC+02:00").utcoffset(at) == timedelta(hours=2)
    assert zone_info("Asia/Kolkata").utcoffset(at) == timedelta(hours=5, minutes=30)
    assert not is_time_zone("UTC+15:00") and not is_time_zone("america/chicago")
    assert is_time_zone("America/Chicago") and is_time_zone("UTC-12:00")


# ----------------------------------------------------------------------------- rest windows


def test_a_fixed_offset_reads_rest_times_as_before() -> None:
    start, end = next_rest_window(NIGHT, "UTC+02:00", utc(2026, 5, 2, 9))  # type: ignore[misc]
    assert (start, end) == (utc(2026, 5, 2, 20), utc(2026, 5, 3, 5))


@pytest.mark.parametrize(
    ("zone", "night", "start", "end", "hours"),
    [
        # Chicago: CST (UTC-6) -> CDT (UTC-5) at 02:00 on 8 March 2026; back on 1 November.
        ("America/Chicago", (2026, 3, 7), utc(2026, 3, 8, 4), utc(2026, 3, 8, 12), 8),
        ("America/Chicago", (2026, 10, 31), utc(2026, 11, 1, 3), utc(2026, 11, 1, 13), 10),
        # Zurich: CET (UTC+1) -> CEST (UTC+2) on 29 March 2026; back on 25 October.
        ("Europe/Zurich", (2026, 3, 28), utc(2026, 3, 28, 21), utc(2026, 3, 29, 5), 8),
        ("Europe/Zurich", (2026, 10, 24), utc(2026, 10, 24, 20), utc(2026, 10, 25, 6), 10),
    ],
)
def test_a_night_rest_follows_the_wall_clock_across_the_dst_change(
    zone: str,
    night: tuple[int, int, int],
    start: datetime,
    end: datetime,
    hours: int,
) -> None:
    """22:00-07:00 on the night the clocks change: 8 hours in spring, 10 in autumn, and
    both ends at 22:00 and 07:00 on the clocks of that evening and that morning."""
    window = next_rest_window(NIGHT, zone, utc(*night, 12))
    assert window == (start, end)
    assert end - start == timedelta(hours=hours)
    local = zone_info(zone)
    assert start.astimezone(local).strftime("%H:%M") == "22:00"
    assert end.astimezone(local).strftime("%H:%M") == "07:00"
    assert active_rest_window(NIGHT, zone, start + timedelta(hours=hours - 1)) == window
    assert active_rest_window(NIGHT, zone, end) is None


def test_a_time_the_clocks_skip_starts_after_the_gap() -> None:
    """02:30 does not exist in Chicago on 8 March 2026: the rest starts at 03:30 CDT, as if
    the clock had not jumped (fold 0)."""
    start, end = next_rest_window((("02:30", "06:00"),), "America/Chicago", utc(2026, 3, 8, 0))  # type: ignore[misc]
    assert start == utc(2026, 3, 8, 8, 30)  # 02:30 CST = 03:30 CDT
    assert end == utc(2026, 3, 8, 11)  # 06:00 CDT


def test_a_time_the_clocks_repeat_is_its_first_occurrence() -> None:
    """01:30 happens twice in Chicago on 1 November 2026: the rest starts at the first."""
    start, _ = next_rest_window((("01:30", "05:00"),), "America/Chicago", utc(2026, 11, 1, 0))  # type: ignore[misc]
    assert start == utc(2026, 11, 1, 6, 30)  # 01:30 CDT, not 01:30 CST (07:30 UTC)


@pytest.mark.parametrize(
    ("zone", "start"),
    [
        ("Asia/Kolkata", utc(2026, 5, 2, 16, 30)),  # UTC+5:30
        ("Pacific/Chatham", utc(2026, 5, 2, 9, 15)),  # UTC+12:45 in May (their winter)
    ],
)
def test_half_and_three_quarter_hour_zones(zone: str, start: datetime) -> None:
    window = next_rest_window(NIGHT, zone, utc(2026, 5, 2, 9))
    assert window is not None and window[0] == start
    assert window[1] - window[0] == timedelta(hours=9)


def test_the_rest_window_is_the_next_one_after_a_moment_inside_it() -> None:
    at = utc(2026, 5, 3, 5)  # midnight in Chicago (CDT): inside the night
    window = active_rest_window(NIGHT, "America/Chicago", at)
    assert window == (utc(2026, 5, 3, 3), utc(2026, 5, 3, 12))
    assert next_rest_window(NIGHT, "America/Chicago", at) == (
        utc(2026, 5, 4, 3),
        utc(2026, 5, 4, 12),
    )


# ----------------------------------------------------------------------------- the setting


def test_the_admin_sets_a_zone_and_a_bad_one_is_refused() -> None:
    game = Game.create()
    game.do(SettingsChanged("alice", time_zone="Europe/Zurich"))
    settings = game.state.settings
    assert (settings.time_zone, settings.time_zone_typed) == ("Europe/Zurich", True)
    game.do(SettingsChanged("alice", time_zone="America/Chicago", time_zone_from_map=True))
    settings = game.state.settings
    assert (settings.time_zone, settings.time_zone_typed) == ("America/Chicago", False)
    with pytest.raises(SetupError) as refused:
        game.do(SettingsChanged("alice", time_zone="UTC+15:00"))
    assert refused.value.key == "error.utc_offset"
    with pytest.raises(SetupError) as refused:
        game.do(SettingsChanged("alice", time_zone="Mars"))
    assert refused.value.key == "error.time_zone" and refused.value.params["text"] == "Mars"
    assert game.state.settings.time_zone == "America/Chicago"


def test_the_maps_zone_alone_is_no_settings_notice_but_a_typed_one_is() -> None:
    game = Game.create()
    assert game.do(SettingsChanged("alice", time_zone="Asia/Tokyo", time_zone_from_map=True)) == []
    (notice,) = game.do(SettingsChanged("alice", time_zone="Asia/Tokyo"))
    assert notice.key == "game.settings"  # type: ignore[attr-defined]
    assert notice.params["time_zone"] == "Asia/Tokyo"  # type: ignore[attr-defined]


def test_the_rest_period_pauses_on_the_games_local_clock() -> None:
    game = Game.create()  # 09:00 UTC = 04:00 in Chicago
    game.do(
        SettingsChanged("alice", rest_periods=(("05:00", "05:30"),), time_zone="America/Chicago")
    )
    game.begin()
    game.advance(minutes=59)
    assert not game.state.is_paused
    game.advance(minutes=2)  # 10:01 UTC = 05:01 CDT
    assert game.state.is_paused


def test_a_setup_ruleset_change_takes_the_name() -> None:
    game = Game.create()
    game.do(SettingsChanged("alice", ruleset="us"))
    assert game.state.ruleset == "us"


# ----------------------------------------------------------------------------- countries


def test_rulesets_declare_the_countries_they_suit() -> None:
    us = load_ruleset("us")
    assert us.countries == ("US",) and us.suits("us") and not us.suits("CH")
    assert load_ruleset("metric").countries == () and not load_ruleset("metric").suits("")


@pytest.mark.parametrize(
    ("value", "reason"),
    [(["usa"], "two-letter"), ("US", "list"), (["US", "US"], "twice"), ([1], "list")],
)
def test_a_ruleset_with_bad_countries_is_refused(value: object, reason: str) -> None:
    import tomllib
    from pathlib import Path

    data = tomllib.loads(Path(load_ruleset("us").path).read_text(encoding="utf-8"))
    data["ruleset"]["countries"] = value
    with pytest.raises(RulesetError) as refused:
        parse_ruleset(data, "us.toml")
    assert refused.value.field == "ruleset.countries" and reason in refused.value.reason


def test_units_follow_the_country() -> None:
    assert [units_for_country(c) for c in ("US", "lr", "MM", "GB")] == ["imperial"] * 4
    assert [units_for_country(c) for c in ("CH", "JP", "CA", "")] == ["metric"] * 4


# ----------------------------------------------------------------------------- properties

ZONES = ["America/Chicago", "Europe/Zurich", "Pacific/Chatham", "Asia/Kolkata", "UTC+05:45"]


@given(st.text(max_size=30))
def test_the_zone_parser_never_crashes(typed: str) -> None:
    try:
        name = parse_time_zone(typed)
    except TimeZoneError:
        return
    offset = fixed_offset_min(name)
    assert is_time_zone(name) or (offset is not None and abs(offset) > 14 * 60)


@given(
    zone=st.sampled_from(ZONES),
    after=st.datetimes(datetime(2026, 1, 1), datetime(2027, 12, 31), timezones=st.just(UTC)),
    start=st.integers(0, 24 * 60 - 1),
    length=st.integers(1, 24 * 60 - 1),
)
def test_the_next_rest_window_is_ahead_and_lasts_about_as_long_as_typed(
    zone: str, after: datetime, start: int, length: int
) -> None:
    end = (start + length) % (24 * 60)
    period = ((f"{start // 60:02d}:{start % 60:02d}", f"{end // 60:02d}:{end % 60:02d}"),)
    window = next_rest_window(period, zone, after)
    assert window is not None
    begins, ends = window
    assert after <= begins < after + timedelta(days=1, hours=1)
    # a DST change inside the window makes it up to an hour longer or shorter
    assert abs((ends - begins) - timedelta(minutes=length)) <= timedelta(hours=1)
    assert active_rest_window(period, zone, begins) == window
