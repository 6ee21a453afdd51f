"""The game's lifecycle: setup, rounds (hiding, seeking, end game, catch), handover, game over."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from hideseek_chat.rules import curses, deck, hiding, pausing, questions, scoring
from hideseek_chat.rules.clock import (
    active_rest_window,
    cancel,
    cancel_round,
    hiding_seconds,
    open_pause,
    parse_clock_time,
    rng,
    schedule,
)
from hideseek_chat.rules.decisions import (
    GROUP,
    HIDERS,
    Decision,
    FreezeHidingSpot,
    Notify,
    RequestZone,
    to_player,
)
from hideseek_chat.rules.errors import (
    GamePausedError,
    NotAllowed,
    SetupError,
    WrongPhase,
)
from hideseek_chat.rules.events import SettingsChanged
from hideseek_chat.rules.localtime import MAX_OFFSET_MIN, fixed_offset_min, is_time_zone
from hideseek_chat.rules.ruleset import Ruleset, Size
from hideseek_chat.rules.scale import hiding_period_min, size_rules
from hideseek_chat.rules.state import (
    TIMER_PAUSES,
    Catch,
    DeadlineKind,
    Ending,
    GameState,
    Mode,
    PauseReason,
    PendingCatch,
    Phase,
    Player,
    Round,
    Team,
    Zone,
)

ROUND_PHASES = frozenset({Phase.HIDING, Phase.SEEKING, Phase.MOVING, Phase.END_GAME})
MAX_ROUNDS_PER_TEAM = 10
HIDING_REMINDER_BEFORE = timedelta(minutes=5)


def new_game(
    ruleset: Ruleset, size: Size, seed: int, admin_ref: str, admin_name: str, now: datetime
) -> tuple[GameState, list[Decision]]:
    """Create a game in setup with its admin as the first player."""
    state = GameState(ruleset=ruleset.name, size=size, seed=seed, created_at=now)
    state.last_event_at = now
    player = _add_player(state, admin_ref, admin_name)
    state.admin_player_id = player.id
    return state, [
        Notify(
            GROUP,
            "game.created",
            {"admin": admin_name, "size": size.value, "ruleset": ruleset.name},
        )
    ]


def _add_player(state: GameState, ref: str, name: str) -> Player:
    team = Team(state.new_id(), name)
    state.teams.append(team)
    player = Player(state.new_id(), ref, name, team.id)
    state.players.append(player)
    return player


def require_admin(state: GameState, player: Player) -> None:
    if player.id != state.admin_player_id:
        raise NotAllowed("only the game's admin may do this", key="error.only_admin")


def require_setup(state: GameState) -> None:
    if state.phase != Phase.SETUP:
        raise WrongPhase("the game has already begun", key="error.already_begun")


def join(state: GameState, ref: str, name: str) -> list[Decision]:
    if state.phase == Phase.GAME_OVER:
        raise WrongPhase("the game is over; start a new one with /newgame", key="error.game_over")
    if state.player_by_ref(ref) is not None:
        raise SetupError("you are already in this game", key="error.already_joined")
    require_setup(state)
    player = _add_player(state, ref, name)
    return [
        Notify(GROUP, "game.joined", {"name": player.name, "players": len(state.active_team_ids())})
    ]


def leave(state: GameState, ruleset: Ruleset, player: Player, now: datetime) -> list[Decision]:
    if (
        state.phase in ROUND_PHASES
        and state.is_hider(player.id)
        and (len(state.team_players(player.team_id)) == 1)
    ):
        raise NotAllowed(
            "you are hiding: pause the game, or ask the admin to end it", key="error.hider_leaving"
        )
    player.active = False
    decisions: list[Decision] = [Notify(GROUP, "game.left", {"name": player.name})]
    if player.id == state.admin_player_id:
        remaining = [p for p in state.players if p.active]
        state.admin_player_id = remaining[0].id if remaining else None
        if remaining:
            decisions.append(Notify(GROUP, "game.new_admin", {"name": remaining[0].name}))
    if state.phase == Phase.SETUP:
        return decisions
    current = state.current_round
    done = current.number if current else 0
    if not state.team_players(player.team_id):
        # A team with nobody left gives up its future turns to hide.
        state.hide_order = state.hide_order[:done] + [
            t for t in state.hide_order[done:] if t != player.team_id
        ]
    no_turns_left = state.phase == Phase.HANDOVER and done >= len(state.hide_order)
    if (len(state.active_team_ids()) < 2 or no_turns_left) and state.phase != Phase.GAME_OVER:
        decisions.extend(_finish_round_early(state, ruleset, Ending.ABANDONED, now))
    return decisions


def join_team(state: GameState, player: Player, teammate_ref: str) -> list[Decision]:
    require_setup(state)
    teammate = state.player_by_ref(teammate_ref)
    if teammate is None:
        raise SetupError("that person is not in this game", key="error.unknown_player")
    if teammate.team_id == player.team_id:
        raise SetupError("you are already on that team", key="error.same_team")
    old = player.team_id
    player.team_id = teammate.team_id
    if not state.team_players(old):
        state.teams = [t for t in state.teams if t.id != old]
    team = state.team(teammate.team_id)
    names = [p.name for p in state.team_players(team.id)]
    return [Notify(GROUP, "team.joined", {"team": team.name, "members": names})]


def rename_team(state: GameState, player: Player, name: str) -> list[Decision]:
    require_setup(state)
    name = " ".join(name.split())[:40]
    if not name:
        raise SetupError("the team needs a name", key="error.team_name")
    team = state.team(player.team_id)
    team.name = name
    return [Notify(GROUP, "team.renamed", {"team": name})]


def change_settings(
    state: GameState, ruleset: Ruleset, player: Player, event: SettingsChanged
) -> list[Decision]:
    require_admin(state, player)
    require_setup(state)
    settings = state.settings
    if event.rounds_per_team is not None:
        if not 1 <= event.rounds_per_team <= MAX_ROUNDS_PER_TEAM:
            raise SetupError(
                f"rounds per player must be 1 to {MAX_ROUNDS_PER_TEAM}",
                key="error.rounds",
                maximum=MAX_ROUNDS_PER_TEAM,
            )
        settings.rounds_per_team = event.rounds_per_team
    if event.clear_end_timer:
        settings.end_timer_min = None
    elif event.end_timer_min is not None:
        if not 0 < event.end_timer_min <= 60 * 24 * 14:
            raise SetupError("the end-of-game timer must be up to 14 days", key="error.end_timer")
        settings.end_timer_min = event.end_timer_min
    if event.rest_periods is not None:
        for start, end in event.rest_periods:
            try:
                parse_clock_time(start)
                parse_clock_time(end)
            except ValueError as err:
                raise SetupError(str(err), key="error.rest_period", text=f"{start}-{end}") from None
            if start == end:
                raise SetupError(
                    "a rest period needs different start and end times",
                    key="error.rest_period",
                    text=f"{start}-{end}",
                )
        settings.rest_periods = list(event.rest_periods)
    if event.time_zone is not None:
        offset = fixed_offset_min(event.time_zone)
        if offset is not None and abs(offset) > MAX_OFFSET_MIN:
            raise SetupError("that is not a time zone offset", key="error.utc_offset")
        if not is_time_zone(event.time_zone):
            raise SetupError(
                "that is not a time zone", key="error.time_zone", text=event.time_zone[:40]
            )
        settings.time_zone = event.time_zone
        settings.time_zone_typed = not event.time_zone_from_map
    if event.size is not None:
        state.size = event.size
    if event.ruleset is not None:
        if not event.ruleset.strip():
            raise SetupError("a ruleset needs a name", key="error.ruleset")
        state.ruleset = event.ruleset  # the deck is built from it when the game begins
    if event.transport is not None:
        settings.transport = event.transport
    if event.mode is not None:
        settings.mode = event.mode
    if event.global_scale is not None:
        settings.global_scale = event.global_scale
    if event == SettingsChanged(event.by, time_zone=event.time_zone, time_zone_from_map=True):
        return []  # the map's zone alone: the chat layer says so with the map's notice
    return [Notify(GROUP, "game.settings", settings_summary(state))]


def settings_summary(state: GameState) -> dict[str, Any]:
    s = state.settings
    return {
        "size": state.size.value,
        "ruleset": state.ruleset,
        "rounds_per_team": s.rounds_per_team,
        "end_timer_min": s.end_timer_min,
        "rest_periods": [list(pair) for pair in s.rest_periods],
        "transport": s.transport.value,
        "mode": s.mode.value,
        "global_scale": s.global_scale,
        "time_zone": s.time_zone,
        "teams": len(state.active_team_ids()),
    }


def begin(state: GameState, ruleset: Ruleset, player: Player, now: datetime) -> list[Decision]:
    require_admin(state, player)
    require_setup(state)
    teams = state.active_team_ids()
    if state.settings.mode == Mode.STANDARD and len(teams) < 2:
        raise SetupError("at least two players (or teams) are needed", key="error.too_few")
    if state.settings.mode != Mode.STANDARD and len(teams) != 3:
        raise SetupError(
            "two seeker teams and a hider: exactly three teams are needed", key="error.three_teams"
        )
    order = list(teams)
    rng(state).shuffle(order)
    state.hide_order = order * state.settings.rounds_per_team
    deck.build_deck(state, ruleset)
    state.started_at = now
    decisions: list[Decision] = [
        Notify(
            GROUP,
            "game.begun",
            {"order": [state.team(t).name for t in order], "rounds": len(state.hide_order)},
        )
    ]
    if state.settings.end_timer_min:
        state.game_timer_at = now + timedelta(minutes=state.settings.end_timer_min)
        schedule(state, DeadlineKind.GAME_TIMER, state.game_timer_at)
    decisions.extend(start_round(state, ruleset, now))
    window = active_rest_window(state.settings.rest_periods, state.settings.time_zone, now)
    if window is not None:
        decisions.extend(pausing.rest_begins(state, now, window[1]))  # its end schedules the next
    else:
        pausing.schedule_rest(state, now)
    return decisions


def start_round(state: GameState, ruleset: Ruleset, now: datetime) -> list[Decision]:
    number = len(state.rounds) + 1
    hider = state.hide_order[number - 1]
    state.rounds.append(Round(number, hider, hiding_started_at=now))
    state.pending_catch = None
    deck.shuffle_all(state)
    state.phase = Phase.HIDING
    minutes = hiding_period_min(state, ruleset)
    ends = now + timedelta(minutes=minutes)
    schedule(state, DeadlineKind.HIDING_ENDS, ends, number)
    if timedelta(minutes=minutes) > 2 * HIDING_REMINDER_BEFORE:
        schedule(state, DeadlineKind.HIDING_REMINDER, ends - HIDING_REMINDER_BEFORE, number)
    params = {
        "round": number,
        "rounds": len(state.hide_order),
        "hider": state.team(hider).name,
        "ends_at": ends,
        "minutes": minutes,
        "street_end": hiding.zones_on_streets(state),
    }
    return [
        Notify(GROUP, "round.hiding_started", params),
        Notify(HIDERS, "round.you_hide", params),
        *hiding.live_location_asks(number),
    ]


def hiding_ends(state: GameState, ruleset: Ruleset, now: datetime) -> list[Decision]:
    current = state.current_round
    assert current is not None
    state.phase = Phase.SEEKING
    current.seeking_started_at = now
    params = hiding.seeking_params(state, current.number, size_rules(state, ruleset).zone_radius_m)
    return [
        Notify(GROUP, "round.seeking_started", params),
        RequestZone(current.number, now),
    ]


def fix_zone(
    state: GameState,
    ruleset: Ruleset,
    player: Player | None,
    station_ref: str,
    station_name: str,
    lat: float,
    lon: float,
    now: datetime,
    *,
    late: bool = False,
) -> list[Decision]:
    """Centre the hider's zone on a station (after the hiding period or a Move); ``late``
    when the seekers were told it was pending (they hear it is fixed, not where)."""
    if state.phase not in (Phase.SEEKING, Phase.END_GAME):
        raise WrongPhase("the zone is fixed when the hiding period ends", key="error.zone_phase")
    if player is not None and not state.is_hider(player.id):
        raise NotAllowed("only the hider chooses their station", key="error.only_hider")
    current = state.current_round
    assert current is not None
    if state.phase == Phase.END_GAME and current.zone is not None:
        raise WrongPhase("the end game has begun: the zone stays", key="error.zone_end_game")
    if (
        player is not None
        and current.zone is not None
        and any(q.asked_at >= current.zone.fixed_at for q in state.round_questions())
    ):
        # The hider may pick another station whose zone holds them, but not once the
        # seekers have started asking about the zone they have.
        raise WrongPhase("questions were asked about your zone: it stays", key="error.zone_locked")
    radius = size_rules(state, ruleset).zone_radius_m
    current.zone = Zone(station_ref, station_name, lat, lon, radius, now)
    # Private: the station is the hider's secret.
    street_end = hiding.is_street_end(station_ref)
    fixed = {"station": station_name, "radius_m": radius, "street_end": street_end}
    late_notices = hiding.late_zone_notices(radius, late, street_end)
    return [Notify(HIDERS, "zone.fixed", fixed), *late_notices]


def move_ends(state: GameState, now: datetime) -> list[Decision]:
    current = state.current_round
    assert current is not None
    pause = open_pause(state, PauseReason.MOVE)
    if pause is not None:
        pause.end = now
    state.phase = Phase.SEEKING
    return [Notify(GROUP, "move.ended", {}), RequestZone(current.number, now)]


def start_end_game(state: GameState, player: Player | None, now: datetime) -> list[Decision]:
    if state.phase == Phase.END_GAME:
        raise WrongPhase("the end game has already begun", key="error.end_game_already")
    if state.phase != Phase.SEEKING:
        raise WrongPhase("the end game starts while seeking", key="error.not_seeking")
    if state.is_paused:
        raise GamePausedError("the game is paused")
    if player is not None and state.is_hider(player.id):
        raise NotAllowed(
            "the end game starts when the seekers enter the zone", key="error.only_seekers"
        )
    current = state.current_round
    assert current is not None
    state.phase = Phase.END_GAME
    current.end_game_started_at = now
    params = {"by": player.name if player else None}
    return [
        Notify(GROUP, "endgame.started", params),
        Notify(HIDERS, "endgame.hider", params),
        FreezeHidingSpot(current.number),
    ]


def claim_catch(
    state: GameState, player: Player, distance_m: float | None, now: datetime
) -> list[Decision]:
    if state.phase not in (Phase.SEEKING, Phase.END_GAME):
        raise WrongPhase("nobody is hiding right now", key="error.not_seeking")
    if state.is_hider(player.id):
        raise NotAllowed("the seekers claim the catch", key="error.only_seekers")
    if _has_caught(state, player.team_id):
        raise NotAllowed("your team has already found the hider", key="error.already_caught")
    current = state.current_round
    assert current is not None
    state.pending_catch = PendingCatch(current.number, player.id, now, distance_m)
    params = {"by": player.name, "distance_m": distance_m}
    confirm = {**params, "claimer": player.id}  # names the claim the hider's buttons answer
    return [Notify(GROUP, "catch.claimed", params), Notify(HIDERS, "catch.confirm", confirm)]


def _has_caught(state: GameState, team_id: int) -> bool:
    current = state.current_round
    number = current.number if current else 0
    return any(c.team_id == team_id and c.round_number == number for c in state.catches)


def answer_catch(
    state: GameState, ruleset: Ruleset, player: Player, spotted: bool, now: datetime
) -> list[Decision]:
    if not state.is_hider(player.id):
        raise NotAllowed("only the hider confirms a catch", key="error.only_hider")
    claim = state.pending_catch
    current = state.current_round
    if claim is None or current is None or claim.round_number != current.number:
        raise WrongPhase("nobody has claimed to have found you", key="error.no_claim")
    state.pending_catch = None
    claimer = state.player(claim.claimed_by)
    if not spotted:
        return [Notify(GROUP, "catch.denied", {"by": claimer.name})]
    params = {"by": claimer.name, "team": state.team(claimer.team_id).name}
    return _caught(state, ruleset, claimer, Notify(GROUP, "catch.confirmed", params), now)


def decide_catch(
    state: GameState, ruleset: Ruleset, admin: Player, seeker: Player, now: datetime
) -> list[Decision]:
    """The admin decides that ``seeker`` found the hider (when the hider cannot answer):
    only in the end game, when the hider stays put and the seekers are near."""
    require_admin(state, admin)
    if state.phase == Phase.SEEKING:
        raise WrongPhase("the admin decides a catch in the end game", key="error.decide_end_game")
    if state.phase != Phase.END_GAME:
        raise WrongPhase("nobody is hiding right now", key="error.not_seeking")
    if state.is_hider(seeker.id) or not seeker.active:
        raise NotAllowed("only a seeker finds the hider", key="error.not_a_seeker")
    if _has_caught(state, seeker.team_id):
        raise NotAllowed("that team has already found the hider", key="error.team_caught")
    state.pending_catch = None
    params = {"by": seeker.name, "team": state.team(seeker.team_id).name, "admin": admin.name}
    return _caught(state, ruleset, seeker, Notify(GROUP, "catch.decided", params), now)


def _caught(
    state: GameState, ruleset: Ruleset, claimer: Player, notice: Notify, now: datetime
) -> list[Decision]:
    """Record that ``claimer``'s team found the hider; end the round when the rules say."""
    current = state.current_round
    assert current is not None
    seconds = hiding_seconds(state, current, now)
    state.catches.append(Catch(current.number, claimer.team_id, now, seconds))
    decisions: list[Decision] = [notice]
    caught = {c.team_id for c in state.catches if c.round_number == current.number}
    if state.settings.mode == Mode.STANDARD or caught >= set(state.seeker_team_ids()):
        decisions.extend(end_round(state, ruleset, Ending.CAUGHT, now))
    else:  # two seeker teams: the round goes on until every team has found the hider
        left = [state.team(t).name for t in state.seeker_team_ids() if t not in caught]
        decisions.append(Notify(GROUP, "catch.others_search", {"teams": left}))
    return decisions


