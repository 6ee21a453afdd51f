"""``/healthz``, ``/readyz`` and ``/metrics`` through real HTTP on 127.0.0.1, on SQLite and
PostgreSQL: ready at the newest schema, 503 with one word when the schema is behind or the
database cannot be reached; the metrics page carries the counters and the database's gauges."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from alembic.script import ScriptDirectory
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import Engine
from starlette.routing import BaseRoute, Route

from hideseek_chat import metrics
from hideseek_chat.store import migrate
from hideseek_chat.store.config import make_engine
from hideseek_chat.web.health import health_routes
from hideseek_chat.web.server import make_app, make_server


@asynccontextmanager
async def serving(routes: Sequence[BaseRoute]) -> AsyncIterator[httpx.AsyncClient]:
    """The web server with ``routes`` on a free port of 127.0.0.1, and a client for it."""
    server = make_server(make_app(routes), "127.0.0.1", 0)
    task = asyncio.ensure_future(server.serve())
    try:
        for _ in range(500):
            if server.started:
                break
            await asyncio.sleep(0.01)
        assert server.started, "the web server did not start"
        port = server.servers[0].sockets[0].getsockname()[1]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
            yield client
    finally:
        server.should_exit = True
        await task


@pytest.fixture
def migrated(database_url: str) -> Iterator[Engine]:
    """An engine on a database migrated to the newest schema (SQLite and PostgreSQL)."""
    migrate.upgrade(database_url)
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


def first_revision() -> str:
    """The oldest migration: a database stopped there is behind."""
    script = ScriptDirectory.from_config(migrate.alembic_config("sqlite://"))
    return list(script.walk_revisions())[-1].revision


async def test_healthz_answers_without_the_database(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'missing' / 'db.sqlite3'}")
    async with serving(health_routes(engine)) as client:
        answer = await client.get("/healthz")
        assert (answer.status_code, answer.text) == (200, "ok")
        assert (await client.head("/healthz")).status_code == 200
    engine.dispose()


async def test_readyz_is_ready_at_the_newest_schema(migrated: Engine) -> None:
    async with serving(health_routes(migrated)) as client:
        answer = await client.get("/readyz")
    assert (answer.status_code, answer.text) == (200, "ready")


async def test_readyz_says_schema_when_the_database_is_behind(database_url: str) -> None:
    migrate.upgrade(database_url, first_revision())
    engine = make_engine(database_url)
    try:
        async with serving(health_routes(engine)) as client:
            behind = await client.get("/readyz")
            assert (behind.status_code, behind.text) == (503, "schema")
            await asyncio.to_thread(migrate.upgrade, database_url)
            ready = await client.get("/readyz")
            assert (ready.status_code, ready.text) == (200, "ready")
    finally:
        engine.dispose()


async def test_readyz_says_schema_on_a_database_never_migrated(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        async with serving(health_routes(engine)) as client:
            answer = await client.get("/readyz")
        assert (answer.status_code, answer.text) == (503, "schema")
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    "url",
    [
        "sqlite:///{tmp}/no/such/folder/db.sqlite3",
        "postgresql+psycopg://postgres@127.0.0.1:1/nothing?connect_timeout=2",
    ],
    ids=["sqlite-unopenable", "postgresql-refused"],
)
async def test_readyz_says_database_when_it_cannot_be_reached(url: str, tmp_path: Path) -> None:
    engine = make_engine(url.format(tmp=tmp_path))
    try:
        async with serving(health_routes(engine)) as client:
            answer = await client.get("/readyz")
            assert (answer.status_code, answer.text) == (503, "database")
            assert (await client.get("/healthz")).status_code == 200  # alive all the same
            page = await client.get("/metrics")  # the counters still, the database down
        assert page.status_code == 200
        values = samples(page.text)
        assert values[("hideseek_database_up", ())] == 0
        assert ("hideseek_outbox_depth", ()) not in values
    finally:
        engine.dispose()


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Each sample of a metrics page by name and labels."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


async def test_metrics_page_has_the_counters_and_the_database_gauges(
    migrated: Engine, fresh_metrics: metrics.Metrics
) -> None:
    metrics.update_handled("command", 0.03)
    metrics.update_handled("command", 0.2)
    metrics.update_handled("location", 0.01)
    metrics.sent("ok")
    metrics.sent("429")
    metrics.timer_fired(1.5)
    metrics.rate_limited()
    async with serving(health_routes(migrated)) as client:
        page = await client.get("/metrics")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/plain")
    values = samples(page.text)
    assert values[("hideseek_updates_handled_total", (("kind", "command"),))] == 2
    assert values[("hideseek_updates_handled_total", (("kind", "location"),))] == 1
    assert values[("hideseek_update_seconds_count", (("kind", "command"),))] == 2
    assert values[("hideseek_update_seconds_bucket", (("kind", "command"), ("le", "0.05")))] == 1
    assert values[("hideseek_sends_total", (("result", "ok"),))] == 1
    assert values[("hideseek_sends_total", (("result", "429"),))] == 1
    assert values[("hideseek_sends_total", (("result", "failed"),))] == 0
    assert values[("hideseek_timer_lateness_seconds_count", ())] == 1
    assert values[("hideseek_telegram_429_total", ())] == 1
    assert values[("hideseek_database_up", ())] == 1
    assert values[("hideseek_outbox_depth", ())] == 0


async def test_routes_of_the_web_server_are_listed_once(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    paths = [route.path for route in health_routes(engine) if isinstance(route, Route)]
    assert paths == ["/healthz", "/readyz", "/metrics"]
    engine.dispose()
