"""Rows from many threads written in few transactions (a group commit).

The sending threads each count the texts they sent. A thread that finds a write under way
leaves its rows for the next one and waits for it; the first thread to find none writes
everything that waits, in one transaction. So each ``add`` returns only once its rows are
written (or raises what writing them raised), as if it had written them itself, and under
load many threads share one commit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class GroupWriter(Generic[T]):
    """``add`` rows from any thread; ``write`` is called with a batch, never twice at once."""

    def __init__(self, write: Callable[[list[T]], None]) -> None:
        self._write = write
        self._changed = threading.Condition()
        self._waiting: list[T] = []
        self._writing = False
        self._next = 1  # the batch the rows added now will go in
        self._done = 0  # the last batch written (or failed)
        self._failed: dict[int, BaseException] = {}  # batch -> what writing it raised
        self._waiters: dict[int, int] = {}  # batch -> threads still to hear of its failure

    def add(self, rows: list[T]) -> None:
        if not rows:
            return
        with self._changed:
            self._waiting.extend(rows)
            mine = self._next
            while self._writing and self._done < mine:
                self._waiters[mine] = self._waiters.get(mine, 0) + 1
                self._changed.wait()
                self._waiters[mine] -= 1
            if self._done >= mine:  # another thread wrote them
                self._raise_if_failed(mine)
                return
            batch, self._waiting = self._waiting, []
            self._writing = True
            self._next += 1
        try:
            self._write(batch)
        except BaseException as err:
            self._finish(mine, err)
            raise
        self._finish(mine, None)

    def _finish(self, batch: int, failure: BaseException | None) -> None:
        """Say that ``batch`` was written (or failed with ``failure``) and wake its waiters."""
        with self._changed:
            self._writing = False
            self._done = batch
            if failure is not None and self._waiters.get(batch):
                self._failed[batch] = failure  # for the threads whose rows it held
            self._changed.notify_all()

    def _raise_if_failed(self, batch: int) -> None:
        """Called holding the lock: raise the failure of ``batch``, if it failed."""
        if not self._waiters.get(batch):  # the last one of its batch to wake
            self._waiters.pop(batch, None)
            failure = self._failed.pop(batch, None)
        else:
            failure = self._failed.get(batch)
        if failure is not None:
            raise failure
