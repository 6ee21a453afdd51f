"""The SMS channel's rows inside a unit of work (``uow.sms``): numbers, join codes, members,
pending numbered choices and the texts sent with their delivery status."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import (
    Table,
    delete,
    exists,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.orm import Session

from hideseek_chat.rules.state import Phase
from hideseek_chat.store import sms_sql as sql
from hideseek_chat.store.held import hold
from hideseek_chat.store.models import (
    GameRow,
    PlayerRow,
    SmsChoiceRow,
    SmsCodeRow,
    SmsHeldRow,
    SmsMediaRow,
    SmsMemberRow,
    SmsMessageRow,
    SmsNumberRow,
)
from hideseek_chat.store.rawrow import all_rows, first_row, lend

#: Join codes: four characters nobody misreads (no 0/O, 1/I/L).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 4
#: The SMS channel's keys: a person ``sms:17``, a game chat of SMS players only
#: ``sms:@K7QX``, an inbound text's update id ``sms:SM…``.
PREFIX = sql.PREFIX
GROUP_PREFIX = PREFIX + "@"
#: A delivery status a later callback may not overwrite with an earlier one.
FINAL_STATUSES = frozenset({"delivered", "undelivered", "failed"})
#: How long a digest's announcement is remembered after it went: longer than an outbox entry
#: is tried while another channel fails.
KEEP_TAKEN = timedelta(days=1)


@dataclass(frozen=True)
class SentText:
    """A text to count (``SmsBook.sent_all``)."""

    number_id: int | None
    chat_key: str | None
    segments: int
    sid: str | None
    status: str
    delivery_id: int | None = None


@dataclass(frozen=True)
class Number:
    """A number as the channel uses it: ``ref`` is the person's channel-neutral key."""

    id: int
    number: str
    opted_out: bool
    current_chat: str | None
    digest_minutes: int | None = None

    @property
    def ref(self) -> str:
        return ref_of(self.id)


@dataclass(frozen=True)
class Person:
    """What a number's person row says, read with the number (``SmsBook.person``)."""

    name: str | None
    language: str | None
    private_ok: bool


@dataclass(frozen=True)
class Choice:
    """A numbered choice waiting for a reply."""

    position: int
    chat: str
    label: str
    data: str
    message_ref: str


def is_sms(key: str) -> bool:
    """Whether ``key`` (a person's ref, a chat's key or an update id) is the SMS channel's."""
    return key.startswith(PREFIX)


def update_id_of(sid: str) -> str:
    """The inbox's update id of the inbound text the gateway calls ``sid``."""
    return PREFIX + sid


def ref_of(number_id: int) -> str:
    """The person ref of the number with id ``number_id``: ``sms:17``."""
    return f"{PREFIX}{number_id}"


def number_id_of(ref: str) -> int | None:
    """The number id in a person ref ``sms:17``; None for any other ref."""
    prefix, _, rest = ref.partition(":")
    if prefix != "sms" or not rest.isdigit() or len(rest) > 18:
        return None
    return int(rest)


def _number(row: SmsNumberRow) -> Number:
    return Number(row.id, row.number, row.opted_out, row.current_chat, row.digest_minutes)


