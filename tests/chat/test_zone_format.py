"""Clock times and zone names on the game's clock: DST, fixed offsets, odd offsets."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hideseek_chat.chat import texts
from hideseek_chat.chat.i18n import Formatter, offset_text

WINTER = datetime(2026, 1, 15, 18, 0, tzinfo=UTC)
SUMMER = datetime(2026, 7, 15, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("zone", "winter", "summer"),
    [
        ("America/Chicago", "12:00", "13:00"),
        ("Europe/Zurich", "19:00", "20:00"),
        ("UTC+02:00", "20:00", "20:00"),
        ("Asia/Kolkata", "23:30", "23:30"),
        ("Pacific/Chatham", "07:45", "06:45"),
        ("UTC", "18:00", "18:00"),
    ],
)
def test_clock_times_follow_the_zone_and_its_dst(zone: str, winter: str, summer: str) -> None:
    fmt = Formatter(time_zone=zone)
    assert (fmt.clock(WINTER), fmt.clock(SUMMER)) == (winter, summer)


@pytest.mark.parametrize(
    ("zone", "at", "name"),
    [
        ("America/Chicago", WINTER, "America/Chicago (CST, UTC−6)"),
        ("America/Chicago", SUMMER, "America/Chicago (CDT, UTC−5)"),
        ("Europe/Zurich", SUMMER, "Europe/Zurich (CEST, UTC+2)"),
        ("Asia/Kolkata", SUMMER, "Asia/Kolkata (IST, UTC+5:30)"),
        ("Pacific/Chatham", WINTER, "Pacific/Chatham (UTC+13:45)"),  # tz has no letters
        ("UTC+02:00", SUMMER, "UTC+2"),
        ("UTC-05:30", SUMMER, "UTC−5:30"),
        ("UTC", SUMMER, "UTC"),
    ],
)
def test_a_zone_is_named_with_its_offset_on_that_date(zone: str, at: datetime, name: str) -> None:
    assert Formatter(time_zone=zone, now=at).zone_name() == name
    assert Formatter(time_zone=zone).zone_name(at) == name


def test_without_a_date_a_named_zone_is_its_name_and_a_bad_zone_is_utc() -> None:
    assert Formatter(time_zone="Europe/Zurich").zone_name() == "Europe/Zurich"
    assert Formatter(time_zone="Mars/Olympus").time_zone == "UTC"
    assert offset_text(-90) == "UTC−1:30"


def test_the_settings_say_the_zone_and_an_old_queued_notice_its_offset() -> None:
    fmt = Formatter(time_zone="America/Chicago", now=SUMMER)
    summary = {"size": "small", "ruleset": "us", "rounds_per_team": 1, "transport": "transit"}
    lines = texts.settings_lines({**summary, "time_zone": "America/Chicago"}, fmt)
    assert "Clock times are in America/Chicago (CDT, UTC−5)." in lines
    other = texts.settings_lines({**summary, "time_zone": "Asia/Tokyo"}, fmt)
    assert "Clock times are in Asia/Tokyo (JST, UTC+9)." in other
    old = texts.settings_lines({**summary, "utc_offset_min": 120}, fmt)  # queued before 0005
    assert "Clock times are in UTC+2." in old
