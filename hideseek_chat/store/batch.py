"""Many games read and written at once, without ORM objects: the timers' batch path.

A burst of due timers touches a few rows of each of many games (the game, a deadline, a
round). Loading every game's rows as ORM objects (a hundred cards each) and flushing them
one game at a time costs tens of milliseconds a game; here the rows are read as plain
tuples, one query per table for the whole batch, and each game's change is worked out
from its state before and after (``state_rows``) and written as grouped Core statements.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from sqlalchemy import Select, Table, and_, bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from hideseek_chat.rules.state import GameState
from hideseek_chat.store.mapping import KEYS, STATE_TABLES, state_from_rows, state_rows
from hideseek_chat.store.models import Base, GameRow


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
    columns = [attr.columns[0].label(attr.key) for attr in model.__mapper__.column_attrs]
    return select(*columns).where(_id_column(model).in_(bindparam("games", expanding=True)))


_COLUMNS = {model: _columns(model) for model in STATE_TABLES}
_READ_MANY = {model: _read_many(model) for model in STATE_TABLES}


def read_states(session: Session, game_ids: Iterable[int]) -> dict[int, GameState]:
    """The states of the games ``game_ids`` (those that exist), one query per table."""
    wanted = list(dict.fromkeys(game_ids))
    if not wanted:
        return {}
    grouped: dict[int, dict[type[Base], list[Any]]] = {
        game_id: {model: [] for model in STATE_TABLES} for game_id in wanted
    }
    for model, statement in _READ_MANY.items():
        owner = "id" if model is GameRow else "game_id"
        for row in session.execute(statement, {"games": wanted}):
            grouped[getattr(row, owner)][model].append(row)
    return {
        game_id: state_from_rows(tables)  # type: ignore[arg-type]  # rows read like models
        for game_id, tables in grouped.items()
        if tables[GameRow]
    }


class StagedWrites:
    """Changes of several games, gathered with :meth:`stage` and written by :meth:`write`
    (inside the caller's unit of work; nothing is committed here)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._inserts: dict[type[Base], list[dict[str, Any]]] = {}
        self._deletes: dict[type[Base], list[dict[str, Any]]] = {}
        self._updates: dict[tuple[type[Base], tuple[str, ...]], list[dict[str, Any]]] = {}

    def stage(self, game_id: int, before: GameState, after: GameState) -> None:
        """Gather what turns the stored ``before`` (as read) into ``after``."""
        have = state_rows(game_id, before)
        want = state_rows(game_id, after)
        for model in STATE_TABLES:
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
                self._deletes.setdefault(model, []).append(
                    {f"k_{n}": old[key][n] for n in keys}
                )

    def write(self) -> None:
        """Run the gathered statements: deletes (children first), updates, inserts (parents
        first), each kind as one executemany per table and set of columns."""
        for model in reversed(STATE_TABLES):
            if rows := self._deletes.get(model):
                self.session.execute(_delete(model), rows)
        for (model, changed), rows in self._updates.items():
            self.session.execute(_update(model, changed), rows)
        for model in STATE_TABLES:
            if rows := self._inserts.get(model):
                self.session.execute(insert(_table(model)), [_by_column(model, r) for r in rows])
        self._inserts.clear()
        self._deletes.clear()
        self._updates.clear()


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


__all__ = ["StagedWrites", "read_states"]
