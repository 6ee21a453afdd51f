"""The application's one clock: aware UTC, optionally running faster than the wall clock.

Every "now" the app hands the conversation comes from one ``GameClock``: the ``at`` of each
inbound message, the ``now`` of every timer tick. With ``speed`` 1 (the default) it is the wall
clock. With ``speed`` s (``HIDESEEK_CLOCK_SPEED``, for rehearsals and demos) game time runs s
times faster from an *anchor*::

    now = anchor + (wall - anchor) * speed

The anchor is the wall-clock moment the clock was made (the process start) unless given, so
times shown in a chat still look like today. A restart re-anchors a fast clock at the wall
clock: a game played at speed 60 before the restart sees its clock jump back to the wall time
and its deadlines come due later. Fast clocks are for rehearsals, not for real games.

``now()`` never returns less than it returned before, even if the wall clock is stepped back
(NTP): the rules assume time only moves forward.
"""

from __future__ import annotations

import datetime as dt
import threading


class GameClock:
    """Tell the game's time: the wall clock, or ``speed`` times faster from ``anchor``."""

    def __init__(self, speed: float = 1.0, *, anchor: dt.datetime | None = None) -> None:
        if not speed > 0:  # also rejects NaN
            raise ValueError(f"the clock speed must be more than 0, not {speed!r}")
        if anchor is not None and anchor.utcoffset() is None:
            raise ValueError("the clock's anchor must be timezone-aware")
        self._speed = float(speed)
        wall = _wall()
        self._anchor = wall if anchor is None else anchor.astimezone(dt.UTC)
        self._last = self._scaled(wall)
        self._lock = threading.Lock()

    @property
    def speed(self) -> float:
        """How many game seconds pass per wall-clock second."""
        return self._speed

    @property
    def anchor(self) -> dt.datetime:
        """The moment where game time and wall time agree (aware UTC)."""
        return self._anchor

    def now(self) -> dt.datetime:
        """Return the game's current time, aware UTC, never earlier than a previous call."""
        current = self._scaled(_wall())
        with self._lock:
            if current < self._last:
                return self._last
            self._last = current
            return current

    def _scaled(self, wall: dt.datetime) -> dt.datetime:
        if self._speed == 1.0:
            return wall
        return self._anchor + (wall - self._anchor) * self._speed


def _wall() -> dt.datetime:
    return dt.datetime.now(dt.UTC)
