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
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache, partial
from typing import Any, Protocol, TypeVar

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.drive import Capabilities, Driver, adapt
from hideseek_chat.chat.i18n import LANGUAGES, Formatter
from hideseek_chat.chat.lanes import Lanes
from hideseek_chat.chat.model import (
    AnswerButton,
    ButtonIn,
    ChatKind,
    CommandIn,
    EditButtons,
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
from hideseek_chat.sms.gateway import GatewayError
from hideseek_chat.sms.keywords import Keyword, Parsed, parse
from hideseek_chat.sms.segments import prepare, segment_count, split
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


@dataclass(frozen=True)
class Text:
    """A text ready to go to one number."""

    number_id: int
    number: str
    body: str
    chat_key: str | None  # the game chat it is counted for
    photo: str | None = None  # an image's URL, sent along as MMS


@cache
def _done_texts() -> frozenset[str]:
    """A press's plain acknowledgement in every language: not worth a text (what the
    press did comes as texts of its own)."""
    return frozenset(say("chat.done", {}, Formatter(language)) for language in LANGUAGES)


def _stored_sms(stored: Stored) -> SmsIn | None:
    """The text a pending inbox row holds, or None when it cannot be read."""
    try:
        raw = json.loads(stored.payload or "")
        photos = tuple(str(url) for url in raw.get("photos", ()))
        sms = SmsIn(str(raw["sid"]), str(raw["from"]), str(raw["body"]), photos)
    except (ValueError, KeyError, TypeError):
        return None
    return sms if f"sms:{sms.sid}" == stored.update_id else None


def _is_url(ref: str | None) -> bool:
    """Whether a photo's ref is a URL an MMS can carry (an SMS player's photo), not another
    channel's file id."""
    return ref is not None and ref.startswith(("https://", "http://"))


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
        try:
            msg, own = await self._call(self._read, sms, number, update_id, now)
        except Exception as err:  # its type only: a message could quote the text
            log.error("an SMS could not be read (%s)", type(err).__name__)
            await self._call(
                self.conversation.settle, update_id, InboxStatus.FAILED, now, lane_of(number)
            )
            return
        if own:  # STOP's confirmation, START's and HELP's reach an opted-out number too
            carrier = parse(sms.body).keyword in (Keyword.STOP, Keyword.START, Keyword.HELP)
            await self.perform(own, now, opted_out_too=carrier)
        if msg is not None:
            try:
                await self.on_message(msg)
            except Exception as err:  # kept in the inbox as failed, with its form
                log.error("an SMS failed in the conversation (%s)", type(err).__name__)

    async def on_message(self, msg: Inbound) -> None:
        """Handle ``msg`` and send the replies to its sender, then the game's news."""
        replies = await self._call(self.conversation.handle, msg, None)
        await self.perform(replies, self.clock(), reply_to=msg.sender.ref)
        await self.driver.drain()
        self.driver.start_map_jobs()

    def _read(
        self, sms: SmsIn, number: str, update_id: str, now: datetime
    ) -> tuple[Inbound | None, list[Outbound]]:
        """The message for the conversation, if any, and the channel's own replies (those
        settle the update here)."""
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
            if sms.photos:  # a photo (a photo question's answer): in private, like a pin
                caption = sms.body.strip()
                return private(PhotoIn, file_ref=sms.photos[0], caption=caption), own
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
            if keyword == Keyword.STATUS:
                parsed = Parsed(Keyword.COMMAND, parsed.args, name="status")
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
    ) -> bool:
        """Send ``actions`` as texts; ``reply_to``: a reply's texts to a game chat go to that
        person only. False when the gateway could not be reached for the first text (the
        driver tries again later); a later failure is logged and the rest goes on, so a
        game's announcement never reaches a member twice."""
        adapted = adapt(actions, self.capabilities)
        return await self._call(self._deliver, adapted, now, reply_to, opted_out_too)

    def _deliver(
        self, actions: list[Outbound], now: datetime, reply_to: str | None, opted_out_too: bool
    ) -> bool:
        """``perform`` in one worker thread: plan the texts, send them, count them."""
        texts = self._plan(actions, now, reply_to, opted_out_too)
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

    def _count(self, outcomes: list[tuple[Text, str | None, str]], now: datetime) -> None:
        """Count the texts sent (or failed) for their games, in one transaction."""
        with self.uow_factory() as uow:
            for text, sid, status in outcomes:
                segments = segment_count(text.body)
                uow.sms.sent(text.number_id, text.chat_key, segments, sid, status, now)
            uow.commit()

    def _plan(
        self, actions: list[Outbound], now: datetime, reply_to: str | None, opted_out_too: bool
    ) -> list[Text]:
        """Each action as texts to numbers; the numbered choices stored."""
        planned: list[Text] = []
        with self.uow_factory() as uow:
            for action in actions:
                if isinstance(action, EditButtons):
                    for member in self._recipients(uow, action.to, None, True):
                        uow.sms.withdraw(member.id, action.message_ref)
                    continue
                if isinstance(action, AnswerButton):
                    if action.text and action.text not in _done_texts():
                        action = SendText(action.to, text=action.text, private=True)
                    else:
                        continue
                if not isinstance(action, SendText):
                    continue
                if action.slot == "status" or action.transient:
                    continue  # STATUS asks for the status; a progress needs an edit
                body = action.text
                if action.pre:
                    body = f"{body}\n{action.pre}"
                photo = action.photo_ref if _is_url(action.photo_ref) else None
                if action.photo_ref is not None and photo is None:
                    body = f"{body}\n{self._note(uow, action.to)}"
                offered = numbered_choices.numbered(action.buttons)
                message_ref = uuid.uuid4().hex[:16]
                for member in self._recipients(uow, action.to, reply_to, opted_out_too):
                    text = body
                    if offered:
                        made = uow.sms.offer(
                            member.id,
                            action.to,
                            [(o.label, o.data) for o in offered],
                            message_ref,
                            now,
                        )
                        shown = [
                            numbered_choices.Offered(c.position, c.label, c.data) for c in made
                        ]
                        text = f"{text}\n{numbered_choices.render(shown)}"
                    chat_key = action.to if number_id_of(action.to) is None else member.current_chat
                    for i, part in enumerate(split(prepare(text))):
                        with_photo = photo if i == 0 else None  # an MMS, then texts
                        planned.append(Text(member.id, member.number, part, chat_key, with_photo))
            uow.commit()
        return planned

    @staticmethod
    def _note(uow: Any, to: str) -> str:
        language = uow.chats.language(to) if number_id_of(to) is not None else None
        return say("sms.photo_note", {}, Formatter(language or "en"))

    @staticmethod
    def _recipients(
        uow: Any, to: str, reply_to: str | None, opted_out_too: bool = False
    ) -> list[Number]:
        """The numbers a text to ``to`` goes to (none opted out, unless ``opted_out_too``)."""
        own = number_id_of(to)
        if own is None and reply_to is not None:
            own = number_id_of(reply_to)  # a reply in a game chat: its sender only
            if own is None:
                return []
        if own is not None:
            number = uow.sms.by_id(own)
            if number is None or (number.opted_out and not opted_out_too):
                return []
            return [number]
        return [m for m in uow.sms.members(to) if opted_out_too or not m.opted_out]
