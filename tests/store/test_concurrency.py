"""Two bot processes on one database end in the same state as one."""

from __future__ import annotations

import multiprocessing
from collections import Counter
from collections.abc import Callable
from typing import Any

from sqlalchemy import select

from hideseek_chat.rules import Size, load_ruleset, new_game
from hideseek_chat.store import make_engine, start_game, unit_of_work_factory
from hideseek_chat.store.migrate import upgrade
from hideseek_chat.store.models import EventRow
from tests.rules.harness import START
from tests.store import workers
from tests.store.helpers import CHAT, load, start
from tests.store.scenarios import play

SEED = 0


def _run_in_two_processes(target: Callable[..., None], *args_per_process: tuple[Any, ...]) -> None:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(len(args_per_process))
    processes = [context.Process(target=target, args=(*args, barrier)) for args in args_per_process]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
    assert [p.exitcode for p in processes] == [0] * len(processes)


def test_two_processes_receiving_every_update_end_like_one(database_url: str) -> None:
    upgrade(database_url)
    script = play(SEED, steps=150)
    engine = make_engine(database_url)
    try:
        uow_factory = unit_of_work_factory(engine)
        start(uow_factory, script)
        _run_in_two_processes(workers.replay_all, (database_url, SEED), (database_url, SEED))
        assert load(uow_factory) == script.steps[-1].state
        with uow_factory() as uow:
            game = uow.games.for_chat(CHAT)
            assert game is not None
            queued = [m.decision for m in uow.outbox.pending(limit=10_000)]
            logged = uow.session.scalars(
                select(EventRow.update_id).where(EventRow.update_id.is_not(None))
            ).all()
        # each update applied exactly once, each message queued exactly once
        assert Counter(logged) == Counter(f"u{i}" for i in range(len(script.steps)))
        expected = list(script.initial_decisions) + [d for s in script.steps for d in s.decisions]
        assert queued == expected
    finally:
        engine.dispose()


def test_two_processes_joining_players_at_once_lose_nobody(database_url: str) -> None:
    upgrade(database_url)
    state, decisions = new_game(load_ruleset("metric"), Size.SMALL, SEED, "alice", "Alice", START)
    engine = make_engine(database_url)
    try:
        uow_factory = unit_of_work_factory(engine)
        start_game(uow_factory, CHAT, state, decisions, START)
        names = [f"p{i:02d}" for i in range(24)]
        now = START.isoformat()
        _run_in_two_processes(
            workers.join_many, (database_url, names[::2], now), (database_url, names[1::2], now)
        )
        state = load(uow_factory)
        assert sorted(p.ref for p in state.players) == sorted(["alice", *names])
        # each join made a team and a player with fresh ids: no update was lost
        ids = [p.id for p in state.players] + [t.id for t in state.teams]
        assert len(set(ids)) == len(ids) == 2 * 25
        assert state.next_id == 2 * 25 + 1
    finally:
        engine.dispose()
