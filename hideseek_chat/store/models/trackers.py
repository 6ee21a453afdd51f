"""Tracker tokens: a person's secret URL for a GPS tracker app (OwnTracks, Traccar, GPSLogger)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, String
from sqlalchemy.orm import Mapped, mapped_column

from hideseek_chat.store.models.base import Base


class TrackerRow(Base):
    """One secret tracker token of a person; only its SHA-256 is kept (``token_hash``).

    A person has at most one token that is not revoked (``store.trackers``); revoking sets
    ``revoked_at`` and keeps the row, so a revoked URL answers 401 like a wrong one.
    ``last_app`` and ``last_heard_at`` say which app was last heard from, and when.
    """

    __tablename__ = "tracker_tokens"
    __table_args__ = (Index("ix_tracker_tokens_person_ref", "person_ref"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    person_ref: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]
    last_app: Mapped[str | None] = mapped_column(String(16))
    last_heard_at: Mapped[datetime | None]
