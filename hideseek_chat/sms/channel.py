"""The SMS channel adapter: texts in, texts out, the conversation between.

Inbound: a webhook's text (``SmsIn``) is stored in the inbox once per MessageSid
(``sms:<MessageSid>``) before the webhook answers, then applied in the sender's lane. The
adapter reads it (``keywords``): STOP, START, HELP, NAME and a pending numbered choice are
the channel's own business; NEW makes a game chat ``sms:@CODE`` with its join code, JOIN
joins one; any other command goes to the conversation, in the game's chat when the routing
table says it is a group command (or works anywhere), else in the person's private chat.
A typed pin is private, so a hider's never reaches the others.

Outbound: a text to a game chat goes to every member's number (a Telegram group's SMS
players too), a private one to one number; buttons become numbered choices, remembered per
number and chat; the pinned status is not sent (STATUS asks for it); a progress that only
an edit could show is left out; a picture becomes a short note. A direct reply to a
command goes to the person who texted, not to the whole game. Numbers never appear in a
ref, a log line or another player's text: a person is ``sms:<id>``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any, Protocol, TypeVar

from hideseek_chat import metrics
from hideseek_chat.chat.conversation import Conversation, Planner
from hideseek_chat.chat.drive import DELIVERY, Capabilities, Driver, adapt
from hideseek_chat.chat.lanes import Lanes
from hideseek_chat.chat.model import (
    Inbound,
    Outbound,
)
from hideseek_chat.chat.parsing import phone_number as normalize
from hideseek_chat.logs import who
from hideseek_chat.sms import outgoing, reading
from hideseek_chat.sms.batching import GroupWriter
from hideseek_chat.sms.gateway import GatewayError
from hideseek_chat.sms.media import Media, MediaError, fetch
from hideseek_chat.sms.outgoing import Text
from hideseek_chat.sms.reading import SmsIn, lane_of
from hideseek_chat.sms.segments import segment_count
from hideseek_chat.store import UnitOfWork, UnitOfWorkFactory
from hideseek_chat.store.inbox import Redelivered, Stored, Unsettled
from hideseek_chat.store.models import InboxStatus
from hideseek_chat.store.sms import Number, SentText, number_id_of, ref_of, update_id_of

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Texts on their way to the gateway at once (``gateway.POOL`` connections are kept).
SEND_THREADS = 32
#: What a text can show: no pictures, files, deletions or location buttons. Buttons arrive
#: (they become numbered choices) and slots are kept, because the adapter decides itself:
#: the status is left for STATUS, a progress edit is left out, an edit comes as a new text.
CAPABILITIES = Capabilities(
    buttons=True,
    edit_messages=True,
    delete_messages=False,
    pictures=False,
    location_button=False,
    files=False,
)


class Sends(Protocol):
    """The gateway as the channel uses it (``gateway.Gateway``)."""

    def send(self, to: str, body: str, photo: str | None = None) -> str: ...


def _reply_number(reply_to: str, number: str) -> Number | None:
    """The number a reply to the person ``reply_to`` goes to even when the store no longer
    knows it (the message erased it): None when ``reply_to`` is no SMS person."""
    own = number_id_of(reply_to)
    return None if own is None else Number(own, number, False, None)


def _resolve(stored: asyncio.Future[bool], new: bool) -> None:
    if not stored.done():  # the webhook may have gone meanwhile
        stored.set_result(new)


def _stored_sms(stored: Stored) -> SmsIn | None:
    """The text a pending inbox row holds, or None when it cannot be read."""
    try:
        raw = json.loads(stored.payload or "")
        photos = tuple(str(url) for url in raw.get("photos", ()))
        sms = SmsIn(str(raw["sid"]), str(raw["from"]), str(raw["body"]), photos)
    except (ValueError, KeyError, TypeError):
        return None
    return sms if update_id_of(sms.sid) == stored.update_id else None


@dataclass
class SmsChannel:
    """See the module docstring; ``attach`` a driver before the first text."""

    uow_factory: UnitOfWorkFactory
    gateway: Sends
    clock: Callable[[], datetime]
    #: the country a number without ``+`` is read in (ISO code), if any
    region: str | None = None
    capabilities: Capabilities = CAPABILITIES
    #: the threads that read and write the store
    pool: Executor = field(
        default_factory=lambda: ThreadPoolExecutor(8, thread_name_prefix="sms-store")
    )
    #: the threads that send (each waits a round trip to the gateway; a pool of its own, so
    #: that slow sends never hold up the texts coming in)
    send_pool: Executor = field(
        default_factory=lambda: ThreadPoolExecutor(SEND_THREADS, thread_name_prefix="sms-send")
    )
    lanes: Lanes = field(default_factory=Lanes)
    #: the drive loop shared with another channel (Telegram's), made on first use
    driver_of: Callable[[], Driver] | None = None
    _driver: Driver | None = None
    #: stored texts a lane is working on (a resume never hands them out twice)
    _in_lanes: set[str] = field(default_factory=set)
    #: texts the gateway refused for good or that failed, since start (the metrics' view)
    failed: int = 0
    #: how a texted picture's URL is fetched (default: from the gateway, with its credentials)
    media_fetcher: Callable[[str], Media] | None = None
    #: the public base URL the web server is reached at: texted pictures are forwarded by
    #: MMS from ``/sms/media/<token>`` under it (None: a short note instead)
    media_base: str | None = None
    #: the sending threads' counts, written together (``batching``)
    _counts: GroupWriter[tuple[SentText, datetime]] = field(init=False)

    def __post_init__(self) -> None:
        self._counts = GroupWriter(self._write_counts)

    def attach(self, conversation: Conversation, **driver_options: Any) -> Driver:
        """Drive ``conversation`` through this channel alone (no Telegram beside it)."""
        self._driver = Driver(conversation, self, self.clock, **driver_options)
        return self._driver

    @property
    def driver(self) -> Driver:
        if self._driver is None:
            assert self.driver_of is not None, "attach a driver first"
            self._driver = self.driver_of()
        return self._driver

    @property
    def conversation(self) -> Conversation:
        return self.driver.conversation

    async def receive_form(
        self, sid: str, sender: str, body: str, photos: tuple[str, ...] = (), media: int = 0
    ) -> None:
        """The webhook's text (``web.sms``): stored before this returns, applied after."""
        await self.receive(SmsIn(sid, sender, body, photos, media))

    async def record_status(self, sid: str, status: str) -> None:
        """A delivery status callback: the text's status recorded."""
        await self._call(self._record_status, sid, status, self.clock())

    def _record_status(self, sid: str, status: str, now: datetime) -> None:
        with self.uow_factory() as uow:
            if uow.sms.status(sid, status, now):
                uow.commit()

    async def _call(self, function: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.pool, partial(function, *args))

    async def _send_call(self, function: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.send_pool, partial(function, *args))

    # ------------------------------------------------------------------ inbound

    async def receive(self, sms: SmsIn) -> asyncio.Future[None] | None:
        """Store ``sms`` in the inbox (once per MessageSid) in its sender's lane, then apply
        it there; return once it is stored, with the work that applies it (None when it
        was stored before or its sender is no number: nothing to do). A number's texts are
        stored and applied in the order they arrived; a failure to store raises, so the
        webhook answers 500 and the gateway tries again."""
        number = normalize(sms.sender, self.region)
        if number is None or not sms.sid:
            return None
        update_id = update_id_of(sms.sid)
        lane = lane_of(number)
        loop = asyncio.get_running_loop()
        stored: asyncio.Future[bool] = loop.create_future()
        self._in_lanes.add(update_id)  # a resume meanwhile leaves it to this work

        def resolve(new: bool) -> None:  # from the worker thread, once the text is stored
            loop.call_soon_threadsafe(_resolve, stored, new)

        async def work() -> None:
            started = time.perf_counter()
            try:
                now = self.clock()
                if not sms.photos:  # the common case: one thread hop, stored before the 200
                    try:
                        done = await self._call(
                            self._whole, sms, number, lane, now, resolve, DELIVERY.get()
                        )
                    except Exception as err:  # its type only: tried again step by step
                        log.warning("an SMS is taken step by step (%s)", type(err).__name__)
                    else:
                        if done is not None:
                            await self._after(*done, number, now)
                            metrics.update_handled("sms", time.perf_counter() - started)
                        return
                try:
                    new = await self._call(
                        self.conversation.store_updates, [(update_id, lane, sms.payload())], now
                    )
                except Exception as err:
                    if not stored.done():  # the webhook may have gone meanwhile
                        stored.set_exception(err)
                    return
                _resolve(stored, update_id in new)
                if update_id in new:
                    await self.apply(sms, number)
                    metrics.update_handled("sms", time.perf_counter() - started)
            finally:
                self._in_lanes.discard(update_id)

        applying = self.lanes.submit(lane, work)
        if not await stored:
            return None  # a redelivery
        return applying

    def dispatch_stored(self, stored: Stored) -> None:
        """Apply a text stored before and left pending (the process died before applying
        it) in its lane, unless it is on its way already; then the lane's next one."""
        if stored.update_id in self._in_lanes:
            return
        self._in_lanes.add(stored.update_id)
        lane = stored.lane or stored.update_id

        async def work() -> None:
            try:
                sms = _stored_sms(stored)
                number = normalize(sms.sender, self.region) if sms is not None else None
                if sms is None or number is None:
                    log.warning("a stored SMS could not be read; settled as unreadable")
                    await self._call(
                        self.conversation.settle,
                        stored.update_id,
                        InboxStatus.UNREADABLE,
                        self.clock(),
                        stored.lane,
                    )
                else:
                    await self.apply(sms, number)
            finally:
                self._in_lanes.discard(stored.update_id)
            following = await self._call(self.conversation.next_pending, lane)
            if following is not None and following.update_id != stored.update_id:
                self.dispatch_stored(following)

        self.lanes.submit(lane, work)

    async def apply(self, sms: SmsIn, number: str) -> None:
        """Act on a stored text of ``number``."""
        now = self.clock()
        update_id = update_id_of(sms.sid)
        photo: str | None = None
        if sms.photos and not reading.is_carrier(sms.body):
            photo = await self._call(self._take_photo, sms.photos[0], number, now)
        try:
            msg, own = await self._call(self._read, sms, number, update_id, now, photo)
        except Exception as err:  # its type only: a message could quote the text
            log.error("an SMS could not be read (%s)", type(err).__name__)
            await self._call(
                self.conversation.settle, update_id, InboxStatus.FAILED, now, lane_of(number)
            )
            return
        if own:  # STOP's confirmation, START's and HELP's reach an opted-out number too
            await self.perform(own, now, opted_out_too=reading.is_carrier(sms.body))
        await self._act((msg, []), number, now)

    def _whole(
        self,
        sms: SmsIn,
        number: str,
        lane: str,
        now: datetime,
        resolve: Callable[[bool], None],
        delivery: int | None,
    ) -> tuple[list[Text], list[Text], Inbound | None] | None:
        """A text without photos in one worker thread, and usually in one transaction: it is
        stored and read (``_take``) and, when it is the conversation's and the channel has
        nothing of its own to say first, its turn runs in the same unit of work, which
        plans the replies and commits all of it (``Conversation.handle``'s ``within``);
        ``resolve`` is told once the text is stored, so the webhook answers then. A turn
        that does not apply so (it is refused or fails) leaves nothing behind: the text is
        then stored again and its turn run alone, which writes the refusal, or keeps the
        text as failed, with its form, and is logged here. The channel's own texts and the
        turn's replies, to send in that order, and the text's message (the turn is left to
        ``_act`` when there are own texts: they go first); None for a redelivery."""
        planned: list[Text] = []

        def planner(msg: Inbound) -> Planner:
            reply_to = msg.sender.ref
            erased = _reply_number(reply_to, number)

            def plan(uow: UnitOfWork, replies: list[Outbound]) -> None:
                actions = adapt(replies, self.capabilities)
                planned[:] = outgoing.plan(
                    uow, actions, self.clock(), reply_to, False, erased, self.media_base, delivery
                )

            return plan

        try:
            taken = self._take(sms, number, lane, now, planner)
        except Unsettled:  # refused, failed, or NEW's code first: nothing of it was kept
            planned.clear()  # planned by the turn rolled back
            taken = self._take(sms, number, lane, now)
        resolve(taken is not None)
        if taken is None:
            return None
        msg, own, turned = taken
        if turned or msg is None:
            return own, planned, msg
        if own:  # NEW's code: sent before the turn, whose news may go out at any moment
            return own, [], msg
        try:
            self.conversation.handle(msg, None, planner(msg))
        except Exception as err:  # kept in the inbox as failed, with its form
            log.error("an SMS failed in the conversation (%s)", type(err).__name__)
            return [], [], msg
        return [], planned, msg

    async def _after(
        self,
        own: list[Text],
        replies: list[Text],
        msg: Inbound | None,
        number: str,
        now: datetime,
    ) -> None:
        """Send what ``_whole`` planned (one hop to the sending threads), then the games'
        news when the conversation had the text; with the channel's own texts, those
        first and then the text's turn (``msg``), as ``_act`` does."""
        if own:
            await self._act((msg, own), number, now)
            return
        if replies:
            try:
                await self._send_call(self._send, replies, now)
            except Exception as err:  # sent, but not counted: the game goes on
                log.error("texts sent were not counted (%s)", type(err).__name__)
        if msg is not None:
            await self.driver.drain()
            self.driver.start_map_jobs()

    def _take(
        self,
        sms: SmsIn,
        number: str,
        lane: str,
        now: datetime,
        planner: Callable[[Inbound], Planner] | None = None,
    ) -> tuple[Inbound | None, list[Text], bool] | None:
        """Store ``sms`` in the inbox, read it and plan the channel's own replies, in one
        transaction; None when it was stored before (a redelivery). The message for the
        conversation stays pending in the inbox until the conversation applies it; with a
        ``planner``, the message's turn runs in the same transaction when the channel has
        nothing of its own to say, and plans the replies with what ``planner`` makes of the
        message (its sender's number, read with the text, is not read again); ``Unsettled``
        when it did not apply, or when the channel has texts of its own to send first:
        nothing is kept. The text's inbox row is then written as applied, not stored
        pending first (``Inbox.begin``). Last, whether the turn ran."""
        update_id = update_id_of(sms.sid)
        with self.uow_factory() as uow:
            if planner is not None:  # handled at once: written as applied, with its turn
                if not uow.updates.begin(update_id, lane, now):
                    return None
            elif update_id not in uow.updates.store([(update_id, lane, sms.payload())], now):
                return None
            msg, own = reading.read(uow, sms, number, update_id, now)
            texts: list[Text] = []
            if own:  # STOP's confirmation, START's and HELP's reach an opted-out number too
                texts = outgoing.plan(
                    uow,
                    adapt(own, self.capabilities),
                    now,
                    opted_out_too=reading.is_carrier(sms.body),
                    media_base=self.media_base,
                )
            if planner is not None and msg is not None:
                if texts:  # NEW's code goes first, the text waits in the inbox for its turn
                    uow.rollback()
                    raise Unsettled(update_id)
                self.conversation.handle(msg, None, planner(msg), within=uow)
                return msg, texts, True  # committed with the turn
            uow.commit()
        return msg, texts, False

    async def _act(
        self, taken: tuple[Inbound | None, list[Text]], number: str, now: datetime
    ) -> None:
        """Send the planned replies of a text just read, then hand its message on."""
        msg, texts = taken
        if texts:
            await self._send_call(self._send, texts, now)
        if msg is not None:
            try:
                await self.on_message(msg, number)
            except Exception as err:  # kept in the inbox as failed, with its form
                log.error("an SMS failed in the conversation (%s)", type(err).__name__)

    async def on_message(self, msg: Inbound, number: str | None = None) -> None:
        """Handle ``msg`` and send the replies to its sender (at ``number``, even when the
        message erased it), then the game's news."""
        replies = await self._call(self.conversation.handle, msg, None)
        await self.perform(replies, self.clock(), reply_to=msg.sender.ref, number=number)
        await self.driver.drain()
        self.driver.start_map_jobs()

    async def media(self, token: str) -> tuple[str, bytes] | None:
        """A kept picture by its token (the ``/sms/media/<token>`` route)."""
        return await self._call(self._media, token)

    def _media(self, token: str) -> tuple[str, bytes] | None:
        with self.uow_factory() as uow:
            return uow.sms.media_by_token(token)

    def _take_photo(self, url: str, number: str, now: datetime) -> str:
        """Fetch and keep a texted picture: ``sms-media:<id>``, or why it failed
        (``failed:<reason>``)."""
        try:
            if self.media_fetcher is not None:
                got = self.media_fetcher(url)
            else:
                settings = getattr(self.gateway, "settings", None)
                if settings is None:
                    raise MediaError("refused")
                got = fetch(url, settings.account_sid, settings.auth_token)
        except MediaError as err:
            log.warning("a texted photo was not taken (%s)", err.reason)
            return f"failed:{err.reason}"
        with self.uow_factory() as uow:
            sender = uow.sms.number(number, now)
            assert sender is not None
            media_id, _ = uow.sms.add_media(got.content_type, got.data, now, sender.id)
            uow.commit()
        return f"sms-media:{media_id}"

    def _read(
        self, sms: SmsIn, number: str, update_id: str, now: datetime, photo: str | None = None
    ) -> tuple[Inbound | None, list[Outbound]]:
        """The message for the conversation, if any, and the channel's own replies (those
        settle the update here); ``photo``: the texted picture as kept (``_take_photo``)."""
        with self.uow_factory() as uow:
            try:
                read = reading.read(uow, sms, number, update_id, now, photo)
            except Redelivered:
                return None, []
            uow.commit()
        return read

    # ------------------------------------------------------------------ outbound

    async def perform(
        self,
        actions: Sequence[Outbound],
        now: datetime,
        reply_to: str | None = None,
        *,
        opted_out_too: bool = False,
        number: str | None = None,
    ) -> bool:
        """Send ``actions`` as texts; ``reply_to``: a reply's texts to a game chat go to that
        person only. False when the gateway could not be reached for the first text (the
        driver tries again later); a later failure is logged and the rest goes on, so a
        game's announcement never reaches a member twice."""
        adapted = adapt(actions, self.capabilities)
        erased = None if reply_to is None or number is None else _reply_number(reply_to, number)
        delivery = DELIVERY.get()
        return await self._send_call(
            self._deliver, adapted, now, reply_to, opted_out_too, erased, delivery
        )

    def _deliver(
        self,
        actions: list[Outbound],
        now: datetime,
        reply_to: str | None,
        opted_out_too: bool,
        erased: Number | None = None,
        delivery: int | None = None,
    ) -> bool:
        """``perform`` in one worker thread: plan the texts, send them, count them."""
        texts = self._plan(actions, now, reply_to, opted_out_too, erased, delivery)
        return self._send(texts, now)

    def _send(self, texts: list[Text], now: datetime) -> bool:
        """Send planned texts and count them; False when the gateway could not be reached
        for the first one (none was sent)."""
        outcomes: list[tuple[Text, str | None, str]] = []
        try:
            for i, text in enumerate(texts):
                try:
                    sid = self.gateway.send(text.number, text.body, text.photo)
                    outcomes.append((text, sid or None, "sent"))
                    metrics.sent("ok")
                except GatewayError as err:
                    if i == 0 and not err.permanent:
                        log.warning("the SMS gateway failed (%s): trying again later", err)
                        metrics.sent("retry")
                        return False
                    metrics.sent("refused" if err.permanent else "failed")
                    who_ = who(ref_of(text.number_id))
                    log.warning("a text to %s was not sent: %s", who_, err)
                    self.failed += 1
                    outcomes.append((text, None, "failed"))
        finally:
            if outcomes:
                self._count(outcomes, now)
        return True

    async def flush_digests(self) -> None:
        """Send each digest whose oldest news has waited its minutes (every minute or so)."""
        await self._send_call(self._flush_digests, self.clock())

    def _flush_digests(self, now: datetime) -> None:
        with self.uow_factory() as uow:
            texts = outgoing.due_digests(uow, now)
            uow.commit()
        outcomes: list[tuple[Text, str | None, str]] = []
        for text in texts:
            try:
                outcomes.append((text, self.gateway.send(text.number, text.body) or None, "sent"))
                metrics.sent("ok")
            except GatewayError as err:
                metrics.sent("refused" if err.permanent else "failed")
                log.warning("a digest to %s was not sent: %s", who(ref_of(text.number_id)), err)
                outcomes.append((text, None, "failed"))
        if outcomes:
            self._count(outcomes, now)

    def _plan(
        self,
        actions: list[Outbound],
        now: datetime,
        reply_to: str | None,
        opted_out_too: bool,
        erased: Number | None = None,
        delivery: int | None = None,
    ) -> list[Text]:
        with self.uow_factory() as uow:
            planned = outgoing.plan(
                uow, actions, now, reply_to, opted_out_too, erased, self.media_base, delivery
            )
            uow.commit()
        return planned

    def _count(self, outcomes: list[tuple[Text, str | None, str]], now: datetime) -> None:
        """Count the texts sent (or failed) for their games: written when this returns,
        with what other sending threads counted meanwhile, in one transaction."""
        gone = [
            SentText(
                None if text.gone else text.number_id,
                text.chat_key,
                segment_count(text.body),
                sid,
                status,
                text.delivery,
            )
            for text, sid, status in outcomes
        ]
        self._counts.add([(text, now) for text in gone])

    def _write_counts(self, counted: list[tuple[SentText, datetime]]) -> None:
        by_time: dict[datetime, list[SentText]] = {}
        for text, at in counted:
            by_time.setdefault(at, []).append(text)
        with self.uow_factory() as uow:
            if len(counted) == 1:  # one row, one statement: its own transaction
                uow.alone()
            for at, texts in by_time.items():
                uow.sms.sent_all(texts, at)
            uow.commit()
