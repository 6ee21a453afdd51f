"""Live locations that went quiet: who is asked to share again, and who the hider sees as
silent.

A live location that sends nothing for longer than a pin counts (``rules.pins``: the
freshness the end game asks of a seeker's pin) is quiet: its player is asked, once per
quiet spell, to share it again. A spell ends with the player's next pin; the question (or
the one asked when Telegram said the sharing stopped) is an outbox notice, so a restart
does not ask twice. ``Conversation.tick`` runs ``check`` at most once per ``CHECK_EVERY``.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from hideseek_chat.chat import sightings
from hideseek_chat.rules import pins
from hideseek_chat.rules.decisions import Decision, Notify, to_player
from hideseek_chat.rules.state import GameState, Phase
from hideseek_chat.store import Ping, UnitOfWork, UnitOfWorkFactory

#: A round is running in these phases: locations matter and are asked for.
ROUND_PHASES = (Phase.HIDING, Phase.SEEKING, Phase.MOVING, Phase.END_GAME)
#: How often ``Conversation.tick`` looks for quiet live locations.
CHECK_EVERY = timedelta(minutes=1)
#: The notices that ask a player to share their live location again.
ASKED = ("chat.live_ended", "chat.live_quiet")


def is_round_running(state: GameState) -> bool:
    """Whether a round is on (and not paused): the players' locations are needed."""
    return state.phase in ROUND_PHASES and not state.is_paused


def is_quiet(ping: Ping | None, now: datetime) -> bool:
    """Whether a player's newest pin is a live location that no longer counts."""
    return (
        ping is not None
        and pins.is_live(ping.source)
        and not pins.is_current(ping.source, ping.forwarded, ping.at, now)
    )


def quiet_notices(uow: UnitOfWork, game_id: int, state: GameState, now: datetime) -> list[Decision]:
    """Ask each player whose live location went quiet, unless asked since it did."""
    if not is_round_running(state):
        return []
    asked: list[Decision] = []
    for player in state.players:
        if not player.active:
            continue
        ping = sightings.last_pin(uow, game_id, player.id)
        if ping is None or not is_quiet(ping, now):
            continue
        if uow.outbox.notified_since(game_id, player.id, ASKED, ping.at):
            continue
        silent = (now - ping.at).total_seconds()
        asked.append(Notify(to_player(player.id), "chat.live_quiet", {"silent_s": silent}))
    return asked


def check(uow_factory: UnitOfWorkFactory, now: datetime) -> bool:
    """Ask the players of every running game whose live location went quiet; True when
    anyone was asked (the outbox has news)."""
    with uow_factory() as uow:
        game_ids = uow.games.in_phases(ROUND_PHASES)
    news = False
    for game_id in game_ids:
        with uow_factory() as uow:
            state = uow.games.read(game_id)
            notices = quiet_notices(uow, game_id, state, now)
            if notices:
                current = state.current_round
                uow.outbox.add(game_id, notices, now, current.number if current else None)
                uow.commit()
                news = True
    return news


def silent_seekers(uow: UnitOfWork, game_id: int, state: GameState, now: datetime) -> list[str]:
    """The names of the seekers whose location does not count now (none, or too old)."""
    silent = []
    for team_id in state.seeker_team_ids():
        for seeker in state.team_players(team_id):
            ping = sightings.last_pin(uow, game_id, seeker.id)
            if ping is None or not pins.is_current(ping.source, ping.forwarded, ping.at, now):
                silent.append(seeker.name)
    return silent
