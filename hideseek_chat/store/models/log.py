"""What happened around the state: the event log, the outbox, processed updates, pings."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, Text
from sqlalchemy.orm import Mapped, mapped_column

from hideseek_chat.store.models.base import GAME_FK, Base, game_ref

#: A 64-bit surrogate key; SQLite only autoincrements an INTEGER PRIMARY KEY.
BIG_ID = BigInteger().with_variant(Integer(), "sqlite")


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
    __table_args__ = (Index("ix_outbox_sent_at_id", "sent_at", "id"),)

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


class ProcessedUpdateRow(Base):
    """An inbound update already applied; a redelivery with this id is ignored."""

    __tablename__ = "processed_updates"

    update_id: Mapped[str] = mapped_column(primary_key=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey(GAME_FK, ondelete="SET NULL"))
    processed_at: Mapped[datetime]


class PingRow(Base):
    """A reported position of a player; purged a while after the game ends."""

    __tablename__ = "location_pings"
    __table_args__ = (
        game_ref("player_id", "players", ondelete="CASCADE"),
        Index("ix_location_pings_game_id_player_id_at", "game_id", "player_id", "at"),
    )

    id: Mapped[int] = mapped_column(BIG_ID, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"))
    player_id: Mapped[int]
    lat: Mapped[float]
    lon: Mapped[float]
    accuracy_m: Mapped[float | None]
    source: Mapped[str]  # "live", "pin", "coordinates", "link" ...
    forwarded: Mapped[bool]
    at: Mapped[datetime]
