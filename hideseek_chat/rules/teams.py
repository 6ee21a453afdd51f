"""Teams during setup: making and joining them by name, and playing on one's own.

Every player starts as a team of one, named after them. A team hides together, its
members share a hand, and the hide order and the scores count teams, not players.
"""

from __future__ import annotations

from hideseek_chat.rules.decisions import GROUP, Decision, Notify
from hideseek_chat.rules.errors import SetupError
from hideseek_chat.rules.lifecycle import require_setup
from hideseek_chat.rules.state import GameState, Player, Team

#: A team's name is cut to this many characters.
MAX_TEAM_NAME = 40


def team_name(text: str) -> str:
    """``text`` as a team name (spaces tidied, cut to size); raise SetupError when empty."""
    name = " ".join(text.split())[:MAX_TEAM_NAME]
    if not name:
        raise SetupError("the team needs a name", key="error.team_name")
    return name


def find_team(state: GameState, name: str) -> Team | None:
    """The team with players called ``name`` (case aside), if there is one."""
    wanted = name.casefold()
    for team in state.teams:
        if team.name.casefold() == wanted and state.team_players(team.id):
            return team
    return None


def choose_team(
    state: GameState, player: Player, name: str | None, team_id: int | None
) -> list[Decision]:
    """Move ``player`` to team ``team_id``, or to the team called ``name`` (made if new:
    a player alone just gives their team the name), or with neither to a team of one."""
    require_setup(state)
    own = state.team(player.team_id)
    alone = len(state.team_players(own.id)) == 1
    if team_id is not None:
        target = next((t for t in state.teams if t.id == team_id), None)
        if target is None or not state.team_players(target.id):
            raise SetupError("that team no longer exists", key="error.team_gone")
    elif name is not None:
        target = find_team(state, team_name(name))
    else:
        if alone:
            raise SetupError("you already play on your own", key="error.team_alone")
        _move(state, player, Team(state.new_id(), player.name))
        return [Notify(GROUP, "team.alone", {"name": player.name, "left": own.name})]
    if target is not None:
        if target.id == own.id:
            raise SetupError("you are already on that team", key="error.same_team")
        _move(state, player, target)
        members = [p.name for p in state.team_players(target.id)]
        return [Notify(GROUP, "team.joined", {"team": target.name, "members": members})]
    assert name is not None
    if alone:
        own.name = team_name(name)
        target = own
    else:
        target = _move(state, player, Team(state.new_id(), team_name(name)))
    return [Notify(GROUP, "team.created", {"team": target.name, "by": player.name})]


def _move(state: GameState, player: Player, team: Team) -> Team:
    """Put ``player`` in ``team`` (added to the game if new); drop the team they leave
    when nobody is left in it."""
    old = player.team_id
    if all(t.id != team.id for t in state.teams):
        state.teams.append(team)
    player.team_id = team.id
    if not any(p.team_id == old for p in state.players):
        state.teams = [t for t in state.teams if t.id != old]
    return team
