"""The drive loop every channel shares: a message in, the replies out, then the outbox.

A channel adapter converts what its platform delivers into ``model.Inbound`` values and
performs ``model.Outbound`` actions; everything between is here, once::

    driver = Driver(conversation, channel, clock, threads=executor)
    await driver.on_message(inbound)   # handle, perform the replies, drain the outbox
    await driver.on_tick()             # every few seconds: timers, then drain

A channel declares what it can do (``Capabilities``); the driver leaves out or replaces
what it cannot (a picture becomes its fixed-width text, a deletion is skipped), so nothing
here assumes Telegram. The loop is written once, asynchronously; a channel whose
``perform`` never waits (the console) runs it with ``run_sync``.

With ``threads`` (a server), every call into the store runs in a thread pool, so the
event loop stays free while one chat's update, a burst of timers or a game's outbox is
worked on: different chats are handled at the same time (``chat.lanes`` keeps each chat's
updates in order). Updates are handled in ``threads``; timers and the outbox run in
``background`` (a pool of their own), at most ``SENDERS`` of the outbox's calls queued at
once, so a burst of a thousand timers queues nothing in front of the next update. Each
game's outbox is sent by one task at a time in this process and, through a lease in the
store, by one process at a time (``Conversation.claim_outbox``); timers are fired in
batches of ``TICK_BATCH``, and while a tick fires them the outbox's calls wait, so that
firing (storing each deadline's effect) is never held up behind sending.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import partial
from typing import Any, Protocol, TypeVar

from hideseek_chat import metrics
from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.model import (
    AnswerButton,
    ButtonIn,
    DeleteMessage,
    EditButtons,
    Inbound,
    Outbound,
    SendFile,
    SendText,
    Unpin,
)
from hideseek_chat.logs import who
from hideseek_chat.store.writers import in_background

log = logging.getLogger(__name__)

#: Deliveries taken from the outbox per drain.
DRAIN_LIMIT = 50
#: Map jobs (searches, fetches) one process runs at once in worker threads.
MAX_MAP_JOBS = 2
#: Map jobs run inline one after another per tick at most (the console).
MAX_INLINE_JOBS = 10
#: Timers fired per batch: between batches the event loop (and every other chat) moves on.
TICK_BATCH = 50
#: Store calls of the outbox one process queues at once, however many games have news: a
#: burst's thousand outboxes never queue a thousand calls in front of the next timers.
SENDERS = 4

T = TypeVar("T")

#: True while a channel performs the direct replies to a message (not the outbox's
#: announcements): a channel sharing the loop (SMS in a Telegram group) leaves them out.
REPLYING: ContextVar[bool] = ContextVar("replying", default=False)
#: The outbox entry a channel is performing (None: not one, or a courtesy action): a
#: channel that sends to several recipients records who got it, so a retry after a later
#: failure (another channel's) does not send it to them again.
DELIVERY: ContextVar[int | None] = ContextVar("delivery", default=None)


@dataclass(frozen=True)
class Capabilities:
    """What a channel can do with the conversation's actions."""

    buttons: bool = True  # buttons under a message, pressed back as ButtonIn (SMS: no)
    #: the group's status is one message, edited in place; a menu's next screen replaces
    #: the menu (``SendText.edit_ref``); a used keyboard is removed; without it each comes
    #: as a new message
    edit_messages: bool = True
    delete_messages: bool = True  # a hider's location posted in the group can be removed
    pictures: bool = True  # a PNG (a board) can be shown instead of its fixed-width text
    #: a button that sends the presser's location (Button.share_location) in a private chat
    location_button: bool = True
    files: bool = True  # a document (SendFile) can be sent; else its ``fallback`` text
    #: the group's status is pinned when sent, and unpinned when its game ends (``Unpin``)
    pin_messages: bool = True


class Channel(Protocol):
    """A channel adapter as the driver uses it."""

    capabilities: Capabilities

    async def perform(self, actions: Sequence[Outbound], now: datetime) -> bool:
        """Perform ``actions`` in order; False when a transient failure stopped them (the
        driver tries the rest of the outbox again later)."""
        ...


def background_pool(threads: int = 1) -> ThreadPoolExecutor:
    """A pool for a driver's ``background``: its SQLite transactions let updates go first."""
    return ThreadPoolExecutor(threads, thread_name_prefix="store-bg", initializer=in_background)


