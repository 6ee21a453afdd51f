"""Curses: casting costs, the one-blocking-curse rule, durations, clearing and penalties."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from hideseek_chat.rules import deck
from hideseek_chat.rules.clock import cancel, rng, schedule
from hideseek_chat.rules.decisions import GROUP, HIDERS, Decision, Notify
from hideseek_chat.rules.errors import (
    CardNotAvailable,
    CostNotMet,
    CurseBlocks,
    NotAllowed,
    WrongPhase,
)
from hideseek_chat.rules.events import CardPlayed
from hideseek_chat.rules.ruleset import CardDef, CostKind, CurseEffect, CurseRules, Ruleset
from hideseek_chat.rules.scale import scaled_minutes, sized_distance
from hideseek_chat.rules.state import (
    ActiveCurse,
    BannedQuestion,
    Card,
    CardZone,
    DeadlineKind,
    GameState,
    Mode,
    Phase,
    Player,
)

CASTING_PHASES = frozenset({Phase.SEEKING, Phase.END_GAME})


def rules_of(ruleset: Ruleset, curse: ActiveCurse) -> CurseRules:
    rules = ruleset.card(curse.def_id).curse
    assert rules is not None
    return rules


def is_active(curse: ActiveCurse, now: datetime) -> bool:
    if curse.cleared_at is not None or curse.no_effect:
        return False
    return curse.expires_at is None or curse.expires_at > now


def is_clearable(rules: CurseRules) -> bool:
    """Seekers clear curses that task them; timed and run-long curses end by themselves."""
    if rules.duration_min is not None or rules.lasts_for_run or rules.clears_on_next_question:
        return False
    return rules.effect in (CurseEffect.NONE, CurseEffect.HANGMAN)


def size_values(state: GameState, ruleset: Ruleset, rules: CurseRules) -> dict[str, Any]:
    """The card's numbers for this game, for the message that announces it."""
    values: dict[str, Any] = {}
    if rules.duration_min is not None:
        values["duration_min"] = scaled_minutes(state, ruleset, rules.duration_min)
    if rules.penalty_min is not None:
        values["penalty_min"] = scaled_minutes(state, ruleset, rules.penalty_min)
    if rules.time_limit_min is not None:
        values["time_limit_min"] = scaled_minutes(state, ruleset, rules.time_limit_min)
    if rules.distance_m is not None:
        values["distance_m"] = sized_distance(state, rules.distance_m)
    if rules.losses_to_clear is not None:
        values["losses"] = int(rules.losses_to_clear[state.size])
    if rules.cost.distance_m is not None:
        values["cost_distance_m"] = sized_distance(state, rules.cost.distance_m)
    return values


def _target(state: GameState, team_id: int, event: CardPlayed) -> int | None:
    seekers = state.seeker_team_ids()
    if state.settings.mode == Mode.TEAMS_POINTS:
        others = [t for t in seekers if t != team_id]
        return others[0] if others else None
    if state.settings.mode == Mode.TEAMS_TIME:
        if event.target_team_id not in seekers:
            raise CostNotMet("choose the seeker team to curse", key="error.curse_target")
        return event.target_team_id
    return None


