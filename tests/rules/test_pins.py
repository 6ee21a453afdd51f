"""What a pin counts for: its age limit, the end game, far catch claims, thermometers."""

from datetime import UTC, datetime, timedelta

import pytest

from hideseek_chat.rules.events import (
    PlayerLeft,
    QuestionAsked,
    SettingsChanged,
    TeamJoined,
    ThermometerFinished,
)
from hideseek_chat.rules.pins import (
    FAR_CATCH_CLAIM_M,
    MAX_LIVE_AGE,
    MAX_PIN_AGE,
    STAY_PUT_SLACK_M,
    asks_off_transit,
    can_carry_thermometer,
    can_start_end_game,
    has_finished_thermometer,
    has_moved,
    is_current,
    is_far_catch_claim,
    is_outside_zone,
    max_pin_age,
)
from hideseek_chat.rules.state import Mode
from tests.rules.harness import Game, seeking

NOW = datetime(2026, 5, 2, 12, 0, tzinfo=UTC)
TICK = timedelta(seconds=1)


def test_the_age_limits_are_fifteen_minutes_for_a_pin_and_two_hours_live() -> None:
    assert timedelta(minutes=15) == MAX_PIN_AGE
    assert timedelta(hours=2) == MAX_LIVE_AGE
    assert max_pin_age("live") == timedelta(hours=2)
    # A tracker app keeps reporting, like a live location (issue 20).
    assert max_pin_age("tracker:owntracks") == timedelta(hours=2)
    for source in ("pin", "text", "trackers", ""):
        assert max_pin_age(source) == timedelta(minutes=15)


@pytest.mark.parametrize("source", ["pin", "text"])
def test_a_one_off_pin_counts_for_exactly_fifteen_minutes(source: str) -> None:
    assert is_current(source, False, NOW, NOW)
    assert is_current(source, False, NOW - timedelta(minutes=15), NOW)
    assert not is_current(source, False, NOW - timedelta(minutes=15) - TICK, NOW)


@pytest.mark.parametrize("source", ["live", "tracker", "tracker:gpslogger"])
def test_a_live_location_counts_for_exactly_two_hours(source: str) -> None:
    assert is_current(source, False, NOW - timedelta(minutes=16), NOW)
    assert is_current(source, False, NOW - timedelta(hours=2), NOW)
    assert not is_current(source, False, NOW - timedelta(hours=2) - TICK, NOW)


@pytest.mark.parametrize("source", ["live", "pin", "text"])
def test_a_forwarded_position_is_never_current(source: str) -> None:
    assert not is_current(source, True, NOW, NOW)


def test_only_a_live_location_known_off_transit_starts_the_end_game() -> None:
    assert can_start_end_game("live", False)
    assert can_start_end_game("tracker:traccar", False)  # a tracker app: live too
    assert not can_start_end_game("tracker:traccar", True)
    for source in ("pin", "text", "trackers", "Live"):
        assert not can_start_end_game(source, False)
    # An unknown speed (one sparse pin) is not "off transit"; riding never starts it.
    assert not can_start_end_game("live", None)
    assert not can_start_end_game("live", True)


def test_the_seekers_are_asked_to_confirm_only_when_the_pins_cannot_start_it() -> None:
    assert asks_off_transit("live", None)  # a sparse live pin: speed unknown
    for source in ("pin", "text"):
        assert asks_off_transit(source, None)  # a one-off pin
        assert asks_off_transit(source, False)
        assert not asks_off_transit(source, True)
    assert not asks_off_transit("live", False)  # it starts on its own
    assert not asks_off_transit("live", True)  # riding through the zone: nothing to ask


def test_a_pin_is_outside_the_zone_only_beyond_its_accuracy() -> None:
    assert not is_outside_zone(500.0, 500.0, None)
    assert is_outside_zone(500.01, 500.0, None)
    assert not is_outside_zone(540.0, 500.0, 40.0)
    assert is_outside_zone(540.01, 500.0, 40.0)


def test_a_hider_has_moved_beyond_both_accuracies_and_the_slack() -> None:
    assert STAY_PUT_SLACK_M == 10.0
    assert not has_moved(10.0, None, None)
    assert has_moved(10.01, None, None)
    assert not has_moved(40.0, 20.0, 10.0)
    assert has_moved(40.01, 20.0, 10.0)


def test_a_catch_claim_over_a_hundred_metres_is_far() -> None:
    assert FAR_CATCH_CLAIM_M == 100.0
    assert not is_far_catch_claim(0.0)
    assert not is_far_catch_claim(100.0)
    assert is_far_catch_claim(100.01)


def test_a_thermometer_is_finished_at_exactly_its_distance() -> None:
    assert not has_finished_thermometer(999.9, 1000.0)
    assert has_finished_thermometer(1000.0, 1000.0)
    assert has_finished_thermometer(1040.0, 1000.0)


def test_a_thermometer_without_a_distance_is_finished_by_any_pin() -> None:
    assert has_finished_thermometer(0.0, None)


def test_in_the_standard_game_any_seeker_carries_the_thermometer_but_not_the_hider() -> None:
    game = seeking()
    asker, other = game.seekers
    game.do(QuestionAsked(asker, "thermometer-1km"))
    question = game.state.pending_question()
    assert question is not None
    ids = {p.ref: p.id for p in game.state.players}
    assert can_carry_thermometer(game.state, ids[asker], question)
    assert can_carry_thermometer(game.state, ids[other], question)
    assert not can_carry_thermometer(game.state, ids[game.hider], question)
    assert not can_carry_thermometer(game.state, 999, question)


def test_with_two_seeker_teams_only_the_asking_team_carries_the_thermometer() -> None:
    game = Game.create(("alice", "bob", "carol", "dave"))
    game.do(TeamJoined("dave", "alice"))
    game.do(SettingsChanged("alice", mode=Mode.TEAMS_POINTS))
    game.begin()
    game.to_seeking()
    assert game.hider == "bob" and set(game.seekers) == {"alice", "carol", "dave"}
    game.do(QuestionAsked("alice", "thermometer-1km"))
    question = game.state.pending_question()
    assert question is not None
    ids = {p.ref: p.id for p in game.state.players}
    assert can_carry_thermometer(game.state, ids["alice"], question)
    assert can_carry_thermometer(game.state, ids["dave"], question)  # alice's teammate
    assert not can_carry_thermometer(game.state, ids["carol"], question)  # the other team
    assert not can_carry_thermometer(game.state, ids["bob"], question)  # the hider


def test_a_player_who_left_carries_no_thermometer() -> None:
    game = seeking()
    asker, other = game.seekers
    game.do(QuestionAsked(asker, "thermometer-1km"))
    question = game.state.pending_question()
    assert question is not None
    game.do(PlayerLeft(other))
    assert can_carry_thermometer(game.state, game.state.player_by_ref(asker).id, question)
    left = next(p for p in game.state.players if p.ref == other)
    assert not can_carry_thermometer(game.state, left.id, question)


def test_a_thermometer_that_arrived_is_no_longer_carried() -> None:
    game = seeking()
    asker = game.seekers[0]
    game.do(QuestionAsked(asker, "thermometer-1km"))
    question = game.state.pending_question()
    assert question is not None
    game.do(ThermometerFinished(asker, travelled_m=1000.0))
    arrived = game.state.question_record(question.id)
    assert not can_carry_thermometer(game.state, game.state.player_by_ref(asker).id, arrived)
