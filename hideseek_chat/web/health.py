"""The operator's routes on the web server: ``/healthz``, ``/readyz`` and ``/metrics``.

- ``/healthz``: the process is alive and its event loop answers; 200 at once, no database.
- ``/readyz``: the database answers and its schema is the newest migration: 200 ``ready``,
  else 503 with one word (``database``, ``schema``), for a load balancer or an orchestrator
  to hold traffic back.
- ``/metrics``: Prometheus' text format: what ``hideseek_chat.metrics`` counted, then the
  outbox depth and the games on, read from the database at scrape time.

The database is asked in a worker thread, never on the event loop the bot runs on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from hideseek_chat import metrics
from hideseek_chat.store import health

log = logging.getLogger(__name__)

#: Seconds ``/readyz`` waits for the database before it answers 503 ``database``.
READY_TIMEOUT = 5.0


class StoreCollector(Collector):
    """The gauges read from the database when scraped: outbox depth, games on by phase."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def describe(self) -> list[Metric]:
        return []  # nothing is read at registration

    def collect(self) -> Iterator[Metric]:
        try:
            depth = health.outbox_depth(self.engine)
            phases = health.games_by_phase(self.engine)
        except (SQLAlchemyError, OSError) as err:
            log.warning("metrics: the database did not answer (%s)", type(err).__name__)
            yield GaugeMetricFamily(
                "hideseek_database_up", "Whether the database answered the scrape.", value=0
            )
            return
        yield GaugeMetricFamily(
            "hideseek_database_up", "Whether the database answered the scrape.", value=1
        )
        yield GaugeMetricFamily(
            "hideseek_outbox_depth", "Outbox messages waiting to be sent.", value=depth
        )
        games = GaugeMetricFamily(
            "hideseek_active_games", "Games not over, by phase.", labels=["phase"]
        )
        for phase, count in sorted(phases.items()):
            games.add_metric([phase.value], count)
        yield games


def scrape(engine: Engine) -> bytes:
    """The metrics page: the counters, then the database's gauges (call in a thread)."""
    store = CollectorRegistry(auto_describe=False)
    store.register(StoreCollector(engine))
    return generate_latest(metrics.current().registry) + generate_latest(store)


def health_routes(engine: Engine) -> list[Route]:
    """``/healthz``, ``/readyz`` and ``/metrics`` for the database behind ``engine``."""

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def readyz(request: Request) -> Response:
        try:
            reason = await asyncio.wait_for(
                asyncio.to_thread(health.not_ready, engine), READY_TIMEOUT
            )
        except TimeoutError:
            reason = health.UNREACHABLE
        if reason is None:
            return PlainTextResponse("ready")
        return PlainTextResponse(reason, status_code=503)

    async def metrics_page(request: Request) -> Response:
        body = await asyncio.to_thread(scrape, engine)
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    return [
        Route("/healthz", healthz, methods=["GET", "HEAD"]),
        Route("/readyz", readyz, methods=["GET", "HEAD"]),
        Route("/metrics", metrics_page, methods=["GET"]),
    ]
