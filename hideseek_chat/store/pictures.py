"""Picture jobs: the seekers' map and the hider's zone, drawn off the update path.

``PictureJobs.queue`` coalesces: while a job of the same game and kind still waits, no
other is queued, so two answers in quick succession make one picture (drawn from the state
when it runs). ``claim_next`` hands a queued job to exactly one process, as map jobs do.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from hideseek_chat.store.jobclaim import claimed_rows
from hideseek_chat.store.models import MapJobStatus, PictureJobRow, PictureKind

#: A job claimed this often without finishing is given up (it failed every time).
MAX_ATTEMPTS = 3
#: A drawn picture is kept this long after a newer one of its game and kind was drawn (its
#: notice is long sent by then); only the newest stays for good.
KEEP_OLDER = timedelta(days=1)


@dataclass(frozen=True)
class PictureJob:
    id: int
    game_id: int
    kind: PictureKind
    status: MapJobStatus
    round_number: int | None
    cause: str
    attempts: int
    created_at: datetime


def _job(row: PictureJobRow) -> PictureJob:
    return PictureJob(
        row.id,
        row.game_id,
        row.kind,
        row.status,
        row.round_number,
        row.cause,
        row.attempts,
        row.created_at,
    )


class PictureJobs:
    def __init__(self, session: Session) -> None:
        self.session = session

    def queue(
        self,
        game_id: int,
        kind: PictureKind,
        round_number: int | None,
        cause: str,
        now: datetime,
    ) -> int | None:
        """Queue a ``kind`` picture of ``game_id``; return its id, or None when ``cause``
        asked for one before or a job of the game and kind still waits (it will draw the
        newest state anyway)."""
        asked = self.session.scalar(
            select(PictureJobRow.id).where(
                PictureJobRow.game_id == game_id,
                PictureJobRow.kind == kind,
                or_(
                    PictureJobRow.cause == cause[:64],
                    PictureJobRow.status == MapJobStatus.QUEUED,
                ),
            )
        )
        if asked is not None:
            return None
        row = PictureJobRow(
            game_id=game_id,
            kind=kind,
            status=MapJobStatus.QUEUED,
            round_number=round_number,
            cause=cause[:64],
            attempts=0,
            created_at=now,
        )
        self.session.add(row)
        self.session.flush()
        return row.id

    def claim_next(self, now: datetime, stale: timedelta) -> PictureJob | None:
        """Move the oldest claimable job to running for this caller and return it (commit
        to make the claim visible); None when there is none. One left running since before
        ``now - stale`` is claimable again; one claimed ``MAX_ATTEMPTS`` times fails."""
        for row in claimed_rows(self.session, PictureJobRow, now, stale):
            if row.attempts > MAX_ATTEMPTS:
                self.finish(row.id, now, error_key="picture.gave_up")
                continue
            return _job(row)
        return None

    def finish(
        self,
        job_id: int,
        now: datetime,
        *,
        picture: bytes | None = None,
        error_key: str | None = None,
    ) -> None:
        """Mark the job done with its ``picture`` (None: nothing to draw) or failed; the
        game's pictures of that kind drawn before ``KEEP_OLDER`` ago are let go."""
        row = self.session.get(PictureJobRow, job_id)
        if row is None:
            raise LookupError(job_id)
        row.status = MapJobStatus.FAILED if error_key else MapJobStatus.DONE
        row.picture = picture
        row.error_key = error_key
        row.finished_at = now
        if picture is not None:  # the older pictures of the game go, a while after
            self.session.execute(
                update(PictureJobRow)
                .where(
                    PictureJobRow.game_id == row.game_id,
                    PictureJobRow.kind == row.kind,
                    PictureJobRow.id < job_id,
                    PictureJobRow.finished_at < now - KEEP_OLDER,
                    PictureJobRow.picture.is_not(None),
                )
                .values(picture=None)
                .execution_options(synchronize_session=False)
            )
        self.session.flush()

    def picture(self, job_id: int) -> bytes | None:
        """The PNG job ``job_id`` drew (None: none, or not yet)."""
        return self.session.scalar(select(PictureJobRow.picture).where(PictureJobRow.id == job_id))

    def get(self, job_id: int) -> PictureJob | None:
        row = self.session.get(PictureJobRow, job_id)
        return None if row is None else _job(row)