def wall_clock() -> datetime:
    """The real time (leases between processes never follow a game's faster clock)."""
    return datetime.now(UTC)


class Driver:
    """Run the conversation for one channel: see the module docstring."""

    def __init__(
        self,
        conversation: Conversation,
        channel: Channel,
        clock: Callable[[], datetime],
        *,
        drain_limit: int = DRAIN_LIMIT,
        jobs_inline: bool = False,
        max_map_jobs: int = MAX_MAP_JOBS,
        threads: Executor | None = None,
        background: Executor | None = None,
        wall: Callable[[], datetime] = wall_clock,
        tick_batch: int = TICK_BATCH,
        senders: int = SENDERS,
    ) -> None:
        self.conversation = conversation
        self.channel = channel
        # A PNG nobody can see is not worth drawing (the console, SMS).
        conversation.draws_pictures = channel.capabilities.pictures
        self.clock = clock
        self.drain_limit = drain_limit
        self.jobs_inline = jobs_inline
        self.max_map_jobs = max_map_jobs
        self.threads = threads
        self.background = background or threads
        self.wall = wall
        self.tick_batch = tick_batch
        #: who holds this process's outbox leases
        self.holder = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self._jobs: set[asyncio.Future[bool]] = set()
        self._draining: set[int] = set()  # games whose outbox a task of ours is sending
        self._dirty: set[int] = set()  # ... and that got news meanwhile
        self._ticking = False
        self._flushing = 0  # ticks sending the whole outbox now
        self._background: set[asyncio.Future[None]] = set()
        self._senders = senders
        self._sending: asyncio.Semaphore | None = None  # made in the loop that uses it
        self._not_firing: asyncio.Event | None = None  # clear while a tick fires timers
        self._drawing: asyncio.Future[None] | None = None  # the picture worker

    async def _run(self, function: Callable[..., T], *args: Any) -> T:
        """Call ``function`` in the update thread pool (inline without one: the console)."""
        if self.threads is None:
            return function(*args)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.threads, partial(function, *args))

    async def _run_behind(self, function: Callable[..., T], *args: Any) -> T:
        """Call ``function`` in the background pool: timers and the outbox."""
        if self.background is None:
            return function(*args)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.background, partial(function, *args))

    async def on_message(
        self,
        msg: Inbound,
        payload: str | None = None,
        stored: asyncio.Future[None] | None = None,
    ) -> list[Outbound]:
        """Handle ``msg``, perform the replies, then send what the game announced (while a
        tick is at work, in the background: see ``idle``).

        ``payload`` is the channel's raw update, kept in the inbox if a handler fails;
        ``stored`` is resolved once the update is in the inbox (a webhook answers then)."""
        started = time.perf_counter()
        try:
            replies = await self._run(self.conversation.handle, msg, payload)
        finally:
            if stored is not None and not stored.done():
                stored.set_result(None)
        if self.jobs_inline:  # the console: a job queued by this message runs now
            self.start_map_jobs()
        if isinstance(msg, ButtonIn) and not any(isinstance(r, AnswerButton) for r in replies):
            # Every press is answered, or the person's app shows a spinner for a while.
            replies = [AnswerButton(msg.sender.ref, press_ref=msg.press_ref), *replies]
        replying = REPLYING.set(True)
        try:
            await self.channel.perform(adapt(replies, self.channel.capabilities), self.clock())
        finally:
            REPLYING.reset(replying)
        seconds = time.perf_counter() - started
        metrics.update_handled(kind_of(msg), seconds)
        log.debug(
            "%s from %s in %s handled in %.0f ms: %d replies",
            kind_of(msg),
            who(msg.sender.ref),
            who(msg.chat),
            seconds * 1000,
            len(replies),
        )
        if (self._ticking or self._flushing) and self.background is not None:
            # Timers are being fired or their news sent page after page: the outbox waits
            # behind them, the chat's next update need not.
            self._in_background(self.drain())
        else:
            await self.drain()
        if self.jobs_inline:
            if self._draw_inline():  # the console: pictures at once
                await self.drain()
        elif self.conversation.pictures_queued:
            self.start_picture_jobs()
        return replies

    async def on_tick(self) -> None:
        """Fire the due timers in batches (the outbox's store calls wait meanwhile), start
        the queued map jobs, then send what they announced (the whole outbox, page after
        page). A tick that finds the previous one still at work leaves it to it."""
        if self._ticking:
            return
        self._ticking = True
        not_firing = self._gate()
        not_firing.clear()  # the outbox waits: its store calls would queue between batches
        try:
            while True:
                now = self.clock()
                fired = await self._run_behind(self.conversation.tick, now, self.tick_batch)
                if fired < self.tick_batch:
                    break
        finally:
            self._ticking = False
            not_firing.set()
        self.start_map_jobs()
        self.start_picture_jobs()
        self._flushing += 1
        try:
            await self._drain_all()
        finally:
            self._flushing -= 1

    def _in_background(self, coroutine: Coroutine[Any, Any, None]) -> None:
        if self.background is None:  # the console: nothing runs beside it
            run_sync(coroutine)
            return
        task = asyncio.ensure_future(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    @property
    def map_jobs_running(self) -> int:
        """How many map jobs run in worker threads now."""
        return len(self._jobs)

    async def map_jobs_done(self) -> None:
        """Wait for the map jobs running in worker threads (a clean shutdown, tests)."""
        while self._jobs:
            await asyncio.gather(*list(self._jobs))

    async def idle(self) -> None:
        """Wait for the outbox tasks started in the background (a clean shutdown, tests)."""
        while self._background:
            await asyncio.gather(*list(self._background))

    def _draw_inline(self) -> bool:
        """Draw the queued pictures now (the console); True when one was drawn."""
        drew = False
        for _ in range(MAX_INLINE_JOBS):
            if not self.conversation.pictures_queued:
                break
            if not self.conversation.run_picture_job(self.clock):
                break
            drew = True
        return drew

    def start_picture_jobs(self) -> None:
        """Draw queued pictures: inline (the console), else one at a time in a worker
        thread, whose notice is sent as soon as it is drawn."""
        if self.jobs_inline:
            self._draw_inline()
            return
        if self._drawing is not None or not self.conversation.pictures_queued:
            return
        task = asyncio.ensure_future(self._draw())
        self._drawing = task

    async def _draw(self) -> None:
        try:
            while await asyncio.to_thread(self.conversation.run_picture_job, self.clock):
                self._in_background(self.drain())
        finally:
            self._drawing = None

    async def pictures_done(self) -> None:
        """Wait for the picture worker (a clean shutdown, tests)."""
        while self._drawing is not None:
            await self._drawing

    def start_map_jobs(self) -> None:
        """Run queued map jobs: inline to their end (``jobs_inline``: the console), else in
        worker threads, at most ``MAX_MAP_JOBS`` at once and never awaited here, so a
        fetch of minutes never holds up a message or the tick."""
        conversation = self.conversation
        if not conversation.has_map_jobs:
            return
        if self.jobs_inline:
            for _ in range(MAX_INLINE_JOBS):
                if not conversation.run_map_job(self.clock):
                    break
            return
        if len(self._jobs) >= self.max_map_jobs:
            return
        task = asyncio.ensure_future(asyncio.to_thread(conversation.run_map_job, self.clock))
        self._jobs.add(task)
        task.add_done_callback(self._jobs.discard)

    async def drain(self) -> None:
        """Send every game's unsent outbox, the games side by side, each in order; a game
        stops at a transient failure to retry later. One look at the outbox: the games
        waiting longest, a page of them (the tick sends the rest)."""
        await self._drain_games(await self._outbox_call(self.conversation.outbox_games))

    async def _drain_all(self) -> None:
        """Drain page after page until a look finds no game not tried already (those the
        tick's earlier drains are still sending are waited for, then looked past)."""
        tried: set[int] = set()
        while True:
            games = await self._outbox_call(self.conversation.outbox_games)
            fresh = [game for game in games if game not in tried]
            if fresh:
                tried.update(fresh)
                await self._drain_games(fresh)
            elif self._background and any(game in self._draining for game in games):
                await asyncio.wait(list(self._background))
            else:
                return

    async def _drain_games(self, games: list[int]) -> None:
        if self.background is None:  # the console: one after another, nothing waits
            for game in games:
                await self._drain_game(game)
        elif len(games) == 1:
            await self._drain_game(games[0])
        elif games:
            await asyncio.gather(*(self._drain_game(game) for game in games))

    async def _drain_game(self, game_id: int) -> None:
        if game_id in self._draining:
            self._dirty.add(game_id)  # the task at it looks again before it stops
            return
        self._draining.add(game_id)
        try:
            while True:
                self._dirty.discard(game_id)
                if not await self._send_game(game_id) or game_id not in self._dirty:
                    return
        finally:
            self._draining.discard(game_id)

    async def _send_game(self, game_id: int) -> bool:
        """Hold the game's outbox lease and send its deliveries; False when another
        process holds the lease or a send failed."""
        conversation = self.conversation
        holder = self.holder
        if not await self._outbox_call(conversation.claim_outbox, game_id, holder, self.wall()):
            return False
        try:
            while True:
                now = self.clock()
                deliveries = await self._outbox_call(
                    conversation.outgoing, now, self.drain_limit, game_id
                )
                if not deliveries:
                    return True
                for delivery in deliveries:
                    actions = adapt(delivery.actions, self.channel.capabilities)
                    performing = DELIVERY.set(delivery.id or None)
                    try:
                        performed = await self.channel.perform(actions, now)
                    finally:
                        DELIVERY.reset(performing)
                    if not performed:
                        return False
                    await self._outbox_call(conversation.delivered, delivery.id, self.clock())
                if not await self._outbox_call(
                    conversation.claim_outbox, game_id, self.holder, self.wall()
                ):
                    return False  # the lease ran out meanwhile: the next holder goes on
        finally:
            await self._outbox_call(conversation.release_outbox, game_id, self.holder)

    def _gate(self) -> asyncio.Event:
        """Set unless a tick is firing timers (made in the loop that uses it)."""
        if self._not_firing is None:
            self._not_firing = asyncio.Event()
            self._not_firing.set()
        return self._not_firing

    async def _outbox_call(self, function: Callable[..., T], *args: Any) -> T:
        """Call ``function`` in the background pool once no tick is firing timers, at most
        ``SENDERS`` of the outbox's calls at once (a game waiting for its chat's send limit
        holds none of them)."""
        if self.background is None:
            return function(*args)
        if self._sending is None:
            self._sending = asyncio.Semaphore(self._senders)
        await self._gate().wait()
        async with self._sending:
            return await self._run_behind(function, *args)


def kind_of(msg: Inbound) -> str:
    """What kind of message ``msg`` is, for the metrics: ``CommandIn`` -> ``command``."""
    name = type(msg).__name__
    return (name.removesuffix("In") or name).lower()


def adapt(actions: Sequence[Outbound], capabilities: Capabilities) -> list[Outbound]:
    """``actions`` as a channel with ``capabilities`` can perform them."""
    adapted: list[Outbound] = []
    for action in actions:
        if isinstance(action, DeleteMessage) and not capabilities.delete_messages:
            continue
        if isinstance(action, Unpin) and not capabilities.pin_messages:
            continue
        if isinstance(action, SendFile) and not capabilities.files:
            action = SendText(action.to, text=action.fallback, private=action.private)
        if isinstance(action, EditButtons) and not (
            capabilities.edit_messages and capabilities.buttons
        ):
            continue  # a stale button is refused when pressed all the same
        if isinstance(action, SendText):
            if action.image is not None and not capabilities.pictures:
                action = replace(action, image=None)  # its fixed-width text says the same
            if action.slot is not None and not capabilities.edit_messages:
                if action.transient:
                    continue  # progress: the outcome comes as a message of its own
                action = replace(action, slot=None)  # a new status message each time
            if action.edit_ref is not None and not capabilities.edit_messages:
                action = replace(action, edit_ref=None)  # the next screen as a new message
            if not capabilities.location_button:
                action = _without_location_buttons(action)
        adapted.append(action)
    return adapted


def _without_location_buttons(action: SendText) -> SendText:
    """``action`` without its share-location buttons (its text says how to share)."""
    if not any(b.share_location for row in action.buttons for b in row):
        return action
    rows = tuple(
        kept for row in action.buttons if (kept := tuple(b for b in row if not b.share_location))
    )
    return replace(action, buttons=rows)


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a driver coroutine to its end without an event loop, for a channel whose
    ``perform`` never waits; raise if it does wait."""
    try:
        coroutine.send(None)
    except StopIteration as finished:
        return finished.value  # type: ignore[no-any-return]
    coroutine.close()
    raise RuntimeError("the channel waited: run this driver in an event loop")
