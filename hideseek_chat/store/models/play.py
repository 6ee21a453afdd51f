"""Cards (deck order, offers, hands, discard pile, played cards), draws, questions, curses."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index
from sqlalchemy.orm import Mapped, mapped_column

from hideseek_chat.rules.ruleset import Category
from hideseek_chat.rules.state import CardZone, QuestionStatus
from hideseek_chat.store.models.base import GAME_FK, Base, game_ref, str_enum


class CardRow(Base):
    """Every card of a game; ``zone`` and ``position`` say where it is (deck: 0 is the top)."""

    __tablename__ = "cards"
    __table_args__ = (
        game_ref("holder_team_id", "teams"),
        Index("ix_cards_game_id_zone_position", "game_id", "zone", "position"),
    )

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    def_id: Mapped[str]
    zone: Mapped[CardZone] = mapped_column(str_enum(CardZone))
    position: Mapped[int]
    holder_team_id: Mapped[int | None]


class DrawCycleRow(Base):
    """A "draw N, keep K" owed to a team."""

    __tablename__ = "draw_cycles"
    __table_args__ = (game_ref("team_id", "teams"),)

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    round_number: Mapped[int]
    team_id: Mapped[int]
    draw: Mapped[int]
    keep: Mapped[int]
    question_id: Mapped[int | None]
    offered: Mapped[bool]
    done: Mapped[bool]


class QuestionRow(Base):
    """A question asked (``question_id`` is the ruleset's id) and what the hider answered."""

    __tablename__ = "questions"
    __table_args__ = (
        game_ref("asked_by", "players"),
        game_ref("team_id", "teams"),
        Index("ix_questions_game_id_asked_at", "game_id", "asked_at"),
    )

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    round_number: Mapped[int]
    question_id: Mapped[str]
    category: Mapped[Category] = mapped_column(str_enum(Category))
    asked_by: Mapped[int]
    team_id: Mapped[int]
    asked_at: Mapped[datetime]
    status: Mapped[QuestionStatus] = mapped_column(str_enum(QuestionStatus))
    times_asked: Mapped[int]
    distance_m: Mapped[float | None]
    due_at: Mapped[datetime | None]
    answer: Mapped[str | None]
    answer_detail: Mapped[str | None]
    answered_at: Mapped[datetime | None]
    late: Mapped[bool]
    free: Mapped[bool]
    extra_draw: Mapped[int]
    replaced_by: Mapped[int | None]
    line: Mapped[str | None]


class CurseRow(Base):
    """An active (or expired, cleared) curse and its expiry."""

    __tablename__ = "curses"
    __table_args__ = (
        game_ref("card_id", "cards"),
        game_ref("target_team_id", "teams"),
    )

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    round_number: Mapped[int]
    card_id: Mapped[int]
    def_id: Mapped[str]
    cast_at: Mapped[datetime]
    target_team_id: Mapped[int | None]
    expires_at: Mapped[datetime | None]
    cleared_at: Mapped[datetime | None]
    no_effect: Mapped[bool]
    losses: Mapped[int]
    lockout_until: Mapped[datetime | None]
    penalties: Mapped[int]


class BannedQuestionRow(Base):
    """A question a curse (Drained Brain) banned for a round."""

    __tablename__ = "banned_questions"
    __table_args__ = (game_ref("curse_id", "curses"),)

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    round_number: Mapped[int]
    question_id: Mapped[str]
    curse_id: Mapped[int]
