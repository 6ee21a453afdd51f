"""Many games read and written at once, without ORM objects: the timers' batch path.

A burst of due timers touches a few rows of each of many games (the game, a deadline, a
round). Loading every game's rows as ORM objects (a hundred cards each) and flushing them
one game at a time costs tens of milliseconds a game; here the rows are read as plain
tuples, one query per table for the whole batch, and each game's change is worked out
from its state before and after (``state_rows``) and written as grouped Core statements.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Select, Table, and_, bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from hideseek_chat.rules.decisions import Decision
from hideseek_chat.rules.events import Event
from hideseek_chat.rules.state import GameState
from hideseek_chat.store.log import event_values, outbox_values
from hideseek_chat.store.mapping import (
    KEYS,
    STATE_TABLES,
    changed_tables,
    column_keys,
    state_from_tuples,
    state_rows,
)
from hideseek_chat.store.models import Base, EventRow, GameRow, OutboxRow
from hideseek_chat.store.serialize import encode_event
from hideseek_chat.store.state_read import read_postgresql


def _table(model: type[Base]) -> Table:
    return cast(Table, model.__table__)


def _id_column(model: type[Base]) -> Any:
    return model.id if model is GameRow else model.game_id  # type: ignore[attr-defined]


def _columns(model: type[Base]) -> dict[str, str]:
    """Attribute name -> column name, for every column of ``model``."""
    return {attr.key: attr.columns[0].name for attr in model.__mapper__.column_attrs}


def _key_names(model: type[Base]) -> tuple[str, ...]:
    return ("id",) if model is GameRow else ("game_id", *KEYS[model])


def _read_many(model: type[Base]) -> Select[Any]:
    columns = [model.__mapper__.column_attrs[key].columns[0] for key in column_keys(model)]
    return select(*columns).where(_id_column(model).in_(bindparam("games", expanding=True)))


_COLUMNS = {model: _columns(model) for model in STATE_TABLES}
_READ_MANY = {model: _read_many(model) for model in STATE_TABLES}


def read_states(session: Session, game_ids: Iterable[int]) -> dict[int, GameState]:
    """The states of the games ``game_ids`` (those that exist), one query per table (on
    PostgreSQL all of them in one round trip)."""
    wanted = list(dict.fromkeys(game_ids))
    if not wanted:
        return {}
    grouped: dict[int, dict[type[Base], list[Any]]] = {
        game_id: {model: [] for model in STATE_TABLES} for game_id in wanted
    }
    connection = session.connection()  # Core rows: no ORM result machinery
    if connection.dialect.name == "postgresql":  # every table in one round trip
        loaded = read_postgresql(connection, wanted)
    else:
        loaded = {
            model: list(connection.execute(statement, {"games": wanted}).all())
            for model, statement in _READ_MANY.items()
        }
    for model, rows in loaded.items():
        owner = column_keys(model).index("id" if model is GameRow else "game_id")
        for row in rows:  # its values in column_keys order
            grouped[row[owner]][model].append(row)
    return {
        game_id: state_from_tuples(tables) for game_id, tables in grouped.items() if tables[GameRow]
    }


class StagedWrites:
    """Changes of several games, gathered with :meth:`stage` and written by :meth:`write`
    (inside the caller's unit of work; nothing is committed here)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._inserts: dict[type[Base], list[dict[str, Any]]] = {}
        self._deletes: dict[type[Base], list[dict[str, Any]]] = {}
        self._updates: dict[tuple[type[Base], tuple[str, ...]], list[dict[str, Any]]] = {}
        self._events: list[dict[str, Any]] = []
        self._outbox: list[dict[str, Any]] = []

    def stage(self, game_id: int, before: GameState, after: GameState) -> None:
        """Gather what turns the stored ``before`` (as read) into ``after``."""
        tables = changed_tables(before, after)
        have = state_rows(game_id, before, tables)
        want = state_rows(game_id, after, tables)
        for model in tables:
            old, new = have[model], want[model]
            keys = _key_names(model)
            for key, values in new.items():
                previous = old.get(key)
                if previous is None:
                    self._inserts.setdefault(model, []).append(values)
                    continue
                changed = tuple(sorted(n for n, v in values.items() if previous.get(n) != v))
                if changed:
                    params = {f"k_{n}": values[n] for n in keys}
                    params.update({f"v_{n}": values[n] for n in changed})
                    self._updates.setdefault((model, changed), []).append(params)
            for key in old.keys() - new.keys():
                self._deletes.setdefault(model, []).append({f"k_{n}": old[key][n] for n in keys})

    def log(
        self,
        game_id: int,
        event: Event,
        at: datetime,
        decisions: Iterable[Decision],
        round_number: int | None,
    ) -> None:
        """Gather an applied event's log entry and its outbox entries (as ``EventLog.append``
        and ``Outbox.add`` would write them)."""
        self._events.append(event_values(game_id, encode_event(event), at, None))
        self._outbox.extend(outbox_values(game_id, decisions, at, round_number))

    def write(self) -> None:
        """Run the gathered statements: deletes (children first), updates, inserts (parents
        first), each kind as one executemany per table and set of columns; then the log
        entries and the outbox, in the order gathered."""
        for model in reversed(STATE_TABLES):
            if rows := self._deletes.get(model):
                self._each_matched(_delete(model), rows)
        for (model, changed), rows in self._updates.items():
            self._each_matched(_update(model, changed), rows)
        for model in STATE_TABLES:
            if rows := self._inserts.get(model):
                self.session.execute(insert(_table(model)), [_by_column(model, r) for r in rows])
        for model, rows in ((EventRow, self._events), (OutboxRow, self._outbox)):
            if rows:
                self.session.execute(insert(_table(model)), rows)
        self._inserts.clear()
        self._deletes.clear()
        self._updates.clear()
        self._events = []
        self._outbox = []

    def _each_matched(self, statement: Any, rows: list[dict[str, Any]]) -> None:
        """Run an update or delete of stored rows by their keys; raise ``StaleState`` when
        some of them were not there (the state it was worked out from was not the stored
        one: the transaction rolls back rather than losing a change silently)."""
        result = self.session.execute(statement, rows)
        matched = cast(Any, result).rowcount
        if self.session.get_bind().dialect.supports_sane_multi_rowcount and matched != len(rows):
            raise StaleState(f"{len(rows)} stored rows expected, {matched} found")


class StaleState(RuntimeError):
    """A game's rows were not those of the state a change was worked out from."""


def _by_column(model: type[Base], values: Mapping[str, Any]) -> dict[str, Any]:
    names = _COLUMNS[model]
    return {names[key]: value for key, value in values.items()}


def _where_key(model: type[Base]) -> Any:
    table = _table(model)
    names = _COLUMNS[model]
    return and_(*(table.c[names[n]] == bindparam(f"k_{n}") for n in _key_names(model)))


def _update(model: type[Base], changed: tuple[str, ...]) -> Any:
    table = _table(model)
    names = _COLUMNS[model]
    values: dict[str, Any] = {names[n]: bindparam(f"v_{n}") for n in changed}
    return update(table).where(_where_key(model)).values(values)


def _delete(model: type[Base]) -> Any:
    return delete(_table(model)).where(_where_key(model))


_pauses = 0
_pauses_lock = threading.Lock()
_collecting = True  # whether the collector was enabled when the first pause began


@contextmanager
def collection_paused() -> Iterator[None]:
    """Hold off Python's cyclic garbage collector (in the whole process) meanwhile.

    A batch keeps thousands of records alive across many young collections, which moves
    them to the oldest generation and soon sets off full collections that walk the whole
    heap: 35 to 45% of a burst's CPU in a process holding a game's map. Its objects are
    freed by reference counting when the batch ends, so nothing is left for later.
    """
    global _pauses, _collecting
    with _pauses_lock:
        if _pauses == 0:
            _collecting = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pauses_lock:
            _pauses -= 1
            if _pauses == 0 and _collecting:
                gc.enable()


__all__ = ["StagedWrites", "StaleState", "collection_paused", "read_states"]
