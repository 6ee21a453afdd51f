"""Playing cards from the hand: powerups here, curses in ``curses``."""

from __future__ import annotations

from datetime import datetime, timedelta

from hideseek_chat.rules import curses, deck, questions
from hideseek_chat.rules.clock import cancel, schedule, start_pause
from hideseek_chat.rules.decisions import GROUP, Decision, Notify, to_team
from hideseek_chat.rules.errors import (
    CardNotAvailable,
    CostNotMet,
    NoPendingQuestion,
    NotAllowed,
    WrongPhase,
)
from hideseek_chat.rules.events import CardPlayed
from hideseek_chat.rules.ruleset import CardDef, CardKind, PowerupEffect, Ruleset
from hideseek_chat.rules.scale import move_period_min
from hideseek_chat.rules.state import (
    Card,
    CardZone,
    DeadlineKind,
    GameState,
    PauseReason,
    Phase,
    QuestionStatus,
)

PLAYING_PHASES = frozenset({Phase.HIDING, Phase.SEEKING, Phase.END_GAME, Phase.MOVING})


def play(
    state: GameState, ruleset: Ruleset, team_id: int, event: CardPlayed, now: datetime
) -> list[Decision]:
    """Play ``event.card_id`` from the team's hand (a Duplicate plays as its target)."""
    if state.phase not in PLAYING_PHASES:
        raise WrongPhase("cards are played during a round", key="error.no_round")
    card = deck.card_in_hand(state, team_id, event.card_id)
    card_def = ruleset.card(card.def_id)
    if card_def.kind == CardKind.TIME_BONUS:
        raise CardNotAvailable(
            "time bonuses are not played: keep them, or discard them", key="error.time_bonus_play"
        )
    acting_def = card_def
    if card_def.powerup == PowerupEffect.DUPLICATE:
        acting_def = _duplicate_target(state, ruleset, team_id, card, event)
    if acting_def.kind == CardKind.CURSE:
        decisions = curses.cast(state, ruleset, team_id, card, acting_def, event, now)
    else:
        decisions = _powerup(state, ruleset, team_id, card, acting_def, event, now)
    if card_def.powerup == PowerupEffect.DUPLICATE:
        decisions.insert(0, Notify(to_team(team_id), "card.duplicated", {"card": acting_def.id}))
    decisions.extend(deck.offer_next(state, ruleset))
    return decisions


def _duplicate_target(
    state: GameState, ruleset: Ruleset, team_id: int, card: Card, event: CardPlayed
) -> CardDef:
    if event.target_card_id is None or event.target_card_id == card.id:
        raise CardNotAvailable(
            "choose another card in your hand to copy", key="error.duplicate_target"
        )
    target = deck.card_in_hand(state, team_id, event.target_card_id)
    target_def = ruleset.card(target.def_id)
    if target_def.kind == CardKind.TIME_BONUS:
        raise CardNotAvailable(
            "a Duplicate copies a time bonus by staying in your hand to the end of the round",
            key="error.duplicate_time_bonus",
        )
    if target_def.powerup == PowerupEffect.DUPLICATE:
        raise CardNotAvailable("a Duplicate cannot copy a Duplicate", key="error.duplicate_target")
    return target_def


