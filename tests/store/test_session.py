"""``store.session.UnitSession``: a connection lent to prebuilt statements is the session's
one transaction (committed, rolled back and seen by the ORM together), it goes back to the
pool whatever happens, and errors on it are SQLAlchemy's."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, bindparam, event, func, insert, select, text
from sqlalchemy.exc import DBAPIError

from hideseek_chat.store.models import TrackerRow
from hideseek_chat.store.rawrow import first_row, lend
from hideseek_chat.store.session import Lent
from hideseek_chat.store.uow import UnitOfWork, UnitOfWorkFactory

NOW = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)
_ADD = (
    insert(TrackerRow)
    .values(person_ref=bindparam("ref"), token_hash=bindparam("hashed"), created_at=NOW)
    .returning(TrackerRow.id)
)


def _add(connection: Connection | Lent, ref: str) -> int:
    row = first_row(connection, _ADD, {"ref": ref, "hashed": ref.ljust(64, "0")})
    assert row is not None
    return int(row[0])


def _lent(uow: UnitOfWork) -> Lent:
    """The driver connection ``uow``'s session lends (PostgreSQL)."""
    lent = lend(uow.session)
    assert isinstance(lent, Lent)
    return lent


def _stored(engine: Engine) -> list[str]:
    with engine.connect() as connection:
        refs = connection.scalars(select(TrackerRow.person_ref).order_by(TrackerRow.id))
        return list(refs)


def _checked_out(engine: Engine) -> int:
    """Connections the engine's pool has lent out now."""
    return int(engine.pool.checkedout())  # type: ignore[attr-defined]