def end_round(
    state: GameState, ruleset: Ruleset, ending: Ending, now: datetime, last: bool = False
) -> list[Decision]:
    """Close the round and announce its result; then hand over, or end the game if ``last``."""
    current = state.current_round
    assert current is not None
    current.ended_at = now
    current.ending = ending
    current.hiding_seconds = hiding_seconds(state, current, now)
    hider = current.hider_team_id
    current.bonus_minutes = deck.time_bonus_minutes(state, ruleset, hider)
    if state.settings.mode == Mode.TEAMS_POINTS:
        for catch in state.catches:
            if catch.round_number == current.number:
                catch.bonus_minutes = deck.time_bonus_minutes(
                    state, ruleset, catch.team_id
                ) + curses.penalty_minutes_for(state, ruleset, current.number, catch.team_id)
    for pause in state.pauses:
        if pause.end is None and pause.reason not in TIMER_PAUSES:
            pause.end = now
    questions.cancel_open_questions(state, current.number)
    curses.end_round_curses(state, now)
    cancel_round(state, current.number)
    state.pending_catch = None
    zone = current.zone or (current.previous_zones[-1] if current.previous_zones else None)
    decisions: list[Decision] = [
        Notify(
            GROUP,
            "round.result",
            {
                "round": current.number,
                "hider": state.team(hider).name,
                "ending": ending.value,
                "hiding_seconds": current.hiding_seconds,
                "bonus_minutes": current.bonus_minutes,
                "bonus_cards": deck.counted_bonuses(state, ruleset, hider),
                "penalty_minutes": current.penalty_minutes,
                "total_seconds": current.total_seconds,
                # The round is over: the station may now be told.
                "station": zone.station_name if zone else None,
                "mode": state.settings.mode.value,
                "seekers": scoring.round_seeker_times(state, current),
            },
        )
    ]
    if current.number < len(state.hide_order) and not last:
        state.phase = Phase.HANDOVER
        starts = now + timedelta(minutes=ruleset.handover_max_min)
        schedule(state, DeadlineKind.HANDOVER_ENDS, starts, current.number)
        next_team = state.hide_order[current.number]
        decisions.append(
            Notify(
                GROUP,
                "round.handover",
                {"next_hider": state.team(next_team).name, "starts_at": starts},
            )
        )
        for member in state.team_players(next_team):
            decisions.append(
                Notify(to_player(member.id), "round.next_you_hide", {"starts_at": starts})
            )
    else:
        decisions.extend(game_over(state, now))
    return decisions


