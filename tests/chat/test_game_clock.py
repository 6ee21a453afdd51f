"""The app's one clock: wall time, or faster from an anchor; aware UTC; never backwards."""

from __future__ import annotations

import datetime as dt

import pytest
from freezegun import freeze_time
from hypothesis import given
from hypothesis import strategies as st

from hideseek_chat.chat.clock import GameClock

START = dt.datetime(2025, 5, 1, 12, 0, tzinfo=dt.UTC)


def test_speed_one_is_the_wall_clock_in_aware_utc() -> None:
    with freeze_time(START) as frozen:
        clock = GameClock()
        assert clock.now() == START
        assert clock.now().tzinfo is dt.UTC
        frozen.tick(dt.timedelta(minutes=7))
        assert clock.now() == START + dt.timedelta(minutes=7)


def test_a_fast_clock_runs_speed_times_faster_from_its_start() -> None:
    with freeze_time(START) as frozen:
        clock = GameClock(speed=60)
        assert clock.anchor == START and clock.now() == START
        frozen.tick(dt.timedelta(minutes=1))
        assert clock.now() == START + dt.timedelta(hours=1)
        frozen.tick(dt.timedelta(seconds=30))
        assert clock.now() == START + dt.timedelta(hours=1, minutes=30)


def test_an_explicit_anchor_is_where_game_and_wall_time_agree() -> None:
    anchor = START - dt.timedelta(minutes=10)
    with freeze_time(START):
        clock = GameClock(speed=6, anchor=anchor.astimezone(dt.timezone(dt.timedelta(hours=2))))
        assert clock.anchor == anchor and clock.anchor.tzinfo is dt.UTC
        assert clock.now() == anchor + dt.timedelta(hours=1)


def test_the_clock_never_runs_backwards_when_the_wall_clock_is_stepped_back() -> None:
    with freeze_time(START) as frozen:
        clock = GameClock(speed=10)
        frozen.tick(dt.timedelta(seconds=6))
        ahead = clock.now()
        frozen.move_to(START - dt.timedelta(minutes=5))
        assert clock.now() == ahead
        frozen.move_to(START + dt.timedelta(seconds=12))
        assert clock.now() == START + dt.timedelta(minutes=2)


@given(
    speed=st.floats(min_value=0.01, max_value=10_000),
    steps=st.lists(st.integers(min_value=-3_600, max_value=3_600), max_size=20),
)
def test_the_clock_is_monotonic_whatever_the_wall_clock_does(
    speed: float, steps: list[int]
) -> None:
    with freeze_time(START) as frozen:
        clock = GameClock(speed=speed)
        seen = [clock.now()]
        for step in steps:
            frozen.tick(dt.timedelta(seconds=step))
            seen.append(clock.now())
    assert seen == sorted(seen)


@pytest.mark.parametrize("speed", [0, -1, float("nan")])
def test_a_speed_that_is_not_positive_is_refused(speed: float) -> None:
    with pytest.raises(ValueError, match="speed"):
        GameClock(speed=speed)


def test_a_naive_anchor_is_refused() -> None:
    with pytest.raises(ValueError, match="aware"):
        GameClock(anchor=dt.datetime(2025, 5, 1, 12, 0))
