"""Two bot processes on one database end in the same state as one."""

from __future__ import annotations

import multiprocessing
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from sqlalchemy import func, select

from hideseek_chat.rules import Size, load_ruleset, new_game
from hideseek_chat.rules.state import Phase
from hideseek_chat.store import make_engine, start_game, unit_of_work_factory
from hideseek_chat.store.migrate import upgrade
from hideseek_chat.store.models import EventRow
from tests.rules.harness import START
from tests.store import workers
from tests.store.helpers import CHAT, load, replay, start
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


def test_two_processes_firing_the_same_due_timers_fire_each_once(database_url: str) -> None:
    """Ten games whose deadlines all fall due: two processes' ticks claim them (SKIP LOCKED
    on PostgreSQL), and every deadline fires exactly once, as one process would fire it."""
    upgrade(database_url)
    script = play(3, steps=150, players=("alice", "bob", "carol", "dave"))
    stop = next(
        i + 1
        for i in range(len(script.steps) // 2, len(script.steps))
        if script.steps[i].state.phase == Phase.SEEKING
        and len(script.steps[i].state.open_deadlines()) >= 2
    )
    chats = [f"tg:-{900 + n}" for n in range(10)]
    engine = make_engine(database_url)
    try:
        uow_factory = unit_of_work_factory(engine)
        for chat in chats:
            start(uow_factory, script, chat=chat)
            replay(uow_factory, script, stop_at=stop, chat=chat)
        until = script.steps[stop - 1].state.last_event_at + timedelta(hours=3)  # type: ignore[operator]
        with uow_factory() as uow:
            due = uow.deadlines.due(until)
            before = uow.session.scalar(select(func.max(EventRow.id))) or 0
        assert len(due) >= 2 * len(chats)
        _run_in_two_processes(
            workers.fire_all, (database_url, until.isoformat()), (database_url, until.isoformat())
        )
        with uow_factory() as uow:
            assert uow.deadlines.due(until) == []
            fired = uow.session.scalars(
                select(EventRow.game_id).where(
                    EventRow.type == "DeadlineReached", EventRow.id > before
                )
            ).all()
            after = uow.session.scalar(select(func.count(EventRow.id)).where(EventRow.id > before))
        states = [load(uow_factory, chat) for chat in chats]
        assert all(state == states[0] for state in states)  # each game fired alike, once
        per_game = Counter(fired)
        assert len(per_game) == len(chats) and len(set(per_game.values())) == 1
        assert len(fired) >= len(due) and after == len(fired)
    finally:
        engine.dispose()
