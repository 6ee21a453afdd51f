"""Leases: a named job (sending one game's outbox) held by one process at a time.

``take`` is one statement (an insert that, on conflict, takes over only an expired lease or
renews one's own), committed by the caller at once, so holding a lease never holds a row
lock. A process that dies simply lets its leases expire; whatever it was doing is done again
by the next holder (at least once).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, or_
from sqlalchemy.orm import Session

from hideseek_chat.store.config import dialect_insert
from hideseek_chat.store.models import LeaseRow


class Leases:
    """Leases inside a unit of work (``uow.leases``); commit right after ``take``."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def take(self, name: str, holder: str, now: datetime, ttl: timedelta) -> bool:
        """Take or renew the lease ``name`` for ``holder`` until ``now + ttl``; False when
        another holder's lease has not expired."""
        insert = dialect_insert(self.session)
        statement = insert(LeaseRow).values(name=name, holder=holder, expires_at=now + ttl)
        statement = statement.on_conflict_do_update(
            index_elements=[LeaseRow.name],
            set_={"holder": holder, "expires_at": now + ttl},
            where=or_(LeaseRow.expires_at < now, LeaseRow.holder == holder),
        ).returning(LeaseRow.name)
        return self.session.execute(statement).first() is not None

    def release(self, name: str, holder: str) -> None:
        """Give the lease up (only ``holder``'s own)."""
        self.session.execute(
            delete(LeaseRow).where(LeaseRow.name == name, LeaseRow.holder == holder)
        )
