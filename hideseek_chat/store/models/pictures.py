"""Pictures drawn in the background: the seekers' map after an answer, the hider's zone.

A job is claimed by one process at a time (``status`` queued -> running); its PNG is kept
with it, and the outbox notice that announces it names the job, so the picture is sent
from the store however late the notice is delivered.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import CheckConstraint, ForeignKey, Index, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column

from hideseek_chat.store.models.base import GAME_FK, Base, str_enum
from hideseek_chat.store.models.mapjobs import MapJobStatus


class PictureKind(StrEnum):
    SEEKERS = "seekers"  # the seekers' map of the current round, for the group
    ZONE = "zone"  # the hider's own zone, for the hider only


def _one_of(column: str, values: type[StrEnum]) -> str:
    return f"{column} IN ({', '.join(repr(member.value) for member in values)})"


class PictureJobRow(Base):
    """One picture to draw for a game; ``picture`` is the PNG once drawn."""

    __tablename__ = "picture_jobs"
    __table_args__ = (
        CheckConstraint(_one_of("kind", PictureKind), name="kind"),
        CheckConstraint(_one_of("status", MapJobStatus), name="status"),
        Index("ix_picture_jobs_status_id", "status", "id"),
        Index("ix_picture_jobs_game_id", "game_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"))
    kind: Mapped[PictureKind] = mapped_column(str_enum(PictureKind))
    status: Mapped[MapJobStatus] = mapped_column(str_enum(MapJobStatus))
    #: the round it was asked for: a picture of a round that is over is not drawn
    round_number: Mapped[int | None]
    #: what asked for it (an outbox entry's id, a command): asked twice, queued once
    cause: Mapped[str] = mapped_column(String(64))
    attempts: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime]
    claimed_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    error_key: Mapped[str | None] = mapped_column(String(64))
    picture: Mapped[bytes | None] = mapped_column(LargeBinary)
