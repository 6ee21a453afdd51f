"""Map jobs (a place search, a fetch), the places a search found, and dropped stations.

``MapJobs.claim_next`` hands a queued job to exactly one process: the row is locked with
``SKIP LOCKED`` on PostgreSQL and moved from queued to running by an ``UPDATE`` guarded on
its status, so two processes never run one job. A job left running longer than ``stale``
(its process died) is claimed again, at most ``MAX_ATTEMPTS`` times in all.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from hideseek_chat.store.jobclaim import claimed_rows
from hideseek_chat.store.models import (
    ChatRow,
    MapJobKind,
    MapJobRow,
    MapJobStatus,
    MapPlaceRow,
    StationDropRow,
)
from hideseek_chat.store.repository import GameRepository

#: A job claimed this often without finishing is given up (it failed every time).
MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class PlaceData:
    """A place a search found; ``boundary_geojson`` None for a point."""

    place_key: str
    name: str
    label: str
    kind: str
    country_code: str
    lat: float
    lon: float
    boundary_geojson: str | None = None


@dataclass(frozen=True)
class FetchRequest:
    """What a fetch job fetches: an area (GeoJSON), its modes and where it is."""

    place_key: str
    title: str
    boundary_geojson: str
    modes: tuple[str, ...]
    country_code: str = ""
    radius_m: int | None = None
    refresh: bool = False


@dataclass(frozen=True)
class MapJob:
    id: int
    game_id: int
    chat_key: str
    kind: MapJobKind
    status: MapJobStatus
    query: str
    language: str
    attempts: int
    created_at: datetime
    fetch: FetchRequest | None = None
    pack_name: str | None = None
    error_key: str | None = None
    finished_at: datetime | None = None


def _job(row: MapJobRow) -> MapJob:
    fetch = None
    if row.kind == MapJobKind.FETCH and row.boundary_geojson is not None:
        fetch = FetchRequest(
            row.place_key or "",
            row.query,
            row.boundary_geojson,
            tuple(m for m in (row.modes or "").split(",") if m),
            row.country_code or "",
            row.radius_m,
            row.refresh,
        )
    return MapJob(
        row.id,
        row.game_id,
        row.chat_key,
        row.kind,
        row.status,
        row.query,
        row.language,
        row.attempts,
        row.created_at,
        fetch,
        row.pack_name,
        row.error_key,
        row.finished_at,
    )


def _place(row: MapPlaceRow) -> PlaceData:
    return PlaceData(
        row.place_key,
        row.name,
        row.label,
        row.kind,
        row.country_code,
        row.lat,
        row.lon,
        row.boundary_geojson,
    )


class MapJobs:
    def __init__(self, session: Session) -> None:
        self.session = session

    # ----------------------------------------------------------------- queueing

    def add_search(
        self, game_id: int, chat_key: str, query: str, language: str, now: datetime
    ) -> int:
        """Queue a search for ``query``; return the job's id."""
        row = MapJobRow(
            game_id=game_id,
            chat_key=chat_key,
            kind=MapJobKind.SEARCH,
            status=MapJobStatus.QUEUED,
            query=query[:200],
            language=language,
            attempts=0,
            refresh=False,
            created_at=now,
        )
        self.session.add(row)
        self.session.flush()
        return row.id

    def add_fetch(
        self, game_id: int, chat_key: str, request: FetchRequest, language: str, now: datetime
    ) -> int:
        """Queue a fetch of ``request``; return the job's id."""
        row = MapJobRow(
            game_id=game_id,
            chat_key=chat_key,
            kind=MapJobKind.FETCH,
            status=MapJobStatus.QUEUED,
            query=request.title[:200],
            language=language,
            place_key=request.place_key,
            boundary_geojson=request.boundary_geojson,
            radius_m=request.radius_m,
            modes=",".join(request.modes),
            country_code=request.country_code,
            refresh=request.refresh,
            attempts=0,
            created_at=now,
        )
        self.session.add(row)
        self.session.flush()
        return row.id

    # ----------------------------------------------------------------- running

    def claim_next(
        self,
        now: datetime,
        stale: timedelta,
        gave_up: Callable[[MapJob], None] | None = None,
    ) -> MapJob | None:
        """Move the oldest claimable job to running for this caller and return it (commit
        to make the claim visible); None when there is none. A job running since before
        ``now - stale`` is claimable again; one claimed ``MAX_ATTEMPTS`` times fails, and
        is handed to ``gave_up`` (in this transaction: to tell its group)."""
        for row in claimed_rows(self.session, MapJobRow, now, stale):
            if row.attempts > MAX_ATTEMPTS:
                self.finish(row.id, now, error_key="map.gave_up")
                if gave_up is not None:
                    gave_up(_job(row))
                continue
            return _job(row)
        return None

    def touch(self, job_id: int, now: datetime) -> None:
        """A running job's heartbeat: it is alive at ``now``, so no other process takes it
        for a dead one's (see ``claim_next``'s ``stale``) while it still makes progress."""
        self.session.execute(
            update(MapJobRow)
            .where(MapJobRow.id == job_id, MapJobRow.status == MapJobStatus.RUNNING)
            .values(claimed_at=now)
            .execution_options(synchronize_session=False)
        )

    def finish(
        self,
        job_id: int,
        now: datetime,
        *,
        pack_name: str | None = None,
        error_key: str | None = None,
    ) -> None:
        """Mark the job done (``error_key`` None) or failed."""
        row = self.session.get(MapJobRow, job_id)
        if row is None:
            raise LookupError(job_id)
        row.status = MapJobStatus.FAILED if error_key else MapJobStatus.DONE
        row.pack_name = pack_name
        row.error_key = error_key
        row.finished_at = now
        self.session.flush()

    def get(self, job_id: int) -> MapJob | None:
        row = self.session.get(MapJobRow, job_id)
        return None if row is None else _job(row)

    def fetched(self, pack_name: str) -> MapJob | None:
        """The newest finished fetch that stored (or reused) ``pack_name``."""
        row = self.session.scalar(
            select(MapJobRow)
            .where(
                MapJobRow.pack_name == pack_name,
                MapJobRow.kind == MapJobKind.FETCH,
                MapJobRow.status == MapJobStatus.DONE,
            )
            .order_by(MapJobRow.id.desc())
            .limit(1)
        )
        return None if row is None else _job(row)

    def active(self, game_id: int) -> list[MapJob]:
        """The game's jobs not finished yet, oldest first."""
        rows = self.session.scalars(
            select(MapJobRow)
            .where(
                MapJobRow.game_id == game_id,
                MapJobRow.status.in_([MapJobStatus.QUEUED, MapJobStatus.RUNNING]),
            )
            .order_by(MapJobRow.id)
        )
        return [_job(row) for row in rows]

    # ----------------------------------------------------------------- places found

    def save_places(self, job_id: int, places: Iterable[PlaceData]) -> None:
        self.session.execute(delete(MapPlaceRow).where(MapPlaceRow.job_id == job_id))
        for position, place in enumerate(places):
            self.session.add(
                MapPlaceRow(
                    job_id=job_id,
                    position=position,
                    place_key=place.place_key[:32],
                    name=place.name[:200],
                    label=place.label[:200],
                    kind=place.kind[:64],
                    country_code=place.country_code[:8],
                    lat=place.lat,
                    lon=place.lon,
                    boundary_geojson=place.boundary_geojson,
                )
            )
        self.session.flush()

    def place(self, job_id: int, position: int) -> PlaceData | None:
        row = self.session.get(MapPlaceRow, (job_id, position))
        return None if row is None else _place(row)

    def found_before(self, query: str, language: str, since: datetime) -> list[PlaceData]:
        """The places the newest search for ``query`` (any case) in ``language`` finished
        after ``since`` found; empty when there was none (the geocoder is asked again)."""
        job_id = self.session.scalar(
            select(MapJobRow.id)
            .where(
                MapJobRow.kind == MapJobKind.SEARCH,
                MapJobRow.status == MapJobStatus.DONE,
                func.lower(MapJobRow.query) == query[:200].lower(),
                MapJobRow.language == language,
                MapJobRow.finished_at >= since,
            )
            .order_by(MapJobRow.id.desc())
            .limit(1)
        )
        if job_id is None:
            return []
        rows = self.session.scalars(
            select(MapPlaceRow).where(MapPlaceRow.job_id == job_id).order_by(MapPlaceRow.position)
        )
        return [_place(row) for row in rows]

    # ----------------------------------------------------------------- dropped stations

    def _chat_id(self, chat_key: str) -> int | None:
        return self.session.scalar(select(ChatRow.id).where(ChatRow.key == chat_key))

    def dropped(self, chat_key: str, pack_name: str) -> frozenset[str]:
        """The refs of the stations ``chat_key`` dropped from pack ``pack_name``."""
        chat_id = self._chat_id(chat_key)
        if chat_id is None:
            return frozenset()
        return frozenset(
            self.session.scalars(
                select(StationDropRow.station_ref).where(
                    StationDropRow.chat_id == chat_id, StationDropRow.pack_name == pack_name
                )
            )
        )

    def carry_drops(
        self, chat_key: str, old: str, new: str, refs: Collection[str], now: datetime
    ) -> None:
        """Drop from pack ``new`` the stations ``chat_key`` dropped from ``old`` that ``new``
        still has (``refs``): a newer version of a map keeps the group's choices."""
        for ref in self.dropped(chat_key, old) & frozenset(refs):
            self.drop(chat_key, new, ref, now)

    def drop(self, chat_key: str, pack_name: str, station_ref: str, now: datetime) -> None:
        chat_id = GameRepository(self.session).chat_id(chat_key, now)
        key = (chat_id, pack_name, station_ref)
        if self.session.get(StationDropRow, key) is None:
            self.session.add(
                StationDropRow(
                    chat_id=chat_id, pack_name=pack_name, station_ref=station_ref, dropped_at=now
                )
            )
            self.session.flush()

    def restore(self, chat_key: str, pack_name: str, station_ref: str) -> None:
        chat_id = self._chat_id(chat_key)
        if chat_id is None:
            return
        self.session.execute(
            delete(StationDropRow).where(
                StationDropRow.chat_id == chat_id,
                StationDropRow.pack_name == pack_name,
                StationDropRow.station_ref == station_ref,
            )
        )
        self.session.flush()
