"""Code run in child processes by the concurrency tests (importable under ``spawn``)."""

from __future__ import annotations

from datetime import datetime
from multiprocessing.synchronize import Barrier

from hideseek_chat.rules.events import PlayerJoined
from hideseek_chat.store import Scheduler, handle, make_engine, unit_of_work_factory
from tests.store.helpers import CHAT
from tests.store.scenarios import play


def replay_all(url: str, seed: int, barrier: Barrier) -> None:
    """Apply every step of ``play(seed)`` as an update with a stable id.

    Two of these on one database act like two bot processes that both receive every update.
    """
    script = play(seed, steps=150)
    engine = make_engine(url)
    try:
        uow_factory = unit_of_work_factory(engine)
        barrier.wait()
        for index, step in enumerate(script.steps):
            handle(uow_factory, CHAT, step.event, step.now, update_id=f"u{index}")
    finally:
        engine.dispose()


def join_many(url: str, names: list[str], now_iso: str, barrier: Barrier) -> None:
    """Join each of ``names`` to the chat's game, one update each."""
    now = datetime.fromisoformat(now_iso)
    engine = make_engine(url)
    try:
        uow_factory = unit_of_work_factory(engine)
        barrier.wait()
        for name in names:
            handle(uow_factory, CHAT, PlayerJoined(name, name.title()), now, update_id=name)
    finally:
        engine.dispose()


def fire_all(url: str, until_iso: str, barrier: Barrier) -> None:
    """Fire every deadline due by ``until`` in batches, as a bot process's tick does."""
    until = datetime.fromisoformat(until_iso)
    engine = make_engine(url)
    try:
        scheduler = Scheduler(unit_of_work_factory(engine))
        barrier.wait()
        while len(scheduler.run_due(until, 5)) == 5:
            pass
    finally:
        engine.dispose()
