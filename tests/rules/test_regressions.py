"""Regressions found by review: each test failed before its fix."""

import math

import pytest

from hideseek_chat.rules.decisions import AudienceKind
from hideseek_chat.rules.errors import NoPendingQuestion, NotAllowed, RuleViolation
from hideseek_chat.rules.events import (
    CardPlayed,
    CatchAnswered,
    CatchClaimed,
    CursePenaltyClaimed,
    EndGameStarted,
    GameBegun,
    PlayerLeft,
    QuestionAnswered,
    QuestionAsked,
    SettingsChanged,
    ThermometerFinished,
)
from hideseek_chat.rules.ruleset import CardKind
from hideseek_chat.rules.state import DeadlineKind, Mode, Phase
from tests.rules.harness import Game, seeking


def catch(game: Game) -> None:
    game.do(CatchClaimed(game.seekers[0]))
    game.do(CatchAnswered(game.hider, True))


def test_the_last_hider_leaving_during_the_handover_ends_the_game() -> None:
    game = seeking(players=("alice", "bob", "carol"))
    catch(game)
    game.advance(minutes=10)
    game.to_seeking()
    catch(game)
    assert game.state.phase == Phase.HANDOVER
    last = next(p.ref for p in game.state.players if p.team_id == game.state.hide_order[2])
    game.do(PlayerLeft(last))
    assert game.state.phase == Phase.GAME_OVER
    assert game.notes("game.over")
    game.advance(minutes=30)  # no deadline is left to trip over


def test_beginning_inside_a_rest_window_schedules_each_rest_once() -> None:
    game = Game.create()  # 09:00 UTC
    game.do(SettingsChanged("alice", rest_periods=(("08:00", "10:00"),)))
    game.do(GameBegun("alice"))
    assert game.state.is_paused
    for _ in range(3):
        game.advance(hours=24)
        starts = [d for d in game.state.open_deadlines() if d.kind == DeadlineKind.REST_STARTS]
        assert len(starts) <= 1
    assert len(game.notes("rest.started")) == len(game.notes("rest.ended")) + game.state.is_paused


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_numbers_that_are_not_numbers_are_refused(value: float) -> None:
    game = seeking()
    with pytest.raises(RuleViolation) as err:
        game.do(QuestionAsked(game.seekers[0], "radar-custom", distance_m=value))
    assert err.value.key == "error.not_a_number"
    game.do(QuestionAsked(game.seekers[0], "thermometer-1km"))
    with pytest.raises(RuleViolation):
        game.do(ThermometerFinished(game.seekers[0], travelled_m=value))


def test_the_hider_cannot_start_the_end_game() -> None:
    game = seeking()
    with pytest.raises(NotAllowed):
        game.do(EndGameStarted(game.hider))
    assert game.state.phase == Phase.SEEKING


def test_a_thermometer_under_way_cannot_be_vetoed_yet() -> None:
    game = seeking()
    veto = game.give("veto")
    game.do(QuestionAsked(game.seekers[0], "thermometer-1km"))
    with pytest.raises(NoPendingQuestion):
        game.do(CardPlayed(game.hider, veto))
    game.do(ThermometerFinished(game.seekers[0], travelled_m=1200))
    game.do(CardPlayed(game.hider, veto))


def test_the_hand_and_offers_go_to_the_hiders_team_only() -> None:
    game = seeking()
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    game.do(QuestionAnswered(game.hider, "no"))
    offer = game.notes("draw.offer")[-1]
    assert offer.to.kind == AudienceKind.TEAM
    assert offer.to.team_id == game.state.hider_team_id()


def test_points_mode_curse_bonus_belongs_to_the_team_that_cast_it() -> None:
    game = Game.create(("alice", "bob", "carol"))
    game.do(SettingsChanged("alice", mode=Mode.TEAMS_POINTS))
    game.begin()
    game.to_seeking()
    caster, victim = game.seekers
    caster_team = game.state.player_by_ref(caster).team_id
    # the caster team holds the curse (cards go to seeker teams in this mode)
    from hideseek_chat.rules.state import CardZone

    card = next(c for c in game.state.cards_in(CardZone.DECK) if c.def_id == "lemon-phylactery")
    powerup = next(
        c
        for c in game.state.cards_in(CardZone.DECK)
        if game.ruleset.card(c.def_id).kind == CardKind.POWERUP
    )
    for held in (card, powerup):
        held.zone, held.holder_team_id, held.position = CardZone.HAND, caster_team, held.id
    game.do(CardPlayed(caster, card.id, discard_ids=(powerup.id,)))
    curse_id = game.last("curse.cast")["curse_id"]
    with pytest.raises(NotAllowed):
        game.do(CursePenaltyClaimed(victim, curse_id))
    with pytest.raises(NotAllowed):
        game.do(CursePenaltyClaimed(game.hider, curse_id))
    game.do(CursePenaltyClaimed(caster, curse_id))
    game.advance(minutes=40)
    for seeker in (victim, caster):
        game.do(CatchClaimed(seeker))
        game.do(CatchAnswered(game.hider, True))
    result = game.last("round.result")
    times = {row["team_id"]: row["seconds"] for row in result["seekers"]}
    assert times[caster_team] == 40 * 60 - 30 * 60  # the lemon bonus comes off its time
    assert result["penalty_minutes"] == 0
