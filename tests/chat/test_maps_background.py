"""Map jobs never run on the update path: a message only queues one; the tick starts it in
a worker thread it does not wait for, at most two at a time; what the job says is sent
by a later drain."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from datetime import datetime

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.drive import Capabilities, Driver
from hideseek_chat.chat.model import ChatKind, CommandIn, Outbound, Sender, SendText
from hideseek_chat.maps.places import Place
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.models import MapJobStatus
from tests.chat.maps_fakes import FakeGeocoder, clients
from tests.chat.play import START

GROUP = "tg:-100"
ALICE = Sender("tg:1", "Alice")


class Channel:
    capabilities = Capabilities()

    def __init__(self) -> None:
        self.actions: list[Outbound] = []

    async def perform(self, actions: Sequence[Outbound], now: datetime) -> bool:
        self.actions.extend(actions)
        return True


class ThreadedGeocoder(FakeGeocoder):
    """Answers only once the test lets it, and remembers the thread it ran in."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.entered = threading.Semaphore(0)  # released once per search that began
        self.threads: list[int] = []

    def search(self, query: str, *, language: str = "en", limit: int = 5) -> list[Place]:
        self.threads.append(threading.get_ident())
        self.entered.release()
        assert self.release.wait(10)
        return super().search(query, language=language, limit=limit)


def command(text: str, n: int) -> CommandIn:
    name, *args = text.lstrip("/").split()
    return CommandIn(GROUP, ChatKind.GROUP, ALICE, START, f"u{n}", str(n), name, tuple(args))


def statuses(uow_factory: UnitOfWorkFactory) -> list[MapJobStatus]:
    from sqlalchemy import select

    from hideseek_chat.store.models import MapJobRow

    with uow_factory() as uow:
        return list(uow.session.scalars(select(MapJobRow.status).order_by(MapJobRow.id)))


async def test_the_tick_runs_jobs_in_worker_threads_without_waiting(
    uow_factory: UnitOfWorkFactory,
) -> None:
    geocoder = ThreadedGeocoder()
    conversation = Conversation(uow_factory, map_clients=clients(geocoder))
    channel = Channel()
    driver = Driver(conversation, channel, lambda: START)
    await driver.on_message(command("/newgame small", 1))
    for n, place in enumerate(("Stillwater", "Stillwater", "Stillwater"), start=2):
        await driver.on_message(command(f"/map find {place}", n))
    assert statuses(uow_factory) == [MapJobStatus.QUEUED] * 3  # nothing ran on the way

    for _ in range(3):
        await driver.on_tick()  # returns while the searches wait
    assert driver.map_jobs_running == 2  # at most two at once
    for _ in range(2):  # both workers are inside their search (claimed, not finished)
        assert await asyncio.to_thread(geocoder.entered.acquire, True, 10)
    assert sorted(statuses(uow_factory)) == sorted(
        [MapJobStatus.RUNNING, MapJobStatus.RUNNING, MapJobStatus.QUEUED]
    )
    geocoder.release.set()
    await driver.map_jobs_done()
    assert threading.get_ident() not in geocoder.threads
    await driver.on_tick()
    await driver.map_jobs_done()
    await driver.drain()
    assert statuses(uow_factory) == [MapJobStatus.DONE] * 3
    found = [a for a in channel.actions if isinstance(a, SendText) and a.text.startswith("🔎 What")]
    assert sorted(str(a.slot) for a in found) == ["map-job-1", "map-job-2", "map-job-3"]
    assert all(a.buttons for a in found)
