"""Where the database is and how to connect: ``DATABASE_URL`` or a SQLite file.

``database_url()`` asks ``hideseek_chat.config`` (the one place that reads the environment):
``DATABASE_URL`` when set (a ``postgresql://`` URL gets the psycopg 3 driver), else a SQLite
file ``hideseek.sqlite3`` in ``HIDESEEK_DATA_DIR`` or the working directory. ``make_engine``
sets the SQLite pragmas the store relies on (WAL, foreign keys, busy timeout) and makes every
SQLite transaction ``BEGIN IMMEDIATE`` so read-modify-write units of work are serialized,
the threads of one process in arrival order (``store.writers``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from hideseek_chat.config import Config, ConfigError
from hideseek_chat.store.session import UnitSession
from hideseek_chat.store.writers import WriterQueue

#: How long a SQLite writer waits for another one before failing (milliseconds).
SQLITE_BUSY_TIMEOUT_MS = 30_000


def database_url(environ: Mapping[str, str] | None = None) -> str:
    """Return the database URL the application should use (see ``hideseek_chat.config``)."""
    return Config.from_env(environ).effective_database_url


def make_engine(url: str | None = None, **kwargs: Any) -> Engine:
    """Create an engine for ``url`` (default: ``database_url()``) with the store's settings."""
    url = url or database_url()
    if make_url(url).get_backend_name() != "sqlite":
        return create_engine(url, **kwargs)
    engine = create_engine(url, **kwargs)
    writers = WriterQueue(SQLITE_BUSY_TIMEOUT_MS / 1000)
    turn = "hideseek.writer_turn"

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event below decide how transactions start.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        if make_url(url).database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        # A deferred transaction that later writes can fail with SQLITE_BUSY without
        # waiting; taking the write lock up front makes SQLite a single-writer queue.
        connection.info[turn] = writers.acquire()
        try:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            _end(connection)
            raise

    @event.listens_for(engine, "commit")
    @event.listens_for(engine, "rollback")
    def _end(connection: Any) -> None:
        if connection.info.pop(turn, False):
            writers.release()

    @event.listens_for(engine, "checkin")
    @event.listens_for(engine, "invalidate")
    def _gone(_dbapi_connection: Any, record: Any, *_: Any) -> None:
        # A connection that ended without a commit or rollback event (lost, invalidated)
        # must not keep every other writer waiting.
        if record is not None and record.info.pop(turn, False):
            writers.release()

    return engine


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Return the session factory units of work are built from (``UnitSession``s)."""
    return sessionmaker(engine, class_=UnitSession, expire_on_commit=False)


def dialect_insert(session: Session) -> Any:
    """The INSERT construct of the session's database, which knows ``ON CONFLICT``."""
    name = session.get_bind().dialect.name
    return postgresql.insert if name == "postgresql" else sqlite.insert


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def ping_retention(environ: Mapping[str, str] | None = None) -> timedelta:
    """How long pings live after their game ends (``HIDESEEK_PING_RETENTION_HOURS``, 24)."""
    try:
        return Config.from_env(environ).ping_retention
    except ConfigError as err:
        raise ValueError(str(err)) from None
