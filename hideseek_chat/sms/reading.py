"""Reading an inbound text: the carrier's and the channel's own keywords answered here
(STOP, START, HELP, DIGEST, a numbered choice, NAME, NEW's and JOIN's game), anything else
made the conversation's message, in the game's chat or the person's private one.

Runs inside the caller's unit of work (``SmsChannel``), so a text can be stored, read and
its replies planned in one transaction.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hideseek_chat.chat.i18n import Formatter
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
from hideseek_chat.chat.routes import COMMANDS, Where
from hideseek_chat.chat.texts import say
from hideseek_chat.sms import choices as numbered_choices
from hideseek_chat.sms.keywords import Keyword, Parsed, parse
from hideseek_chat.store.inbox import Redelivered
from hideseek_chat.store.sms import GROUP_PREFIX, Number
from hideseek_chat.store.uow import UnitOfWork

#: The longest name a player may give themselves by text.
MAX_NAME = 32
#: The minutes a digest may gather for.
DIGEST_MINUTES = range(5, 121)

_WHERE = {command.name: command.where for command in COMMANDS}


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


def is_carrier(body: str) -> bool:
    """Whether ``body`` is STOP, START or HELP (answered even to an opted-out number)."""
    return parse(body).keyword in (Keyword.STOP, Keyword.START, Keyword.HELP)


def group_key(code: str) -> str:
    return GROUP_PREFIX + code


def lane_of(number: str) -> str:
    """The inbox lane of a number's texts, without the number in it."""
    return "sms-from:" + hashlib.sha256(number.encode()).hexdigest()[:16]


def read(
    uow: UnitOfWork,
    sms: SmsIn,
    number: str,
    update_id: str,
    now: datetime,
    photo: str | None = None,
) -> tuple[Inbound | None, list[Outbound]]:
    """The message for the conversation, if any, and the channel's own replies (those
    settle the update here), in the caller's unit of work, which commits; ``photo``: the
    texted picture as kept. ``Redelivered`` when the text was handled already (nothing may
    be committed then)."""
    parsed = parse(sms.body)
    known = uow.sms.number(number, now)
    assert known is not None
    ref = known.ref
    person = uow.sms.person(known.id)  # read with the number
    language = parsed.language or (person.language if person else None)
    fmt = Formatter(language or "en")
    known_name = person.name if person and person.name else None
    name = known_name or say("sms.default_name", {"number": known.id}, fmt)
    if known_name is None or not (person and person.private_ok):
        uow.chats.met(ref, name, now, private_ok=True)  # texting is writing back
    sender = Sender(ref, name, language=parsed.language)
    own: list[Outbound] = []

    def reply(key: str, **params: Any) -> None:
        own.append(SendText(ref, text=say(key, params, fmt), private=True))

    def settle() -> tuple[None, list[Outbound]]:
        if not uow.updates.begin(update_id, lane_of(number), now):
            raise Redelivered(update_id)
        return None, own

    def private(msg_type: type[Inbound], **fields: Any) -> Inbound:
        return msg_type(ref, ChatKind.PRIVATE, sender, now, update_id, sms.sid, **fields)

    def in_game(msg_type: type[Inbound], chat: str, **fields: Any) -> Inbound:
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
    picked = _choice(uow, known, sms, now, parsed)
    if isinstance(picked, str):
        reply("sms.stale_choice", number=picked)
        return settle()
    if picked is not None:
        chat, data, message_ref = picked
        kind = ChatKind.PRIVATE if chat == ref else ChatKind.GROUP
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
    if (
        keyword == Keyword.FORGET
        and parsed.language not in (None, "en")
        and not (uow.chats.language(ref))
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
    if keyword == Keyword.NAME:
        _rename(uow, known, " ".join(parsed.args), name, now, reply)
        return settle()
    return private(TextIn, text=sms.body), own


def _rename(
    uow: UnitOfWork,
    known: Number,
    given: str,
    name: str,
    now: datetime,
    reply: Callable[..., None],
) -> None:
    """``NAME <new name>``: the name the others see from now on. Never while the person
    hides in a running round: a hider's "name of my station is ..." is meant for the
    referee, and read as a name it would show the station to the group."""
    if not given or len(given) > MAX_NAME:
        reply("sms.name_usage", name=name, most=MAX_NAME)
    elif uow.chats.hides_now(known.ref):
        reply("sms.name_not_now", name=name)
    else:
        uow.chats.met(known.ref, given, now, private_ok=True)
        reply("sms.named", name=given)


def _choice(
    uow: Any, known: Number, sms: SmsIn, now: datetime, parsed: Parsed
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