class SmsBook:
    """The SMS rows of one unit of work; flushes, never commits."""

    def __init__(self, session: Session) -> None:
        self.session = session
        #: numbers by id as this unit of work read them (every text planned looks its
        #: recipient up), dropped when it changes one (``_changed``) or rolls back
        self._numbers: dict[int, Number] = {}
        self._people: dict[int, Person | None] = {}
        #: each number's pending choices as ``number`` read them, until they change
        self._choices: dict[int, list[Choice]] = {}

    def forget_read(self) -> None:
        """Drop the numbers read (the transaction was rolled back)."""
        self._numbers.clear()
        self._people.clear()
        self._choices.clear()

    def _changed(self, number_id: int) -> None:
        self._numbers.pop(number_id, None)
        self._choices.pop(number_id, None)

    # ----- numbers -----

    def number(self, number: str, now: datetime, *, create: bool = True) -> Number | None:
        """The row of ``number`` (E.164), made on first contact when ``create``; what its
        person's row says (``person``) and its pending choices (``choices``) come with it,
        in the same query."""
        self.session.flush()  # a number, a person or choices this unit of work made
        rows = all_rows(lend(self.session), sql.NUMBER, {"number": number})
        found = rows[0] if rows else None
        if found is None:
            if not create:
                return None
            row = SmsNumberRow(number=number, opted_out=False, created_at=now)
            self.session.add(row)
            self.session.flush()
            hold(self.session, row)
            known = self._numbers[row.id] = _number(row)
            self._people[known.id] = None
            self._choices[known.id] = []
            return known
        known = self._numbers[found[0]] = Number(*found[:5])
        self._people[known.id] = None if found[5] is None else Person(*found[6:9])
        self._choices[known.id] = [Choice(*row[9:]) for row in rows if row[9] is not None]
        return known

    def person(self, number_id: int) -> Person | None:
        """What the person's row of a number ``number`` just read says (None: never met);
        ask ``uow.chats`` after changing it."""
        return self._people.get(number_id)

    def by_id(self, number_id: int) -> Number | None:
        known = self._numbers.get(number_id)
        if known is None:
            self.session.flush()  # a number this unit of work made (a no-op when none)
            row = first_row(lend(self.session), sql.BY_ID, {"id": number_id})
            if row is None:
                return None
            known = self._numbers[number_id] = Number(*row)
        return known

    def opt(self, number_id: int, *, out: bool) -> None:
        """STOP (``out``) or START: whether anything is sent to the number."""
        self._changed(number_id)
        self.session.execute(
            update(SmsNumberRow).where(SmsNumberRow.id == number_id).values(opted_out=out)
        )

    def set_digest(self, number_id: int, minutes: int | None) -> None:
        """DIGEST: hold the game chats' plain announcements for ``minutes`` (None: off)."""
        self._changed(number_id)
        self.session.execute(
            update(SmsNumberRow).where(SmsNumberRow.id == number_id).values(digest_minutes=minutes)
        )

    def hold(
        self,
        number_id: int,
        chat_key: str | None,
        body: str,
        now: datetime,
        delivery_id: int | None = None,
    ) -> None:
        """Keep ``body`` for the number's next digest (``delivery_id``: the outbox entry it
        announces, which ``texted`` then counts as reaching the number)."""
        row = SmsHeldRow(
            number_id=number_id, chat_key=chat_key, body=body, held_at=now, delivery_id=delivery_id
        )
        self.session.add(row)
        self.session.flush()

    def take_held(self, number_id: int, now: datetime) -> list[tuple[str | None, str]]:
        """The number's held announcements, oldest first, (chat, text) each; their texts are
        forgotten here. An announcement's row stays, empty, until ``purge_taken``: an outbox
        entry still being tried (another channel failing) is not held for the number again
        once its digest went (``texted``). The number's row is locked first, so two senders
        (threads or processes) never both take the same news."""
        self.session.execute(
            select(SmsNumberRow.id).where(SmsNumberRow.id == number_id).with_for_update()
        )
        rows = self.session.scalars(
            select(SmsHeldRow)
            .where(SmsHeldRow.number_id == number_id, SmsHeldRow.taken_at.is_(None))
            .order_by(SmsHeldRow.id)
        ).all()
        held = [(row.chat_key, row.body) for row in rows]
        for row in rows:
            if row.delivery_id is None:
                self.session.delete(row)
            else:
                row.body, row.taken_at = "", now
        self.session.flush()
        return held

    def purge_taken(self, now: datetime) -> int:
        """Forget the announcements whose digest went more than ``KEEP_TAKEN`` before
        ``now`` (the game clock's, as ``take_held`` wrote them); return how many."""
        result = self.session.execute(
            delete(SmsHeldRow).where(SmsHeldRow.taken_at < now - KEEP_TAKEN)
        )
        return int(result.rowcount)  # type: ignore[attr-defined]

    def digests_due(self, now: datetime) -> list[Number]:
        """The numbers whose oldest held announcement has waited their digest's minutes."""
        oldest = (
            select(SmsHeldRow.number_id, func.min(SmsHeldRow.held_at).label("since"))
            .where(SmsHeldRow.taken_at.is_(None))
            .group_by(SmsHeldRow.number_id)
            .subquery()
        )
        rows = self.session.execute(
            select(SmsNumberRow, oldest.c.since).join(oldest, oldest.c.number_id == SmsNumberRow.id)
        ).all()
        due = []
        for row, since in rows:
            minutes = row.digest_minutes or 0
            if since is not None and (now - since).total_seconds() >= minutes * 60:
                due.append(_number(row))
        return due

    def play_in(self, number_id: int, chat_key: str, now: datetime) -> None:
        """The number plays in ``chat_key`` from now on and gets its announcements."""
        self._changed(number_id)
        self.session.execute(
            update(SmsNumberRow).where(SmsNumberRow.id == number_id).values(current_chat=chat_key)
        )
        if self.session.get(SmsMemberRow, (number_id, chat_key)) is None:
            self.session.add(SmsMemberRow(number_id=number_id, chat_key=chat_key, joined_at=now))
        self.clear_choices(number_id)
        self.session.flush()

    def members(self, chat_key: str) -> list[Number]:
        """The numbers that receive ``chat_key``'s announcements, opted out or not."""
        rows = self.session.scalars(
            select(SmsNumberRow)
            .join(SmsMemberRow, SmsMemberRow.number_id == SmsNumberRow.id)
            .where(SmsMemberRow.chat_key == chat_key)
            .order_by(SmsNumberRow.id)
        ).all()
        return [_number(row) for row in rows]

    def forget(self, number_id: int) -> bool:
        """Erase the number and everything kept about it (its memberships, choices, held
        news and the pictures it sent; the texts sent stay counted for their games, no
        longer tied to it)."""
        self._changed(number_id)
        for table in (SmsMemberRow, SmsChoiceRow, SmsHeldRow, SmsMediaRow):
            self.session.execute(delete(table).where(table.number_id == number_id))
        self.session.execute(
            update(SmsMessageRow).where(SmsMessageRow.number_id == number_id).values(number_id=None)
        )
        result = self.session.execute(delete(SmsNumberRow).where(SmsNumberRow.id == number_id))
        return bool(result.rowcount)  # type: ignore[attr-defined]

    # ----- pictures (MMS) -----

    def purge_media(self, now: datetime, keep: timedelta) -> int:
        """Delete the pictures received more than ``keep`` before ``now`` whose sender plays
        in no unfinished game (a picture of nobody's: just by its age); return how many."""
        playing = (
            select(PlayerRow.id)
            .join(GameRow, GameRow.id == PlayerRow.game_id)
            .where(
                PlayerRow.ref == sql.ref_in_sql(SmsMediaRow.number_id),
                GameRow.phase != Phase.GAME_OVER,
            )
        )
        result = self.session.execute(
            delete(SmsMediaRow).where(SmsMediaRow.received_at < now - keep, ~exists(playing))
        )
        return int(result.rowcount)  # type: ignore[attr-defined]

    def add_media(
        self, content_type: str, data: bytes, now: datetime, number_id: int | None = None
    ) -> tuple[int, str]:
        """Keep a picture a number sent; its id and its unguessable token."""
        row = SmsMediaRow(
            token=secrets.token_urlsafe(24),
            number_id=number_id,
            content_type=content_type,
            data=data,
            received_at=now,
        )
        self.session.add(row)
        self.session.flush()
        return row.id, row.token

    def media(self, media_id: int) -> tuple[str, bytes, str] | None:
        """A kept picture's content type, bytes and token."""
        row = self.session.get(SmsMediaRow, media_id)
        return None if row is None else (row.content_type, row.data, row.token)

    def media_by_token(self, token: str) -> tuple[str, bytes] | None:
        """A kept picture's content type and bytes, by its token."""
        row = self.session.scalars(
            select(SmsMediaRow).where(SmsMediaRow.token == token)
        ).one_or_none()
        return None if row is None else (row.content_type, row.data)

    # ----- join codes -----

    def code_for(self, chat_key: str) -> str | None:
        return self.session.scalars(
            select(SmsCodeRow.code).where(SmsCodeRow.chat_key == chat_key)
        ).one_or_none()

    def chat_of_code(self, code: str) -> str | None:
        row = self.session.get(SmsCodeRow, code)
        return None if row is None else row.chat_key

    def new_game_code(self, now: datetime) -> str:
        """A fresh join code for a new game of SMS players, whose chat is ``sms:@CODE``."""
        for _ in range(100):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if self.add_code(code, GROUP_PREFIX + code, now):
                return code
        raise RuntimeError("no free join code")  # 31**4 codes: practically never

    def code_of_chat(self, chat_key: str, now: datetime) -> str:
        """The join code of ``chat_key`` (a Telegram group inviting SMS players), made on
        first use."""
        code = self.code_for(chat_key)
        if code is not None:
            return code
        for _ in range(100):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if self.add_code(code, chat_key, now):
                return code
        raise RuntimeError("no free join code")

    def add_code(self, code: str, chat_key: str, now: datetime) -> bool:
        """Give ``chat_key`` the join code ``code``; False when the code is taken."""
        if self.session.get(SmsCodeRow, code) is not None:
            return False
        self.session.add(SmsCodeRow(code=code, chat_key=chat_key, created_at=now))
        self.session.flush()
        return True

    # ----- numbered choices -----

    def offer(
        self,
        number_id: int,
        chat: str,
        labelled: Sequence[tuple[str, str]],
        message_ref: str,
        now: datetime,
    ) -> list[Choice]:
        """Offer ``labelled`` (label, data) pairs under a message in ``chat``; return them
        numbered. A message in the number's private chat (``chat`` is its own ref: an answer,
        cards, a confirmation) replaces every pending choice and numbers from 1; a game
        chat's replaces the game chats' and numbers after the private ones still pending."""
        mine = self.session.scalars(
            select(SmsChoiceRow).where(SmsChoiceRow.number_id == number_id)
        ).all()
        self._choices.pop(number_id, None)
        private = chat == ref_of(number_id)
        for row in mine:
            if private or row.chat != ref_of(number_id):
                self.session.delete(row)
        self.session.flush()
        if not labelled:
            return []
        highest = self.session.scalar(
            select(func.max(SmsChoiceRow.position)).where(SmsChoiceRow.number_id == number_id)
        )
        start = (highest or 0) + 1
        offered = [
            Choice(start + i, chat, label[:200], data, message_ref)
            for i, (label, data) in enumerate(labelled)
        ]
        for choice in offered:
            self.session.add(
                SmsChoiceRow(
                    number_id=number_id,
                    position=choice.position,
                    chat=chat,
                    label=choice.label,
                    data=choice.data,
                    message_ref=message_ref,
                    made_at=now,
                )
            )
        self.session.flush()
        return offered

    def withdraw(self, number_id: int, message_ref: str) -> None:
        """The choices under the message ``message_ref`` are spent (its keyboard went)."""
        self._choices.pop(number_id, None)
        self.session.execute(
            delete(SmsChoiceRow).where(
                SmsChoiceRow.number_id == number_id, SmsChoiceRow.message_ref == message_ref
            )
        )

    def choices(self, number_id: int) -> list[Choice]:
        """The number's pending choices, by position (as ``number`` read them, when it
        did and nothing changed them since)."""
        known = self._choices.get(number_id)
        if known is not None:
            return list(known)
        self.session.flush()  # choices this unit of work made (a no-op when none)
        rows = all_rows(lend(self.session), sql.CHOICES, {"number": number_id})
        return [Choice(*row) for row in rows]

    def clear_choices(self, number_id: int) -> None:
        self._choices.pop(number_id, None)
        self.session.execute(delete(SmsChoiceRow).where(SmsChoiceRow.number_id == number_id))

    # ----- texts sent -----

    def sent(
        self,
        number_id: int | None,
        chat_key: str | None,
        segments: int,
        sid: str | None,
        status: str,
        now: datetime,
        delivery_id: int | None = None,
    ) -> None:
        """Count a text sent to the number for ``chat_key``'s game (for the outbox entry
        ``delivery_id``, if any)."""
        self.session.add(
            SmsMessageRow(
                sid=sid,
                number_id=number_id,
                chat_key=chat_key,
                segments=segments,
                status=status,
                sent_at=now,
                delivery_id=delivery_id,
            )
        )
        self.session.flush()

    def sent_all(self, texts: Sequence[SentText], now: datetime) -> None:
        """Count texts sent (or failed), in one statement: ``sent`` for many."""
        if not texts:
            return
        rows = [
            {
                "sid": text.sid,
                "number_id": text.number_id,
                "chat_key": text.chat_key,
                "segments": text.segments,
                "status": text.status,
                "sent_at": now,
                "delivery_id": text.delivery_id,
            }
            for text in texts
        ]
        if len(rows) == 1:
            all_rows(lend(self.session), sql.SENT, rows[0])
            return
        self.session.execute(insert(cast(Table, SmsMessageRow.__table__)), rows)  # no RETURNING

    def status(self, sid: str, status: str, now: datetime) -> bool:
        """Record a delivery status callback; False for an unknown message. A final status
        is never replaced by an earlier one arriving late."""
        row = self.session.scalars(
            select(SmsMessageRow).where(SmsMessageRow.sid == sid)
        ).one_or_none()
        if row is None:
            return False
        if row.status in FINAL_STATUSES and status not in FINAL_STATUSES:
            return True
        row.status = status[:24]
        row.status_at = now
        self.session.flush()
        return True

    def texted(self, delivery_id: int) -> set[int]:
        """The numbers the outbox entry ``delivery_id`` was texted to already, or held for
        (their digest will bring it)."""
        sent = select(SmsMessageRow.number_id).where(SmsMessageRow.delivery_id == delivery_id)
        held = select(SmsHeldRow.number_id).where(SmsHeldRow.delivery_id == delivery_id)
        rows = self.session.scalars(sent.union(held))
        return {number_id for number_id in rows if number_id is not None}

    def counts(self, chat_key: str) -> tuple[int, int]:
        """Texts and segments sent for ``chat_key``'s games."""
        row = first_row(lend(self.session), sql.COUNTS, {"chat": chat_key})
        assert row is not None  # an aggregate: always one row
        return int(row[0]), int(row[1])
