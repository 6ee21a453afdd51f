"""Lanes: each chat's updates one at a time in arrival order, different chats side by side.

::

    lanes = Lanes(limit=8)
    result = await lanes.submit("tg:-100123", lambda: driver.on_message(msg))

Work submitted to a lane starts once the lane's previous work has ended (whether it
succeeded or raised); at most ``limit`` lanes work at once, so a burst in one group never
holds up another group's updates, and a thousand groups never start a thousand threads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

#: Lanes working at once in one process.
LANES_AT_ONCE = 8


class Lanes:
    """See the module docstring."""

    def __init__(self, limit: int = LANES_AT_ONCE) -> None:
        self._slots = asyncio.Semaphore(limit)
        self._tails: dict[str, asyncio.Future[Any]] = {}

    def submit(self, lane: str, work: Callable[[], Awaitable[T]]) -> asyncio.Future[T]:
        """Run ``work`` after the lane's earlier work; the future holds its result."""
        before = self._tails.get(lane)

        async def run() -> T:
            if before is not None:
                await asyncio.wait([before])  # its outcome is its submitter's business
            async with self._slots:
                return await work()

        task: asyncio.Future[T] = asyncio.ensure_future(run())
        self._tails[lane] = task

        def forget(done: asyncio.Future[T]) -> None:
            if self._tails.get(lane) is done:
                del self._tails[lane]

        task.add_done_callback(forget)
        return task

    @property
    def busy(self) -> int:
        """How many lanes have work queued or running."""
        return len(self._tails)

    async def join(self) -> None:
        """Wait until every lane has finished what was submitted."""
        while self._tails:
            await asyncio.wait(list(self._tails.values()))