def _finish_round_early(
    state: GameState, ruleset: Ruleset, ending: Ending, now: datetime
) -> list[Decision]:
    """End the game, closing a round in progress first: its time so far counts."""
    if state.phase in ROUND_PHASES:
        return end_round(state, ruleset, ending, now, last=True)
    return game_over(state, now)


def next_round(
    state: GameState, ruleset: Ruleset, player: Player | None, now: datetime
) -> list[Decision]:
    if state.phase != Phase.HANDOVER:
        raise WrongPhase("there is no handover going on", key="error.no_handover")
    current = state.current_round
    assert current is not None
    next_team = state.hide_order[current.number]
    if player is not None and player.team_id != next_team and player.id != state.admin_player_id:
        raise NotAllowed("the next hider starts their hiding period", key="error.only_next_hider")
    cancel(state, DeadlineKind.HANDOVER_ENDS)
    return start_round(state, ruleset, now)


def game_over(state: GameState, now: datetime) -> list[Decision]:
    state.phase = Phase.GAME_OVER
    state.ended_at = now
    for deadline in state.open_deadlines():
        deadline.done = True
    for pause in state.pauses:
        if pause.end is None:
            pause.end = now
    board = scoring.scoreboard(state)
    return [Notify(GROUP, "game.over", board)]


def abort(state: GameState, ruleset: Ruleset, player: Player, now: datetime) -> list[Decision]:
    """End the game now without a winner; the scores so far are told, the run counts."""
    require_admin(state, player)
    if state.phase == Phase.GAME_OVER:
        raise WrongPhase("the game is already over", key="error.game_over")
    decisions = _finish_round_early(state, ruleset, Ending.ABANDONED, now)
    return [
        replace(d, params={**d.params, "aborted": True, "winners": [], "tie": False})
        if isinstance(d, Notify) and d.key == "game.over"
        else d
        for d in decisions
    ]


def game_timer(state: GameState, ruleset: Ruleset, now: datetime) -> list[Decision]:
    decisions: list[Decision] = [Notify(GROUP, "game.timer_up", {})]
    return decisions + _finish_round_early(state, ruleset, Ending.GAME_TIMER, now)
