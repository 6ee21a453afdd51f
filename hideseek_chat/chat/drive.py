"""The drive loop every channel shares: a message in, the replies out, then the outbox.

A channel adapter converts what its platform delivers into ``model.Inbound`` values and
performs ``model.Outbound`` actions; everything between is here, once::

    driver = Driver(conversation, channel, clock)
    await driver.on_message(inbound)   # handle, perform the replies, drain the outbox
    await driver.on_tick()             # every few seconds: timers, then drain

A channel declares what it can do (``Capabilities``); the driver leaves out or replaces
what it cannot (a picture becomes its fixed-width text, a deletion is skipped), so nothing
here assumes Telegram. The loop is written once, asynchronously; a channel whose
``perform`` never waits (the console) runs it with ``run_sync``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Protocol, TypeVar

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.model import (
    AnswerButton,
    ButtonIn,
    DeleteMessage,
    EditButtons,
    Inbound,
    Outbound,
    SendText,
)

#: Deliveries taken from the outbox per drain.
DRAIN_LIMIT = 50
#: Map jobs (searches, fetches) one process runs at once in worker threads.
MAX_MAP_JOBS = 2
#: Map jobs run inline one after another per tick at most (the console).
MAX_INLINE_JOBS = 10

T = TypeVar("T")


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


class Channel(Protocol):
    """A channel adapter as the driver uses it."""

    capabilities: Capabilities

    async def perform(self, actions: Sequence[Outbound], now: datetime) -> bool:
        """Perform ``actions`` in order; False when a transient failure stopped them (the
        driver tries the rest of the outbox again later)."""
        ...


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
    ) -> None:
        self.conversation = conversation
        self.channel = channel
        self.clock = clock
        self.drain_limit = drain_limit
        self.jobs_inline = jobs_inline
        self.max_map_jobs = max_map_jobs
        self._jobs: set[asyncio.Future[bool]] = set()
        # A message and the tick may drain at the same time: one delivery, one send.
        self._drain_lock = asyncio.Lock()

    async def on_message(self, msg: Inbound) -> list[Outbound]:
        """Handle ``msg``, perform the replies, then send what the game announced."""
        replies = self.conversation.handle(msg)
        if self.jobs_inline:  # the console: a job queued by this message runs now
            self.start_map_jobs()
        if isinstance(msg, ButtonIn) and not any(isinstance(r, AnswerButton) for r in replies):
            # Every press is answered, or the person's app shows a spinner for a while.
            replies = [AnswerButton(msg.sender.ref, press_ref=msg.press_ref), *replies]
        await self.channel.perform(adapt(replies, self.channel.capabilities), self.clock())
        await self.drain()
        return replies

    async def on_tick(self) -> None:
        """Fire the due timers, start the queued map jobs, then send what they announced."""
        self.conversation.tick(self.clock())
        self.start_map_jobs()
        await self.drain()

    @property
    def map_jobs_running(self) -> int:
        """How many map jobs run in worker threads now."""
        return len(self._jobs)

    async def map_jobs_done(self) -> None:
        """Wait for the map jobs running in worker threads (a clean shutdown, tests)."""
        while self._jobs:
            await asyncio.gather(*list(self._jobs))

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
        """Send the outbox's deliveries in order; stop at a transient failure to retry later."""
        async with self._drain_lock:
            now = self.clock()
            for delivery in self.conversation.outgoing(now, self.drain_limit):
                actions = adapt(delivery.actions, self.channel.capabilities)
                if not await self.channel.perform(actions, now):
                    return
                self.conversation.delivered(delivery.id, self.clock())


def adapt(actions: Sequence[Outbound], capabilities: Capabilities) -> list[Outbound]:
    """``actions`` as a channel with ``capabilities`` can perform them."""
    adapted: list[Outbound] = []
    for action in actions:
        if isinstance(action, DeleteMessage) and not capabilities.delete_messages:
            continue
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
