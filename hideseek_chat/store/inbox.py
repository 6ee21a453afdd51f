"""The inbox: every inbound update, stored before the channel acknowledges it.

Two ways in, one promise (each stored update is applied exactly once):

- handled at once (a webhook request, the console): ``begin`` writes the update's row as
  applied in the transaction that applies it. Nothing is acknowledged before that commit;
  if the process dies first, the channel delivers the update again. A second delivery finds
  the row and is skipped (``begin`` returns False), also when two workers get it at once:
  the second insert waits for the first transaction and then finds the row.
- stored first (long polling): ``store`` writes a batch ``pending`` with each raw update
  and commits before the next poll confirms it to the channel; the channel then applies
  each in its lane (``pending`` and ``next_in_lane`` find those a dead process left), and
  ``begin`` takes the pending row over, locked, in the transaction that applies it.

Rows of handled updates are purged after ``RETENTION`` (Telegram redelivers for a day at
most); a pending, failed or unreadable update keeps its payload until then.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, bindparam, delete, exists, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, aliased

from hideseek_chat.store.config import dialect_insert
from hideseek_chat.store.models import InboxRow, InboxStatus
from hideseek_chat.store.rawrow import all_rows, first_row, lend

#: Handled updates are remembered this long (redeliveries come within a day).
RETENTION = timedelta(days=2)

_INBOX = cast(Table, InboxRow.__table__)


def _begin_statement(insert: Any) -> Any:
    """Insert the update as applied, or take over its pending row; return its id, or no
    row when it was handled already. One statement (a conflict on another worker's
    uncommitted row waits for it, then finds it handled)."""
    return (
        insert(_INBOX)
        .values(
            update_id=bindparam("update_id"),
            lane=bindparam("lane"),
            status=InboxStatus.APPLIED,
            received_at=bindparam("received_at"),
            attempts=1,
        )
        .on_conflict_do_update(
            index_elements=[_INBOX.c.update_id],
            set_={
                "status": InboxStatus.APPLIED,
                "payload": None,
                "attempts": _INBOX.c.attempts + 1,
            },
            where=_INBOX.c.status == InboxStatus.PENDING,
        )
        .returning(_INBOX.c.id)
    )


# Every update handled at once runs this first: built once, executed as plain Core.
_BEGIN = {
    "postgresql": _begin_statement(postgresql.insert),
    "sqlite": _begin_statement(sqlite.insert),
}


def _store_statement(insert: Any) -> Any:
    """Store one pending update unless its id is known; return its id when it was new."""
    return (
        insert(_INBOX)
        .values(
            update_id=bindparam("update_id"),
            lane=bindparam("lane"),
            status=InboxStatus.PENDING,
            received_at=bindparam("received_at"),
            payload=bindparam("payload"),
            attempts=0,
        )
        .on_conflict_do_nothing(index_elements=[_INBOX.c.update_id])
        .returning(_INBOX.c.update_id)
    )


# Every text (and every one-update store) is stored with it: built once, as plain Core.
_STORE = {
    "postgresql": _store_statement(postgresql.insert),
    "sqlite": _store_statement(sqlite.insert),
}
#: The same as a CTE, for a statement that writes the update's change with it (PostgreSQL).
BEGIN_CTE = _begin_statement(postgresql.insert).cte("begun")


class Redelivered(Exception):
    """The update was handled already (found when its deferred ``begin`` ran): change nothing."""


class Unsettled(Exception):
    """A turn run in the unit of work that stored its update did not apply (it was refused,
    failed, or found handled): everything that unit wrote was rolled back with it."""


@dataclass(frozen=True)
class Stored:
    """A pending update: its id, lane and the channel's raw payload."""

    id: int
    update_id: str
    lane: str | None
    payload: str | None
    attempts: int


