"""Send limits as sliding windows: never more than Telegram allows in any span of time."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hideseek_chat.chat.pacing import Pacer


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def send(pacer: Pacer, clock: Clock, chat: str | None, group: bool) -> float:
    """Wait (on the fake clock) until the send is booked; return when it went."""
    while (delay := pacer.reserve(chat, group)) > 0:
        clock.now += delay
    return clock.now


def test_a_group_gets_twenty_messages_a_minute_then_waits_for_the_oldest_to_age() -> None:
    clock = Clock()
    pacer = Pacer(clock)
    times = []
    for _ in range(20):
        times.append(send(pacer, clock, "-100", True))
        clock.now += 1.0
    times += [send(pacer, clock, "-100", True) for _ in range(2)]
    assert times[:20] == [1000.0 + i for i in range(20)]
    assert times[20:] == [1060.0, 1061.0]  # each as the oldest of the twenty left the window
    assert pacer.wait_for("-100", True) == 1.0


def test_a_window_never_lets_twice_the_limit_through_at_its_edge() -> None:
    clock = Clock()
    pacer = Pacer(clock)
    clock.now = 1059.0
    for _ in range(20):
        send(pacer, clock, "-100", True)
    clock.now = 1061.0  # a token bucket would refill here
    assert pacer.reserve("-100", True) > 0


def test_a_full_group_does_not_hold_up_a_private_chat() -> None:
    clock = Clock()
    pacer = Pacer(clock)
    for _ in range(20):
        send(pacer, clock, "-100", True)
    assert pacer.reserve("-100", True) > 0
    assert pacer.reserve("42", False) == 0


def test_wait_for_books_nothing() -> None:
    clock = Clock()
    pacer = Pacer(clock, group=(2, 60.0))
    for _ in range(5):
        assert pacer.wait_for("-100", True) == 0
    send(pacer, clock, "-100", True)
    send(pacer, clock, "-100", True)
    assert pacer.wait_for("-100", True) == 60.0


@settings(max_examples=60, deadline=None)
@given(
    gaps=st.lists(st.floats(min_value=0, max_value=5, allow_nan=False), min_size=1, max_size=120),
    chats=st.lists(st.sampled_from(["-1", "-2", "7", "8", None]), min_size=1, max_size=120),
)
def test_no_span_of_time_holds_more_sends_than_allowed(
    gaps: list[float], chats: list[str | None]
) -> None:
    clock = Clock()
    pacer = Pacer(clock)
    sent: list[tuple[float, str | None]] = []
    for gap, chat in zip(gaps, chats * (len(gaps) // len(chats) + 1), strict=False):
        clock.now += gap
        group = chat is not None and chat.startswith("-")
        sent.append((send(pacer, clock, chat, group), chat))
    times = [t for t, _ in sent]
    assert times == sorted(times)
    for start, _ in sent:
        in_second = [c for t, c in sent if start <= t < start + 1.0]
        assert len(in_second) <= 30
        for chat in {"-1", "-2"}:
            assert sum(1 for t, c in sent if c == chat and start <= t < start + 60.0) <= 20
        for chat in {"7", "8"}:
            assert sum(1 for t, c in sent if c == chat and start <= t < start + 3.0) <= 3
