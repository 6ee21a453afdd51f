"""Where the database is, and the SQLite settings the store relies on."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from hideseek_chat.store import database_url, make_engine, ping_retention


def test_without_database_url_a_sqlite_file_is_used() -> None:
    assert database_url({}) == "sqlite:///hideseek.sqlite3"
    assert database_url({"HIDESEEK_DATA_DIR": "/data"}) == "sqlite:////data/hideseek.sqlite3"


def test_postgres_urls_get_the_psycopg_driver() -> None:
    url = database_url({"DATABASE_URL": "postgres://u:p@db:5432/hs"})
    assert url == "postgresql+psycopg://u:p@db:5432/hs"
    same = "postgresql+psycopg://u@db/hs"
    assert database_url({"DATABASE_URL": same}) == same


def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    try:
        with engine.connect() as connection:
            assert connection.scalar(text("PRAGMA journal_mode")) == "wal"
            assert connection.scalar(text("PRAGMA foreign_keys")) == 1
            assert connection.scalar(text("PRAGMA busy_timeout")) > 0
    finally:
        engine.dispose()


def test_ping_retention_is_configurable() -> None:
    assert ping_retention({}) == timedelta(hours=24)
    assert ping_retention({"HIDESEEK_PING_RETENTION_HOURS": "2.5"}) == timedelta(hours=2.5)
    with pytest.raises(ValueError):
        ping_retention({"HIDESEEK_PING_RETENTION_HOURS": "-1"})