def _pay_cost(
    state: GameState,
    ruleset: Ruleset,
    team_id: int,
    played: Card,
    card_def: CardDef,
    event: CardPlayed,
) -> tuple[list[Card], dict[str, Any]]:
    """Check the casting cost; return the cards it discards and facts to announce."""
    rules = card_def.curse
    assert rules is not None
    cost = rules.cost
    hand = [c for c in deck.hand(state, team_id) if c.id != played.id]
    facts: dict[str, Any] = {}
    if cost.kind == CostKind.DISCARD:
        by_id = {c.id: c for c in hand if c.id != event.target_card_id}
        chosen = [by_id[i] for i in dict.fromkeys(event.discard_ids) if i in by_id]
        if len(chosen) != cost.count or len(set(event.discard_ids)) != cost.count:
            raise CostNotMet(
                f"discard {cost.count} other card(s) to cast this curse",
                key="error.discard_count",
                count=cost.count,
            )
        wrong = [
            c for c in chosen if cost.card_kind and ruleset.card(c.def_id).kind != cost.card_kind
        ]
        if wrong:
            raise CostNotMet(
                "the discarded cards are not of the kind this curse asks for",
                key="error.discard_kind",
                kind=cost.card_kind.value if cost.card_kind else "",
            )
        return chosen, facts
    if cost.kind == CostKind.DISCARD_HAND:
        return hand, facts
    if cost.kind in (CostKind.SEEKERS_WITHIN, CostKind.SEEKERS_BEYOND):
        if state.settings.mode == Mode.TEAMS_POINTS:
            raise CostNotMet(
                "curses that measure the seekers' distance are not played in this mode",
                key="error.cost_distance_mode",
            )
        assert cost.distance_m is not None
        limit = sized_distance(state, cost.distance_m)
        facts["cost_distance_m"] = limit
        if event.seekers_distance_m is not None:
            ok = (
                event.seekers_distance_m <= limit
                if cost.kind == CostKind.SEEKERS_WITHIN
                else event.seekers_distance_m >= limit
            )
            if not ok:
                raise CostNotMet(
                    "the seekers' pins do not meet this curse's distance condition",
                    key="error.cost_distance",
                    distance_m=event.seekers_distance_m,
                    limit_m=limit,
                )
            return [], facts
        if not event.confirmed:
            raise CostNotMet(
                "confirm the seekers' distance (no fresh pins)",
                key="error.cost_confirm",
                limit_m=limit,
            )
        return [], facts
    if cost.kind == CostKind.SEEKERS_AWAY:
        if event.seekers_away is False:
            raise CostNotMet(
                "the seekers' pins show them heading towards the hider",
                key="error.cost_not_away",
            )
        if event.seekers_away is None and not event.confirmed:
            raise CostNotMet("confirm that you met the casting cost", key="error.cost_confirm")
        return [], facts
    if cost.kind == CostKind.CONFIRM and not event.confirmed:
        raise CostNotMet("confirm that you met the casting cost", key="error.cost_confirm")
    if cost.kind == CostKind.DIE:
        face = rng(state).randint(1, 6)
        facts["die"] = face
        facts["no_effect"] = face in cost.no_effect_faces
    return [], facts


def _check_banned(
    state: GameState, ruleset: Ruleset, rules: CurseRules, event: CardPlayed
) -> list[str]:
    wanted = list(dict.fromkeys(event.banned_question_ids))
    if len(wanted) != rules.effect_count:
        raise CostNotMet(
            f"choose {rules.effect_count} questions to ban",
            key="error.ban_count",
            count=rules.effect_count,
        )
    pending = state.pending_question()
    categories = set()
    for question_id in wanted:
        if not ruleset.has_question(question_id) or not ruleset.question(question_id).is_available(
            state.size
        ):
            raise CostNotMet(
                f"{question_id!r} is not a question of this game", key="error.ban_unknown"
            )
        if pending is not None and pending.question_id == question_id:
            raise CostNotMet(
                "the question waiting for its answer cannot be banned", key="error.ban_pending"
            )
        categories.add(ruleset.question(question_id).category)
    if len(categories) != len(wanted):
        raise CostNotMet("ban questions of different categories", key="error.ban_categories")
    return wanted


