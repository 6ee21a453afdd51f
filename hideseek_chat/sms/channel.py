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
import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any, Protocol, TypeVar

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.drive import DELIVERY, Capabilities, Driver, adapt
from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.lanes import Lanes
from hideseek_chat.chat.model import (
    ButtonIn,
    ChatKind,
    CommandIn,
    Inbound,
    Outbound,
    PhotoIn,
    Sender,
    SendText,
    TextIn,
)
from hideseek_chat.chat.parsing import phone_number as normalize
from hideseek_chat.chat.routes import COMMANDS, Where
from hideseek_chat.chat.texts import say
from hideseek_chat.logs import who
from hideseek_chat.sms import choices as numbered_choices
from hideseek_chat.sms import outgoing
from hideseek_chat.sms.gateway import GatewayError
from hideseek_chat.sms.keywords import Keyword, Parsed, parse
from hideseek_chat.sms.media import Media, MediaError, fetch
from hideseek_chat.sms.outgoing import Text
from hideseek_chat.sms.segments import segment_count
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.inbox import Stored
from hideseek_chat.store.models import InboxStatus
from hideseek_chat.store.sms import GROUP_PREFIX, Number, number_id_of

log = logging.getLogger(__name__)

T = TypeVar("T")

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
#: The longest name a player may give themselves by text.
MAX_NAME = 32
#: The minutes a digest may gather for.
DIGEST_MINUTES = range(5, 121)

_WHERE = {command.name: command.where for command in COMMANDS}


class Sends(Protocol):
    """The gateway as the channel uses it (``gateway.Gateway``)."""

    def send(self, to: str, body: str, photo: str | None = None) -> str: ...


@dataclass(frozen=True)
class SmsIn:
    """One inbound text as the webhook read it."""

    sid: str
    sender: str  # the From number as the gateway gave it
    body: str
    #: the URLs of the MMS's images (the gateway's own, behind a signed webhook)
    photos: tuple[str, ...] = ()
    media: int = 0  # how many media (MMS) came with it, images or not

    def payload(self) -> str:
        return json.dumps(
            {
                "sid": self.sid,
                "from": self.sender,
                "body": self.body,
                "photos": list(self.photos),
                "media": self.media,
            }
        )


def _stored_sms(stored: Stored) -> SmsIn | None:
    """The text a pending inbox row holds, or None when it cannot be read."""
    try:
        raw = json.loads(stored.payload or "")
        photos = tuple(str(url) for url in raw.get("photos", ()))
        sms = SmsIn(str(raw["sid"]), str(raw["from"]), str(raw["body"]), photos)
    except (ValueError, KeyError, TypeError):
        return None
    return sms if f"sms:{sms.sid}" == stored.update_id else None


def _is_carrier(body: str) -> bool:
    """Whether ``body`` is STOP, START or HELP (answered even to an opted-out number)."""
    return parse(body).keyword in (Keyword.STOP, Keyword.START, Keyword.HELP)


def group_key(code: str) -> str:
    return GROUP_PREFIX + code


def lane_of(number: str) -> str:
    """The inbox lane of a number's texts, without the number in it."""
    return "sms-from:" + hashlib.sha256(number.encode()).hexdigest()[:16]


