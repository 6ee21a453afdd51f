"""What a card needs before it is played: target, discards, bans, target team, confirmation."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from itertools import combinations

import pytest

from hideseek_chat.rules.casting import (
    MAX_DISCARD_OPTIONS,
    CastingChoices,
    CastingStep,
    StepKind,
    acting_card,
    needs_seekers_distance,
    needs_seekers_heading,
    next_casting_step,
    seekers_heading_away,
)
from hideseek_chat.rules.errors import CardNotAvailable
from hideseek_chat.rules.events import SettingsChanged
from hideseek_chat.rules.ruleset import CostKind
from hideseek_chat.rules.state import CardZone, Mode
from tests.rules.harness import Game, seeking

NONE = CastingChoices()


def step(game: Game, card_id: int, choices: CastingChoices = NONE) -> CastingStep | None:
    team = game.state.hider_team_id()
    assert team is not None
    return next_casting_step(game.ruleset, game.state, team, card_id, choices)


def acting(game: Game, card_id: int, target: int | None) -> str:
    team = game.state.hider_team_id()
    assert team is not None
    return acting_card(game.ruleset, game.state, team, card_id, target).id


def others(game: Game, *played: int) -> list[int]:
    return [i for i in game.hand() if i not in played]


def two_teams() -> Game:
    game = Game.create(("alice", "bob", "carol"))
    game.do(SettingsChanged("alice", mode=Mode.TEAMS_POINTS))
    game.begin()
    game.to_seeking()
    return game


def test_a_card_not_in_the_hand_is_refused() -> None:
    game = seeking()
    stranger = game.state.cards_in(CardZone.DECK)[0].id
    with pytest.raises(CardNotAvailable) as err:
        step(game, stranger)
    assert err.value.key == "error.card_not_in_hand"
    with pytest.raises(CardNotAvailable) as err:
        acting(game, stranger, None)
    assert err.value.key == "error.card_not_in_hand"


def test_a_card_with_nothing_to_choose_is_ready_at_once() -> None:
    game = seeking()
    veto = game.give("veto")
    feet = game.give("gamblers-feet")  # a die cost: the bot rolls, nobody chooses
    assert step(game, veto) is None
    assert step(game, feet) is None


def test_a_duplicate_first_asks_for_a_card_to_copy_but_no_time_bonus_or_duplicate() -> None:
    game = seeking()
    duplicate = game.give("duplicate")
    game.give("duplicate")
    game.give("time-bonus-2")
    veto = game.give("veto")
    car = game.give("luxury-car")
    expected = tuple((i,) for i in game.hand() if i in (veto, car))
    assert step(game, duplicate) == CastingStep(StepKind.TARGET, expected)
    assert len(expected) == 2


def test_a_duplicate_with_nothing_to_copy_still_asks_with_no_options() -> None:
    game = seeking()
    duplicate = game.give("duplicate")
    game.give("time-bonus-2")
    assert step(game, duplicate) == CastingStep(StepKind.TARGET, ())


def test_a_duplicate_plays_as_its_target() -> None:
    game = seeking()
    duplicate = game.give("duplicate")
    veto = game.give("veto")
    car = game.give("luxury-car")
    stranger = game.state.cards_in(CardZone.DECK)[0].id
    assert acting(game, duplicate, veto) == "veto"
    assert acting(game, duplicate, None) == "duplicate"
    assert acting(game, duplicate, stranger) == "duplicate"  # the engine refuses it later
    assert acting(game, veto, car) == "veto"  # only a Duplicate has a target
    assert step(game, duplicate, CastingChoices(target_card_id=veto)) is None
    copy_car = CastingChoices(target_card_id=car)
    assert step(game, duplicate, copy_car) == CastingStep(StepKind.CONFIRM)


def test_discard_powerups_offer_combinations_of_the_other_cards() -> None:
    game = seeking()
    discard_two = game.give("discard-2-draw-3")
    for _ in range(3):
        game.give("time-bonus-2")
    expected = tuple(combinations(others(game, discard_two), 2))
    assert step(game, discard_two) == CastingStep(StepKind.DISCARD, expected)
    assert len(expected) == 3
    chosen = CastingChoices(discard_ids=expected[0])
    assert step(game, discard_two, chosen) is None


def test_a_duplicated_discard_powerup_never_offers_itself_or_its_target() -> None:
    game = seeking()
    duplicate = game.give("duplicate")
    discard_one = game.give("discard-1-draw-2")
    bonus = game.give("time-bonus-2")
    veto = game.give("veto")
    choices = CastingChoices(target_card_id=discard_one)
    expected = tuple((i,) for i in game.hand() if i in (bonus, veto))
    assert step(game, duplicate, choices) == CastingStep(StepKind.DISCARD, expected)


def test_discard_options_stop_at_the_first_twelve() -> None:
    game = seeking()
    discard_two = game.give("discard-2-draw-3")
    for _ in range(6):
        game.give("time-bonus-2")
    every = list(combinations(others(game, discard_two), 2))
    assert len(every) == 15 and MAX_DISCARD_OPTIONS == 12
    found = step(game, discard_two)
    assert found == CastingStep(StepKind.DISCARD, tuple(every[:12]))


def test_not_enough_other_cards_gives_a_discard_step_with_no_options() -> None:
    game = seeking()
    discard_two = game.give("discard-2-draw-3")
    game.give("time-bonus-2")
    assert step(game, discard_two) == CastingStep(StepKind.DISCARD, ())


def test_a_curse_with_a_discard_cost_asks_for_the_discards() -> None:
    game = seeking()
    egg = game.give("egg-partner")  # discard 2
    game.give("time-bonus-2")
    game.give("veto")
    expected = (tuple(others(game, egg)),)
    assert step(game, egg) == CastingStep(StepKind.DISCARD, expected)
    assert step(game, egg, CastingChoices(discard_ids=expected[0])) is None


def test_drained_brain_is_played_with_typed_bans() -> None:
    game = seeking()
    brain = game.give("drained-brain")
    assert step(game, brain) == CastingStep(StepKind.BAN)
    bans = CastingChoices(banned_question_ids=("radar-1km", "matching-zoo", "photo-tree"))
    assert step(game, brain, bans) is None


def test_a_confirm_cost_needs_the_condition_confirmed() -> None:
    game = seeking()
    car = game.give("luxury-car")
    assert step(game, car) == CastingStep(StepKind.CONFIRM)
    assert step(game, car, CastingChoices(confirmed=True)) is None


def test_a_distance_cost_is_confirmed_only_when_the_pins_do_not_tell() -> None:
    game = seeking()
    troll = game.give("bridge-troll")
    assert step(game, troll) == CastingStep(StepKind.CONFIRM)
    assert step(game, troll, CastingChoices(seekers_distance_m=5000.0)) is None
    assert step(game, troll, CastingChoices(seekers_distance_m=0.0)) is None
    assert step(game, troll, CastingChoices(confirmed=True)) is None


def test_which_cards_depend_on_the_seekers_distance() -> None:
    cards = seeking().ruleset
    troll = cards.card("bridge-troll")
    assert needs_seekers_distance(troll)
    assert troll.curse is not None
    within_cost = replace(troll.curse.cost, kind=CostKind.SEEKERS_WITHIN)
    within = replace(troll, curse=replace(troll.curse, cost=within_cost))
    assert needs_seekers_distance(within)
    assert not needs_seekers_distance(cards.card("luxury-car"))
    assert not needs_seekers_distance(cards.card("veto"))


def test_with_two_seeker_teams_a_curse_asks_for_its_target_team_after_the_discards() -> None:
    game = two_teams()
    seekers = tuple((t,) for t in game.state.seeker_team_ids())
    assert len(seekers) == 2
    right_turn = game.give("right-turn")  # discard 1
    bonus = game.give("time-bonus-2")
    assert step(game, right_turn) == CastingStep(StepKind.DISCARD, ((bonus,),))
    discarded = CastingChoices(discard_ids=(bonus,))
    assert step(game, right_turn, discarded) == CastingStep(StepKind.TEAM, seekers)
    aimed = replace(discarded, target_team_id=seekers[0][0])
    assert step(game, right_turn, aimed) is None


def test_with_two_seeker_teams_the_team_comes_before_the_confirmation() -> None:
    game = two_teams()
    seekers = tuple((t,) for t in game.state.seeker_team_ids())
    car = game.give("luxury-car")
    assert step(game, car) == CastingStep(StepKind.TEAM, seekers)
    aimed = CastingChoices(target_team_id=seekers[1][0])
    assert step(game, car, aimed) == CastingStep(StepKind.CONFIRM)
    assert step(game, car, replace(aimed, confirmed=True)) is None


def test_drained_brain_asks_for_bans_before_the_team() -> None:
    game = two_teams()
    brain = game.give("drained-brain")
    assert step(game, brain) == CastingStep(StepKind.BAN)
    bans = CastingChoices(banned_question_ids=("radar-1km",))
    seekers = tuple((t,) for t in game.state.seeker_team_ids())
    assert step(game, brain, bans) == CastingStep(StepKind.TEAM, seekers)


def test_with_two_seeker_teams_a_powerup_needs_no_team() -> None:
    game = two_teams()
    discard_one = game.give("discard-1-draw-2")
    bonus = game.give("time-bonus-2")
    assert step(game, discard_one) == CastingStep(StepKind.DISCARD, ((bonus,),))
    assert step(game, discard_one, CastingChoices(discard_ids=(bonus,))) is None


def test_a_duplicated_curse_walks_target_discard_team_in_that_order() -> None:
    game = two_teams()
    duplicate = game.give("duplicate")
    egg = game.give("egg-partner")  # discard 2
    game.give("time-bonus-2")
    game.give("time-bonus-4")
    first = step(game, duplicate)
    assert first is not None and first.kind == StepKind.TARGET and (egg,) in first.options
    copy_egg = CastingChoices(target_card_id=egg)
    second = step(game, duplicate, copy_egg)
    assert second == CastingStep(StepKind.DISCARD, (tuple(others(game, duplicate, egg)),))
    discarded = replace(copy_egg, discard_ids=second.options[0])
    third = step(game, duplicate, discarded)
    assert third is not None and third.kind == StepKind.TEAM
    assert step(game, duplicate, replace(discarded, target_team_id=third.options[0][0])) is None


def test_the_u_turn_is_confirmed_only_when_the_pins_cannot_tell() -> None:
    game = seeking()
    u_turn = game.give("u-turn")
    assert needs_seekers_heading(game.ruleset.card("u-turn"))
    assert step(game, u_turn) == CastingStep(StepKind.CONFIRM)
    assert step(game, u_turn, CastingChoices(seekers_away=True)) is None
    assert step(game, u_turn, CastingChoices(seekers_away=False)) is None  # the engine refuses


def test_the_seekers_heading_is_read_from_their_recent_distances() -> None:
    now = datetime(2026, 5, 2, 12, 0, tzinfo=UTC)
    minutes = [now - timedelta(minutes=m) for m in (8, 4, 0)]
    away = list(zip(minutes, (1000.0, 1200.0, 1500.0), strict=True))
    towards = list(zip(minutes, (1500.0, 1200.0, 1000.0), strict=True))
    still = list(zip(minutes, (1000.0, 1020.0, 1010.0), strict=True))
    stale = [(now - timedelta(minutes=30), 500.0), (now - timedelta(minutes=20), 2000.0)]
    assert seekers_heading_away([away], now) is True
    assert seekers_heading_away([towards], now) is False
    assert seekers_heading_away([away, still], now) is True
    assert seekers_heading_away([away, towards], now) is None  # they disagree
    assert seekers_heading_away([still], now) is None
    assert seekers_heading_away([stale], now) is None
    assert seekers_heading_away([], now) is None
