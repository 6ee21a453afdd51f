"""The inbox: every inbound update, stored before the channel acknowledges it.

Two ways in, one promise (each stored update is applied exactly once):

- handled at once (a webhook request, the console): ``begin`` writes the update's row as
  applied in the transaction that applies it. Nothing is acknowledged before that commit;
  if the process dies first, the channel delivers the update again. A second delivery finds
  the row and is skipped (``begin`` returns False), also when two workers get it at once:
  the second insert waits for the first transaction and then finds the row.
- stored first (long polling): ``store`` writes a batch ``pending`` with each raw update
  and commits before the next poll confirms it to the channel; ``claim`` later takes the
  oldest pending update of a lane (locked, skipping those another worker holds) for the
  transaction that applies it and marks it with ``begin``.

Rows of handled updates are purged after ``RETENTION`` (Telegram redelivers for a day at
most); a pending, failed or unreadable update keeps its payload until then.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, exists, func, select, update
from sqlalchemy.orm import Session, aliased

from hideseek_chat.store.config import dialect_insert
from hideseek_chat.store.models import InboxRow, InboxStatus

#: Handled updates are remembered this long (redeliveries come within a day).
RETENTION = timedelta(days=2)
#: An update whose handler raised is tried this often before it is left as failed.
MAX_ATTEMPTS = 3


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

    def begin(self, update_id: str, lane: str | None, now: datetime) -> bool:
        """Record ``update_id`` as applied by this transaction; False when it was handled
        already (a redelivery), which the caller must then leave alone.

        A pending row (a stored batch) is taken over; anything else means handled."""
        insert = dialect_insert(self.session)
        statement = (
            insert(InboxRow)
            .values(
                update_id=update_id,
                lane=lane,
                status=InboxStatus.APPLIED,
                received_at=now,
                attempts=1,
            )
            .on_conflict_do_nothing(index_elements=[InboxRow.update_id])
            .returning(InboxRow.id)
        )
        if self.session.execute(statement).first() is not None:
            self._begun.add(update_id)
            return True
        row = self.session.scalar(
            select(InboxRow).where(InboxRow.update_id == update_id).with_for_update()
        )
        if row is None or row.status != InboxStatus.PENDING:
            return False
        row.status, row.payload = InboxStatus.APPLIED, None
        row.attempts += 1
        self._begun.add(update_id)
        return True

    def is_processed(self, update_id: str) -> bool:
        """Whether ``update_id`` was handled (applied, refused, failed or unreadable)."""
        status = self.session.scalar(select(InboxRow.status).where(InboxRow.update_id == update_id))
        return status is not None and status != InboxStatus.PENDING

    def mark_processed(self, update_id: str, now: datetime, game_id: int | None = None) -> None:
        """Remember ``update_id`` as applied (a no-op when ``begin`` did in this transaction)."""
        if update_id in self._begun:
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
            {
                "update_id": update_id,
                "lane": lane,
                "status": InboxStatus.PENDING,
                "received_at": now,
                "payload": payload,
                "attempts": 0,
            }
            for update_id, lane, payload in updates
        ]
        if not rows:
            return set()
        insert = dialect_insert(self.session)
        statement = (
            insert(InboxRow)
            .values(rows)
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

    def claim(self, update_id: str) -> Stored | None:
        """Lock the pending update ``update_id`` for this transaction (None when another
        worker holds it or it was handled meanwhile)."""
        row = self.session.scalar(
            select(InboxRow)
            .where(InboxRow.update_id == update_id, InboxRow.status == InboxStatus.PENDING)
            .with_for_update(skip_locked=True)
        )
        return None if row is None else _stored(row)

    def count(self, status: InboxStatus) -> int:
        """How many updates stand at ``status`` (metrics, tests)."""
        return len(self.session.scalars(select(InboxRow.id).where(InboxRow.status == status)).all())

    def purge(self, before: datetime) -> int:
        """Forget updates received before ``before``; return how many."""
        result = self.session.execute(delete(InboxRow).where(InboxRow.received_at < before))
        return int(getattr(result, "rowcount", 0) or 0)

    def give_up(self, update_id: str) -> None:
        """Leave a pending update that keeps failing as failed (its payload kept)."""
        self.session.execute(
            update(InboxRow)
            .where(InboxRow.update_id == update_id)
            .values(status=InboxStatus.FAILED, attempts=InboxRow.attempts + 1)
        )


def _stored(row: InboxRow) -> Stored:
    return Stored(row.id, row.update_id, row.lane, row.payload, row.attempts)