def _postgres_only(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("nothing is lent off PostgreSQL")


def test_off_postgresql_the_sessions_connection_is_used(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    if engine.dialect.name == "postgresql":
        pytest.skip("SQLite's case")
    with uow_factory() as uow:
        assert lend(uow.session) is uow.session.connection()


def test_a_lent_connection_commits_what_ran_on_it(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    _postgres_only(engine)
    with uow_factory() as uow:
        lent = _lent(uow)
        _add(lent, "tg:1")
        assert _stored(engine) == []  # not before the commit
        uow.commit()
        assert _stored(engine) == ["tg:1"]
        _add(lend(uow.session), "tg:2")  # the same unit of work goes on: a new transaction
    assert _stored(engine) == ["tg:1"]  # left without a commit: rolled back
    assert _checked_out(engine) == 0


def test_what_the_session_does_after_lending_is_the_same_transaction(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    _postgres_only(engine)
    with uow_factory() as uow:
        first = _add(lend(uow.session), "tg:1")
        # The ORM reads the lent connection's uncommitted row, then flushes its own.
        assert uow.session.get(TrackerRow, first) is not None
        uow.session.add(TrackerRow(person_ref="tg:2", token_hash="2" * 64, created_at=NOW))
        uow.session.flush()
        pid = uow.session.execute(text("select pg_backend_pid()")).scalar_one()
        lent = _lent(uow)
        assert first_row(lent, select(func.pg_backend_pid()), {}) == (pid,)
        uow.rollback()
        assert _stored(engine) == []  # both rolled back together
        _add(lend(uow.session), "tg:3")
        uow.session.add(TrackerRow(person_ref="tg:4", token_hash="4" * 64, created_at=NOW))
        uow.commit()
    assert _stored(engine) == ["tg:3", "tg:4"]
    assert _checked_out(engine) == 0


def test_a_session_holding_a_connection_lends_that_one(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    _postgres_only(engine)
    with uow_factory() as uow:
        uow.session.execute(select(TrackerRow.id)).all()
        held = uow.session.connection()
        assert lend(uow.session) is held
        _add(lend(uow.session), "tg:1")
        uow.commit()
    assert _stored(engine) == ["tg:1"]


def test_nothing_is_lent_while_statements_are_counted(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    _postgres_only(engine)
    seen: list[str] = []

    @event.listens_for(engine, "before_cursor_execute")
    def _seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement)

    with uow_factory() as uow:
        connection = lend(uow.session)
        assert isinstance(connection, Connection)
        _add(connection, "tg:1")
        uow.commit()
    assert any("tracker_tokens" in statement for statement in seen)
    event.remove(engine, "before_cursor_execute", _seen)


def test_the_connection_goes_back_when_the_turn_fails(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    _postgres_only(engine)
    with pytest.raises(RuntimeError), uow_factory() as uow:
        _add(lend(uow.session), "tg:1")
        uow.session.get(TrackerRow, 1)  # joined too
        raise RuntimeError("the handler broke")
    assert _checked_out(engine) == 0
    with pytest.raises(DBAPIError), uow_factory() as uow:
        _add(lend(uow.session), "tg:1")
        _add(lend(uow.session), "tg:1")  # the same hash twice: unique
    assert _checked_out(engine) == 0
    assert _stored(engine) == []
    with uow_factory() as uow:  # the pooled connection is usable again
        _add(lend(uow.session), "tg:1")
        uow.commit()
    assert _stored(engine) == ["tg:1"]


def test_a_connection_lost_before_the_commit_is_sqlalchemys_error(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    _postgres_only(engine)
    with uow_factory() as uow:
        lent = lend(uow.session)
        _add(lent, "tg:1")
        pid = first_row(lent, select(func.pg_backend_pid()), {})
        assert pid is not None
        with engine.begin() as other:
            other.execute(select(func.pg_terminate_backend(pid[0])))
        with pytest.raises(DBAPIError) as raised:
            uow.commit()
        assert raised.value.connection_invalidated
    assert _checked_out(engine) == 0
    assert _stored(engine) == []
    with uow_factory() as uow:  # a new connection replaces the lost one
        _add(lend(uow.session), "tg:2")
        uow.commit()
    assert _stored(engine) == ["tg:2"]


def test_a_unit_of_work_entered_again_makes_new_repositories(
    uow_factory: UnitOfWorkFactory,
) -> None:
    uow = uow_factory()
    with uow:
        pings, session = uow.pings, uow.session
        assert uow.pings is pings  # made once in a unit of work
    with uow:
        assert uow.session is not session and uow.pings is not pings
        assert uow.pings.session is uow.session


def test_an_invalidated_session_drops_the_lent_connection(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    _postgres_only(engine)
    with uow_factory() as uow:
        lent = _lent(uow)
        _add(lent, "tg:1")
        pid = first_row(lent, select(func.pg_backend_pid()), {})
        uow.session.invalidate()
        assert lent.connection.dbapi_connection is None  # closed, not back in the pool
        assert _checked_out(engine) == 0
        again = lend(uow.session)
        assert isinstance(again, Lent)
        assert first_row(again, select(func.pg_backend_pid()), {}) != pid
    assert _stored(engine) == []


def _pid(connection: Connection | Lent) -> int:
    row = first_row(connection, select(func.pg_backend_pid()), {})
    assert row is not None
    return int(row[0])


def test_the_connection_goes_back_at_commit_and_rollback(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    _postgres_only(engine)
    with uow_factory() as uow:  # as a plain session's: a failing turn settles in a second one
        _add(lend(uow.session), "tg:1")
        uow.commit()
        assert _checked_out(engine) == 0
        _add(lend(uow.session), "tg:2")
        uow.session.get(TrackerRow, 1)  # joined
        uow.rollback()
        assert _checked_out(engine) == 0
    assert _stored(engine) == ["tg:1"]


@pytest.mark.parametrize("joined", [False, True])
def test_after_a_lost_connection_and_a_rollback_the_unit_of_work_goes_on(
    engine: Engine, uow_factory: UnitOfWorkFactory, joined: bool
) -> None:
    _postgres_only(engine)
    with uow_factory() as uow:
        pid = _pid(lend(uow.session))
        if joined:
            uow.session.get(TrackerRow, 1)
        with engine.begin() as other:
            other.execute(select(func.pg_terminate_backend(pid)))
        with pytest.raises(DBAPIError):
            _pid(lend(uow.session))
        uow.rollback()
        _add(lend(uow.session), "tg:1")  # a new connection, not the lost one
        uow.session.add(TrackerRow(person_ref="tg:2", token_hash="2" * 64, created_at=NOW))
        uow.session.flush()
        assert uow.session.execute(select(func.pg_backend_pid())).scalar_one() == _pid(
            lend(uow.session)
        )
        uow.commit()
    assert _stored(engine) == ["tg:1", "tg:2"]
    assert _checked_out(engine) == 0


def test_a_database_that_cannot_be_reached_raises_sqlalchemys_error(engine: Engine) -> None:
    _postgres_only(engine)
    from sqlalchemy.exc import OperationalError

    from hideseek_chat.store import make_engine, unit_of_work_factory

    away = make_engine(
        engine.url.set(host="127.0.0.1", port=1).render_as_string(hide_password=False),
        connect_args={"connect_timeout": 2},
    )
    with pytest.raises(OperationalError), unit_of_work_factory(away)() as uow:
        lend(uow.session)


def test_a_savepoint_after_lending_covers_what_runs_in_it(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    _postgres_only(engine)
    with uow_factory() as uow:
        _add(lend(uow.session), "tg:1")
        savepoint = uow.session.begin_nested()
        _add(lend(uow.session), "tg:2")
        uow.session.add(TrackerRow(person_ref="tg:3", token_hash="3" * 64, created_at=NOW))
        uow.session.flush()
        savepoint.rollback()
        _add(lend(uow.session), "tg:4")
        uow.commit()
    assert _stored(engine) == ["tg:1", "tg:4"]
    with uow_factory() as uow:  # a savepoint begun first: nothing is lent inside it
        uow.session.execute(select(TrackerRow.id)).all()
        savepoint = uow.session.begin_nested()
        assert isinstance(lend(uow.session), Connection)
        assert _checked_out(engine) == 1
        savepoint.rollback()


def test_an_explicit_transaction_commits_what_was_lent(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    _postgres_only(engine)
    with uow_factory() as uow:
        with uow.session.begin():
            _add(lend(uow.session), "tg:1")
        _add(lend(uow.session), "tg:2")
        with uow.session.begin():
            _add(lend(uow.session), "tg:3")  # lent before: this transaction holds it
    assert _stored(engine) == ["tg:1", "tg:2", "tg:3"]