@dataclass
class SmsChannel:
    """See the module docstring; ``attach`` a driver before the first text."""

    uow_factory: UnitOfWorkFactory
    gateway: Sends
    clock: Callable[[], datetime]
    #: the country a number without ``+`` is read in (ISO code), if any
    region: str | None = None
    capabilities: Capabilities = CAPABILITIES
    pool: Executor = field(
        default_factory=lambda: ThreadPoolExecutor(8, thread_name_prefix="sms-send")
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
        update_id = f"sms:{sms.sid}"
        lane = lane_of(number)
        stored: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._in_lanes.add(update_id)  # a resume meanwhile leaves it to this work

        async def work() -> None:
            try:
                try:
                    new = await self._call(
                        self.conversation.store_updates,
                        [(update_id, lane, sms.payload())],
                        self.clock(),
                    )
                except Exception as err:
                    stored.set_exception(err)
                    return
                stored.set_result(update_id in new)
                if update_id in new:
                    await self.apply(sms, number)
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
        update_id = f"sms:{sms.sid}"
        photo: str | None = None
        if sms.photos and not _is_carrier(sms.body):
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
            await self.perform(own, now, opted_out_too=_is_carrier(sms.body))
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
        parsed = parse(sms.body)
        with self.uow_factory() as uow:
            known = uow.sms.number(number, now)
            assert known is not None
            ref = known.ref
            known_name = uow.chats.name_of(ref)
            name = known_name or f"Player {known.id}"
            if known_name is None or not uow.chats.can_message(ref):
                uow.chats.met(ref, name, now, private_ok=True)  # texting is writing back
            language = parsed.language or uow.chats.language(ref)
            fmt = Formatter(language or "en")
            sender = Sender(ref, name, language=parsed.language)
            own: list[Outbound] = []

            def reply(key: str, **params: Any) -> None:
                own.append(SendText(ref, text=say(key, params, fmt), private=True))

            def settle() -> tuple[None, list[Outbound]]:
                if not uow.updates.begin(update_id, lane_of(number), now):
                    return None, []
                uow.commit()
                return None, own

            def private(msg_type: type[Inbound], **fields: Any) -> Inbound:
                uow.commit()
                return msg_type(ref, ChatKind.PRIVATE, sender, now, update_id, sms.sid, **fields)

            def in_game(msg_type: type[Inbound], chat: str, **fields: Any) -> Inbound:
                uow.commit()
                title = chat.removeprefix(GROUP_PREFIX) if chat.startswith(GROUP_PREFIX) else None
                return msg_type(
                    chat,
                    ChatKind.GROUP,
                    sender,
                    now,
                    update_id,
                    sms.sid,
                    chat_title=title,
                    **fields,
                )

            keyword = parsed.keyword
            if keyword == Keyword.STOP:
                uow.sms.opt(known.id, out=True)
                reply("sms.stopped")
                return settle()
            if keyword == Keyword.START:
                uow.sms.opt(known.id, out=False)
                reply("sms.started")
                return settle()
            if keyword == Keyword.HELP:
                reply("sms.help")
                return settle()
            if keyword == Keyword.DIGEST:
                arg = parsed.args[0].casefold() if parsed.args else ""
                if arg in ("off", "aus", "no"):
                    uow.sms.set_digest(known.id, None)
                    reply("sms.digest_off")
                elif arg.isdigit() and int(arg) in DIGEST_MINUTES:
                    uow.sms.set_digest(known.id, int(arg))
                    reply("sms.digest_on", minutes=int(arg))
                else:
                    reply("sms.digest_usage")
                return settle()
            if photo is not None:  # a photo (a photo question's answer): in private, like a pin
                if photo.startswith("failed:"):
                    reason = photo.removeprefix("failed:")
                    failed = {"too_large": "sms.photo_too_large", "not_an_image": "sms.no_media"}
                    reply(failed.get(reason, "sms.photo_failed"))
                    return settle()
                caption = sms.body.strip()
                return private(PhotoIn, file_ref=photo, caption=caption), own
            if sms.media and not sms.body.strip():
                reply("sms.no_media")
                return settle()
            picked = self._choice(uow, known, sms, now, parsed)
            if isinstance(picked, str):
                reply("sms.stale_choice", number=picked)
                return settle()
            if picked is not None:
                chat, data, message_ref = picked
                kind = ChatKind.PRIVATE if chat == ref else ChatKind.GROUP
                uow.commit()
                return (
                    ButtonIn(
                        chat,
                        kind,
                        sender,
                        now,
                        update_id,
                        message_ref,
                        data=data,
                        press_ref=sms.sid,
                    ),
                    [],
                )
            if keyword == Keyword.NEW:
                code = uow.sms.new_game_code(now)
                uow.sms.play_in(known.id, group_key(code), now)
                reply("sms.created", code=code)
                return in_game(CommandIn, group_key(code), name="newgame", args=parsed.args), own
            if keyword == Keyword.JOIN:
                if not parsed.args:
                    if known.current_chat is None:
                        reply("sms.join_usage")
                        return settle()
                    return in_game(CommandIn, known.current_chat, name="join"), own
                code = parsed.args[0].upper()[:8]
                joined = uow.sms.chat_of_code(code)
                if joined is None:
                    reply("sms.no_code", code=code)
                    return settle()
                uow.sms.play_in(known.id, joined, now)
                return in_game(CommandIn, joined, name="join"), own
            if keyword == Keyword.FORGET and parsed.language not in (None, "en") and not (
                uow.chats.language(ref)
            ):  # asked in their words: answered in them
                uow.chats.set_language(ref, name, parsed.language, now)
            if keyword in (Keyword.STATUS, Keyword.FORGET):
                name = "status" if keyword == Keyword.STATUS else "forgetme"
                parsed = Parsed(Keyword.COMMAND, parsed.args, name=name)
                keyword = parsed.keyword
            if keyword == Keyword.COMMAND:
                where = _WHERE.get(parsed.name, Where.ANYWHERE)
                current = known.current_chat
                if where != Where.PRIVATE and current is not None:
                    return (
                        in_game(CommandIn, current, name=parsed.name, args=parsed.args),
                        own,
                    )
                return private(CommandIn, name=parsed.name, args=parsed.args), own
            words = sms.body.split()
            if words and words[0].casefold().lstrip("/") in ("name", "nom", "nombre"):
                given = " ".join(words[1:]).strip()[:MAX_NAME]
                if not given:
                    reply("sms.name_usage")
                    return settle()
                uow.chats.met(ref, given, now, private_ok=True)
                reply("sms.named", name=given)
                return settle()
            return private(TextIn, text=sms.body), own

    def _choice(
        self, uow: Any, known: Number, sms: SmsIn, now: datetime, parsed: Parsed
    ) -> tuple[str, str, str] | str | None:
        """The pending choice the text picks (chat, data, message ref); the number as text
        when it names no pending choice; None when the text is no choice at all."""
        position = numbered_choices.position_in(sms.body)
        pending = uow.sms.choices(known.id)
        if position is None:
            if not pending or parsed.keyword == Keyword.COMMAND:
                return None
            position = numbered_choices.by_words(sms.body, [(c.position, c.label) for c in pending])
            if position is None:
                return None
        chosen = next((c for c in pending if c.position == position), None)
        if chosen is None:
            return str(position)
        return chosen.chat, chosen.data, chosen.message_ref

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
        own = number_id_of(reply_to) if reply_to is not None else None
        erased = None if own is None or number is None else Number(own, number, False, None)
        delivery = DELIVERY.get()
        return await self._call(
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
        outcomes: list[tuple[Text, str | None, str]] = []
        try:
            for i, text in enumerate(texts):
                try:
                    sid = self.gateway.send(text.number, text.body, text.photo)
                    outcomes.append((text, sid or None, "sent"))
                except GatewayError as err:
                    if i == 0 and not err.permanent:
                        log.warning("the SMS gateway failed (%s): trying again later", err)
                        return False
                    who_ = who(f"sms:{text.number_id}")
                    log.warning("a text to %s was not sent: %s", who_, err)
                    self.failed += 1
                    outcomes.append((text, None, "failed"))
        finally:
            if outcomes:
                self._count(outcomes, now)
        return True

    async def flush_digests(self) -> None:
        """Send each digest whose oldest news has waited its minutes (every minute or so)."""
        await self._call(self._flush_digests, self.clock())

    def _flush_digests(self, now: datetime) -> None:
        with self.uow_factory() as uow:
            texts = outgoing.due_digests(uow, now)
            uow.commit()
        outcomes: list[tuple[Text, str | None, str]] = []
        for text in texts:
            try:
                outcomes.append((text, self.gateway.send(text.number, text.body) or None, "sent"))
            except GatewayError as err:
                log.warning("a digest to %s was not sent: %s", who(f"sms:{text.number_id}"), err)
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
        """Count the texts sent (or failed) for their games, in one transaction."""
        with self.uow_factory() as uow:
            for text, sid, status in outcomes:
                segments = segment_count(text.body)
                number_id = None if text.gone else text.number_id
                uow.sms.sent(
                    number_id, text.chat_key, segments, sid, status, now, text.delivery
                )
            uow.commit()
