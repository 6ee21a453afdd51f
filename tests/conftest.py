"""Database fixtures: every store test runs on SQLite and on PostgreSQL, each isolated.

SQLite gets a fresh file per test. PostgreSQL (``HIDESEEK_TEST_POSTGRES_URL``; the variant is
skipped only when it is unset) gets a fresh schema per test, reached through ``search_path``
in the URL so that other processes given the URL see the same schema; it is dropped after.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from sqlalchemy import Engine, create_engine, text

POSTGRES_ENV = "HIDESEEK_TEST_POSTGRES_URL"


def _postgres_schema_url(base: str) -> Iterator[str]:
    schema = f"test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base)
    try:
        with admin.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        separator = "&" if "?" in base else "?"
        yield f"{base}{separator}options={quote(f'-csearch_path={schema}')}"
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    finally:
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database's URL: a new SQLite file, or a new PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.sqlite3'}"
        return
    base = os.environ.get(POSTGRES_ENV)
    if not base:
        pytest.skip(f"{POSTGRES_ENV} is not set")
    yield from _postgres_schema_url(base)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """An engine on an empty database with the store's tables created from the models."""
    from hideseek_chat.store.config import make_engine
    from hideseek_chat.store.models import Base

    engine = make_engine(database_url)
    Base.metadata.create_all(engine)
    try:
        yield engine
    finally:
        engine.dispose()


@pytest.fixture
def uow_factory(engine: Engine):  # type: ignore[no-untyped-def]
    """Make a fresh unit of work on the test database."""
    from hideseek_chat.store import unit_of_work_factory

    return unit_of_work_factory(engine)


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """Undo ``hideseek_chat.logs.setup`` after the test: the root logger's handlers and
    level, and the quiet libraries' levels, as they were."""
    import logging

    from hideseek_chat import logs

    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    quiet = {name: logging.getLogger(name).level for name in logs.QUIET}
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)
    for name, old in quiet.items():
        logging.getLogger(name).setLevel(old)


@pytest.fixture
def fresh_metrics():  # type: ignore[no-untyped-def]
    """Record the metrics to a fresh ``Metrics`` (all zero) during the test."""
    from hideseek_chat import metrics

    fresh = metrics.Metrics()
    previous = metrics.install(fresh)
    yield fresh
    metrics.install(previous)
