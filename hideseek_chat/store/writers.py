"""One SQLite writer at a time in this process, first come first served.

SQLite lets one transaction write at a time; a second ``BEGIN IMMEDIATE`` waits in SQLite's
busy handler, which retries after sleeps growing to 100 ms and serves no one in particular.
While a burst of timers keeps one thread writing transaction after transaction, another
thread's update can then lose every retry for seconds. ``WriterQueue`` makes the threads of
one process take turns in arrival order instead: a thread waits for the transactions queued
before it (a few milliseconds each), never for a whole burst. A thread marked with
``in_background`` (the pool timers and the outbox run in) lets every other waiter go first,
so an update waits for one transaction at most. Other processes still meet in SQLite's busy
handler.
"""

from __future__ import annotations

import threading
from collections import deque

_marks = threading.local()


def in_background() -> None:
    """Mark the calling thread as background work: its transactions let others go first
    (use it as a thread pool's ``initializer``)."""
    _marks.background = True


def _is_background() -> bool:
    return getattr(_marks, "background", False)


class WriterQueue:
    """A fair (FIFO) lock for the transactions of one SQLite database."""

    def __init__(self, timeout: float) -> None:
        #: after this long a waiter goes ahead and leaves it to SQLite's busy handler
        self.timeout = timeout
        self._lock = threading.Lock()
        self._turns: deque[threading.Event] = deque()  # the holder first, then the waiters
        self._behind: set[threading.Event] = set()  # the background threads' turns
        self._holder: int | None = None

    def acquire(self) -> bool:
        """Wait for this thread's turn; False (nothing held) when this thread already holds
        it (a second connection of its own: SQLite decides) or the wait timed out."""
        me = threading.get_ident()
        with self._lock:
            if self._holder == me:
                return False
            turn = threading.Event()
            if _is_background() or len(self._turns) < 2:
                self._turns.append(turn)
            else:  # ahead of the background waiters, behind the holder and the others
                at = next(
                    (n for n in range(1, len(self._turns)) if self._turns[n] in self._behind),
                    len(self._turns),
                )
                self._turns.insert(at, turn)
            if _is_background():
                self._behind.add(turn)
            if len(self._turns) == 1:
                turn.set()
        if turn.wait(self.timeout):
            with self._lock:
                self._holder = me
            return True
        with self._lock:  # timed out: leave the queue (it may have become our turn meanwhile)
            first = self._turns[0] is turn
            self._turns.remove(turn)
            self._behind.discard(turn)
            if first and self._turns:
                self._turns[0].set()
        return False

    def release(self) -> None:
        """End the holder's turn and start the next waiter's."""
        with self._lock:
            self._holder = None
            self._behind.discard(self._turns.popleft())
            if self._turns:
                self._turns[0].set()
