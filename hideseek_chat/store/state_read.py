"""A game's state rows read as plain values, without ORM objects: by prebuilt statements,
and on PostgreSQL as one prepared statement for every state table.

``GameRepository.read`` and ``get`` and the timers' batch (``store.batch``) read through it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, Float, Select, bindparam, select
from sqlalchemy.dialects import postgresql

from hideseek_chat.store.mapping import STATE_TABLES
from hideseek_chat.store.models import Base, ChatPrefsRow, GameRow
from hideseek_chat.store.session import Lent, driver_error
from hideseek_chat.store.types import UTCDateTime


def _read_statement(model: type[Base]) -> Select[Any]:
    id_column = model.id if model is GameRow else model.game_id  # type: ignore[attr-defined]
    columns = [attr.columns[0].label(attr.key) for attr in model.__mapper__.column_attrs]
    return select(*columns).where(id_column == bindparam("game"))


#: per state table, its rows of the game ``game``, in ``column_keys`` order
READ = {model: _read_statement(model) for model in STATE_TABLES}


#: A chat's preferences as ``Chats.prefs`` reads them, in this order (``ChatPrefs``' fields).
PREFS_COLUMNS = (
    ChatPrefsRow.language,
    ChatPrefsRow.units,
    ChatPrefsRow.map_name,
    ChatPrefsRow.auto_answer,
    ChatPrefsRow.auto_pictures,
)
#: The chat's preferences, or null when it chose none.
_PREFS = (
    f"(SELECT json_build_array({', '.join(f'p.{c.name}' for c in PREFS_COLUMNS)})"
    " FROM chat_prefs AS p JOIN chats AS c ON c.id = p.chat_id WHERE c.key = %(key)s)"
)
#: How ``_postgresql_read`` finds its games: one by id, a list of ids, a chat's newest.
ONE, MANY, CHAT = "one", "many", "chat"
#: A chat's newest game (its current one), found once for every table's part.
_NEWEST = (
    "WITH newest AS (SELECT g.id FROM games AS g JOIN chats AS c ON c.id = g.chat_id"
    " WHERE c.key = %(key)s ORDER BY g.id DESC LIMIT 1) "
)


@lru_cache(maxsize=3)
def _postgresql_read(games: str) -> tuple[str, list[tuple[type[Base], list[Any]]]]:
    """Every state table's rows of one game (``games``: ``ONE`` by id, ``MANY`` of a list
    of ids, ``CHAT`` the newest of a chat, and the chat's preferences last) as one
    statement (prepared once per connection): one JSON array per table, each row an array
    of its columns in ``column_keys`` order; and per table, its columns' types.
    (``json_build_array`` takes at most 100 arguments: the widest state table has 19
    columns, the tables are 18.)

    One game is matched by ``=``, not ``= ANY``: PostgreSQL then keeps the prepared
    statement's generic plan, while for an array of unknown length it prices the generic plan
    above a plan made for the array it is given, and so plans the statement again on every
    execution (about 0.4 ms of the database's time a read, more than executing it)."""
    match = {
        ONE: "= %(game)s",
        MANY: "= ANY(%(games)s)",
        CHAT: "= (SELECT id FROM newest)",
    }[games]
    quote = postgresql.psycopg.dialect().identifier_preparer.quote
    parts, shapes = [], []
    for model in READ:
        table = model.__table__.name  # type: ignore[attr-defined]
        owner = "id" if model is GameRow else "game_id"
        columns = [attr.columns[0] for attr in model.__mapper__.column_attrs]  # as READ's
        values = ", ".join(f"t.{quote(c.name)}" for c in columns)
        parts.append(
            f"(SELECT coalesce(json_agg(json_build_array({values})), '[]') "
            f"FROM {quote(table)} AS t WHERE t.{owner} {match})"
        )
        shapes.append((model, [c.type for c in columns]))
    if games != CHAT:
        return f"SELECT json_build_array({', '.join(parts)})", shapes
    parts.append(_PREFS)  # every turn that reads its group's game speaks there too
    return f"{_NEWEST}SELECT json_build_array({', '.join(parts)})", shapes


#: per table, how each column's JSON value becomes what SQLAlchemy would have returned
_CONVERTERS: dict[type[Base], list[Any]] = {}


def _converter(kind: Any, dialect: Any) -> Any:
    """A JSON value of a column of type ``kind`` -> its Python value (None stays None)."""
    if isinstance(kind, UTCDateTime):
        return lambda v: None if v is None else datetime.fromisoformat(v).astimezone(UTC)
    if isinstance(kind, Float):  # JSON writes 5.0 as 5
        return lambda v: None if v is None else float(v)
    processor = kind.dialect_impl(dialect).result_processor(dialect, None)
    if processor is None:  # numbers, strings, booleans: JSON's own
        return None
    return lambda v: None if v is None else processor(v)


def read_postgresql(
    connection: Connection | Lent, game_ids: Iterable[int]
) -> dict[type[Base], list[Any]]:
    """The rows of every state table of the games ``game_ids`` in one round trip and one
    prepared statement (JSON built by the database, decoded in C: one result instead of one
    per table), each row a list of its values in ``column_keys`` order."""
    wanted = [int(game_id) for game_id in game_ids]
    sql, shapes = _postgresql_read(MANY if len(wanted) != 1 else ONE)
    arguments = {"games": wanted} if len(wanted) != 1 else {"game": wanted[0]}
    return _decoded(connection, shapes, _fetched(connection, sql, arguments))


def read_postgresql_chat(
    connection: Connection | Lent, chat_key: str
) -> tuple[dict[type[Base], list[Any]], list[Any] | None]:
    """``read_postgresql`` of the chat's newest game (no rows when it has none), with the
    chat's preferences' values (None when it chose none), in the same round trip."""
    sql, shapes = _postgresql_read(CHAT)
    tables = _fetched(connection, sql, {"key": chat_key})
    prefs = tables.pop()
    return _decoded(connection, shapes, tables), prefs


def _fetched(connection: Connection | Lent, sql: str, arguments: dict[str, Any]) -> list[Any]:
    """The statement's one JSON array, decoded, run prepared on the driver's cursor."""
    dialect = connection.dialect
    driver: Any = connection.connection.driver_connection  # psycopg's: it prepares
    try:
        with driver.cursor() as cursor:
            cursor.execute(sql, arguments, prepare=True)
            (tables,) = cursor.fetchone()
    except dialect.loaded_dbapi.Error as error:  # as SQLAlchemy raises it (rawrow's too)
        raise driver_error(dialect, error, driver, connection.invalidate, sql, arguments) from error
    if isinstance(tables, str):  # a connection without psycopg's JSON loader
        tables = json.loads(tables)
    return list(tables)


def _decoded(
    connection: Connection | Lent, shapes: list[tuple[type[Base], list[Any]]], tables: list[Any]
) -> dict[type[Base], list[Any]]:
    """Each table's rows with each column's JSON value made what SQLAlchemy would give."""
    dialect = connection.dialect
    loaded: dict[type[Base], list[Any]] = {}
    for (model, types), rows in zip(shapes, tables, strict=True):
        converters = _CONVERTERS.get(model)
        if converters is None:
            converters = _CONVERTERS[model] = [_converter(kind, dialect) for kind in types]
        pairs = [(i, c) for i, c in enumerate(converters) if c is not None]
        for row in rows:
            for i, convert in pairs:
                row[i] = convert(row[i])
        loaded[model] = rows
    return loaded
