"""The unit of work's session, which lends its driver connection to prebuilt statements.

A live-location edit is one prebuilt statement (``ping_sql.RECORD``, run by
``rawrow.first_row``) and a commit. Through the ORM ``Session`` that transaction also pays
for the session's transaction objects, a ``Connection`` with its own ``Transaction``, and
their events: about 0.16 ms of CPU, a sixth of what the whole edit takes (see
``bench/bench_store.py``). ``UnitSession.lend`` gives such a statement the pooled driver
connection itself on PostgreSQL, and commits it with the driver's own commit.

It stays one transaction whatever runs after: once a connection is lent, everything the
session does later (ORM reads, a flush, Core statements) runs on that same connection,
wrapped in a ``Connection`` the session joins (``get_bind``), and the session's commit is
the driver's. A session that already holds a connection lends that one, as
``Session.connection`` would; so does one inside a transaction begun explicitly or a
savepoint, whose ends are the session's own (and one begun after lending takes the lent
connection in). The connection goes back to the pool at commit and rollback, as a plain
session's does, so a connection lost meanwhile is never lent again. Off PostgreSQL, or
while anyone listens to cursor executions (a test counting statements), nothing is lent
and the session works as a plain one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.engine import Dialect
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.orm import Session, SessionTransaction, SessionTransactionOrigin
from sqlalchemy.pool import PoolProxiedConnection


def driver_error(
    dialect: Dialect,
    error: Any,
    driver: Any,
    invalidate: Callable[[BaseException], None] | None,
    statement: str | None,
    params: Any,
) -> StatementError:
    """``error``, raised by the driver connection ``driver`` (None: while connecting), as
    SQLAlchemy raises it: a ``DBAPIError`` (so that a caller's ``OperationalError``
    handling sees it), the connection invalidated when it is gone."""
    gone = dialect.is_disconnect(error, driver, None)
    if gone and invalidate is not None:
        invalidate(error)
    return DBAPIError.instance(
        statement, params, error, dialect.loaded_dbapi.Error, connection_invalidated=gone
    )


class Lent:
    """A pooled driver connection lent for prebuilt statements (what ``rawrow`` needs of a
    ``Connection``: the dialect, the driver connection, invalidation)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        #: in autocommit (``UnitSession.lend_alone``) until it is given back
        self.alone = False
        self.dialect = dialect = engine.dialect
        try:
            self.connection: PoolProxiedConnection = engine.raw_connection()
        except dialect.loaded_dbapi.Error as error:  # as engine.connect() raises it
            raise driver_error(dialect, error, None, None, None, None) from error

    @property
    def driver(self) -> DBAPIConnection:
        driver = self.connection.dbapi_connection
        assert driver is not None, "a lent connection is used after it was given back"
        return driver

    def invalidate(self, error: BaseException) -> None:
        self.connection.invalidate(error)

    def commit(self) -> None:
        self._end(self.driver, "COMMIT")

    def rollback(self) -> None:
        driver = self.connection.dbapi_connection
        if driver is not None:  # else invalidated: nothing is open
            self._end(driver, "ROLLBACK")

    def _end(self, driver: DBAPIConnection, how: str) -> None:
        """The driver's ``commit`` or ``rollback``, its errors as SQLAlchemy raises them."""
        try:
            driver.commit() if how == "COMMIT" else driver.rollback()
        except self.dialect.loaded_dbapi.Error as error:
            raise driver_error(self.dialect, error, driver, self.invalidate, how, None) from error


class UnitSession(Session):
    """The ``Session`` of a unit of work (``config.session_factory``): a plain session
    that can also ``lend`` its transaction's connection (see the module)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lent: Lent | None = None
        self._joined: Connection | None = None

    def lend(self) -> Connection | Lent:
        """The connection of this session's transaction for a prebuilt statement: the
        pooled driver connection (checked out now if the session holds none), or the
        session's ``Connection`` when it holds one already, when the transaction was begun
        explicitly or is a savepoint (their ends are the session's own), or when nothing
        can be lent."""
        if self._lent is not None:
            return self._lent
        bind = self._lendable()
        transaction = self._transaction
        if bind is None or (
            transaction is not None
            and (
                transaction._connections
                or transaction.nested
                or transaction.origin is not SessionTransactionOrigin.AUTOBEGIN
            )
        ):
            return self.connection()
        self._lent = Lent(bind)
        return self._lent

    def _lendable(self) -> Engine | None:
        """The engine whose connections this session may lend: PostgreSQL's, while nobody
        listens to cursor executions; None otherwise."""
        bind = self.bind
        if (
            not isinstance(bind, Engine)
            or bind.dialect.name != "postgresql"
            or bind.dispatch.before_cursor_execute
        ):
            return None
        return bind

    def lend_alone(self) -> bool:
        """Lend the pooled driver connection in autocommit, so that the one statement this
        session runs next is its own transaction: no BEGIN and no COMMIT, two round trips
        fewer. False, with nothing changed, when the session has begun anything already or
        nothing can be lent (its statements then share its transaction, as always). The
        connection leaves autocommit when it is given back."""
        if self._lent is not None or self._transaction is not None or self._lendable() is None:
            return False
        lent = self.lend()
        assert isinstance(lent, Lent)
        lent.driver.autocommit = True  # idle: psycopg only notes it
        lent.alone = True
        return True

    def begin(self, nested: bool = False) -> SessionTransaction:
        """As ``Session.begin``; with a connection lent, the transaction (or savepoint)
        holds it from now on, so that its own commit or rollback covers what runs on it."""
        if nested and self._lent is not None:
            self.connection()  # the outer transaction joins the lent connection first
        transaction = super().begin(nested)
        if self._lent is not None:
            self.connection()  # its BEGIN (a no-op for the driver) or SAVEPOINT, now
        return transaction

    def get_bind(self, mapper: Any = None, **kw: Any) -> Engine | Connection:
        """The lent connection, once one is lent, as a ``Connection`` the session joins;
        else the session's engine."""
        if self._lent is None:
            return super().get_bind(mapper, **kw)
        if self._joined is None:
            self._joined = Connection(self._lent.engine, connection=self._lent.connection)
        return self._joined

    def commit(self) -> None:
        if self._transaction is not None:
            super().commit()  # joined to a lent connection: the driver's commit, for all
        if self._lent is not None:
            self._lent.commit()  # what ran on the lent connection alone (else: a no-op)
            self._give_back()  # as a plain session gives its connection back at commit

    def rollback(self) -> None:
        try:
            if self._transaction is not None:
                super().rollback()
            if self._lent is not None:
                self._lent.rollback()
        finally:
            self._give_back()  # a connection lost meanwhile is not lent again

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._give_back()

    def reset(self) -> None:
        try:
            super().reset()
        finally:
            self._give_back()

    def invalidate(self) -> None:
        if self._lent is not None and self._lent.connection.is_valid:
            self._lent.connection.invalidate()
        try:
            super().invalidate()
        finally:
            self._give_back()

    def _give_back(self) -> None:
        lent, joined = self._lent, self._joined
        self._lent = self._joined = None
        if lent is not None and lent.alone and lent.connection.is_valid:
            try:
                lent.driver.autocommit = False  # back to the pool as it was lent
            except lent.dialect.loaded_dbapi.Error as error:  # lost: not pooled again
                lent.invalidate(error)
        if joined is not None:
            joined.close()  # the pooled connection back, rolled back if anything is open
        elif lent is not None:
            lent.connection.close()
