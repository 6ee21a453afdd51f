"""Where the players were: the pins the referee needs, read from the store.

Reads only: each function takes the unit of work of the turn (or the job) that asks and
returns stored pins, or what the referee makes of them. The referee's judgement itself is
pure and lives in ``referee``.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from datetime import datetime
from typing import Any

from hideseek_chat.chat import referee
from hideseek_chat.chat.maps import Maps
from hideseek_chat.geo import MapIndex, distance_m
from hideseek_chat.rules import hiding
from hideseek_chat.rules.events import ZoneFixed
from hideseek_chat.rules.ruleset import Ruleset
from hideseek_chat.rules.scale import size_rules
from hideseek_chat.rules.state import GameState, Mode, Question
from hideseek_chat.store import Ping, UnitOfWork

#: Where each thermometer's asker stood when asking, read once per process, not on every
#: live edit: (game, asker, asked at) -> pin.
StartCache = MutableMapping[tuple[int, int, datetime], Ping]


def last_pins(uow: UnitOfWork, game_id: int, player_id: int, n: int = 20) -> list[Ping]:
    """A player's newest ``n`` pins, newest first."""
    return uow.pings.last(game_id, player_id, n)


def pin_before(uow: UnitOfWork, game_id: int, player_id: int, at: datetime) -> Ping | None:
    """A player's newest pin (in the order pins were stored) taken at or before ``at``, however
    many pins they sent since: a live location sends one every few seconds, and the
    seekers' map, drawn hours after an answer, must still find the pin it was measured
    against."""
    return uow.pings.before(game_id, player_id, at)


def last_pin(uow: UnitOfWork, game_id: int, player_id: int) -> Ping | None:
    pings = uow.pings.last(game_id, player_id, 1)
    return pings[0] if pings else None


def hider_pin(uow: UnitOfWork, game_id: int, state: GameState) -> Ping | None:
    """The newest pin of any member of the hiding team."""
    hider = state.hider_team_id()
    if hider is None:
        return None
    newest: Ping | None = None
    for player in state.team_players(hider):
        ping = last_pin(uow, game_id, player.id)
        if ping is not None and (newest is None or ping.id > newest.id):
            newest = ping
    return newest


def seeker_pins(uow: UnitOfWork, game_id: int, state: GameState) -> list[Ping]:
    """Every seeker's newest pin."""
    found = []
    for team in state.seeker_team_ids():
        for seeker in state.team_players(team):
            ping = last_pin(uow, game_id, seeker.id)
            if ping is not None:
                found.append(ping)
    return found


def seekers_pin_before(
    uow: UnitOfWork,
    game_id: int,
    state: GameState,
    team_id: int,
    at: datetime,
    *,
    left_too: bool = False,
) -> Ping | None:
    """The newest seeker pin taken by ``at``: any seeker in the standard game, else a
    member of the asking team; with ``left_too`` also of seekers who left the game since
    (looking back at a pin the referee took when they still played)."""
    standard = state.settings.mode == Mode.STANDARD
    hider = state.hider_team_id()
    if not standard:
        teams = [team_id]
    elif left_too:
        teams = [team.id for team in state.teams if team.id != hider]
    else:
        teams = state.seeker_team_ids()
    newest: Ping | None = None
    for team in teams:
        players = [p for p in state.players if p.team_id == team and (p.active or left_too)]
        for player in players:
            ping = pin_before(uow, game_id, player.id, at)
            if ping is not None and (newest is None or ping.id > newest.id):
                newest = ping
    return newest


def thermometer_start(
    uow: UnitOfWork, cache: StartCache, game_id: int, asker_id: int, asked_at: datetime
) -> Ping | None:
    """Where the asking seeker was when the thermometer was asked."""
    key = (game_id, asker_id, asked_at)
    if key not in cache:
        start = pin_before(uow, game_id, asker_id, asked_at)
        if start is None:
            return None
        cache[key] = start
    return cache[key]


def seen_from(
    uow: UnitOfWork, game_id: int, state: GameState
) -> dict[str, tuple[datetime, str] | None]:
    """When each active player's newest pin was taken and its source ("live", "pin",
    "tracker:owntracks"...); None: never."""
    newest = uow.pings.newest(game_id)
    seen: dict[str, tuple[datetime, str] | None] = {}
    for player in state.players:
        if player.active:
            ping = newest.get(player.id)
            seen[player.ref] = (ping.at, ping.source) if ping else None
    return seen


