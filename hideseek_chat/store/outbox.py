"""Delivering the outbox: each message sent and marked sent in its own transaction.

``deliver`` locks one unsent message (skipping messages another sender holds, on
PostgreSQL), calls ``send`` with it, marks it sent and commits. If the process dies after
``send`` returned but before the commit, that one message is sent again on restart: the
outbox never loses a message and repeats at most the one in flight. A ``send`` that raises
leaves the message unsent (and stops this run) so it is retried.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from hideseek_chat.store.log import OutboxMessage
from hideseek_chat.store.uow import UnitOfWorkFactory


def deliver(
    uow_factory: UnitOfWorkFactory,
    send: Callable[[OutboxMessage], None],
    now: datetime,
    limit: int | None = None,
) -> int:
    """Send unsent messages oldest first (at most ``limit``); return how many were sent."""
    sent = 0
    while limit is None or sent < limit:
        with uow_factory() as uow:
            batch = uow.outbox.pending(limit=1, for_update=True)
            if not batch:
                break
            send(batch[0])
            uow.outbox.mark_sent(batch[0].id, now)
            uow.commit()
        sent += 1
    return sent
