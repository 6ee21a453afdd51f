"""A game whose group the referee lost (the bot removed): paused like /pause, silently, and
resumed by a player's /resume; nothing else changes."""

from __future__ import annotations

from hideseek_chat.rules.events import GamePaused, GameResumed, GroupLost
from hideseek_chat.rules.state import Phase
from tests.rules.harness import Game


def test_a_lost_group_pauses_the_hiding_period_silently_until_resumed() -> None:
    game = Game.create()
    game.begin()
    game.advance(minutes=10)
    assert game.do(GroupLost()) == []
    assert game.state.is_paused
    game.advance(minutes=45)
    assert game.state.phase == Phase.HIDING  # the clock stood still
    game.do(GameResumed("alice"))
    game.advance(minutes=19)
    assert game.state.phase == Phase.HIDING
    game.advance(minutes=1)
    assert game.state.phase == Phase.SEEKING


def test_a_game_paused_by_a_player_stays_paused_once() -> None:
    game = Game.create()
    game.begin()
    game.do(GamePaused("bob"))
    pauses = len(game.state.pauses)
    assert game.do(GroupLost()) == []
    assert len(game.state.pauses) == pauses
    game.do(GameResumed("alice"))
    assert not game.state.is_paused


def test_a_game_being_set_up_is_not_paused() -> None:
    game = Game.create()
    game.do(GroupLost())
    assert not game.state.is_paused and game.state.phase == Phase.SETUP
