"""The referee's checks: answers against the pins and end-game claims against the zone.

``AnswerChecks`` lives inside one unit of work (``uow.checks``); it flushes, never commits.
An answer's check is written in two steps: ``computed`` when the pins are read (the
question reaches the hider, or the hider answers), ``decide`` when an answer is sent or
held for the hider's confirmation.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from hideseek_chat.store.models import (
    AnswerCheckRow,
    CheckVerdict,
    EndGameClaimRow,
    GameRow,
    PlayerRow,
    QuestionRow,
)

__all__ = ["AnswerCheck", "AnswerChecks", "CheckNumbers", "CheckVerdict", "Claim", "Computation"]


@dataclass(frozen=True)
class CheckNumbers:
    """The numbers behind a computed answer (hider-only while the round runs); see
    ``AnswerCheckRow`` for which category fills which."""

    distance_m: float | None = None
    radius_m: float | None = None
    start_m: float | None = None
    end_m: float | None = None
    travelled_m: float | None = None
    hider_m: float | None = None
    seeker_m: float | None = None
    reach_m: float | None = None
    hider_place: str | None = None
    seeker_place: str | None = None


NUMBER_FIELDS = tuple(f.name for f in fields(CheckNumbers))


@dataclass(frozen=True)
class Computation:
    """What the pins said about a question at ``computed_at``."""

    answer: str | None
    detail: str | None
    reason: str
    too_close: bool
    computed_at: datetime
    hider_pin_at: datetime | None = None
    numbers: CheckNumbers = field(default_factory=CheckNumbers)


@dataclass(frozen=True)
class AnswerCheck:
    record_id: int
    computation: Computation
    verdict: CheckVerdict
    proposed_answer: str | None
    proposed_detail: str | None
    answer_sent: str | None
    detail_sent: str | None
    answered_by: int | None
    confirmed_anyway: bool
    automatic: bool
    checked_at: datetime | None


@dataclass(frozen=True)
class Claim:
    """An ``/endgame`` claim; ``accepted`` is the hider's decision on a disputed one."""

    id: int
    round_number: int
    claimed_by: int
    claimed_at: datetime
    verdict: CheckVerdict
    reason: str
    pin_at: datetime | None
    outside_m: float | None
    on_transit: bool
    accepted: bool | None
    decided_at: datetime | None


