"""Answers checked against the pins, before the seekers act on a wrong one.

What the pins and the map say of a question is worked out (``sightings.suggestion``) and
stored (``uow.checks``) when the question reaches the hider, and again when they answer.
An answer the pins contradict, outside the GPS margin, is held for the hider to confirm;
the rulebook makes the hider responsible for the truth, so the bot never overrules them.
Automatic answers (an admin setting) are decided here too. The group only ever reads the
verdict (``texts.verdict_note``), never the numbers.
"""

from __future__ import annotations

from datetime import datetime

from hideseek_chat.chat import referee, sightings
from hideseek_chat.chat.maps import Maps
from hideseek_chat.rules import apply as engine_apply
from hideseek_chat.rules.errors import RuleViolation
from hideseek_chat.rules.events import QuestionAnswered
from hideseek_chat.rules.ruleset import Ruleset
from hideseek_chat.rules.state import GameState, Mode, Question, QuestionStatus
from hideseek_chat.store import UnitOfWork
from hideseek_chat.store.checks import CheckNumbers, CheckVerdict, Computation


def compute(
    uow: UnitOfWork,
    maps: Maps,
    ruleset: Ruleset,
    game_id: int,
    state: GameState,
    record: Question,
    now: datetime,
) -> referee.Suggestion:
    """Work out ``record``'s answer from the pins and the map at ``now``, and store it.

    A thermometer ends where the seekers were when it first reached the hider, however
    often this runs.
    """
    reached_at = _reached_at(uow, game_id, record, now)
    hider = sightings.hider_pin(uow, game_id, state)
    suggestion = sightings.suggestion(
        uow, maps, ruleset, game_id, state, record, now, reached_at, hider
    )
    computation = Computation(
        suggestion.answer,
        suggestion.detail,
        suggestion.reason,
        suggestion.too_close,
        reached_at,
        hider.at if hider else None,
        numbers_of(suggestion),
    )
    uow.checks.computed(game_id, record.id, computation)
    return suggestion


def stored_suggestion(
    uow: UnitOfWork,
    maps: Maps,
    ruleset: Ruleset,
    game_id: int,
    state: GameState,
    record: Question,
    now: datetime,
) -> referee.Suggestion:
    """What the pins said of ``record`` when it reached the hider, worked out again without
    writing (for showing it); computed afresh when nothing is stored yet."""
    reached_at = _reached_at(uow, game_id, record, now)
    hider = sightings.hider_pin(uow, game_id, state)
    return sightings.suggestion(
        uow, maps, ruleset, game_id, state, record, reached_at, reached_at, hider
    )


def _reached_at(uow: UnitOfWork, game_id: int, record: Question, now: datetime) -> datetime:
    """When ``record`` first reached the hider: its stored check's time, else ``now``."""
    earlier = uow.checks.get(game_id, record.id)
    return earlier.computation.computed_at if earlier else now


def not_computed(reason: str, at: datetime) -> Computation:
    return Computation(None, None, reason, False, at)


def numbers_of(suggestion: referee.Suggestion) -> CheckNumbers:
    """The facts of a suggestion as the check's columns."""
    facts = suggestion.facts

    def number(key: str) -> float | None:
        value = facts.get(key)
        return float(value) if isinstance(value, int | float) else None

    def name(key: str) -> str | None:
        value = facts.get(key)
        return str(value) if value else None

    return CheckNumbers(
        distance_m=number("distance_m"),
        radius_m=number("radius_m"),
        start_m=number("start_m"),
        end_m=number("end_m"),
        travelled_m=number("travelled_m"),
        hider_m=number("hider_m"),
        seeker_m=number("seeker_m"),
        reach_m=number("reach_m"),
        hider_place=name("hider_place"),
        seeker_place=name("seeker_place"),
    )


def verdict_for(suggestion: referee.Suggestion, word: str, detail: str | None) -> CheckVerdict:
    """How the answer ``word`` (``detail``) compares with what the pins say."""
    if suggestion.answer is None or suggestion.too_close:
        return CheckVerdict.UNCHECKED
    if word != suggestion.answer:
        return CheckVerdict.DISAGREED
    if word == "named":
        # The place may go by several names on the map (two rows of one museum).
        names = {str(n).casefold() for n in suggestion.facts.get("aliases") or ()}
        names.add((suggestion.detail or "").casefold())
        if (detail or "").strip().casefold() not in names:
            return CheckVerdict.DISAGREED
    return CheckVerdict.AGREED


def answer_event(
    state: GameState, by: str, record: Question, word: str, detail: str | None
) -> QuestionAnswered:
    """The engine event that answers ``record`` (the standard game answers the pending one)."""
    record_id = record.id if state.settings.mode != Mode.STANDARD else None
    return QuestionAnswered(by, word, detail, record_id)


def automatic_answer(
    uow: UnitOfWork,
    ruleset: Ruleset,
    game_id: int,
    state: GameState,
    record: Question,
    suggestion: referee.Suggestion,
    now: datetime,
) -> QuestionAnswered | None:
    """The answer the bot sends for the hider when automatic answers are on, the pins are
    clear and the rules allow it; recorded as checked and automatic. None otherwise."""
    if (
        record.status != QuestionStatus.PENDING
        or suggestion.answer is None
        or suggestion.too_close
        or not uow.chats.prefs(uow.games.chat_key(game_id)).auto_answer
    ):
        return None
    hider_team = state.hider_team_id()
    hiders = state.team_players(hider_team) if hider_team is not None else []
    if not hiders:
        return None
    event = answer_event(state, hiders[0].ref, record, suggestion.answer, suggestion.detail)
    try:
        engine_apply(ruleset, state, event, now)
    except RuleViolation:
        return None  # e.g. the hider still has cards to choose: they answer themselves
    uow.checks.decide(
        game_id,
        record.id,
        CheckVerdict.AGREED,
        now,
        answered_by=hiders[0].id,
        sent=(suggestion.answer, suggestion.detail),
        automatic=True,
    )
    return event