def cast(
    state: GameState,
    ruleset: Ruleset,
    team_id: int,
    card: Card,
    card_def: CardDef,
    event: CardPlayed,
    now: datetime,
) -> list[Decision]:
    """Cast a curse (``card`` is the card leaving the hand: the curse or a Duplicate)."""
    rules = card_def.curse
    assert rules is not None
    if state.phase not in CASTING_PHASES:
        raise WrongPhase("curses are cast while the seekers are seeking", key="error.curse_phase")
    if rules.not_in_end_game and state.phase == Phase.END_GAME:
        raise WrongPhase("this curse cannot be cast in the end game", key="error.curse_end_game")
    target = _target(state, team_id, event)
    if rules.blocks_questions or rules.blocks_transit:
        for other in state.round_curses():
            other_rules = rules_of(ruleset, other)
            if (
                is_active(other, now)
                and (other_rules.blocks_questions or other_rules.blocks_transit)
                and (target is None or other.target_team_id in (None, target))
            ):
                raise CurseBlocks(
                    "another curse already blocks questions or transit; wait until it is cleared",
                    key="error.one_blocking_curse",
                    curse=other.def_id,
                )
    banned = (
        _check_banned(state, ruleset, rules, event)
        if rules.effect == CurseEffect.DRAINED_BRAIN
        else []
    )
    discards, facts = _pay_cost(state, ruleset, team_id, card, card_def, event)
    current = state.current_round
    assert current is not None
    deck.move_card(state, card, CardZone.PLAYED)
    for discarded in discards:
        deck.move_card(state, discarded, CardZone.DISCARD)
    curse = ActiveCurse(
        state.new_id(), current.number, card.id, card_def.id, now, target_team_id=target
    )
    curse.no_effect = bool(facts.get("no_effect"))
    state.curses.append(curse)
    params: dict[str, Any] = {
        "curse_id": curse.id,
        "curse": card_def.id,
        "target_team_id": target,
        **size_values(state, ruleset, rules),
        **facts,
    }
    if curse.no_effect:
        return [Notify(GROUP, "curse.no_effect", params)]
    if rules.cost.kind == CostKind.NEXT_QUESTION_FREE:
        current.next_question_free = True
    if rules.duration_min is not None:
        curse.expires_at = now + timedelta(minutes=params["duration_min"])
        schedule(state, DeadlineKind.CURSE_EXPIRES, curse.expires_at, current.number, curse.id)
        params["expires_at"] = curse.expires_at
    if rules.effect == CurseEffect.SPOTTY_MEMORY:
        from hideseek_chat.rules.questions import roll_category

        current.spotty_category = roll_category(state, ruleset)
        params["category"] = current.spotty_category.value
    elif rules.effect == CurseEffect.DRAINED_BRAIN:
        state.banned.extend(BannedQuestion(current.number, q, curse.id) for q in banned)
        params["banned"] = banned
    elif rules.effect == CurseEffect.OVERFLOWING_CHALICE:
        current.chalice_remaining += rules.effect_count
        params["questions"] = rules.effect_count
    elif rules.effect == CurseEffect.URBAN_EXPLORER:
        current.urban_explorer = True
    return [Notify(GROUP, "curse.cast", params)]


def _active_curse(state: GameState, curse_id: int) -> ActiveCurse:
    current = state.current_round
    try:
        curse = state.curse(curse_id)
    except KeyError:
        raise CardNotAvailable("there is no such curse", key="error.no_curse") from None
    if current is None or curse.round_number != current.number or curse.cleared_at is not None:
        raise CardNotAvailable("that curse is not active", key="error.no_curse")
    return curse


def _seeker_curse(state: GameState, player: Player, curse_id: int) -> ActiveCurse:
    if state.is_hider(player.id):
        raise NotAllowed("the seekers report their curses", key="error.only_seekers")
    curse = _active_curse(state, curse_id)
    if curse.target_team_id not in (None, player.team_id):
        raise NotAllowed("that curse is on the other team", key="error.not_your_curse")
    return curse


def is_admin(state: GameState, player: Player) -> bool:
    return player.id == state.admin_player_id


def clear(
    state: GameState, ruleset: Ruleset, player: Player, curse_id: int, now: datetime
) -> list[Decision]:
    curse = _seeker_curse(state, player, curse_id)
    rules = rules_of(ruleset, curse)
    if not is_clearable(rules):
        raise CardNotAvailable(
            "this curse ends by itself; there is nothing to clear", key="error.not_clearable"
        )
    if curse.lockout_until is not None:
        raise CurseBlocks(
            "after the lost games the curse clears by itself when the wait is over",
            key="error.curse_lockout",
            until=curse.lockout_until,
        )
    curse.cleared_at = now
    cancel(state, DeadlineKind.CURSE_EXPIRES, curse.id)
    return [
        Notify(GROUP, "curse.cleared", {"curse": curse.def_id, "by": player.name}),
        Notify(HIDERS, "curse.cleared_hider", {"curse": curse.def_id}),
    ]


