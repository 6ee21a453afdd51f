"""Send limits, as sliding windows: at most N sends in any T seconds, per chat and overall.

Telegram allows about 20 messages a minute in one group, one a second in one private chat
(short bursts tolerated) and about 30 a second overall; it answers 429 beyond. A token
bucket lets twice that through at the edge of a window, so each limit is a window of the
send times themselves::

    pacer = Pacer()
    while (delay := pacer.reserve("tg:-100123", group=True)) > 0:
        await asyncio.sleep(delay)
    ...  # send: it was booked

``reserve`` books the send only when every window it counts against has room now, and
otherwise says how long to wait before asking again. Time comes from ``clock`` (monotonic
seconds), so tests pass it in.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

#: (sends, seconds): per group, per private chat, and over every chat.
GROUP_LIMIT = (20, 60.0)
PRIVATE_LIMIT = (3, 3.0)
OVERALL_LIMIT = (30, 1.0)


@dataclass
class Window:
    """At most ``count`` sends in any ``span`` seconds."""

    count: int
    span: float
    times: deque[float] = field(default_factory=deque)

    def earliest(self, at: float) -> float:
        """The earliest time at or after ``at`` when one more send fits."""
        while self.times and self.times[0] <= at - self.span:
            self.times.popleft()
        if len(self.times) < self.count:
            return at
        return self.times[-self.count] + self.span


class Pacer:
    """Book sends against the windows; see the module docstring."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        *,
        group: tuple[int, float] = GROUP_LIMIT,
        private: tuple[int, float] = PRIVATE_LIMIT,
        overall: tuple[int, float] = OVERALL_LIMIT,
    ) -> None:
        self.clock = clock
        self._group, self._private = group, private
        self._overall = Window(*overall)
        self._chats: dict[str, Window] = {}

    def reserve(self, chat: str | None, group: bool) -> float:
        """Book one send to ``chat`` now and return 0, or return how many seconds to wait
        before asking again (None: a call no chat limit applies to, such as answering a
        button press)."""
        now = self.clock()
        windows = self._windows(chat, group, make=True)
        at = max(window.earliest(now) for window in windows)
        if at > now:
            return at - now
        for window in windows:
            window.times.append(now)
        self._forget_idle(now)
        return 0.0

    def wait_for(self, chat: str | None, group: bool) -> float:
        """How many seconds a send to ``chat`` would wait now (0: room), booking nothing."""
        now = self.clock()
        at = max(w.earliest(now) for w in self._windows(chat, group, make=False))
        return max(0.0, at - now)

    def _windows(self, chat: str | None, group: bool, make: bool) -> list[Window]:
        """The windows a send to ``chat`` counts against (``make``: the chat's made if new)."""
        windows = [self._overall]
        window = self._chats.get(chat) if chat is not None else None
        if window is None and make and chat is not None:
            window = self._chats[chat] = Window(*(self._group if group else self._private))
        if window is not None:
            windows.append(window)
        return windows

    def _forget_idle(self, now: float) -> None:
        """Drop the windows of chats with no send in their span (bounded memory)."""
        if len(self._chats) < 1024:
            return
        for chat in [
            c for c, w in self._chats.items() if not w.times or w.times[-1] <= now - w.span
        ]:
            del self._chats[chat]
