"""Map jobs: a place search or a map fetch, run off the update path.

A handler queues a job (``uow.map_jobs.add_search`` / ``add_fetch``) and answers at once;
``run_next`` claims the oldest queued job (one process runs it, see ``store.mapjobs``),
runs it with the map library (``Services.map_clients``) and tells the group through the
outbox, so what it has to say is stored before it is sent:

- a search: the places found, as buttons (``map.places``), or why there are none;
- a fetch: its progress, one message edited as the kinds arrive (``map.progress``, at most
  once every ``Services.map_progress_every`` seconds), then the summary (``map.fetched``)
  or why it failed. The pack is stored in one transaction with the job's end and the
  chat's choice of it: a failed fetch leaves nothing stored and the old map in use.

Every message of job N is kept in the chat's slot ``map-job-N`` (the "Looking up…" or
"Fetching…" reply first), so a channel that can edit shows one message that changes.

Telegram runs ``run_next`` in a worker thread started from the tick; the console runs it
inline (``drive.Driver(jobs_inline=True)``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from hideseek_chat.chat.map_choice import on_map_chosen
from hideseek_chat.chat.map_clients import MapClients
from hideseek_chat.chat.maps import to_data, use_map, version_name
from hideseek_chat.chat.turn import Services
from hideseek_chat.geo import MapPack
from hideseek_chat.geo.mappack import geometry_from_geojson, geometry_to_geojson
from hideseek_chat.maps.errors import MapFetchError
from hideseek_chat.maps.fetch import KindProgress
from hideseek_chat.rules.decisions import GROUP, Notify
from hideseek_chat.rules.state import Phase
from hideseek_chat.store import UnitOfWork
from hideseek_chat.store.mapjobs import MapJob, PlaceData
from hideseek_chat.store.models import MapJobKind

log = logging.getLogger(__name__)

#: A job running this long without finishing or a kind arriving (``_Progress`` touches it)
#: is taken to have lost its process.
STALE_AFTER = timedelta(minutes=15)
#: Places a search offers.
MAX_PLACES = 5
#: A search asked again within this long is answered from the last answer (Nominatim's
#: usage policy asks clients to cache).
SEARCH_CACHE = timedelta(days=1)

Clock = Callable[[], datetime]


def job_slot(job_id: int) -> str:
    """The chat's message slot of job ``job_id`` (see ``SendText.slot``)."""
    return f"map-job-{job_id}"


def run_next(services: Services, clock: Clock) -> bool:
    """Claim and run the oldest queued map job; False when there was none to run nor one
    given up (or maps are not configured). Never raises: a failure is told to the group."""
    clients = services.map_clients
    if clients is None:
        return False
    lost: list[MapJob] = []  # jobs whose process died every time: their groups are told
    with services.uow_factory() as uow:
        now = clock()
        job = uow.map_jobs.claim_next(now, STALE_AFTER, lost.append)
        for gone in lost:
            uow.outbox.add(gone.game_id, [_failure(gone, "map.gave_up", {})], now)
        uow.commit()
    if job is None:
        return bool(lost)
    try:
        if job.kind == MapJobKind.SEARCH:
            _search(services, clients, job, clock)
        else:
            _fetch(services, clients, job, clock)
    except MapFetchError as error:
        _fail(services, job, error.key, error.params, clock())
    except Exception:  # one broken job must not stop the bot; its group hears it failed
        log.exception("map job %s failed", job.id)
        _fail(services, job, "map.failed", {}, clock())
    return True


def _fail(services: Services, job: MapJob, key: str, params: dict[str, Any], now: datetime) -> None:
    """End ``job`` as failed and tell the group why (nothing else is written)."""
    with services.uow_factory() as uow:
        uow.map_jobs.finish(job.id, now, error_key=key)
        uow.outbox.add(job.game_id, [_failure(job, key, params)], now)
        uow.commit()


def _failure(job: MapJob, key: str, params: dict[str, Any]) -> Notify:
    """The group's notice that ``job`` failed (``key``: why)."""
    values = {**params, "job_id": job.id, "query": job.query, "title": job.query}
    values = {k: v for k, v in values.items() if isinstance(v, str | int | float | bool)}
    return Notify(GROUP, key, values)


# ----------------------------------------------------------------- a search


def _search(services: Services, clients: MapClients, job: MapJob, clock: Clock) -> None:
    with services.uow_factory() as uow:
        # Nominatim's usage policy: the same search is answered from what it said lately.
        found = uow.map_jobs.found_before(job.query, job.language, clock() - SEARCH_CACHE)
    if not found:
        found = _geocode(clients, job)
    now = clock()
    with services.uow_factory() as uow:
        uow.map_jobs.save_places(job.id, found)
        uow.map_jobs.finish(job.id, now)
        labels = [p.label for p in found]
        notice = Notify(
            GROUP, "map.places", {"job_id": job.id, "query": job.query, "labels": labels}
        )
        uow.outbox.add(job.game_id, [notice], now)
        uow.commit()


