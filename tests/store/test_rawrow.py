"""``store.rawrow.first_row``: the same row as ``Connection.execute`` gives (types converted
alike), in the caller's transaction, errors wrapped as SQLAlchemy's, and statement
listeners still see every statement."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import Engine, bindparam, delete, event, insert, literal, select
from sqlalchemy.exc import DBAPIError

from hideseek_chat.rules.state import Phase
from hideseek_chat.store.models import GameRow, TrackerRow
from hideseek_chat.store.rawrow import first_row

NOW = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)

_PHASE = GameRow.phase.type
_TOKEN = select(
    TrackerRow.id,
    TrackerRow.created_at,
    TrackerRow.last_heard_at,
    literal(Phase.SEEKING, type_=_PHASE).label("phase"),
    (literal(2.5) * bindparam("factor")).label("speed"),
    (bindparam("phase", type_=_PHASE) == literal(Phase.SEEKING, type_=_PHASE)).label("same"),
).where(TrackerRow.person_ref == bindparam("ref"))


def _token(engine: Engine) -> None:
    with engine.begin() as connection:
        connection.execute(
            insert(TrackerRow).values(person_ref="tg:42", token_hash="ab" * 32, created_at=NOW)
        )


def test_a_row_is_the_one_execute_reads(engine: Engine) -> None:
    _token(engine)
    values: dict[str, Any] = {"ref": "tg:42", "factor": 2, "phase": Phase.SEEKING}
    with engine.begin() as connection:
        expected = connection.execute(_TOKEN, values).first()
        assert expected is not None
        for _ in range(7):  # past psycopg's threshold for preparing a statement
            row = first_row(connection, _TOKEN, values)
            assert row is not None and tuple(row) == tuple(expected)
        assert row[1] == NOW and row[1].tzinfo is not None and row[2] is None
        assert isinstance(row[3], Phase) and row[4] == 5.0 and row[5]
        assert first_row(connection, _TOKEN, {**values, "ref": "tg:7"}) is None


def test_it_runs_in_the_callers_transaction(engine: Engine) -> None:
    _token(engine)
    values: dict[str, Any] = {"ref": "tg:42", "factor": 1, "phase": Phase.HIDING}
    with engine.connect() as connection:
        connection.execute(delete(TrackerRow))
        assert first_row(connection, _TOKEN, values) is None
        connection.rollback()
        row = first_row(connection, _TOKEN, values)
        assert row is not None and not row[5]


def test_statement_listeners_see_it(engine: Engine) -> None:
    _token(engine)
    seen: list[str] = []

    @event.listens_for(engine, "before_cursor_execute")
    def _seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement)

    with engine.begin() as connection:
        assert first_row(connection, _TOKEN, {"ref": "tg:42", "factor": 1, "phase": Phase.SEEKING})
    assert [s for s in seen if "tracker_tokens" in s] == seen[-1:]  # after SQLite's BEGIN


def test_a_database_error_is_sqlalchemys(engine: Engine) -> None:
    broken = select(literal(1) / bindparam("zero"))
    with engine.begin() as connection, pytest.raises(DBAPIError):
        if connection.dialect.name == "sqlite":
            pytest.skip("SQLite divides by zero quietly (NULL)")
        first_row(connection, broken, {"zero": 0})
