"""The engine: ``apply(ruleset, state, event, now) -> (state, decisions)``.

Pure: the given state is never changed (a rejected event leaves it exactly as it was), the
wall clock is never read, and randomness comes from the game's seed.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from datetime import datetime
from typing import Any

from hideseek_chat.rules import (
    curses,
    deck,
    hiding,
    lifecycle,
    pausing,
    powerups,
    questions,
    teams,
)
from hideseek_chat.rules.decisions import GROUP, HIDERS, CheckHidingSpot, Decision, Notify
from hideseek_chat.rules.errors import (
    GamePausedError,
    NotAllowed,
    NotAPlayer,
    RuleViolation,
    WrongPhase,
)
from hideseek_chat.rules.events import (
    CardDiscarded,
    CardPlayed,
    CardsKept,
    CatchAnswered,
    CatchClaimed,
    CatchDecided,
    CurseCleared,
    CurseLossReported,
    CursePenaltyClaimed,
    DeadlineReached,
    EndGameStarted,
    Event,
    GameAborted,
    GameBegun,
    GamePaused,
    GameResumed,
    GroupLost,
    NextRoundStarted,
    PlayerJoined,
    PlayerLeft,
    QuestionAnswered,
    QuestionAsked,
    SettingsChanged,
    TeamChosen,
    TeamJoined,
    TeamRenamed,
    ThermometerFinished,
    ZoneFixed,
)
from hideseek_chat.rules.ruleset import Ruleset
from hideseek_chat.rules.state import Deadline, DeadlineKind, GameState, Mode, Phase, Player

#: Events that may happen while the game is paused.
ALLOWED_WHILE_PAUSED = (
    GameResumed,
    GroupLost,
    PlayerLeft,
    GameAborted,
    DeadlineReached,
    ZoneFixed,
    CardDiscarded,
    CardsKept,
)


def apply(
    ruleset: Ruleset, state: GameState, event: Event, now: datetime
) -> tuple[GameState, list[Decision]]:
    """Apply ``event`` at ``now``; raise a ``RuleViolation`` when the rules forbid it."""
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    if state.last_event_at is not None and now < state.last_event_at:
        now = state.last_event_at  # events may arrive out of order; time never runs back
    _require_finite(event)
    new = state.clone()
    new.last_event_at = now  # timers scheduled while paused measure from this moment
    decisions = _dispatch(ruleset, new, event, now)
    new.last_event_at = now
    return new, decisions


def _require_finite(event: Event) -> None:
    """Numbers in events come from people and GPS: NaN and infinity are refused."""
    for field in dataclasses.fields(event):
        value = getattr(event, field.name)
        if isinstance(value, float) and not math.isfinite(value):
            raise RuleViolation(
                f"{field.name} is not a number", key="error.not_a_number", field=field.name
            )


def due_deadlines(state: GameState, now: datetime) -> list[Deadline]:
    """Open deadlines due at ``now``, oldest first (what a scheduler should deliver)."""
    due = [d for d in state.open_deadlines() if d.due_at is not None and d.due_at <= now]
    return sorted(due, key=lambda d: (d.due_at, d.id))  # type: ignore[return-value, arg-type]


def next_deadline(state: GameState) -> datetime | None:
    times = [d.due_at for d in state.open_deadlines() if d.due_at is not None]
    return min(times) if times else None


def _player(state: GameState, ref: str) -> Player:
    player = state.player_by_ref(ref)
    if player is None:
        raise NotAPlayer("you are not a player in this game; /join first")
    return player


def _card_team(state: GameState, player: Player) -> int:
    """Whose hand a player plays from: the hider's, or their own team's in the points mode."""
    if state.settings.mode == Mode.TEAMS_POINTS:
        return player.team_id
    if not state.is_hider(player.id):
        raise NotAllowed("only the hider holds cards", key="error.only_hider")
    return player.team_id


Handler = Callable[[Ruleset, GameState, Event, Player | None, datetime], list[Decision]]


def _dispatch(ruleset: Ruleset, state: GameState, event: Event, now: datetime) -> list[Decision]:
    if isinstance(event, PlayerJoined):
        return lifecycle.join(state, event.by, event.name)
    if isinstance(event, DeadlineReached):
        return _deadline(ruleset, state, event.deadline_id, now)
    by = getattr(event, "by", None)
    player = _player(state, by) if by is not None else None
    if state.phase == Phase.GAME_OVER and not isinstance(event, PlayerLeft):
        raise WrongPhase("the game is over; start a new one with /newgame", key="error.game_over")
    if state.is_paused and not isinstance(event, ALLOWED_WHILE_PAUSED):
        raise GamePausedError("the game is paused; /resume first")
    handler = _HANDLERS.get(type(event))
    if handler is None:
        raise TypeError(f"the engine does not handle {type(event).__name__}")
    return handler(ruleset, state, event, player, now)


def _need(player: Player | None) -> Player:
    if player is None:
        raise NotAPlayer("this needs a player")
    return player


def _deadline(
    ruleset: Ruleset, state: GameState, deadline_id: int, now: datetime
) -> list[Decision]:
    found = [d for d in state.deadlines if d.id == deadline_id]
    if not found:
        return []
    deadline = found[0]
    # A deadline that was closed, frozen by a pause or pushed back is not due: nothing to do.
    if deadline.done or deadline.due_at is None or deadline.due_at > now:
        return []
    deadline.done = True
    kind = deadline.kind
    if kind == DeadlineKind.HIDING_REMINDER:
        params: dict[str, Any] = {"minutes": lifecycle.HIDING_REMINDER_BEFORE.total_seconds() / 60}
        params["street_end"] = hiding.zones_on_streets(state)
        assert deadline.round_number is not None
        return [
            Notify(HIDERS, "round.hiding_reminder", params),
            Notify(GROUP, "round.hiding_reminder_group", params),
            CheckHidingSpot(deadline.round_number),
        ]
    if kind == DeadlineKind.HIDING_ENDS:
        return lifecycle.hiding_ends(state, ruleset, now)
    if kind in (DeadlineKind.ANSWER_REMINDER, DeadlineKind.ANSWER_DUE):
        assert deadline.ref_id is not None
        record = state.question_record(deadline.ref_id)
        if record.answered_at is not None:
            return []
        if kind == DeadlineKind.ANSWER_REMINDER:
            return [
                Notify(
                    HIDERS,
                    "question.reminder",
                    {"question": record.question_id, "due_at": record.due_at},
                )
            ]
        params = {"question": record.question_id}
        return [
            Notify(GROUP, "question.overdue", params),
            Notify(HIDERS, "question.overdue_hider", params),
        ]
    if kind == DeadlineKind.CURSE_EXPIRES:
        assert deadline.ref_id is not None
        return curses.expire(state, ruleset, deadline.ref_id, now)
    if kind == DeadlineKind.MOVE_ENDS:
        return lifecycle.move_ends(state, now)
    if kind == DeadlineKind.HANDOVER_ENDS:
        return lifecycle.next_round(state, ruleset, None, now)
    if kind == DeadlineKind.GAME_TIMER:
        return lifecycle.game_timer(state, ruleset, now)
    if kind == DeadlineKind.REST_STARTS:
        return pausing.rest_starts(state, now)
    if kind == DeadlineKind.REST_ENDS:
        return pausing.rest_ends(state, now)
    raise AssertionError(kind)


def _on_left(r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime) -> list[Decision]:
    return lifecycle.leave(s, r, _need(p), now)


def _on_team(r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime) -> list[Decision]:
    assert isinstance(e, TeamJoined)
    return lifecycle.join_team(s, _need(p), e.teammate)


def _on_choose_team(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    assert isinstance(e, TeamChosen)
    return teams.choose_team(s, _need(p), e.name, e.team_id)


def _on_rename(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    assert isinstance(e, TeamRenamed)
    return lifecycle.rename_team(s, _need(p), e.name)


def _on_settings(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    assert isinstance(e, SettingsChanged)
    return lifecycle.change_settings(s, r, _need(p), e)


def _on_begin(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    return lifecycle.begin(s, r, _need(p), now)


def _on_abort(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    return lifecycle.abort(s, r, _need(p), now)


def _on_pause(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    return pausing.pause(s, _need(p), now)


def _on_resume(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    return pausing.resume(s, _need(p), now)


def _on_group_lost(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    return pausing.group_lost(s, now)


def _on_zone(r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime) -> list[Decision]:
    assert isinstance(e, ZoneFixed)
    return lifecycle.fix_zone(
        s, r, p, e.station_ref, e.station_name, e.lat, e.lon, now, late=e.late
    )


def _on_end_game(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    return lifecycle.start_end_game(s, p, now)


def _on_claim(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    assert isinstance(e, CatchClaimed)
    return lifecycle.claim_catch(s, _need(p), e.distance_m, now)


def _on_catch(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    assert isinstance(e, CatchAnswered)
    return lifecycle.answer_catch(s, r, _need(p), e.spotted, now)


def _on_decide(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    assert isinstance(e, CatchDecided)
    return lifecycle.decide_catch(s, r, _need(p), _player(s, e.seeker), now)


def _on_next(r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime) -> list[Decision]:
    return lifecycle.next_round(s, r, _need(p), now)


def _on_ask(r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime) -> list[Decision]:
    assert isinstance(e, QuestionAsked)
    return questions.ask(
        s,
        r,
        _need(p),
        e.question_id,
        e.distance_m,
        e.on_transit,
        now,
        at_station=e.at_station,
        line=e.line,
    )


def _on_thermo(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    assert isinstance(e, ThermometerFinished)
    return questions.finish_thermometer(s, r, _need(p), e.travelled_m, now)


def _on_answer(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    assert isinstance(e, QuestionAnswered)
    return questions.answer(
        s, r, _need(p), e.answer, e.detail, e.record_id, now, caption=e.caption
    )


def _on_keep(r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime) -> list[Decision]:
    assert isinstance(e, CardsKept)
    return deck.keep_cards(s, r, _card_team(s, _need(p)), e.card_ids)


def _on_discard(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    assert isinstance(e, CardDiscarded)
    if s.phase not in powerups.PLAYING_PHASES:
        raise WrongPhase("cards are handled during a round", key="error.no_round")
    return deck.discard_from_hand(s, r, _card_team(s, _need(p)), e.card_id)


def _on_play(r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime) -> list[Decision]:
    assert isinstance(e, CardPlayed)
    return powerups.play(s, r, _card_team(s, _need(p)), e, now)


def _on_clear(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    assert isinstance(e, CurseCleared)
    return curses.clear(s, r, _need(p), e.curse_id, now)


def _on_loss(r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime) -> list[Decision]:
    assert isinstance(e, CurseLossReported)
    return curses.report_loss(s, r, _need(p), e.curse_id, now)


def _on_penalty(
    r: Ruleset, s: GameState, e: Event, p: Player | None, now: datetime
) -> list[Decision]:
    assert isinstance(e, CursePenaltyClaimed)
    return curses.claim_penalty(s, r, _need(p), e.curse_id, now)


_HANDLERS: dict[type[Event], Handler] = {
    PlayerLeft: _on_left,
    TeamJoined: _on_team,
    TeamChosen: _on_choose_team,
    TeamRenamed: _on_rename,
    SettingsChanged: _on_settings,
    GameBegun: _on_begin,
    GameAborted: _on_abort,
    GamePaused: _on_pause,
    GameResumed: _on_resume,
    GroupLost: _on_group_lost,
    ZoneFixed: _on_zone,
    EndGameStarted: _on_end_game,
    CatchClaimed: _on_claim,
    CatchAnswered: _on_catch,
    CatchDecided: _on_decide,
    NextRoundStarted: _on_next,
    QuestionAsked: _on_ask,
    ThermometerFinished: _on_thermo,
    QuestionAnswered: _on_answer,
    CardsKept: _on_keep,
    CardDiscarded: _on_discard,
    CardPlayed: _on_play,
    CurseCleared: _on_clear,
    CurseLossReported: _on_loss,
    CursePenaltyClaimed: _on_penalty,
}
