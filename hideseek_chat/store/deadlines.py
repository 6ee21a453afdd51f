"""Deadlines across games: what is due, and claiming one game's due deadlines.

Deadline rows are part of each game's state (``deadlines`` table); this module only reads
them across games for the scheduler.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, func, select, update
from sqlalchemy.orm import Session

from hideseek_chat.rules.state import DeadlineKind
from hideseek_chat.store.models import DeadlineRow, GameRow


@dataclass(frozen=True)
class DueDeadline:
    game_id: int
    deadline_id: int
    kind: DeadlineKind
    due_at: datetime


def _open_due(now: datetime) -> Select[int, int, DeadlineKind, datetime | None]:
    return (
        select(DeadlineRow.game_id, DeadlineRow.id, DeadlineRow.kind, DeadlineRow.due_at)
        .where(DeadlineRow.done.is_(False), DeadlineRow.due_at <= now)
        .order_by(DeadlineRow.due_at, DeadlineRow.game_id, DeadlineRow.id)
    )


def _due(
    game_id: int, deadline_id: int, kind: DeadlineKind, due_at: datetime | None
) -> DueDeadline:
    assert due_at is not None  # the query only selects deadlines with a due time
    return DueDeadline(game_id, deadline_id, kind, due_at)


class Deadlines:
    def __init__(self, session: Session) -> None:
        self.session = session

    def due(self, now: datetime) -> list[DueDeadline]:
        """Open deadlines of every game due at ``now``, oldest first."""
        return [_due(*row) for row in self.session.execute(_open_due(now))]

    def next_due_at(self) -> datetime | None:
        """When the earliest open deadline of any game falls due (to sleep until then)."""
        return self.session.scalar(
            select(func.min(DeadlineRow.due_at)).where(
                DeadlineRow.done.is_(False), DeadlineRow.due_at.is_not(None)
            )
        )

    def claim_next(self, now: datetime) -> DueDeadline | None:
        """Lock the game owning the oldest due deadline and return that deadline.

        On PostgreSQL the game row is taken ``FOR UPDATE SKIP LOCKED``: games another
        process is working on are skipped, and the lock serializes this game's updates
        until the unit of work ends. On SQLite the transaction already holds the write lock.
        """
        query = (
            _open_due(now)
            .join(GameRow, GameRow.id == DeadlineRow.game_id)
            .limit(1)
            .with_for_update(of=GameRow, skip_locked=True)
        )
        row = self.session.execute(query).first()
        return None if row is None else _due(*row)

    def claim_games(self, now: datetime, limit: int) -> list[int]:
        """Lock up to ``limit`` games with due deadlines, those due longest first, and return
        their ids (as :meth:`claim_next`, for a batch: each game once)."""
        query = (
            _open_due(now)
            .join(GameRow, GameRow.id == DeadlineRow.game_id)
            .limit(limit)
            .with_for_update(of=GameRow, skip_locked=True)
        )
        rows = self.session.execute(query).all()
        return list(dict.fromkeys(row[0] for row in rows))

    def close(self, game_id: int, deadline_id: int) -> None:
        """Mark one deadline done in its row, leaving the rest of the game's state alone (a
        deadline the scheduler could not apply: see ``Scheduler._fire_claimed``)."""
        self.session.execute(
            update(DeadlineRow)
            .where(DeadlineRow.game_id == game_id, DeadlineRow.id == deadline_id)
            .values(done=True)
        )