def _geocode(clients: MapClients, job: MapJob) -> list[PlaceData]:
    places = list(clients.geocoder.search(job.query, language=job.language, limit=MAX_PLACES))
    if not places:
        raise MapFetchError("map.not_found", query=job.query)
    return [
        PlaceData(
            place.key,
            place.name,
            place.label,
            place.kind,
            place.country_code,
            place.lat,
            place.lon,
            None if place.boundary is None else json.dumps(geometry_to_geojson(place.boundary)),
        )
        for place in places[:MAX_PLACES]
    ]


# ----------------------------------------------------------------- a fetch


class _Progress:
    """Writes a fetch's progress to the outbox as its kinds arrive, throttled."""

    def __init__(self, services: Services, job: MapJob, clock: Clock) -> None:
        self.services = services
        self.job = job
        self.clock = clock
        self.kinds: list[tuple[str, int, bool]] = []
        self._last: float | None = None

    def __call__(self, step: KindProgress) -> None:
        self.kinds.append((step.kind, step.count or 0, step.ok))
        self._write(lambda uow, now: uow.map_jobs.touch(self.job.id, now))  # alive
        if step.done >= step.total:
            return  # the summary follows at once
        now = self.services.monotonic()
        if self._last is not None and now - self._last < self.services.map_progress_every:
            return
        self._last = now
        params = {
            "job_id": self.job.id,
            "title": self.job.query,
            "done": step.done,
            "total": step.total,
            "kinds": [list(k) for k in self.kinds],
        }
        notice = Notify(GROUP, "map.progress", params)
        self._write(lambda uow, now: uow.outbox.add(self.job.game_id, [notice], now))

    def _write(self, write: Callable[[UnitOfWork, datetime], object]) -> None:
        """Best effort: the heartbeat and the progress edit must not throw away minutes of
        downloading when the database is away for a moment (the summary is what counts)."""
        try:
            with self.services.uow_factory() as uow:
                write(uow, self.clock())
                uow.commit()
        except Exception:
            log.warning("map job %s: progress not written", self.job.id, exc_info=True)


def _fetch(services: Services, clients: MapClients, job: MapJob, clock: Clock) -> None:
    request = job.fetch
    if request is None:
        raise MapFetchError("map.failed")
    modes = frozenset(request.modes)
    name = version_name(clients.pack_name(request.place_key, modes, request.radius_m), clock())
    boundary = geometry_from_geojson(json.loads(request.boundary_geojson))
    fetched = clients.fetch(
        boundary,
        name=name,
        title=request.title,
        modes=modes,
        country_code=request.country_code,
        progress=_Progress(services, job, clock),
    )
    pack = fetched.pack
    if not pack.stations:
        raise MapFetchError("map.no_stations", title=request.title)
    now = clock()
    with services.uow_factory() as uow:
        uow.maps.save(to_data(pack), now)
        used = _use_if_setting_up(services, uow, job, pack, now)
        uow.map_jobs.finish(job.id, now, pack_name=pack.name)
        summary = {
            "job_id": job.id,
            "title": request.title,
            "name": pack.name,
            "stations": len(pack.stations),
            "modes": [m for m in clients.modes if m in modes],
            "counts": {k: int(v) for k, v in fetched.counts.items()},
            "failed": list(fetched.failed),
            "used": used,
        }
        uow.outbox.add(job.game_id, [Notify(GROUP, "map.fetched", summary)], now)
        uow.commit()
    services.maps.forget(pack.name)


def _use_if_setting_up(
    services: Services, uow: UnitOfWork, job: MapJob, pack: MapPack, now: datetime
) -> bool:
    """Make ``pack`` the chat's map while its game is being set up, with its clock and
    suggestions (``map_choice``); False once it began (a game never changes its map under
    way)."""
    uow.games.lock(job.game_id)
    loaded = uow.games.for_chat(job.chat_key)
    if loaded is None or loaded.id != job.game_id or loaded.state.phase != Phase.SETUP:
        return False
    before = uow.chats.prefs(job.chat_key).map_name
    if before.partition("@")[0] == pack.name.partition("@")[0]:  # a refresh
        refs = {s.id for s in pack.stations}
        uow.map_jobs.carry_drops(job.chat_key, before, pack.name, refs, now)
    use_map(uow, services.maps, job.chat_key, pack.name, now)
    state = loaded.state
    by = state.player(state.admin_player_id).ref if state.admin_player_id is not None else ""
    on_map_chosen(services, uow, job.game_id, state, job.chat_key, pack, by=by, now=now)
    return True
