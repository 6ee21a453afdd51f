"""Claiming background jobs (map jobs, picture jobs): one process takes each, a dead
process's job is taken again once it has gone stale."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, or_, select, update
from sqlalchemy.orm import Session

from hideseek_chat.store.models import MapJobStatus

#: Rows looked at in one claim: another process may win a row, then the next is tried.
CLAIM_TRIES = 10


def claimed_rows(session: Session, model: Any, now: datetime, stale: timedelta) -> Iterator[Any]:
    """Claim the oldest claimable row of the job table ``model`` (queued, or running since
    before ``now - stale``): move it to running with one attempt more, and yield it. The
    caller takes the first it keeps; asked for more, the next one is claimed."""
    claimable = or_(
        model.status == MapJobStatus.QUEUED,
        and_(model.status == MapJobStatus.RUNNING, model.claimed_at < now - stale),
    )
    for _ in range(CLAIM_TRIES):
        job_id = session.scalar(
            select(model.id)
            .where(claimable)
            .order_by(model.id)
            .limit(1)
            .with_for_update(skip_locked=True)
        )
        if job_id is None:
            return
        claimed = session.execute(
            update(model)
            .where(model.id == job_id, claimable)
            .values(status=MapJobStatus.RUNNING, claimed_at=now, attempts=model.attempts + 1)
            .execution_options(synchronize_session=False)
        )
        if claimed.rowcount != 1:  # type: ignore[attr-defined]
            continue
        row = session.get(model, job_id, populate_existing=True)
        assert row is not None
        yield row
