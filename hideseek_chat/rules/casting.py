"""What a card still needs before it can be played, one step at a time.

A player picks a card; the chat asks for whatever the card needs (a card for a Duplicate to
copy, cards to discard, a target team, a confirmed condition) and calls
``next_casting_step`` again with the choices so far, until it returns None and the card can
be played (``events.CardPlayed``). The engine still checks everything when the card is
played; these steps only ask for what it will check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from itertools import combinations, islice

from hideseek_chat.rules import deck
from hideseek_chat.rules.ruleset import (
    CardDef,
    CardKind,
    CostKind,
    CurseEffect,
    PowerupEffect,
    Ruleset,
)
from hideseek_chat.rules.state import GameState, Mode

#: At most this many combinations of cards are offered for a discard (a screenful of
#: choices; the first ones in hand order).
MAX_DISCARD_OPTIONS = 12

#: How far back the seekers' pins tell which way they travel, and by how much their
#: distance from the hider must change to count as heading away (or towards).
HEADING_WINDOW = timedelta(minutes=10)
HEADING_MIN_CHANGE_M = 150.0

#: Costs that depend on how far the seekers are from the hider.
DISTANCE_COSTS = frozenset({CostKind.SEEKERS_WITHIN, CostKind.SEEKERS_BEYOND})


class StepKind(StrEnum):
    TARGET = "target"  # a Duplicate: choose the card it copies
    DISCARD = "discard"  # choose the other cards to discard
    BAN = "ban"  # Drained Brain: type the banned questions (/play N ban q1 q2 q3)
    TEAM = "team"  # two seeker teams: choose the team the curse targets
    CONFIRM = "confirm"  # the hider confirms the casting condition is met


@dataclass(frozen=True)
class CastingChoices:
    """What the player has chosen so far (the fields of ``events.CardPlayed``)."""

    discard_ids: tuple[int, ...] = ()
    target_card_id: int | None = None
    target_team_id: int | None = None
    confirmed: bool = False
    seekers_distance_m: float | None = None  # nearest seeker to the hider, when pins tell
    seekers_away: bool | None = None  # the seekers head away from the hider, when pins tell
    banned_question_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class CastingStep:
    """The next thing to choose; each option is one choice.

    TARGET: ``(card_id,)``; DISCARD: a combination of card ids; TEAM: ``(team_id,)``;
    BAN and CONFIRM have no options.
    """

    kind: StepKind
    options: tuple[tuple[int, ...], ...] = ()


def acting_card(
    ruleset: Ruleset, state: GameState, team_id: int, card_id: int, target_card_id: int | None
) -> CardDef:
    """Return the definition the card plays as: a Duplicate plays as its target.

    A Duplicate whose target is unset or not in the hand plays as itself (the engine refuses
    it when played). Raises ``CardNotAvailable`` when ``card_id`` is not in the team's hand.
    """
    card_def = ruleset.card(deck.card_in_hand(state, team_id, card_id).def_id)
    if card_def.powerup != PowerupEffect.DUPLICATE or target_card_id is None:
        return card_def
    for card in deck.hand(state, team_id):
        if card.id == target_card_id:
            return ruleset.card(card.def_id)
    return card_def


def discard_count(card_def: CardDef) -> int:
    """Return how many other cards playing ``card_def`` discards by choice (0: none)."""
    if card_def.powerup == PowerupEffect.DISCARD_DRAW:
        return card_def.discard
    if card_def.curse is not None and card_def.curse.cost.kind == CostKind.DISCARD:
        return card_def.curse.cost.count
    return 0


def needs_seekers_distance(card_def: CardDef) -> bool:
    """Say whether casting ``card_def`` depends on the seekers' distance from the hider."""
    return card_def.curse is not None and card_def.curse.cost.kind in DISTANCE_COSTS


def needs_seekers_heading(card_def: CardDef) -> bool:
    """Say whether casting ``card_def`` depends on the seekers travelling away (U-Turn)."""
    return card_def.curse is not None and card_def.curse.cost.kind == CostKind.SEEKERS_AWAY


def seekers_heading_away(
    tracks: Sequence[Sequence[tuple[datetime, float]]], now: datetime
) -> bool | None:
    """Say from the seekers' recent pins whether they travel away from the hider.

    Each track is one seeker's pins as ``(time, metres from the hider)``, any order. A
    seeker whose distance grew by ``HEADING_MIN_CHANGE_M`` within ``HEADING_WINDOW`` heads
    away; one whose distance shrank as much heads towards. True when some head away and
    none towards, False in the opposite case, None when the pins cannot tell.
    """
    verdicts: set[bool] = set()
    for track in tracks:
        recent = sorted((at, d) for at, d in track if timedelta(0) <= now - at <= HEADING_WINDOW)
        if len(recent) < 2:
            continue
        change = recent[-1][1] - recent[0][1]
        if abs(change) >= HEADING_MIN_CHANGE_M:
            verdicts.add(change > 0)
    return verdicts.pop() if len(verdicts) == 1 else None


def can_duplicate(card_def: CardDef) -> bool:
    """Say whether a Duplicate may copy ``card_def`` (not a time bonus, not a Duplicate)."""
    return card_def.kind != CardKind.TIME_BONUS and card_def.powerup != PowerupEffect.DUPLICATE


def next_casting_step(
    ruleset: Ruleset, state: GameState, team_id: int, card_id: int, choices: CastingChoices
) -> CastingStep | None:
    """Return what ``card_id`` still needs before it can be played, or None when ready.

    Steps come in a fixed order: the Duplicate's target, the discards, Drained Brain's
    bans, the target team (two-team modes), the confirmed condition. A condition on the
    seekers' distance needs confirming only while ``choices.seekers_distance_m`` is None,
    one on their heading (U-Turn) only while ``choices.seekers_away`` is None.
    Raises ``CardNotAvailable`` when ``card_id`` is not in the team's hand.
    """
    hand = deck.hand(state, team_id)
    card_def = ruleset.card(deck.card_in_hand(state, team_id, card_id).def_id)
    target = choices.target_card_id
    if card_def.powerup == PowerupEffect.DUPLICATE and target is None:
        copyable = (c.id for c in hand if c.id != card_id and can_duplicate(ruleset.card(c.def_id)))
        return CastingStep(StepKind.TARGET, tuple((i,) for i in copyable))
    acting = acting_card(ruleset, state, team_id, card_id, target)
    count = discard_count(acting)
    if count and not choices.discard_ids:
        others = [c.id for c in hand if c.id not in (card_id, target)]
        combos = islice(combinations(others, count), MAX_DISCARD_OPTIONS)
        return CastingStep(StepKind.DISCARD, tuple(combos))
    curse = acting.curse
    if curse is None:
        return None
    if curse.effect == CurseEffect.DRAINED_BRAIN and not choices.banned_question_ids:
        return CastingStep(StepKind.BAN)
    if state.settings.mode != Mode.STANDARD and choices.target_team_id is None:
        return CastingStep(StepKind.TEAM, tuple((t,) for t in state.seeker_team_ids()))
    unmeasured = needs_seekers_distance(acting) and choices.seekers_distance_m is None
    unknown_heading = needs_seekers_heading(acting) and choices.seekers_away is None
    if (curse.cost.kind == CostKind.CONFIRM or unmeasured or unknown_heading) and not (
        choices.confirmed
    ):
        return CastingStep(StepKind.CONFIRM)
    return None