def _powerup(
    state: GameState,
    ruleset: Ruleset,
    team_id: int,
    card: Card,
    card_def: CardDef,
    event: CardPlayed,
    now: datetime,
) -> list[Decision]:
    effect = card_def.powerup
    if effect in (PowerupEffect.VETO, PowerupEffect.RANDOMIZE):
        if state.phase == Phase.MOVING:
            raise WrongPhase("no question is open while you move", key="error.moving")
        if effect == PowerupEffect.VETO:
            _require_answer_window(state, event.record_id, now)
        # Raises when no answer window is open (a thermometer under way has none yet).
        questions.pending_for_hider(state, event.record_id, travelling=False)
        deck.move_card(state, card, CardZone.PLAYED)
        if effect == PowerupEffect.VETO:
            return questions.veto(state, ruleset, event.record_id, now)
        return questions.randomize(state, ruleset, event.record_id, now)
    if effect == PowerupEffect.DISCARD_DRAW:
        others = {c.id for c in deck.hand(state, team_id) if c.id != card.id}
        chosen = set(event.discard_ids)
        if len(chosen) != card_def.discard or not chosen <= others:
            raise CostNotMet(
                f"choose {card_def.discard} other card(s) of your hand to discard",
                key="error.discard_count",
                count=card_def.discard,
            )
        deck.move_card(state, card, CardZone.PLAYED)
        for other in chosen:
            deck.move_card(state, state.card(other), CardZone.DISCARD)
        return deck.draw_into_hand(state, ruleset, team_id, card_def.draw)
    if effect == PowerupEffect.DRAW_EXPAND:
        deck.move_card(state, card, CardZone.PLAYED)
        current = state.current_round
        assert current is not None
        current.hand_limit_bonus[team_id] = current.hand_limit_bonus.get(team_id, 0) + 1
        decisions: list[Decision] = [
            Notify(
                to_team(team_id),
                "hand.expanded",
                {"limit": deck.hand_limit(state, ruleset, team_id)},
            )
        ]
        return decisions + deck.draw_into_hand(state, ruleset, team_id, card_def.draw)
    if effect == PowerupEffect.MOVE:
        return _move(state, ruleset, team_id, card, now)
    raise CardNotAvailable(f"{card_def.id} cannot be played", key="error.not_playable")


def _require_answer_window(state: GameState, record_id: int | None, now: datetime) -> None:
    """A Veto is played during the response window: not before a thermometer's seekers
    arrive, not once the window has closed."""
    record = questions.pending_for_hider(state, record_id)
    if record.status == QuestionStatus.TRAVELLING:
        raise NoPendingQuestion(
            "the answer window opens when the seekers finish their thermometer",
            key="error.veto_travelling",
        )
    if record.due_at is not None and now > record.due_at:
        raise NotAllowed(
            "a veto is played during the answer window, which has closed",
            key="error.veto_window_closed",
            question=record.question_id,
        )


def _move(
    state: GameState, ruleset: Ruleset, team_id: int, card: Card, now: datetime
) -> list[Decision]:
    if state.phase == Phase.END_GAME:
        raise WrongPhase("a Move cannot be played in the end game", key="error.move_end_game")
    if state.phase != Phase.SEEKING:
        raise WrongPhase("a Move is played while the seekers are seeking", key="error.move_phase")
    current = state.current_round
    assert current is not None
    deck.move_card(state, card, CardZone.PLAYED)
    for other in deck.hand(state, team_id):
        deck.move_card(state, other, CardZone.DISCARD)
    for offered in state.cards_in(CardZone.OFFER, team_id):
        deck.move_card(state, offered, CardZone.DISCARD)
    for cycle in state.draws:
        if cycle.team_id == team_id and not cycle.done:
            cycle.done = True
    state.phase = Phase.MOVING
    start_pause(state, PauseReason.MOVE, now, current.number)
    minutes = move_period_min(state, ruleset)
    ends = now + timedelta(minutes=minutes)
    cancel(state, DeadlineKind.MOVE_ENDS)
    schedule(state, DeadlineKind.MOVE_ENDS, ends, current.number)
    zone = current.zone
    if zone is not None:
        current.previous_zones.append(zone)
        current.zone = None
    return [
        Notify(
            GROUP,
            "move.started",
            {
                "ends_at": ends,
                "minutes": minutes,
                # The rules make the Move reveal the station the hider leaves.
                "old_station": zone.station_name if zone else None,
            },
        ),
        Notify(to_team(team_id), "move.hider", {"ends_at": ends, "minutes": minutes}),
    ]
