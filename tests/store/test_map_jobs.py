"""Map jobs in the store: one claim per job across processes, a crashed job claimed again,
places found kept in order, dropped stations per chat and pack."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine

from hideseek_chat.rules import Size, load_ruleset, new_game
from hideseek_chat.store import UnitOfWorkFactory, start_game
from hideseek_chat.store.mapjobs import MAX_ATTEMPTS, FetchRequest, PlaceData
from hideseek_chat.store.models import MapJobKind, MapJobStatus

NOW = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)
CHAT = "tg:-1001"
STALE = timedelta(minutes=15)
SQUARE = '{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]}'


def game(uow_factory: UnitOfWorkFactory) -> int:
    state, decisions = new_game(load_ruleset("metric"), Size.SMALL, 1, "tg:1", "Alice", NOW)
    game_id = start_game(uow_factory, CHAT, state, decisions, NOW)
    assert game_id is not None
    return game_id


def queue_search(uow_factory: UnitOfWorkFactory, game_id: int, query: str = "Stillwater") -> int:
    with uow_factory() as uow:
        job_id = uow.map_jobs.add_search(game_id, CHAT, query, "en", NOW)
        uow.commit()
    return job_id


def test_a_job_is_claimed_once_then_finished(uow_factory: UnitOfWorkFactory) -> None:
    game_id = game(uow_factory)
    first = queue_search(uow_factory, game_id)
    request = FetchRequest("r1", "Square", SQUARE, ("rail", "bus"), "us", None)
    with uow_factory() as uow:
        second = uow.map_jobs.add_fetch(game_id, CHAT, request, "de", NOW)
        uow.commit()
    with uow_factory() as uow:
        job = uow.map_jobs.claim_next(NOW, STALE)
        uow.commit()
    assert job is not None and job.id == first and job.kind == MapJobKind.SEARCH
    assert job.status == MapJobStatus.RUNNING and job.attempts == 1
    with uow_factory() as uow:
        fetch = uow.map_jobs.claim_next(NOW, STALE)
        uow.commit()
        assert uow.map_jobs.claim_next(NOW, STALE) is None  # both running
    assert fetch is not None and fetch.id == second and fetch.fetch == request
    assert fetch.language == "de"
    with uow_factory() as uow:
        uow.map_jobs.finish(second, NOW, pack_name="osm-r1-rail-bus")
        uow.map_jobs.finish(first, NOW, error_key="map.not_found")
        uow.commit()
    with uow_factory() as uow:
        assert uow.map_jobs.fetched("osm-r1-rail-bus") == uow.map_jobs.get(second)
        assert uow.map_jobs.get(first).status == MapJobStatus.FAILED  # type: ignore[union-attr]
        assert uow.map_jobs.active(game_id) == []
        assert uow.map_jobs.claim_next(NOW + STALE * 2, STALE) is None


def test_a_job_left_running_by_a_crashed_process_is_claimed_again(
    uow_factory: UnitOfWorkFactory,
) -> None:
    job_id = queue_search(uow_factory, game(uow_factory))
    at = NOW
    for attempt in range(1, MAX_ATTEMPTS + 1):
        with uow_factory() as uow:
            job = uow.map_jobs.claim_next(at, STALE)
            uow.commit()
        assert job is not None and job.id == job_id and job.attempts == attempt
        with uow_factory() as uow:  # still running, perhaps: not claimed again yet
            assert uow.map_jobs.claim_next(at + STALE / 2, STALE) is None
        at += STALE + timedelta(seconds=1)  # ... and its process died
    with uow_factory() as uow:
        assert uow.map_jobs.claim_next(at, STALE) is None  # given up
        uow.commit()
    with uow_factory() as uow:
        gone = uow.map_jobs.get(job_id)
        assert gone is not None and gone.status == MapJobStatus.FAILED
        assert gone.error_key == "map.gave_up"


def test_two_runners_never_claim_one_job(engine: Engine, uow_factory: UnitOfWorkFactory) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite has one writer at a time; SKIP LOCKED is PostgreSQL's")
    job_id = queue_search(uow_factory, game(uow_factory))
    with uow_factory() as first, uow_factory() as second:
        claimed = first.map_jobs.claim_next(NOW, STALE)
        assert claimed is not None and claimed.id == job_id
        assert second.map_jobs.claim_next(NOW, STALE) is None  # locked: skipped, not waited
        first.commit()
        second.rollback()
        assert second.map_jobs.claim_next(NOW, STALE) is None  # running now
    two = [queue_search(uow_factory, game_id_of(uow_factory)) for _ in range(2)]
    with uow_factory() as first, uow_factory() as second:
        a = first.map_jobs.claim_next(NOW, STALE)
        b = second.map_jobs.claim_next(NOW, STALE)
        assert a is not None and b is not None and {a.id, b.id} == set(two)
        first.commit()
        second.commit()


def game_id_of(uow_factory: UnitOfWorkFactory) -> int:
    with uow_factory() as uow:
        loaded = uow.games.for_chat(CHAT)
        assert loaded is not None
        return loaded.id


def test_places_found_are_kept_in_order(uow_factory: UnitOfWorkFactory) -> None:
    job_id = queue_search(uow_factory, game(uow_factory))
    places = [
        PlaceData("r1", "Stillwater", "Stillwater · city · US", "city", "us", 36.1, -97.0, SQUARE),
        PlaceData("n2", "Library", "Library · library · US", "library", "us", 36.2, -97.1),
    ]
    with uow_factory() as uow:
        uow.map_jobs.save_places(job_id, places)
        uow.commit()
    with uow_factory() as uow:
        assert [uow.map_jobs.place(job_id, i) for i in range(3)] == [*places, None]


def test_dropped_stations_are_per_chat_and_pack(uow_factory: UnitOfWorkFactory) -> None:
    game(uow_factory)
    with uow_factory() as uow:
        assert uow.map_jobs.dropped(CHAT, "stillwater") == frozenset()
        uow.map_jobs.drop(CHAT, "stillwater", "33", NOW)
        uow.map_jobs.drop(CHAT, "stillwater", "33", NOW)  # twice is once
        uow.map_jobs.drop(CHAT, "stillwater", "34", NOW)
        uow.map_jobs.drop("tg:-2002", "stillwater", "35", NOW)  # another group
        uow.map_jobs.drop(CHAT, "other", "36", NOW)
        uow.commit()
    with uow_factory() as uow:
        assert uow.map_jobs.dropped(CHAT, "stillwater") == {"33", "34"}
        uow.map_jobs.restore(CHAT, "stillwater", "33")
        uow.map_jobs.restore("tg:nobody", "stillwater", "33")
        uow.commit()
    with uow_factory() as uow:
        assert uow.map_jobs.dropped(CHAT, "stillwater") == {"34"}
        assert uow.map_jobs.dropped("tg:-2002", "stillwater") == {"35"}
