"""The relational store: SQLAlchemy models, repositories, the unit of work, durable timers.

The chat layer needs little more than this::

    engine = make_engine()                      # DATABASE_URL, or a SQLite file
    upgrade()                                    # migrations, on start
    uow_factory = unit_of_work_factory(engine)
    Scheduler(uow_factory).run_due(now)          # catch up on deadlines missed while down
    game_id = start_game(uow_factory, chat_key, *new_game(...), now, update_id)
    handle(uow_factory, chat_key, event, now, update_id)   # every inbound event
    deliver(uow_factory, send, now)              # the outbox, after each commit

Everything the engine's ``GameState`` holds is a column of some table; see ``models``.
"""

from __future__ import annotations

from sqlalchemy import Engine

from hideseek_chat.store.config import database_url, make_engine, ping_retention, session_factory
from hideseek_chat.store.deadlines import DueDeadline
from hideseek_chat.store.log import LoggedEvent, OutboxMessage
from hideseek_chat.store.maps import FeatureData, MapPackData, StationData
from hideseek_chat.store.outbox import deliver
from hideseek_chat.store.pings import Ping, PingTarget
from hideseek_chat.store.privacy import Erasure, delete_player_data, erase_person, purge_pings
from hideseek_chat.store.repository import GameNotFound, LoadedGame
from hideseek_chat.store.scheduler import Fired, Scheduler
from hideseek_chat.store.uow import (
    UnitOfWork,
    UnitOfWorkFactory,
    apply_event,
    create_game,
    fire_due,
    handle,
    start_game,
)


def unit_of_work_factory(engine: Engine) -> UnitOfWorkFactory:
    """Return a callable making a fresh ``UnitOfWork`` on ``engine`` for each event."""
    factory = session_factory(engine)
    return lambda: UnitOfWork(factory)


__all__ = [
    "DueDeadline",
    "Erasure",
    "FeatureData",
    "Fired",
    "GameNotFound",
    "LoadedGame",
    "LoggedEvent",
    "MapPackData",
    "OutboxMessage",
    "Ping",
    "PingTarget",
    "Scheduler",
    "StationData",
    "UnitOfWork",
    "UnitOfWorkFactory",
    "apply_event",
    "create_game",
    "database_url",
    "delete_player_data",
    "deliver",
    "erase_person",
    "fire_due",
    "handle",
    "make_engine",
    "ping_retention",
    "purge_pings",
    "start_game",
    "unit_of_work_factory",
]
