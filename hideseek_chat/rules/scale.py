"""Numbers that depend on the game size, and the global variant's scale."""

from __future__ import annotations

from hideseek_chat.rules.ruleset import Ruleset, Size, SizeRules, SizeValues
from hideseek_chat.rules.state import GameState


def size_rules(state: GameState, ruleset: Ruleset) -> SizeRules:
    """The size's rules; the global variant plays with the large values."""
    return ruleset.sizes[Size.LARGE if state.settings.global_scale else state.size]


def scaled_minutes(state: GameState, ruleset: Ruleset, values: SizeValues) -> float:
    """A card's minutes for this game: the size's value, or large x the global multiplier."""
    if state.settings.global_scale:
        return values[Size.LARGE] * ruleset.global_multiplier
    return values[state.size]


def sized_distance(state: GameState, values: SizeValues) -> float:
    return values[Size.LARGE if state.settings.global_scale else state.size]


def hiding_period_min(state: GameState, ruleset: Ruleset) -> float:
    if state.settings.global_scale:
        return ruleset.global_hiding_period_min
    return ruleset.sizes[state.size].hiding_period_min


def move_period_min(state: GameState, ruleset: Ruleset) -> float:
    rules = size_rules(state, ruleset)
    if state.settings.global_scale:
        return rules.move_period_min * ruleset.global_multiplier
    return rules.move_period_min