def seekers_seen_by(
    uow: UnitOfWork, game_id: int, state: GameState, hider_id: int
) -> list[tuple[str, float | None, datetime | None]]:
    """For the hider: each seeker's name, distance from the hider's newest pin and age."""
    mine = last_pin(uow, game_id, hider_id)
    rows: list[tuple[str, float | None, datetime | None]] = []
    for team_id in state.seeker_team_ids():
        for seeker in state.team_players(team_id):
            ping = last_pin(uow, game_id, seeker.id)
            if ping is None:
                rows.append((seeker.name, None, None))
                continue
            far = distance_m(mine.lat, mine.lon, ping.lat, ping.lon) if mine else None
            rows.append((seeker.name, far, ping.at))
    return rows


def map_index(uow: UnitOfWork, maps: Maps, game_id: int) -> MapIndex | None:
    """The index of the map the game's group plays on (None: no such map)."""
    chat = uow.games.chat_key(game_id)
    name = uow.chats.prefs(chat).map_name
    return maps.index(uow, name, uow.map_jobs.dropped(chat, name))


def hider_pins(uow: UnitOfWork, game_id: int, state: GameState, n: int = 50) -> list[Ping]:
    """The hiding team's newest ``n`` pins each, merged, newest first."""
    hider = state.hider_team_id()
    if hider is None:
        return []
    found = [
        ping
        for player in state.team_players(hider)
        for ping in last_pins(uow, game_id, player.id, n)
    ]
    return sorted(found, key=lambda ping: ping.id, reverse=True)


def zone_fixed(
    uow: UnitOfWork,
    maps: Maps,
    ruleset: Ruleset,
    game_id: int,
    state: GameState,
    now: datetime,
    moment: datetime | None = None,
) -> ZoneFixed | None:
    """The zone from the hider's pin at ``moment`` (default: when the current zone was to
    be fixed), else from their first pin after it (``rules.hiding.zone_pin``); None when it
    cannot be fixed yet."""
    at = moment or hiding.zone_moment(state) or now
    chosen = hiding.zone_pin(hider_pins(uow, game_id, state), at, ruleset.zone_pin_max_age_min)
    if chosen is None:
        return None
    ping, late = chosen
    radius = size_rules(state, ruleset).zone_radius_m
    streets = hiding.zones_on_streets(state)
    return referee.zone_fixed(map_index(uow, maps, game_id), ping, radius, late, streets)


def station_advice(
    uow: UnitOfWork,
    maps: Maps,
    ruleset: Ruleset,
    game_id: int,
    state: GameState,
    lat: float,
    lon: float,
) -> dict[str, Any] | None:
    """The params of ``chat.hiding_far_from_station`` when a hider at (``lat``, ``lon``) is
    not near any station of the map (in a car or on-foot game: any street terminus, with
    ``street_end``); None when they are (or the map cannot tell). Hider-only."""
    radius = size_rules(state, ruleset).zone_radius_m
    index = map_index(uow, maps, game_id)
    if hiding.zones_on_streets(state) and index is not None and index.has_street_termini():
        end = referee.far_from_street_ends(index, lat, lon, radius)
        if end is None:
            return None
        terminus, distance = end
        return {
            "station": terminus.label,
            "distance_m": distance,
            "radius_m": radius,
            "street_end": True,
        }
    far = referee.far_from_stations(index, lat, lon, radius)
    if far is None:
        return None
    station, distance = far
    return {"station": station.name, "distance_m": distance, "radius_m": radius}


def suggestion(
    uow: UnitOfWork,
    maps: Maps,
    ruleset: Ruleset,
    game_id: int,
    state: GameState,
    record: Question,
    now: datetime,
    reached_at: datetime,
    hider: Ping | None,
) -> referee.Suggestion:
    """What the pins and the map say of ``record`` at ``now``, the hider's newest pin being
    ``hider``.

    A thermometer ends where the seekers were at ``reached_at`` (when it first reached the
    hider), however often this runs.
    """
    index = map_index(uow, maps, game_id)
    start = pin_before(uow, game_id, record.asked_by, record.asked_at)
    # Whoever of the seekers travelled: in the standard game any seeker may carry it.
    end = seekers_pin_before(uow, game_id, state, record.team_id, reached_at) or (
        pin_before(uow, game_id, record.asked_by, reached_at)
    )
    return referee.suggest(ruleset, state, record, index, hider, start, end, now)