class Inbox:
    """The inbox inside a unit of work (``uow.updates``)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._begun: set[str] = set()
        self._deferred: dict[str, Any] | None = None

    def begin(self, update_id: str, lane: str | None, now: datetime) -> bool:
        """Record ``update_id`` as applied by this transaction; False when it was handled
        already (a redelivery), which the caller must then leave alone.

        A pending row (a stored batch) is taken over; anything else means handled. One this
        transaction began already (a channel that wrote it when it took the update) is
        begun: True, and nothing runs."""
        if update_id in self._begun:
            return True
        connection = lend(self.session)
        values = {"update_id": update_id, "lane": lane, "received_at": now}
        if first_row(connection, _BEGIN[connection.dialect.name], values) is None:
            return False
        self._begun.add(update_id)
        return True

    def forget_begun(self) -> None:
        """The transaction was rolled back: what it began is no longer written."""
        self._begun.clear()

    def defer(self, update_id: str, lane: str | None, now: datetime) -> bool:
        """``begin`` ``update_id`` with the first change written for it, when that statement
        can carry it (``take_deferred``: a location's ping on PostgreSQL), saving a round
        trip; elsewhere ``begin`` now. The caller must ``begin_deferred`` before it commits
        or settles the update, and treat ``Redelivered`` as a redelivery."""
        if self.session.get_bind().dialect.name != "postgresql":
            return self.begin(update_id, lane, now)
        self._deferred = {"update_id": update_id, "lane": lane, "received_at": now}
        return True

    def take_deferred(self) -> dict[str, Any] | None:
        """The deferred ``begin``'s values for a statement that runs ``BEGIN_CTE`` (None:
        nothing deferred); that statement's caller calls ``begun`` with what it found."""
        deferred, self._deferred = self._deferred, None
        return deferred

    def begun(self, update_id: str, new: bool) -> None:
        """Say how a statement that ran ``BEGIN_CTE`` found ``update_id``; raise
        ``Redelivered`` when it was handled already (the statement then wrote nothing)."""
        if not new:
            raise Redelivered(update_id)
        self._begun.add(update_id)

    def begin_deferred(self) -> bool:
        """Run a deferred ``begin`` now (True when none is left); False: a redelivery."""
        deferred = self.take_deferred()
        if deferred is None:
            return True
        return self.begin(deferred["update_id"], deferred["lane"], deferred["received_at"])

    def is_processed(self, update_id: str) -> bool:
        """Whether ``update_id`` was handled (applied, refused, failed or unreadable)."""
        status = self.session.scalar(select(InboxRow.status).where(InboxRow.update_id == update_id))
        return status is not None and status != InboxStatus.PENDING

    def mark_processed(self, update_id: str, now: datetime, game_id: int | None = None) -> None:
        """Remember ``update_id`` as applied (a no-op when ``begin`` did in this transaction)."""
        if update_id in self._begun:
            return
        if self._deferred is not None and self._deferred["update_id"] == update_id:
            self.begin_deferred()
            return
        self.begin(update_id, None, now)

    def settle(
        self,
        update_id: str,
        status: InboxStatus,
        now: datetime,
        lane: str | None = None,
        payload: str | None = None,
    ) -> None:
        """Write how a handled update ended when its own transaction was rolled back: refused
        (the person was told), failed (kept with ``payload``) or unreadable."""
        insert = dialect_insert(self.session)
        statement = insert(InboxRow).values(
            update_id=update_id,
            lane=lane,
            status=status,
            received_at=now,
            payload=payload,
            attempts=1,
        )
        statement = statement.on_conflict_do_update(
            index_elements=[InboxRow.update_id],
            set_={
                "status": status,
                "payload": func.coalesce(statement.excluded.payload, InboxRow.payload),
                "attempts": InboxRow.attempts + (0 if status == InboxStatus.REFUSED else 1),
            },
        )
        self.session.execute(statement)

    # ------------------------------------------------------------------ stored batches

    def store(self, updates: Iterable[tuple[str, str | None, str]], now: datetime) -> set[str]:
        """Store ``(update_id, lane, payload)`` rows as pending, skipping ids already known;
        return the ids that were new."""
        rows = [
            {"update_id": update_id, "lane": lane, "received_at": now, "payload": payload}
            for update_id, lane, payload in updates
        ]
        if len(rows) == 1:  # a text, a webhook's update: one cached statement
            connection = lend(self.session)
            stored = all_rows(connection, _STORE[connection.dialect.name], rows[0])
            return {row[0] for row in stored}
        if not rows:
            return set()
        insert = dialect_insert(self.session)
        statement = (  # a polled batch: one statement for all, built for its size
            insert(InboxRow)
            .values([{**row, "status": InboxStatus.PENDING, "attempts": 0} for row in rows])
            .on_conflict_do_nothing(index_elements=[InboxRow.update_id])
            .returning(InboxRow.update_id)
        )
        return set(self.session.scalars(statement))

    def pending(self, limit: int = 100) -> list[Stored]:
        """Pending updates that are first in their lane, oldest first (not locked)."""
        earlier = aliased(InboxRow)
        first_in_lane = ~exists().where(
            earlier.lane == InboxRow.lane,
            earlier.status == InboxStatus.PENDING,
            earlier.id < InboxRow.id,
        )
        query = (
            select(InboxRow)
            .where(InboxRow.status == InboxStatus.PENDING, first_in_lane)
            .order_by(InboxRow.id)
            .limit(limit)
        )
        return [_stored(row) for row in self.session.scalars(query)]

    def next_in_lane(self, lane: str) -> Stored | None:
        """The oldest pending update of ``lane`` (not locked)."""
        row = self.session.scalar(
            select(InboxRow)
            .where(InboxRow.lane == lane, InboxRow.status == InboxStatus.PENDING)
            .order_by(InboxRow.id)
            .limit(1)
        )
        return None if row is None else _stored(row)

    def purge(self, before: datetime) -> int:
        """Forget updates received before ``before``; return how many."""
        result = self.session.execute(delete(InboxRow).where(InboxRow.received_at < before))
        return int(getattr(result, "rowcount", 0) or 0)


def _stored(row: InboxRow) -> Stored:
    return Stored(row.id, row.update_id, row.lane, row.payload, row.attempts)
