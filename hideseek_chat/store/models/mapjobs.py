"""Getting a map in the background: the jobs a group queued (a place search, a fetch), the
places a search found, and the stations a group dropped from its map.

A job is claimed by one process at a time (``status`` queued -> running, ``claimed_at``);
one left running by a crashed process is claimed again once it is old enough.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from hideseek_chat.store.models.base import GAME_FK, Base, str_enum


class MapJobKind(StrEnum):
    SEARCH = "search"  # geocode ``query``: the places found become buttons
    FETCH = "fetch"  # fetch the pack of ``boundary_geojson`` with ``modes``


class MapJobStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


def _one_of(column: str, values: type[StrEnum]) -> str:
    return f"{column} IN ({', '.join(repr(member.value) for member in values)})"


class MapJobRow(Base):
    """One search or fetch a group asked for; the outcome reaches the group by the outbox."""

    __tablename__ = "map_jobs"
    __table_args__ = (
        CheckConstraint(_one_of("kind", MapJobKind), name="kind"),
        CheckConstraint(_one_of("status", MapJobStatus), name="status"),
        Index("ix_map_jobs_status_id", "status", "id"),
        Index("ix_map_jobs_pack_name", "pack_name"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"))
    chat_key: Mapped[str] = mapped_column(String(64))
    kind: Mapped[MapJobKind] = mapped_column(str_enum(MapJobKind))
    status: Mapped[MapJobStatus] = mapped_column(str_enum(MapJobStatus))
    #: a search's words, or a fetch's place name (the pack's title)
    query: Mapped[str] = mapped_column(String(200))
    language: Mapped[str] = mapped_column(String(16), default="en")
    #: the OSM object of a fetch ("r123"), ``modes`` comma-separated in MODES order
    place_key: Mapped[str | None] = mapped_column(String(32))
    boundary_geojson: Mapped[str | None] = mapped_column(Text)
    radius_m: Mapped[int | None]
    modes: Mapped[str | None] = mapped_column(String(64))
    country_code: Mapped[str | None] = mapped_column(String(8))
    #: a fetch asked again by /map refresh: never answered by a stored pack
    refresh: Mapped[bool] = mapped_column(default=False)
    #: the stored pack a fetch produced (or reused)
    pack_name: Mapped[str | None] = mapped_column(String(128))
    error_key: Mapped[str | None] = mapped_column(String(64))
    attempts: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime]
    claimed_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]


class MapPlaceRow(Base):
    """A place a search found, in the geocoder's order; its button names its position."""

    __tablename__ = "map_places"

    job_id: Mapped[int] = mapped_column(
        ForeignKey("map_jobs.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    place_key: Mapped[str] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(200))
    label: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(64))
    country_code: Mapped[str] = mapped_column(String(8))
    lat: Mapped[float]
    lon: Mapped[float]
    #: None: a point (the admin chooses a radius around it)
    boundary_geojson: Mapped[str | None] = mapped_column(Text)


class StationDropRow(Base):
    """A station a group's admin left out of their map (per chat and pack)."""

    __tablename__ = "map_station_drops"

    chat_id: Mapped[int] = mapped_column(
        ForeignKey("chats.id", ondelete="CASCADE"), primary_key=True
    )
    pack_name: Mapped[str] = mapped_column(String(128), primary_key=True)
    station_ref: Mapped[str] = mapped_column(String(128), primary_key=True)
    dropped_at: Mapped[datetime]
