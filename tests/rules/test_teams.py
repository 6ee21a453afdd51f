"""Teams by name (``TeamChosen``), the hide order and the scores by team, and an aborted
game's result: the engine alone, with plain values and a fixed clock."""

from __future__ import annotations

import pytest

from hideseek_chat.rules.decisions import Notify
from hideseek_chat.rules.errors import SetupError, WrongPhase
from hideseek_chat.rules.events import (
    GameAborted,
    PlayerJoined,
    PlayerLeft,
    SettingsChanged,
    TeamChosen,
)
from hideseek_chat.rules.lifecycle import settings_summary
from hideseek_chat.rules.scoring import scoreboard
from hideseek_chat.rules.state import GameState, Mode
from hideseek_chat.rules.teams import MAX_TEAM_NAME, team_name
from tests.rules.harness import Game
from tests.rules.test_lifecycle import seeking


def teams_of(state: GameState) -> dict[str, list[str]]:
    return {
        t.name: [p.ref for p in state.team_players(t.id)]
        for t in state.teams
        if state.team_players(t.id)
    }


def test_a_player_alone_names_their_team_and_others_join_it_by_name() -> None:
    game = Game.create(("alice", "bob", "carol", "dave"))
    assert teams_of(game.state) == {
        "Alice": ["alice"],
        "Bob": ["bob"],
        "Carol": ["carol"],
        "Dave": ["dave"],
    }
    [created] = game.do(TeamChosen("alice", name="  Red   Team "))
    assert isinstance(created, Notify) and created.key == "team.created"
    assert created.params == {"team": "Red Team", "by": "Alice"}
    [joined] = game.do(TeamChosen("bob", name="red team"))
    assert isinstance(joined, Notify) and joined.key == "team.joined"
    assert joined.params == {"team": "Red Team", "members": ["Alice", "Bob"]}
    assert teams_of(game.state) == {
        "Red Team": ["alice", "bob"],
        "Carol": ["carol"],
        "Dave": ["dave"],
    }
    assert len(game.state.teams) == 3, "Bob's old team of one is gone"


def test_a_player_in_a_team_makes_a_new_one_or_plays_alone_again() -> None:
    game = Game.create(("alice", "bob", "carol"))
    game.do(TeamChosen("alice", name="Red"))
    game.do(TeamChosen("bob", name="Red"))
    game.do(TeamChosen("carol", name="Red"))
    [created] = game.do(TeamChosen("bob", name="Blue"))
    assert isinstance(created, Notify) and created.key == "team.created"
    assert teams_of(game.state) == {"Red": ["alice", "carol"], "Blue": ["bob"]}
    [alone] = game.do(TeamChosen("carol"))
    assert isinstance(alone, Notify) and alone.key == "team.alone"
    assert alone.params == {"name": "Carol", "left": "Red"}
    assert teams_of(game.state) == {"Red": ["alice"], "Blue": ["bob"], "Carol": ["carol"]}
    blue = next(t.id for t in game.state.teams if t.name == "Blue")
    game.do(TeamChosen("carol", team_id=blue))
    assert teams_of(game.state) == {"Red": ["alice"], "Blue": ["bob", "carol"]}


def test_team_choices_that_change_nothing_are_refused() -> None:
    game = Game.create(("alice", "bob"))
    before = game.state
    with pytest.raises(SetupError) as alone:
        game.do(TeamChosen("alice"))
    assert alone.value.key == "error.team_alone"
    with pytest.raises(SetupError) as same:
        game.do(TeamChosen("alice", name="ALICE"))
    assert same.value.key == "error.same_team"
    with pytest.raises(SetupError) as empty:
        game.do(TeamChosen("alice", name="   "))
    assert empty.value.key == "error.team_name"
    with pytest.raises(SetupError) as gone:
        game.do(TeamChosen("alice", team_id=999))
    assert gone.value.key == "error.team_gone"
    assert game.state is before
    assert len(team_name("x" * 100)) == MAX_TEAM_NAME


def test_a_team_whose_players_left_cannot_be_joined_by_name() -> None:
    game = Game.create(("alice", "bob", "carol"))
    game.do(TeamChosen("bob", name="Ghosts"))
    game.do(PlayerLeft("bob"))
    game.do(TeamChosen("carol", name="ghosts"))
    assert teams_of(game.state) == {"Alice": ["alice"], "ghosts": ["carol"]}


def test_teams_are_fixed_once_the_game_begins() -> None:
    game = Game.create(("alice", "bob", "carol"))
    game.begin()
    with pytest.raises(WrongPhase):
        game.do(TeamChosen("carol", name="Red"))


def test_the_hide_order_and_the_scores_are_by_team() -> None:
    game = Game.create(("alice", "bob", "carol"))
    game.do(TeamChosen("alice", name="Red"))
    game.do(TeamChosen("bob", name="Red"))
    game.do(SettingsChanged("alice", rounds_per_team=2))
    game.begin()
    names = [game.state.team(t).name for t in game.state.hide_order]
    assert sorted(names) == ["Carol", "Carol", "Red", "Red"]
    board = scoreboard(game.state)
    assert {r["team"]: r["members"] for r in board["rows"]} == {
        "Red": ["Alice", "Bob"],
        "Carol": ["Carol"],
    }


def test_the_settings_summary_counts_the_teams_for_the_two_team_modes() -> None:
    game = Game.create(("alice", "bob", "carol", "dave"))
    game.do(SettingsChanged("alice", mode=Mode.TEAMS_TIME, time_zone="UTC+02:00"))
    summary = settings_summary(game.state)
    assert (summary["teams"], summary["time_zone"]) == (4, "UTC+02:00")
    game.do(TeamChosen("dave", name="Carol"))
    assert settings_summary(game.state)["teams"] == 3


def test_an_aborted_game_has_no_winner_and_keeps_the_scores_so_far() -> None:
    game = seeking(players=("alice", "bob"))
    game.advance(minutes=12)
    decisions = game.do(GameAborted("alice"))
    [over] = [d for d in decisions if isinstance(d, Notify) and d.key == "game.over"]
    assert over.params["aborted"] is True
    assert over.params["winners"] == [] and over.params["tie"] is False
    [row] = [r for r in over.params["rows"] if r["score"] is not None]
    assert row["score"] == 12 * 60
    assert scoreboard(game.state)["winners"] == [row["team"]], "the board itself is unchanged"


def test_a_finished_game_refuses_new_players_as_over() -> None:
    game = seeking(players=("alice", "bob"))
    game.do(GameAborted("alice"))
    with pytest.raises(WrongPhase) as over:
        game.do(TeamChosen("alice", name="Late"))
    assert over.value.key == "error.game_over"
    with pytest.raises(WrongPhase) as late:
        game.do(PlayerJoined("zed", "Zed"))
    assert late.value.key == "error.game_over"
