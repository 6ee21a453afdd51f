"""The rows of a prebuilt Core statement, fetched straight from the driver's cursor.

The tracker ping's two statements run on every ping. Through ``Connection.execute`` a
quarter of their CPU goes to the result's set-up (the cursor's description, a column
object per column, the result metadata) rather than to the query. ``first_row`` compiles
a statement once per dialect, with its bind and result processors (so a ``UTCDateTime`` or
an enum column converts as it does through SQLAlchemy), then runs it on the session's own
connection and transaction and reads one plain tuple.

It takes the session's ``Connection`` or the driver connection a ``UnitSession`` lent
(``store.session``, which spares the transaction SQLAlchemy's bookkeeping). It falls back to
``Connection.execute`` when anyone listens to cursor executions (a test or
``bench/bench_store.py`` counting statements), so nothing is hidden from them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Select
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Session
from sqlalchemy.sql.expression import ReturnsRows

from hideseek_chat.store.session import Lent, UnitSession, driver_error

Processor = Callable[[Any], Any] | None


@dataclass
class _Compiled:
    """A statement compiled for one dialect, with its processors (the result's known once
    the driver has named its columns' types)."""

    statement: Any  # kept, so that its id (the cache's key) is never reused
    sql: str
    construct: Callable[[Mapping[str, Any]], dict[str, Any]]
    binds: tuple[tuple[str, Callable[[Any], Any]], ...]
    columns: tuple[Any, ...]
    results: tuple[Processor, ...] | None = None


_cache: dict[tuple[int, str], _Compiled] = {}


def _compile(statement: Select[Any] | ReturnsRows, dialect: Dialect) -> _Compiled:
    compiled = statement.compile(dialect=dialect)
    if "POSTCOMPILE" in compiled.string or compiled.escaped_bind_names:
        raise ValueError("first_row takes plain named parameters only")
    binds: dict[str, Callable[[Any], Any]] = {}  # by name: a name may be bound twice
    for bind, name in compiled.bind_names.items():
        processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
        if processor is not None:
            binds[name] = processor

    def construct(values: Mapping[str, Any]) -> dict[str, Any]:
        return dict(compiled.construct_params(dict(values)))

    columns = tuple(statement.exported_columns)  # a select's, or what an insert returns
    return _Compiled(statement, compiled.string, construct, tuple(binds.items()), columns)


def _results(prepared: _Compiled, dialect: Dialect, description: Sequence[Any]) -> None:
    """The result processors, for the types the driver reported (``type_code``)."""
    prepared.results = tuple(
        column.type.dialect_impl(dialect).result_processor(dialect, described[1])
        for column, described in zip(prepared.columns, description, strict=True)
    )


def lend(session: Session) -> Connection | Lent:
    """The connection for ``first_row`` and ``all_rows`` in ``session``'s transaction: the
    driver connection a ``UnitSession`` lends, else the session's ``Connection``."""
    return session.lend() if isinstance(session, UnitSession) else session.connection()


def first_row(
    connection: Connection | Lent, statement: Any, values: Mapping[str, Any]
) -> Sequence[Any] | None:
    """The first row ``statement`` returns with ``values`` (None for none), on
    ``connection``'s transaction; through the driver's cursor on PostgreSQL (psycopg)."""
    rows = _rows(connection, statement, values, every=False)
    return rows[0] if rows else None


def all_rows(
    connection: Connection | Lent, statement: Any, values: Mapping[str, Any]
) -> list[Sequence[Any]]:
    """Every row ``statement`` returns with ``values``, as ``first_row`` reads one."""
    return _rows(connection, statement, values, every=True)


def _rows(
    connection: Connection | Lent, statement: Any, values: Mapping[str, Any], every: bool
) -> list[Sequence[Any]]:
    dialect = connection.dialect
    if isinstance(connection, Connection) and (
        dialect.name != "postgresql" or connection.dispatch.before_cursor_execute
    ):
        result = connection.execute(statement, dict(values))
        if every:
            return list(result.all())
        first = result.first()
        return [] if first is None else [first]
    key = (id(statement), dialect.name)
    prepared = _cache.get(key)
    if prepared is None:
        prepared = _cache[key] = _compile(statement, dialect)
    params = prepared.construct(values)
    for name, processor in prepared.binds:
        params[name] = processor(params[name])
    driver = connection.connection.driver_connection
    assert driver is not None
    try:
        with driver.cursor() as cursor:
            cursor.execute(prepared.sql, params)
            found = cursor.fetchall() if every else cursor.fetchmany(1)
            if prepared.results is None and cursor.description is not None:
                _results(prepared, dialect, cursor.description)
    except dialect.loaded_dbapi.Error as error:
        raise driver_error(
            dialect, error, driver, connection.invalidate, prepared.sql, params
        ) from error
    processors = prepared.results
    assert processors is not None or not found
    return [
        tuple(
            value if processor is None else processor(value)
            for value, processor in zip(row, processors or (), strict=True)
        )
        for row in found
    ]
