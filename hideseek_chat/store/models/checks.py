"""What the referee checked: each answer against the pins, each end-game claim against the zone.

Written by the chat layer through ``store.checks``; not part of the engine's state. The
numbers are the hider's secret until the round is over: with them the seekers could work
out where the hider is. No coordinates are kept here (pings are purged; these rows stay).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import ForeignKey, ForeignKeyConstraint, Index
from sqlalchemy.orm import Mapped, mapped_column

from hideseek_chat.store.models.base import GAME_FK, Base, game_ref, str_enum


class CheckVerdict(StrEnum):
    """How an answer (or an end-game claim) compared with what the pins say."""

    PENDING = "pending"  # computed when the question reached the hider; not answered yet
    CONFIRMING = "confirming"  # the hider picked an answer the pins contradict: asked to confirm
    AGREED = "agreed"
    DISAGREED = "disagreed"  # sent (or, for a claim, made) although the pins say otherwise
    UNCHECKED = "unchecked"  # the pins could not tell: ``reason`` says why


class AnswerCheckRow(Base):
    """The answer the pins give to a question, the numbers behind it and what was sent.

    ``computed_answer`` is None when the pins could not tell (``reason``). The number
    columns are the ones the question's category has: radar ``distance_m``/``radius_m``;
    thermometer ``start_m``/``end_m``/``travelled_m``; measuring and matching
    ``hider_m``/``seeker_m`` and ``hider_place``/``seeker_place``; tentacle ``reach_m``.
    """

    __tablename__ = "answer_checks"
    __table_args__ = (
        ForeignKeyConstraint(
            ["game_id", "question_record_id"],
            ["questions.game_id", "questions.id"],
            ondelete="CASCADE",
            deferrable=True,
            initially="DEFERRED",
        ),
        game_ref("answered_by", "players"),
    )

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    question_record_id: Mapped[int] = mapped_column(primary_key=True)
    computed_answer: Mapped[str | None]
    computed_detail: Mapped[str | None]
    reason: Mapped[str]
    too_close: Mapped[bool]
    computed_at: Mapped[datetime]
    hider_pin_at: Mapped[datetime | None]
    distance_m: Mapped[float | None]
    radius_m: Mapped[float | None]
    start_m: Mapped[float | None]
    end_m: Mapped[float | None]
    travelled_m: Mapped[float | None]
    hider_m: Mapped[float | None]
    seeker_m: Mapped[float | None]
    reach_m: Mapped[float | None]
    hider_place: Mapped[str | None]
    seeker_place: Mapped[str | None]
    verdict: Mapped[CheckVerdict] = mapped_column(str_enum(CheckVerdict))
    proposed_answer: Mapped[str | None]  # the contradicting answer the hider was asked about
    proposed_detail: Mapped[str | None]
    answer_sent: Mapped[str | None]
    detail_sent: Mapped[str | None]
    answered_by: Mapped[int | None]  # player id
    confirmed_anyway: Mapped[bool]
    automatic: Mapped[bool]  # the bot answered (automatic answers were on)
    checked_at: Mapped[datetime | None]


class EndGameClaimRow(Base):
    """A seeker's ``/endgame``: what their last pin said about the zone, what the hider decided.

    ``outside_m`` is how far outside the zone's edge the pin was (hider-only while the round
    runs). ``accepted`` is the hider's decision on a claim the pins contradict, None while
    they have not decided or when no decision was needed.
    """

    __tablename__ = "end_game_claims"
    __table_args__ = (
        game_ref("claimed_by", "players"),
        Index("ix_end_game_claims_game_id_round_number", "game_id", "round_number"),
    )

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    round_number: Mapped[int]
    claimed_by: Mapped[int]  # player id
    claimed_at: Mapped[datetime]
    verdict: Mapped[CheckVerdict] = mapped_column(str_enum(CheckVerdict))
    reason: Mapped[str]
    pin_at: Mapped[datetime | None]
    outside_m: Mapped[float | None]
    on_transit: Mapped[bool]
    accepted: Mapped[bool | None]
    decided_at: Mapped[datetime | None]
