"""What the SMS channel keeps: numbers (and their opt-out), games' join codes, who plays
by text in which chat, the numbered choices waiting for a reply, and the texts sent."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, LargeBinary, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from hideseek_chat.store.models.base import Base


class SmsNumberRow(Base):
    """A phone number (E.164) the bot texts with; its person ref is ``sms:<id>``, so the
    number itself never appears in a ref, a log line or another player's message."""

    __tablename__ = "sms_numbers"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    number: Mapped[str] = mapped_column(String(20), unique=True)
    #: STOP: nothing is sent to the number until START
    opted_out: Mapped[bool] = mapped_column(default=False, server_default=false())
    #: the chat (an SMS game's ``sms:@CODE`` or a Telegram group) this number plays in now
    current_chat: Mapped[str | None] = mapped_column(String(64))
    #: DIGEST: a game chat's announcements without choices are held and sent together
    #: every this many minutes (None: each at once)
    digest_minutes: Mapped[int | None]
    created_at: Mapped[datetime]


class SmsCodeRow(Base):
    """A game chat's join code: ``JOIN K7QX`` by text joins the chat ``chat_key``."""

    __tablename__ = "sms_codes"

    code: Mapped[str] = mapped_column(String(8), primary_key=True)
    chat_key: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime]


class SmsMemberRow(Base):
    """A number that receives a chat's announcements by text."""

    __tablename__ = "sms_members"

    number_id: Mapped[int] = mapped_column(
        ForeignKey("sms_numbers.id", ondelete="CASCADE"), primary_key=True
    )
    chat_key: Mapped[str] = mapped_column(String(64), primary_key=True, index=True)
    joined_at: Mapped[datetime]


class SmsChoiceRow(Base):
    """One numbered choice waiting for a number's reply: ``position`` chooses ``data`` (a
    button's data) in ``chat``; a newer message with choices replaces them all."""

    __tablename__ = "sms_choices"

    number_id: Mapped[int] = mapped_column(
        ForeignKey("sms_numbers.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(primary_key=True)
    chat: Mapped[str] = mapped_column(String(64))
    label: Mapped[str] = mapped_column(String(200))
    data: Mapped[str] = mapped_column(String(64))
    message_ref: Mapped[str] = mapped_column(String(64))
    made_at: Mapped[datetime]


class SmsHeldRow(Base):
    """An announcement held for a number's next digest; ``delivery_id`` is its outbox entry
    (None: not an announcement), held once however often the entry is tried, also after its
    digest went (``taken_at``, for a while: ``store.sms.KEEP_TAKEN``)."""

    __tablename__ = "sms_held"
    __table_args__ = (
        # Led by the entry: ``SmsBook.texted`` asks which numbers an entry reached.
        Index("uq_sms_held_delivery_id_number_id", "delivery_id", "number_id", unique=True),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    number_id: Mapped[int] = mapped_column(
        ForeignKey("sms_numbers.id", ondelete="CASCADE"), index=True
    )
    chat_key: Mapped[str | None] = mapped_column(String(64))
    body: Mapped[str] = mapped_column(Text)
    held_at: Mapped[datetime]
    delivery_id: Mapped[int | None]
    #: when its digest went (its text then forgotten); None: still waiting
    taken_at: Mapped[datetime | None]


class SmsMessageRow(Base):
    """A text sent (``chat_key``: the game chat it is counted for) and its delivery."""

    __tablename__ = "sms_messages"
    __table_args__ = (
        Index("ix_sms_messages_chat_key", "chat_key"),
        Index("ix_sms_messages_delivery_id", "delivery_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    sid: Mapped[str | None] = mapped_column(String(64), unique=True)
    #: None once the number was erased (the text still counts for its game)
    number_id: Mapped[int | None] = mapped_column(ForeignKey("sms_numbers.id", ondelete="SET NULL"))
    chat_key: Mapped[str | None] = mapped_column(String(64))
    segments: Mapped[int]
    status: Mapped[str] = mapped_column(String(24))
    sent_at: Mapped[datetime]
    status_at: Mapped[datetime | None]
    #: the outbox entry it was sent for (None: a reply, a digest): a retry of the entry
    #: does not text this number again
    delivery_id: Mapped[int | None]


class SmsMediaRow(Base):
    """A picture an SMS player sent (MMS), fetched from the gateway: shown to Telegram
    players as a photo (``sms-media:<id>``) and forwarded by MMS through ``/sms/media/<token>``
    (the token is unguessable; the id is not)."""

    __tablename__ = "sms_media"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    token: Mapped[str] = mapped_column(String(64), unique=True)
    #: who sent it: erasing the number deletes it
    number_id: Mapped[int | None] = mapped_column(
        ForeignKey("sms_numbers.id", ondelete="CASCADE"), index=True
    )
    content_type: Mapped[str] = mapped_column(String(64))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    #: indexed for the hourly purge (``SmsBook.purge_media``), which reads no picture's bytes
    received_at: Mapped[datetime] = mapped_column(index=True)
