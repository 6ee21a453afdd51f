"""Where the database is and how to connect: ``DATABASE_URL`` or a SQLite file.

``database_url()`` reads the environment once per call: ``DATABASE_URL`` when set (a
``postgresql://`` URL is switched to the psycopg 3 driver), else a SQLite file
``hideseek.sqlite3`` in ``HIDESEEK_DATA_DIR`` or the working directory. ``make_engine``
sets the SQLite pragmas the store relies on (WAL, foreign keys, busy timeout) and makes every
SQLite transaction ``BEGIN IMMEDIATE`` so read-modify-write units of work are serialized.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

SQLITE_FILE = "hideseek.sqlite3"
#: How long a SQLite writer waits for another one before failing (milliseconds).
SQLITE_BUSY_TIMEOUT_MS = 30_000


def database_url(environ: dict[str, str] | None = None) -> str:
    """Return the database URL the application should use."""
    env = os.environ if environ is None else environ
    url = env.get("DATABASE_URL", "").strip()
    if not url:
        directory = Path(env.get("HIDESEEK_DATA_DIR", "") or ".")
        return f"sqlite:///{directory / SQLITE_FILE}"
    # Hosting platforms hand out postgres:// URLs; SQLAlchemy wants an explicit driver.
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def make_engine(url: str | None = None, **kwargs: Any) -> Engine:
    """Create an engine for ``url`` (default: ``database_url()``) with the store's settings."""
    url = url or database_url()
    if make_url(url).get_backend_name() != "sqlite":
        return create_engine(url, **kwargs)
    engine = create_engine(url, **kwargs)

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
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Return the session factory units of work are built from."""
    return sessionmaker(engine, expire_on_commit=False)


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


#: How long location pings are kept after their game ends, unless configured.
DEFAULT_PING_RETENTION = timedelta(hours=24)


def ping_retention(environ: dict[str, str] | None = None) -> timedelta:
    """Read ``HIDESEEK_PING_RETENTION_HOURS`` (default 24): pings live this long after a game."""
    env = os.environ if environ is None else environ
    value = env.get("HIDESEEK_PING_RETENTION_HOURS", "").strip()
    if not value:
        return DEFAULT_PING_RETENTION
    hours = float(value)
    if hours < 0:
        raise ValueError("HIDESEEK_PING_RETENTION_HOURS must not be negative")
    return timedelta(hours=hours)
