"""Bounded memory: the per-process caches hold at most their cap, finished games go first,
whatever was let go is read from the store again, and a map's index is freed with it."""

from __future__ import annotations

import copy
import gc
import tracemalloc
import weakref
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from hideseek_chat.chat.lru import LRU
from hideseek_chat.chat.maps import MAX_DROP_SETS, Maps, to_data
from hideseek_chat.chat.turn import MAX_STATES, state_cache
from hideseek_chat.console.table import Table
from hideseek_chat.rules.state import GameState, Phase
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.maps_fakes import STILLWATER
from tests.chat.play import SEEKERS_START, begin, state_of


def _game(uow_factory: UnitOfWorkFactory, table: Table) -> tuple[int, GameState]:
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        return loaded.id, loaded.state


def test_the_state_cache_holds_its_cap_over_ten_thousand_games(
    uow_factory: UnitOfWorkFactory, table: Table
) -> None:
    begin(table)
    _, state = _game(uow_factory, table)
    states = state_cache()
    for game_id in range(10_000):
        states[game_id] = (game_id, state)
        assert len(states) <= MAX_STATES
    assert len(states) == MAX_STATES
    assert 9_999 in states and 0 not in states  # the least recently used went
    assert list(states)[-1] == 9_999


def test_a_finished_game_is_let_go_before_an_active_one(
    uow_factory: UnitOfWorkFactory, table: Table
) -> None:
    begin(table)
    _, active = _game(uow_factory, table)
    finished = replace(active, phase=Phase.GAME_OVER)
    states = state_cache(cap=3)
    states[1] = (10, active)  # the least recently used of all
    states[2] = (20, finished)
    states[3] = (30, active)
    states[4] = (40, active)  # one too many: the finished game goes, not game 1
    assert 2 not in states and {1, 3, 4} <= set(states)
    assert states.get(1) == (10, active)  # read: now the most recent
    states[5] = (50, active)
    assert 3 not in states and {1, 4, 5} <= set(states)
    states[4] = (41, finished)  # game 4 ended: it goes first now
    states[6] = (60, active)
    assert set(states) == {1, 5, 6}


def test_an_lru_pops_deletes_and_refuses_a_cap_of_nothing() -> None:
    cache: LRU[str, int] = LRU(2)
    cache["a"], cache["b"] = 1, 2
    assert cache.pop("a") == 1 and cache.pop("a", None) is None
    del cache["b"]
    assert len(cache) == 0
    with pytest.raises(KeyError):
        del cache["b"]
    with pytest.raises(ValueError):
        LRU(0)


def test_an_evicted_game_is_read_from_the_store_again(
    uow_factory: UnitOfWorkFactory, table: Table
) -> None:
    _, seekers = begin(table)
    services = table.conversation.services
    services.states = state_cache(cap=1)
    game_id, _ = _game(uow_factory, table)
    table.pin(seekers[0], *SEEKERS_START)  # the game's state is cached by its stamp
    assert game_id in services.states
    stamp, cached = services.states[game_id]
    services.states[-1] = (0, cached)  # another game pushes it out
    assert game_id not in services.states
    stored = state_of(uow_factory, table)
    with uow_factory() as uow:
        assert services.state_at(uow, game_id, stamp) == stored
    assert services.states[game_id][0] == stamp  # read once, kept again
    table.pin(seekers[0], SEEKERS_START[0] + 0.001, SEEKERS_START[1])
    seeker = state_of(uow_factory, table).player_by_ref(table.person(seekers[0]).ref)
    assert seeker is not None
    with uow_factory() as uow:
        pins = uow.pings.last(game_id, seeker.id, 5)
    assert [p.lat for p in pins] == [SEEKERS_START[0] + 0.001, SEEKERS_START[0]]


def test_the_memory_of_many_games_stays_that_of_the_cap(
    uow_factory: UnitOfWorkFactory, table: Table
) -> None:
    begin(table)
    _, state = _game(uow_factory, table)
    cap, games = 100, 1_000
    states = state_cache(cap=cap)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for game_id in range(cap):
            states[game_id] = (game_id, copy.deepcopy(state))
        full = tracemalloc.get_traced_memory()[0] - base
        for game_id in range(cap, games):
            states[game_id] = (game_id, copy.deepcopy(state))
        after = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert full > cap * 2_000  # each state is a few KB: the measurement sees them
    assert after < full * 1.2  # ten times the games, the memory of the cap


def test_a_map_index_let_go_is_freed(uow_factory: UnitOfWorkFactory) -> None:
    names = [f"pack{n}" for n in range(5)]
    with uow_factory() as uow:
        for name in names:
            uow.maps.save(replace(to_data(STILLWATER), name=name), datetime(2026, 5, 2, tzinfo=UTC))
        uow.commit()
    maps = Maps(max_packs=2)
    ids = [s.id for s in STILLWATER.stations]
    with uow_factory() as uow:
        first = maps.index(uow, names[0])
        assert first is not None
        gone = weakref.ref(first)
        for n in range(1, 2 + MAX_DROP_SETS):
            maps.index(uow, names[0], frozenset(ids[:n]))
        for name in names[1:]:
            maps.index(uow, name)
            maps.index(uow, name, frozenset(ids[:1]))
            assert maps.indexes <= 2 * (1 + MAX_DROP_SETS)
    del first
    gc.collect()
    assert gone() is None  # nothing else held the index of the pack let go