def report_loss(
    state: GameState, ruleset: Ruleset, player: Player, curse_id: int, now: datetime
) -> list[Decision]:
    """Count a lost curse game: reported by a seeker, or confirmed by whoever played it
    against them (the hider; in the points mode the casting team) or the admin."""
    curse = _active_curse(state, curse_id)
    caster = state.settings.mode == Mode.TEAMS_POINTS and curse.target_team_id not in (
        None,
        player.team_id,
    )
    if not (state.is_hider(player.id) or is_admin(state, player) or caster):
        curse = _seeker_curse(state, player, curse_id)
    rules = rules_of(ruleset, curse)
    if rules.effect != CurseEffect.HANGMAN or rules.losses_to_clear is None:
        raise CardNotAvailable("only a curse game counts losses", key="error.not_a_game")
    if curse.lockout_until is not None:
        raise CurseBlocks(
            "the wait is already running", key="error.curse_lockout", until=curse.lockout_until
        )
    curse.losses += 1
    needed = int(rules.losses_to_clear[state.size])
    params: dict[str, Any] = {"curse": curse.def_id, "losses": curse.losses, "needed": needed}
    if curse.losses >= needed:
        assert rules.lockout_min is not None
        curse.lockout_until = now + timedelta(minutes=rules.lockout_min)
        schedule(
            state, DeadlineKind.CURSE_EXPIRES, curse.lockout_until, curse.round_number, curse.id
        )
        params["until"] = curse.lockout_until
        return [Notify(GROUP, "curse.lockout", params)]
    return [Notify(GROUP, "curse.loss", params)]


def claim_penalty(
    state: GameState, ruleset: Ruleset, player: Player, curse_id: int, now: datetime
) -> list[Decision]:
    """Award a curse's bonus: claimed by whom it benefits (the hider; in the points mode
    the casting team) or, overriding, by the admin."""
    points = state.settings.mode == Mode.TEAMS_POINTS
    admin = is_admin(state, player)
    if not points and not admin and not state.is_hider(player.id):
        raise NotAllowed("only the hider claims a curse's bonus", key="error.only_hider")
    current = state.current_round
    try:
        curse = state.curse(curse_id)
    except KeyError:
        raise CardNotAvailable("there is no such curse", key="error.no_curse") from None
    if (
        points
        and not admin
        and (state.is_hider(player.id) or curse.target_team_id == player.team_id)
    ):
        # Seeker teams curse each other: the team that cast it claims its bonus.
        raise NotAllowed("the team that cast the curse claims its bonus", key="error.not_caster")
    if current is None or curse.round_number != current.number or curse.no_effect:
        raise CardNotAvailable("that curse is not in play", key="error.no_curse")
    if state.phase not in CASTING_PHASES:
        raise WrongPhase("bonuses are claimed during the run", key="error.no_round")
    rules = rules_of(ruleset, curse)
    if rules.penalty_min is None:
        raise CardNotAvailable("this curse awards no bonus", key="error.no_penalty")
    if curse.penalties and not rules.penalty_repeatable:
        raise CardNotAvailable("this curse's bonus was already awarded", key="error.penalty_taken")
    minutes = scaled_minutes(state, ruleset, rules.penalty_min)
    curse.penalties += 1
    if not points:  # in the points mode it counts for the casting team (penalty_minutes_for)
        current.penalty_minutes += minutes
    return [Notify(GROUP, "curse.penalty", {"curse": curse.def_id, "minutes": minutes})]


def penalty_minutes_for(
    state: GameState, ruleset: Ruleset, round_number: int, team_id: int
) -> float:
    """Points mode: bonus minutes a seeker team earned from curses it cast on the other."""
    total = 0.0
    for curse in state.curses:
        if curse.round_number != round_number or curse.target_team_id in (None, team_id):
            continue
        rules = rules_of(ruleset, curse)
        if rules.penalty_min is not None:
            total += curse.penalties * scaled_minutes(state, ruleset, rules.penalty_min)
    return total


def expire(state: GameState, ruleset: Ruleset, curse_id: int, now: datetime) -> list[Decision]:
    curse = state.curse(curse_id)
    if curse.cleared_at is not None:
        return []
    curse.cleared_at = now
    return [Notify(GROUP, "curse.expired", {"curse": curse.def_id})]


def end_round_curses(state: GameState, now: datetime) -> None:
    for curse in state.round_curses():
        if curse.cleared_at is None:
            curse.cleared_at = now
