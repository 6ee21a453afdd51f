"""The two-player botnet game (``rules.botnet``): matches, their two seats and their steps.

A match is stored as the moves and claims made, in order (``botnet_steps``); where it stands
is ``rules.botnet.replay(first_seat, steps)``. The steps include the proxy moves, which are
each player's secret while the match runs: show them to no one but their player.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from hideseek_chat.rules.botnet import Ending
from hideseek_chat.store.models.base import Base, str_enum

BOTNET_MATCH_FK = "botnet_matches.id"
RUNNING = "status != 'over'"


class BotnetStatus(StrEnum):
    CHOOSING = "choosing"  # the players choose who starts (``first_seat`` is NULL)
    PLAYING = "playing"
    OVER = "over"


class BotnetStepKind(StrEnum):
    MOVE = "move"  # ProxyMoved
    CLAIM = "claim"  # DeviceClaimed
    RESIGN = "resign"  # Resigned (no cell)


def _one_of(column: str, values: type[StrEnum]) -> str:
    return f"{column} IN ({', '.join(repr(member.value) for member in values)})"


def _seat(column: str) -> str:
    return f"{column} IN (0, 1)"


class BotnetMatchRow(Base):
    """One match in a group chat; a chat's active match is its newest one not over."""

    __tablename__ = "botnet_matches"
    __table_args__ = (
        CheckConstraint(_one_of("status", BotnetStatus), name="status"),
        CheckConstraint(_seat("first_seat"), name="first_seat"),
        CheckConstraint(_seat("winner_seat"), name="winner_seat"),
        CheckConstraint(_one_of("ending", Ending), name="ending"),
        # At most one running match per chat, even when two people start one at once.
        Index(
            "uq_botnet_matches_running_chat",
            "chat_key",
            unique=True,
            sqlite_where=text(RUNNING),
            postgresql_where=text(RUNNING),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    chat_key: Mapped[str] = mapped_column(String(64), index=True)
    created_at: Mapped[datetime]
    status: Mapped[BotnetStatus] = mapped_column(str_enum(BotnetStatus))
    first_seat: Mapped[int | None]  # None while the players choose who starts
    winner_seat: Mapped[int | None]
    ending: Mapped[Ending | None] = mapped_column(str_enum(Ending))
    ended_at: Mapped[datetime | None]


class BotnetSeatRow(Base):
    """Who plays seat 0 or 1 of a match; one person holds at most one seat of it."""

    __tablename__ = "botnet_seats"
    __table_args__ = (
        UniqueConstraint("match_id", "person_ref"),
        CheckConstraint(_seat("seat"), name="seat"),
    )

    match_id: Mapped[int] = mapped_column(
        ForeignKey(BOTNET_MATCH_FK, ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    person_ref: Mapped[str] = mapped_column(String(64), index=True)
    name: Mapped[str] = mapped_column(String(128))


class BotnetStepRow(Base):
    """A match's ``seq``-th event: a proxy move or a claim of ``cell`` (``e6``), or a resign."""

    __tablename__ = "botnet_steps"
    __table_args__ = (
        CheckConstraint(_seat("seat"), name="seat"),
        CheckConstraint(_one_of("kind", BotnetStepKind), name="kind"),
        # Only a resign has no device.
        CheckConstraint(
            f"(kind = '{BotnetStepKind.RESIGN.value}' AND cell IS NULL)"
            f" OR (kind <> '{BotnetStepKind.RESIGN.value}' AND cell IS NOT NULL)",
            name="cell",
        ),
    )

    match_id: Mapped[int] = mapped_column(
        ForeignKey(BOTNET_MATCH_FK, ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    seat: Mapped[int]
    kind: Mapped[BotnetStepKind] = mapped_column(str_enum(BotnetStepKind))
    cell: Mapped[str | None] = mapped_column(String(2))
    at: Mapped[datetime]
