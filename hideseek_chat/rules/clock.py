"""Time in the game: the hider's clock as intervals, deadlines, pauses and rest periods.

The hider's time is never a running total: it is computed from the round's start, its end
(or "now") and the pause intervals, so it can never run backwards or run while paused.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import datetime, timedelta

from hideseek_chat.rules.localtime import local_instant, zone_info
from hideseek_chat.rules.state import (
    UNPAUSABLE_DEADLINES,
    Deadline,
    DeadlineKind,
    GameState,
    Pause,
    PauseReason,
    QuestionStatus,
    Round,
)


def rng(state: GameState) -> random.Random:
    """Return the next random source of this game: same seed, same sequence."""
    state.rng_counter += 1
    return random.Random(f"{state.seed}:{state.rng_counter}")


def merged(intervals: Iterable[tuple[datetime, datetime]]) -> list[tuple[datetime, datetime]]:
    """Merge overlapping intervals so that no moment is counted twice."""
    result: list[tuple[datetime, datetime]] = []
    for start, end in sorted(intervals):
        if end <= start:
            continue
        if result and start <= result[-1][1]:
            result[-1] = (result[-1][0], max(result[-1][1], end))
        else:
            result.append((start, end))
    return result


def paused_seconds(pauses: Iterable[Pause], start: datetime, end: datetime) -> float:
    """Seconds between ``start`` and ``end`` covered by at least one pause."""
    clipped = [(max(p.start, start), min(p.end or end, end)) for p in pauses if p.start < end]
    return sum((b - a).total_seconds() for a, b in merged(clipped))


def hiding_seconds(state: GameState, round_: Round, now: datetime) -> float:
    """Elapsed hiding time of ``round_`` at ``now``: seeking start to end, pauses excluded."""
    if round_.seeking_started_at is None:
        return 0.0
    end = round_.ended_at or now
    if end <= round_.seeking_started_at:
        return 0.0
    gross = (end - round_.seeking_started_at).total_seconds()
    pauses = [p for p in state.pauses if p.round_number in (None, round_.number)]
    # An overdue question stops the clock from its due time on, not only once answered
    # (then a LATE_ANSWER pause records it): otherwise the time would run back at the answer.
    pauses += [
        Pause(0, PauseReason.LATE_ANSWER, q.due_at, None, round_.number)
        for q in state.questions
        if q.round_number == round_.number
        and q.status in (QuestionStatus.PENDING, QuestionStatus.CANCELLED)
        and q.due_at is not None
    ]
    return gross - paused_seconds(pauses, round_.seeking_started_at, end)


def open_pause(state: GameState, reason: PauseReason) -> Pause | None:
    for pause in state.pauses:
        if pause.reason == reason and pause.end is None:
            return pause
    return None


def start_pause(
    state: GameState, reason: PauseReason, start: datetime, round_number: int | None = None
) -> Pause:
    pause = Pause(state.new_id(), reason, start, None, round_number)
    state.pauses.append(pause)
    return pause


def schedule(
    state: GameState,
    kind: DeadlineKind,
    due_at: datetime,
    round_number: int | None = None,
    ref_id: int | None = None,
) -> Deadline:
    """Add a deadline; while the game is paused a pausable one starts frozen."""
    deadline = Deadline(state.new_id(), kind, due_at, round_number, ref_id)
    if state.is_paused and kind not in UNPAUSABLE_DEADLINES:
        now = state.last_event_at or due_at
        deadline.remaining_s = max(0.0, (due_at - now).total_seconds())
        deadline.due_at = None
    state.deadlines.append(deadline)
    return deadline


def cancel(state: GameState, kind: DeadlineKind | None = None, ref_id: int | None = None) -> None:
    """Close open deadlines of ``kind`` (any kind if None) belonging to ``ref_id``."""
    for deadline in state.open_deadlines():
        if (kind is None or deadline.kind == kind) and (
            ref_id is None or deadline.ref_id == ref_id
        ):
            deadline.done = True


def cancel_round(state: GameState, round_number: int) -> None:
    for deadline in state.open_deadlines():
        if deadline.round_number == round_number:
            deadline.done = True


def freeze_timers(state: GameState, now: datetime) -> None:
    """Stop every pausable timer, remembering how much time it had left."""
    for deadline in state.open_deadlines():
        if deadline.kind in UNPAUSABLE_DEADLINES or deadline.due_at is None:
            continue
        deadline.remaining_s = max(0.0, (deadline.due_at - now).total_seconds())
        deadline.due_at = None


def thaw_timers(state: GameState, now: datetime) -> None:
    """Restart frozen timers with the time they had left."""
    for deadline in state.open_deadlines():
        if deadline.due_at is None and deadline.remaining_s is not None:
            deadline.due_at = now + timedelta(seconds=deadline.remaining_s)
            deadline.remaining_s = None


def sync_due_times(state: GameState) -> None:
    """Copy thawed deadlines back onto the questions and curses they time."""
    for deadline in state.open_deadlines():
        if deadline.due_at is None or deadline.ref_id is None:
            continue
        if deadline.kind == DeadlineKind.ANSWER_DUE:
            for question in state.questions:
                if question.id == deadline.ref_id:
                    question.due_at = deadline.due_at
        elif deadline.kind == DeadlineKind.CURSE_EXPIRES:
            for curse in state.curses:
                if curse.id == deadline.ref_id:
                    if curse.lockout_until is not None:
                        curse.lockout_until = deadline.due_at
                    else:
                        curse.expires_at = deadline.due_at


def _clock_minutes(text: str) -> int:
    hours, _, minutes = text.partition(":")
    return int(hours) * 60 + int(minutes or 0)


def parse_clock_time(text: str) -> int:
    """Minutes after midnight of ``HH:MM``; raises ValueError when it is not a time."""
    try:
        value = _clock_minutes(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is not a time of day like 22:00") from None
    hours, _, minutes = text.strip().partition(":")
    if not (0 <= int(hours) <= 23 and 0 <= int(minutes or 0) <= 59):
        raise ValueError(f"{text!r} is not a time of day like 22:00")
    return value


def next_rest_window(
    periods: Iterable[tuple[str, str]], time_zone: str, after: datetime
) -> tuple[datetime, datetime] | None:
    """The first rest window (start, end) that starts at or after ``after``, in UTC.

    The periods' clock times are read on the wall clock of ``time_zone`` on each day, so a
    22:00-07:00 rest lasts 8 hours on the night the clocks go forward and 10 when they go
    back; times the clocks skip or repeat follow ``rules.localtime``'s fold rules.
    """
    zone = zone_info(time_zone)
    today = after.astimezone(zone).date()
    best: tuple[datetime, datetime] | None = None
    for start_text, end_text in periods:
        start_min, end_min = _clock_minutes(start_text), _clock_minutes(end_text)
        for day in (today + timedelta(days=n) for n in (-1, 0, 1, 2)):
            start = local_instant(day, start_min, zone)
            if start < after:
                continue
            end_day = day if end_min > start_min else day + timedelta(days=1)
            end = local_instant(end_day, end_min, zone)
            if best is None or start < best[0]:
                best = (start, end)
            break
    return best


def active_rest_window(
    periods: Iterable[tuple[str, str]], time_zone: str, at: datetime
) -> tuple[datetime, datetime] | None:
    """The rest window containing ``at``, if any."""
    window = next_rest_window(periods, time_zone, at - timedelta(days=2))
    while window is not None and window[0] <= at:
        if window[0] <= at < window[1]:
            return window
        window = next_rest_window(periods, time_zone, window[0] + timedelta(seconds=1))
    return None
