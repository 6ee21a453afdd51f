"""A burst of due timers while live locations arrive (shared by the test and the bench).

``prepare`` plays one game at a table to its seeking phase (the game whose seeker keeps
sharing a live location) and stores ``size`` copies of the same game taken while it was
hiding, each in a group of its own, every one's hiding period ending at the same moment.
``run`` then drives ``Driver.on_tick`` in an event loop with the channel's thread pools,
on a game clock that follows the loop's monotonic clock from that moment on; after each
batch of timers the seeker's next live-location edit arrives (the live location began
before the burst). It measures how long each
edit took from its arrival until it was stored and its replies performed (the drive loop
is done with it, its chat's lane free) and how late each batch of deadlines fired.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import func, select

from hideseek_chat.chat.drive import Capabilities, Driver, background_pool
from hideseek_chat.chat.model import ChatKind, LocationIn, Outbound, Sender
from hideseek_chat.console.table import Table
from hideseek_chat.rules.state import DeadlineKind, Phase
from hideseek_chat.store import UnitOfWorkFactory, create_game
from hideseek_chat.store.models import EventRow, OutboxRow, PingRow
from tests.chat.play import SEEKERS_START, START, begin, new_table, state_of

#: Games stored per transaction while preparing.
CHUNK = 250


@dataclass
class Burst:
    """A prepared burst: the table whose game takes the edits and the copies' due time."""

    uow_factory: UnitOfWorkFactory
    table: Table
    seeker: str
    due: datetime
    games: list[int]


@dataclass
class Outcome:
    """What ``run`` measured (seconds)."""

    edit_latency: list[float] = field(default_factory=list)
    lateness: list[float] = field(default_factory=list)  # per deadline fired
    fire_cpu: float = 0.0  # the firing thread's CPU time in the tick's batches
    total: float = 0.0  # the tick, from its start until every announcement was sent
    sent: int = 0


class Channel:
    """A channel that performs at once, counting what it was given."""

    capabilities = Capabilities()

    def __init__(self) -> None:
        self.performed = 0

    async def perform(self, actions: Sequence[Outbound], now: datetime) -> bool:
        self.performed += len(actions)
        return True


def prepare(uow_factory: UnitOfWorkFactory, size: int) -> Burst:
    """Store ``size`` games whose hiding period ends at ``Burst.due``, and a seeking game."""
    table = new_table(uow_factory)
    _, seekers = begin(table)
    hiding = state_of(uow_factory, table)
    for deadline in hiding.deadlines:
        if deadline.kind == DeadlineKind.HIDING_REMINDER:
            deadline.done = True  # one timer per game: the end of its hiding period
    (due,) = [d.due_at for d in hiding.deadlines if not d.done and d.due_at is not None]
    table.wait(due + timedelta(seconds=1) - table.now)
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    games: list[int] = []
    for first in range(0, size, CHUNK):
        with uow_factory() as uow:
            for n in range(first, min(size, first + CHUNK)):
                games.append(create_game(uow, f"burst:{n}", hiding, [], START))
            uow.commit()
    return Burst(uow_factory, table, seekers[0], due, games)


async def run(burst: Burst, *, threads: int = 8, background: int = 1) -> Outcome:
    """Tick once at ``burst.due`` (the game clock follows the loop's clock from there) and
    send everything; a live-location edit arrives after each batch of timers."""
    loop = asyncio.get_running_loop()
    started = loop.time()

    def clock() -> datetime:
        return burst.due + timedelta(seconds=loop.time() - started)

    table, channel, outcome = burst.table, Channel(), Outcome()
    pools = ThreadPoolExecutor(threads), background_pool(background)
    driver = Driver(table.conversation, channel, clock, threads=pools[0], background=pools[1])
    conversation = table.conversation
    tick = conversation.tick
    edits: list[asyncio.Future[None]] = []
    seeker = table.person(burst.seeker)

    def location(n: int) -> LocationIn:
        return LocationIn(
            table.group,
            ChatKind.GROUP,
            Sender(seeker.ref, seeker.name),
            clock(),
            f"burst-edit:{n}",
            "live-1",
            lat=SEEKERS_START[0],
            lon=SEEKERS_START[1] + n * 1e-5,
            live=True,
            edited=n > 0,
        )

    async def edit(n: int) -> None:
        arrived = loop.time()
        stored: asyncio.Future[None] = loop.create_future()
        await driver.on_message(location(n), None, stored)  # stored, its replies performed
        assert stored.done()
        outcome.edit_latency.append(loop.time() - arrived)

    def arrive() -> None:
        edits.append(asyncio.ensure_future(edit(len(edits) + 1)))

    def timed_tick(now: datetime, limit: int | None = None) -> int:
        cpu = time.thread_time()
        fired = tick(now, limit)  # in a background thread
        outcome.fire_cpu += time.thread_time() - cpu
        late = (clock() - burst.due).total_seconds()
        outcome.lateness.extend([late] * fired)
        loop.call_soon_threadsafe(arrive)
        return fired

    await driver.on_message(location(0))  # the seeker began sharing before the burst
    conversation.tick = timed_tick  # type: ignore[method-assign]
    try:
        await driver.on_tick()
        await driver.idle()
        outcome.total = loop.time() - started
        await asyncio.gather(*edits)
    finally:
        del conversation.tick
        for pool in pools:
            pool.shutdown(wait=True)
    outcome.sent = channel.performed
    return outcome


def deadlines_fired(uow_factory: UnitOfWorkFactory, games: list[int]) -> dict[int, int]:
    """How many deadline events each of ``games`` logged."""
    with uow_factory() as uow:
        rows = uow.session.execute(
            select(EventRow.game_id, func.count())
            .where(EventRow.type == "DeadlineReached", EventRow.game_id.in_(games))
            .group_by(EventRow.game_id)
        )
        return {game: count for game, count in rows}


def unsent(uow_factory: UnitOfWorkFactory) -> int:
    with uow_factory() as uow:
        return int(
            uow.session.scalar(select(func.count()).where(OutboxRow.sent_at.is_(None))) or 0
        )


def pings_of(uow_factory: UnitOfWorkFactory, table: Table) -> int:
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        return int(
            uow.session.scalar(
                select(func.count()).where(PingRow.game_id == loaded.id)
            )
            or 0
        )


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]
