"""Driving the store with played games (see ``scenarios``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, event, func, select

from hideseek_chat.rules.events import DeadlineReached
from hideseek_chat.rules.state import GameState
from hideseek_chat.store import Scheduler, UnitOfWorkFactory, handle, start_game
from hideseek_chat.store.models import Base
from hideseek_chat.store.uow import UnitOfWork
from tests.store.scenarios import Script

CHAT = "tg:-1001"


def start(uow_factory: UnitOfWorkFactory, script: Script, chat: str = CHAT) -> int:
    game_id = start_game(
        uow_factory, chat, script.initial, script.initial_decisions, script.created_at
    )
    assert game_id is not None
    return game_id


def replay(
    uow_factory: UnitOfWorkFactory,
    script: Script,
    start_at: int = 0,
    stop_at: int | None = None,
    chat: str = CHAT,
) -> None:
    """Apply ``script.steps[start_at:stop_at]``: deadlines through the scheduler, the rest
    through ``handle``; check each deadline the scheduler picks is the one the harness did."""
    scheduler = Scheduler(uow_factory)
    for index in range(start_at, len(script.steps) if stop_at is None else stop_at):
        step = script.steps[index]
        if isinstance(step.event, DeadlineReached):
            fired = scheduler.fire_next(step.now)
            assert fired is not None, f"step {index}: nothing due at {step.now}"
            assert fired.deadline_id == step.event.deadline_id, f"step {index}"
            assert list(fired.decisions) == list(step.decisions)
        else:
            decisions = handle(
                uow_factory, chat, step.event, step.now, update_id=f"{chat}:u{index}"
            )
            assert decisions == list(step.decisions), f"step {index}"


def load(uow_factory: UnitOfWorkFactory, chat: str = CHAT) -> GameState:
    with uow_factory() as uow:
        game = uow.games.for_chat(chat)
        assert game is not None
        return game.state


def count(engine: Engine, model: type[Base]) -> int:
    with engine.connect() as connection:
        return int(connection.scalar(select(func.count()).select_from(model)) or 0)


__all__ = ["CHAT", "UnitOfWork", "count", "load", "replay", "start"]


@contextmanager
def statements(engine: Engine) -> Iterator[list[str]]:
    """The SQL statements SQLAlchemy runs on ``engine`` meanwhile (while anyone listens, the
    store lends no driver connection: its prebuilt statements go through SQLAlchemy too,
    except a game's state read on PostgreSQL, which runs on the driver's cursor)."""
    seen: list[str] = []

    def _seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", _seen)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", _seen)
