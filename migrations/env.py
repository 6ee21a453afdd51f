"""Alembic environment: the store's models are the target; the URL comes from the config.

Run through ``hideseek_chat.store.migrate`` (there is no alembic.ini): it sets
``sqlalchemy.url`` from ``DATABASE_URL`` (or the URL it was given) and the script location.
"""

from __future__ import annotations

from typing import Any, Literal

from alembic import context
from sqlalchemy import Connection

from hideseek_chat.store.config import database_url, make_engine
from hideseek_chat.store.models import Base
from hideseek_chat.store.types import UTCDateTime

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    return config.get_main_option("sqlalchemy.url") or database_url()


def _render_item(kind: str, obj: Any, autogen_context: Any) -> str | Literal[False]:
    """Write the store's own column types as plain SQLAlchemy types in revisions."""
    if kind == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        compare_type=True,
        render_item=_render_item,
        # SQLite cannot ALTER constraints: revisions change tables in batch mode, which
        # rebuilds the table on SQLite and is a plain ALTER on PostgreSQL.
        render_as_batch=True,
        # One transaction for the whole upgrade, on SQLite too (Alembic's default there is
        # a transaction per statement): the write lock taken at its start serializes
        # processes upgrading one file at once, where the second found the version table
        # still empty and created the tables again.
        transactional_ddl=True,
    )


def run_migrations_offline() -> None:
    context.configure(
        url=_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = make_engine(_url())
    try:
        with engine.connect() as connection:
            _configure(connection)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