class AnswerChecks:
    def __init__(self, session: Session) -> None:
        self.session = session

    # ----- answers -----

    def computed(self, game_id: int, record_id: int, computation: Computation) -> None:
        """Record what the pins said about question ``record_id``.

        A check that is already decided keeps what it was decided on; an undecided one takes
        the new computation (the hider may have moved).
        """
        row = self.session.get(AnswerCheckRow, (game_id, record_id))
        if row is None:
            row = AnswerCheckRow(
                game_id=game_id,
                question_record_id=record_id,
                verdict=CheckVerdict.PENDING,
                confirmed_anyway=False,
                automatic=False,
            )
            self.session.add(row)
        elif row.verdict not in (CheckVerdict.PENDING, CheckVerdict.CONFIRMING):
            return
        row.computed_answer, row.computed_detail = computation.answer, computation.detail
        row.reason, row.too_close = computation.reason, computation.too_close
        row.computed_at, row.hider_pin_at = computation.computed_at, computation.hider_pin_at
        for name in NUMBER_FIELDS:
            setattr(row, name, getattr(computation.numbers, name))
        self.session.flush()

    def decide(
        self,
        game_id: int,
        record_id: int,
        verdict: CheckVerdict,
        at: datetime,
        *,
        answered_by: int | None = None,
        sent: tuple[str, str | None] | None = None,
        proposed: tuple[str, str | None] | None = None,
        confirmed_anyway: bool = False,
        automatic: bool = False,
    ) -> None:
        """Record how the answer ``sent`` (or ``proposed``, to confirm) compares with the pins.

        Raises LookupError when nothing was computed for the question.
        """
        row = self.session.get(AnswerCheckRow, (game_id, record_id))
        if row is None:
            raise LookupError((game_id, record_id))
        row.verdict, row.checked_at = verdict, at
        row.answered_by = answered_by
        if proposed is not None:
            row.proposed_answer, row.proposed_detail = proposed
        row.answer_sent, row.detail_sent = sent if sent is not None else (None, None)
        row.confirmed_anyway, row.automatic = confirmed_anyway, automatic
        self.session.flush()

    def get(self, game_id: int, record_id: int) -> AnswerCheck | None:
        row = self.session.get(AnswerCheckRow, (game_id, record_id))
        return None if row is None else _check(row)

    def suggestion(self, game_id: int, record_id: int) -> tuple[str, str | None] | None:
        """The answer the pins gave to ``record_id`` (word, detail), if they gave one."""
        check = self.get(game_id, record_id)
        if check is None or check.computation.answer is None:
            return None
        return check.computation.answer, check.computation.detail

    def for_round(self, game_id: int, round_number: int) -> dict[int, AnswerCheck]:
        """The checks of a round's questions, by question record id."""
        rows = self.session.scalars(
            select(AnswerCheckRow)
            .join(
                QuestionRow,
                (QuestionRow.game_id == AnswerCheckRow.game_id)
                & (QuestionRow.id == AnswerCheckRow.question_record_id),
            )
            .where(AnswerCheckRow.game_id == game_id, QuestionRow.round_number == round_number)
        )
        return {row.question_record_id: _check(row) for row in rows}

    def admin_game(self, ref: str) -> int | None:
        """The newest game ``ref`` is the admin of, finished or not (to review it)."""
        return self.session.scalar(
            select(GameRow.id)
            .join(
                PlayerRow,
                (PlayerRow.game_id == GameRow.id) & (PlayerRow.id == GameRow.admin_player_id),
            )
            .where(PlayerRow.ref == ref)
            .order_by(GameRow.id.desc())
            .limit(1)
        )

    # ----- end-game claims -----

    def add_claim(
        self,
        game_id: int,
        round_number: int,
        claimed_by: int,
        at: datetime,
        verdict: CheckVerdict,
        reason: str,
        *,
        pin_at: datetime | None = None,
        outside_m: float | None = None,
        on_transit: bool = False,
    ) -> int:
        """Record an ``/endgame`` claim; return its id (unique within the game)."""
        last = self.session.scalar(
            select(func.max(EndGameClaimRow.id)).where(EndGameClaimRow.game_id == game_id)
        )
        claim_id = (last or 0) + 1
        self.session.add(
            EndGameClaimRow(
                game_id=game_id,
                id=claim_id,
                round_number=round_number,
                claimed_by=claimed_by,
                claimed_at=at,
                verdict=verdict,
                reason=reason,
                pin_at=pin_at,
                outside_m=outside_m,
                on_transit=on_transit,
                accepted=None,
                decided_at=None,
            )
        )
        self.session.flush()
        return claim_id

    def claim(self, game_id: int, claim_id: int) -> Claim | None:
        row = self.session.get(EndGameClaimRow, (game_id, claim_id))
        return None if row is None else _claim(row)

    def decide_claim(self, game_id: int, claim_id: int, accepted: bool, at: datetime) -> None:
        """Record the hider's decision on a disputed claim."""
        row = self.session.get(EndGameClaimRow, (game_id, claim_id))
        if row is None:
            raise LookupError((game_id, claim_id))
        row.accepted, row.decided_at = accepted, at
        self.session.flush()

    def claims(self, game_id: int, round_number: int) -> list[Claim]:
        """A round's claims, oldest first."""
        rows = self.session.scalars(
            select(EndGameClaimRow)
            .where(EndGameClaimRow.game_id == game_id, EndGameClaimRow.round_number == round_number)
            .order_by(EndGameClaimRow.id)
        )
        return [_claim(row) for row in rows]


def _check(row: AnswerCheckRow) -> AnswerCheck:
    numbers = CheckNumbers(**{name: getattr(row, name) for name in NUMBER_FIELDS})
    computation = Computation(
        row.computed_answer,
        row.computed_detail,
        row.reason,
        row.too_close,
        row.computed_at,
        row.hider_pin_at,
        numbers,
    )
    return AnswerCheck(
        row.question_record_id,
        computation,
        row.verdict,
        row.proposed_answer,
        row.proposed_detail,
        row.answer_sent,
        row.detail_sent,
        row.answered_by,
        row.confirmed_anyway,
        row.automatic,
        row.checked_at,
    )


def _claim(row: EndGameClaimRow) -> Claim:
    return Claim(
        row.id,
        row.round_number,
        row.claimed_by,
        row.claimed_at,
        row.verdict,
        row.reason,
        row.pin_at,
        row.outside_m,
        row.on_transit,
        row.accepted,
        row.decided_at,
    )
