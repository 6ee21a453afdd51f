"""While a tick fires timers, the outbox's store calls wait: a drain started meanwhile (an
update's, in the background) runs once the last batch has fired, never between batches."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

from hideseek_chat.chat.drive import Capabilities, Driver, background_pool
from hideseek_chat.chat.model import Outbound

NOW = datetime(2026, 1, 1, tzinfo=UTC)


class Channel:
    capabilities = Capabilities()

    async def perform(self, actions: Sequence[Outbound], now: datetime) -> bool:
        return True


class Conversation:
    """Three batches of timers due (the first waits for the test); an empty outbox."""

    draws_pictures = True
    has_map_jobs = False
    pictures_queued = False

    def __init__(self, batch: int) -> None:
        self.batch = batch
        self.calls: list[str] = []
        self.firing = threading.Event()
        self.go = threading.Event()

    def tick(self, now: datetime, limit: int | None = None) -> int:
        ticks = self.calls.count("tick")
        self.calls.append("tick")
        if ticks == 0:
            self.firing.set()
            assert self.go.wait(10)
        return self.batch if ticks < 2 else 0

    def outbox_games(self) -> list[int]:
        self.calls.append("outbox")
        return []


async def test_a_drain_waits_for_the_tick_to_fire_every_batch() -> None:
    conversation = Conversation(batch=2)
    pools = ThreadPoolExecutor(2), background_pool(1)
    driver = Driver(
        conversation,  # type: ignore[arg-type]
        Channel(),
        lambda: NOW,
        threads=pools[0],
        background=pools[1],
        tick_batch=2,
    )
    try:
        ticking = asyncio.ensure_future(driver.on_tick())
        assert await asyncio.to_thread(conversation.firing.wait, 10)
        draining = asyncio.ensure_future(driver.drain())  # an update's drain, meanwhile
        for _ in range(20):
            await asyncio.sleep(0)  # the drain gets every chance to queue its store call
        conversation.go.set()
        await asyncio.gather(ticking, draining)
    finally:
        for pool in pools:
            pool.shutdown(wait=True)
    assert conversation.calls[:3] == ["tick"] * 3
    assert set(conversation.calls[3:]) == {"outbox"}
