"""The conversation's actions as texts to numbers, inside a unit of work: who gets each
(a game chat's members, one number, a reply's sender), its words fitted to SMS, its buttons
as numbered choices (stored), a photo as MMS or a note, the news a digest holds back."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache

from hideseek_chat.chat.i18n import LANGUAGES, Formatter
from hideseek_chat.chat.model import (
    STATUS_SLOT,
    AnswerButton,
    EditButtons,
    Outbound,
    SendText,
)
from hideseek_chat.chat.texts import say
from hideseek_chat.sms import choices as numbered_choices
from hideseek_chat.sms.segments import prepare, split
from hideseek_chat.store.sms import Number, number_id_of
from hideseek_chat.store.uow import UnitOfWork


@dataclass(frozen=True)
class Text:
    """A text ready to go to one number."""

    number_id: int
    number: str
    body: str
    chat_key: str | None  # the game chat it is counted for
    photo: str | None = None  # an image's URL, sent along as MMS
    gone: bool = False  # to a number erased meanwhile (/forgetme's last word): counted bare
    delivery: int | None = None  # the outbox entry it is sent for


@cache
def _done_texts() -> frozenset[str]:
    """A press's plain acknowledgement in every language: not worth a text (what the
    press did comes as texts of its own)."""
    return frozenset(say("chat.done", {}, Formatter(language)) for language in LANGUAGES)


def _is_url(ref: str | None) -> bool:
    """Whether a photo's ref is a URL an MMS can carry (an SMS player's photo), not another
    channel's file id."""
    return ref is not None and ref.startswith(("https://", "http://"))


def plan(
    uow: UnitOfWork,
    actions: Sequence[Outbound],
    now: datetime,
    reply_to: str | None = None,
    opted_out_too: bool = False,
    erased: Number | None = None,
    media_base: str | None = None,
    delivery: int | None = None,
) -> list[Text]:
    """Each action as texts to numbers; the numbered choices stored, the news of a number
    on a digest held (and what it held sent first when something can't wait). ``erased``:
    the number a reply goes to when the store no longer knows it (it was just erased);
    ``media_base``: the public URL a texted picture is served under, for MMS; ``delivery``:
    the outbox entry, whose numbers texted before (a retry) get nothing again."""
    planned: list[Text] = []
    texted = uow.sms.texted(delivery) if delivery is not None else set()
    for action in actions:
        if isinstance(action, EditButtons):
            for member in recipients(uow, action.to, None, True):
                uow.sms.withdraw(member.id, action.message_ref)
            continue
        if isinstance(action, AnswerButton):
            if not action.text or action.text in _done_texts():
                continue
            action = SendText(action.to, text=action.text, private=True)
        if not isinstance(action, SendText):
            continue
        if action.slot == STATUS_SLOT or action.transient:
            continue  # STATUS asks for the status; a progress needs an edit
        body = action.text
        if action.pre:
            body = f"{body}\n{action.pre}"
        photo = mms_url(uow, action.photo_ref, media_base)
        if action.photo_ref is not None and photo is None:
            body = f"{body}\n{note(uow, action.to)}"
        offered = numbered_choices.numbered(action.buttons)
        message_ref = uuid.uuid4().hex[:16]
        to_game = number_id_of(action.to) is None
        for member in recipients(uow, action.to, reply_to, opted_out_too, erased):
            if member.id in texted:
                continue  # a retry of the entry: this number has it already
            text = body
            gone = member is erased
            if offered and not gone:
                made = uow.sms.offer(
                    member.id, action.to, [(o.label, o.data) for o in offered], message_ref, now
                )
                shown = [numbered_choices.Offered(c.position, c.label, c.data) for c in made]
                text = f"{text}\n{numbered_choices.render(shown)}"
            chat_key = action.to if to_game else member.current_chat
            is_news = to_game and reply_to is None and not offered and photo is None
            if is_news and member.digest_minutes is not None:
                uow.sms.hold(member.id, chat_key, text, now, delivery)  # news: the next digest
                continue
            if member.digest_minutes is not None:  # what waited goes first, in order
                planned.extend(_digest(uow, member, now))
            for i, part in enumerate(split(prepare(text))):
                with_photo = photo if i == 0 else None  # an MMS, then texts
                planned.append(
                    Text(
                        member.id,
                        member.number,
                        part,
                        chat_key,
                        with_photo,
                        gone=gone,
                        delivery=delivery,
                    )
                )
    return planned


def mms_url(uow: UnitOfWork, ref: str | None, media_base: str | None) -> str | None:
    """The URL an MMS carries for the photo ``ref``: a texted picture kept by the channel
    (``sms-media:<id>``) at ``media_base/sms/media/<token>``; None when it cannot."""
    if ref is None or _is_url(ref):
        return ref
    kind, _, rest = ref.partition(":")
    if kind != "sms-media" or not rest.isdigit() or media_base is None:
        return None
    kept = uow.sms.media(int(rest))
    return None if kept is None else f"{media_base.rstrip('/')}/sms/media/{kept[2]}"


def _digest(uow: UnitOfWork, number: Number, now: datetime) -> list[Text]:
    """The number's held news as texts (taken from the store)."""
    held = uow.sms.take_held(number.id, now)
    if not held:
        return []
    digest = "\n\n".join(body for _, body in held)
    return [Text(number.id, number.number, part, held[0][0]) for part in split(prepare(digest))]


def due_digests(uow: UnitOfWork, now: datetime) -> list[Text]:
    """The digests whose oldest news waited their number's minutes, as texts."""
    texts: list[Text] = []
    for number in uow.sms.digests_due(now):
        digest = _digest(uow, number, now)
        if not number.opted_out:
            texts.extend(digest)
    return texts


def note(uow: UnitOfWork, to: str) -> str:
    """What a text to ``to`` says for a photo it cannot carry, in the text's language: a
    person's own, else their game's; a game chat's."""
    is_person = number_id_of(to) is not None
    language = uow.chats.reader_language(to) if is_person else uow.chats.prefs(to).language
    return say("sms.photo_note", {}, Formatter(language or "en"))


def recipients(
    uow: UnitOfWork,
    to: str,
    reply_to: str | None,
    opted_out_too: bool = False,
    erased: Number | None = None,
) -> list[Number]:
    """The numbers a text to ``to`` goes to (none opted out, unless ``opted_out_too``);
    ``erased`` stands for its own number once the store has forgotten it."""
    own = number_id_of(to)
    if own is None and reply_to is not None:
        own = number_id_of(reply_to)  # a reply in a game chat: its sender only
        if own is None:
            return []
    if own is not None:
        number = uow.sms.by_id(own)
        if number is None and erased is not None and erased.id == own:
            return [erased]
        if number is None or (number.opted_out and not opted_out_too):
            return []
        return [number]
    return [m for m in uow.sms.members(to) if opted_out_too or not m.opted_out]
