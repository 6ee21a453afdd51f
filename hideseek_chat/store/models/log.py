"""What happened around the state: the event log, the outbox, the inbox, leases, pings."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from hideseek_chat.store.models.base import GAME_FK, Base, game_ref, str_enum

#: A 64-bit surrogate key; SQLite only autoincrements an INTEGER PRIMARY KEY.
BIG_ID = BigInteger().with_variant(Integer(), "sqlite")


class InboxStatus(StrEnum):
    """Where an inbound update stands."""

    PENDING = "pending"  # stored, not applied yet (a polled batch)
    APPLIED = "applied"  # handled: its changes and its inbox row committed together
    REFUSED = "refused"  # handled: the person was told why not; nothing changed
    FAILED = "failed"  # the handler raised; kept with its payload for a look and a retry
    UNREADABLE = "unreadable"  # the channel could not parse it; kept, never applied


class EventRow(Base):
    """One applied event, append-only; ``payload`` holds the fields not given a column.

    The log is a history for people and audits. The game's state lives in its own tables.
    """

    __tablename__ = "event_log"
    __table_args__ = (Index("ix_event_log_game_id_id", "game_id", "id"),)

    id: Mapped[int] = mapped_column(BIG_ID, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"))
    type: Mapped[str]
    actor_ref: Mapped[str | None]
    occurred_at: Mapped[datetime]
    update_id: Mapped[str | None]
    payload: Mapped[str] = mapped_column(Text)


class OutboxRow(Base):
    """A decision to deliver after the transaction that made it commits.

    ``kind`` is the decision's class (``Notify``, ``RequestZone``, ``FreezeHidingSpot``);
    a sender reads unsent rows in ``id`` order and sets ``sent_at`` once delivered.
    """

    __tablename__ = "outbox"
    __table_args__ = (
        Index("ix_outbox_sent_at_id", "sent_at", "id"),
        # What a player was told in a game, and when (``Outbox.notified_since``, asked each
        # minute for every quiet live location): without it, a scan of every game's notices.
        Index(
            "ix_outbox_game_id_audience_player_id", "game_id", "audience_player_id", "created_at"
        ),
    )

    id: Mapped[int] = mapped_column(BIG_ID, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"))
    kind: Mapped[str]
    audience_kind: Mapped[str | None]
    audience_player_id: Mapped[int | None]
    audience_team_id: Mapped[int | None]
    key: Mapped[str | None]
    params: Mapped[str] = mapped_column(Text)
    round_number: Mapped[int | None]
    created_at: Mapped[datetime]
    sent_at: Mapped[datetime | None]


class InboxRow(Base):
    """An inbound update, stored before the channel acknowledges it (``store.inbox``).

    ``update_id`` is channel-prefixed (``tg:123456``). An update handled at once is written
    as ``applied`` in the transaction that applies it; a polled batch is written ``pending``
    with its ``payload`` (the channel's raw update) and applied later, exactly once.
    ``payload`` is cleared once the update is applied: it may hold a location.
    """

    __tablename__ = "inbox"
    __table_args__ = (
        Index("ix_inbox_status_id", "status", "id"),
        Index("ix_inbox_received_at", "received_at"),
    )

    #: arrival order (a sequence, never a timestamp); within a lane, updates apply in it
    id: Mapped[int] = mapped_column(BIG_ID, primary_key=True)
    update_id: Mapped[str] = mapped_column(String(64), unique=True)
    #: the chat the update came from: one lane's updates are applied one at a time
    lane: Mapped[str | None] = mapped_column(String(64))
    status: Mapped[InboxStatus] = mapped_column(str_enum(InboxStatus))
    received_at: Mapped[datetime]
    payload: Mapped[str | None] = mapped_column(Text)
    attempts: Mapped[int] = mapped_column(default=0)


class LeaseRow(Base):
    """A named lease one process holds until ``expires_at`` (``store.leases``): the sender
    of a game's outbox. A process that dies loses it when it expires."""

    __tablename__ = "leases"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    holder: Mapped[str] = mapped_column(String(64))
    expires_at: Mapped[datetime]


class PingRow(Base):
    """A reported position of a player; purged a while after the game ends.

    ``id`` is the order pings were stored in (a sequence, never a timestamp): a player's
    newest ping is the one with the highest id. ``message_ref`` and ``sent_at`` name the
    channel's message and its version (an edit date): each version is stored once, and one
    older than the player's newest is not stored at all (``store.pings``).
    """

    __tablename__ = "location_pings"
    __table_args__ = (
        game_ref("player_id", "players", ondelete="CASCADE"),
        # a player's newest pings: by id, the order they were stored in
        Index("ix_location_pings_game_id_player_id_id", "game_id", "player_id", "id"),
        UniqueConstraint("game_id", "player_id", "sent_at", "message_ref"),
    )

    id: Mapped[int] = mapped_column(BIG_ID, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"))
    player_id: Mapped[int]
    lat: Mapped[float]
    lon: Mapped[float]
    accuracy_m: Mapped[float | None]
    source: Mapped[str]  # "live", "pin", "coordinates", "link" ...
    forwarded: Mapped[bool]
    #: the game's time when the ping arrived
    at: Mapped[datetime]
    #: the channel's id of the message that carried it (None: the channel names none)
    message_ref: Mapped[str | None] = mapped_column(String(64))
    #: when the channel says that version of the message was made (None: unknown)
    sent_at: Mapped[datetime | None]
    #: the speed the device measured (a GPS tracker's), km/h; None: not reported
    speed_kmh: Mapped[float | None]
