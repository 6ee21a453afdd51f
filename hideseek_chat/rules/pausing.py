"""Pausing the game: the players' /pause and /resume, and the rest periods that pause it by
the clock (the next rest window is scheduled when one ends and when the game begins)."""

from __future__ import annotations

from datetime import datetime, timedelta

from hideseek_chat.rules.clock import (
    active_rest_window,
    freeze_timers,
    next_rest_window,
    open_pause,
    schedule,
    start_pause,
    sync_due_times,
    thaw_timers,
)
from hideseek_chat.rules.decisions import GROUP, Decision, Notify
from hideseek_chat.rules.errors import GamePausedError, WrongPhase
from hideseek_chat.rules.state import DeadlineKind, GameState, PauseReason, Phase, Player


def schedule_rest(state: GameState, after: datetime) -> None:
    window = next_rest_window(state.settings.rest_periods, state.settings.time_zone, after)
    if window is not None:
        schedule(state, DeadlineKind.REST_STARTS, window[0])


def pause(state: GameState, player: Player, now: datetime) -> list[Decision]:
    if state.phase in (Phase.SETUP, Phase.GAME_OVER):
        raise WrongPhase("there is no running game to pause", key="error.no_round")
    if open_pause(state, PauseReason.GAME) is not None:
        raise GamePausedError("the game is already paused", key="error.already_paused")
    if not state.is_paused:
        freeze_timers(state, now)
    start_pause(state, PauseReason.GAME, now)
    return [Notify(GROUP, "game.paused", {"by": player.name})]


def group_lost(state: GameState, now: datetime) -> list[Decision]:
    """Pause a running game whose group the referee lost; nothing to announce (nobody there
    would read it). A game already paused by a player stays so."""
    if state.phase in (Phase.SETUP, Phase.GAME_OVER):
        return []
    if open_pause(state, PauseReason.GAME) is not None:
        return []
    if not state.is_paused:
        freeze_timers(state, now)
    start_pause(state, PauseReason.GAME, now)
    return []


def resume(state: GameState, player: Player, now: datetime) -> list[Decision]:
    pause_ = open_pause(state, PauseReason.GAME)
    if pause_ is None:
        raise GamePausedError("the game is not paused", key="error.not_paused")
    pause_.end = now
    decisions: list[Decision] = [Notify(GROUP, "game.resumed", {"by": player.name})]
    if not state.is_paused:
        thaw_timers(state, now)
        sync_due_times(state)
    return decisions


def rest_begins(state: GameState, now: datetime, until: datetime) -> list[Decision]:
    if not state.is_paused:
        freeze_timers(state, now)
    start_pause(state, PauseReason.REST, now)
    schedule(state, DeadlineKind.REST_ENDS, until)
    return [Notify(GROUP, "rest.started", {"until": until})]


def rest_starts(state: GameState, now: datetime) -> list[Decision]:
    window = active_rest_window(state.settings.rest_periods, state.settings.time_zone, now)
    until = window[1] if window else now
    return rest_begins(state, now, until)


def rest_ends(state: GameState, now: datetime) -> list[Decision]:
    pause_ = open_pause(state, PauseReason.REST)
    if pause_ is not None:
        pause_.end = now
    if not state.is_paused:
        thaw_timers(state, now)
        sync_due_times(state)
    schedule_rest(state, now + timedelta(seconds=1))
    return [Notify(GROUP, "rest.ended", {})]
