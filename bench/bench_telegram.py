"""Live-location edits through the Telegram bot, against an insert-only baseline.

Each edit is an ``edited_message`` update run through ``Application.process_update`` of the
bot's own application (``build_application``): conversion, the conversation, the store (one
unit of work per update) and the outbox check. The baseline, measured in the same run on the
same database and fed the same updates, is an ``Application`` with one ``TypeHandler`` that
only inserts the ping (``uow.pings.record`` and a commit). Target: >= 50% of the baseline on
each database, and a p99 of at most 10 ms.

The game is in its seeking phase with a fixed zone (the hider at Gallagher-Iba, Stillwater,
500 m). Two workloads:

- ``far``: both seekers, about 2 km from the zone, send edits in turn (the common case);
- ``edge``: one seeker walks back and forth just outside the zone's edge (30 to 240 m out,
  inside the referee's slack), so every edit also reads the seeker's track and checks
  whether the end game starts. It never does: the walk stays outside.

The game is set up through the bot as a group would (``tests/telegram/e2e.py``); the Bot API
is a recorder that never touches the network.

    python bench/bench_telegram.py [--updates 3000] [--postgres URL] [--profile far|edge]

PostgreSQL is measured when ``--postgres`` or ``HIDESEEK_TEST_POSTGRES_URL`` is given (in a
throwaway schema). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import math
import os
import pstats
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import Engine, create_engine, text
from telegram import Update
from telegram.ext import Application, ContextTypes, TypeHandler

from hideseek_chat.geo import distance_m
from hideseek_chat.rules.state import Phase
from hideseek_chat.store import make_engine, unit_of_work_factory
from hideseek_chat.store.models import Base
from hideseek_chat.telegram.convert import LIVE_FOREVER, key
from tests.telegram.e2e import USERS, Telegram, telegram
from tests.telegram.factories import GROUP, TOKEN, make_live_edit
from tests.telegram.fakes import RecordingRequest

HIDER_SPOT = (36.12622, -97.06401)  # next to Gallagher-Iba
SEEKERS_START = (36.14000, -97.08000)  # about 2 km away
BLOCK = 50
#: Game time between two edits (a phone sends one every few seconds; two seekers share it).
STEP = timedelta(seconds=1)
#: How far outside the zone's edge the edge walker goes, in metres.
EDGE_BAND = (30.0, 240.0)


@dataclass
class Setup:
    tg: Telegram
    seekers: list[str]
    live: dict[str, int]  # each seeker's live-location message in the group
    zone: tuple[float, float, float]  # lat, lon, radius_m


async def _seeking_game(tg: Telegram) -> Setup:
    """A game in its seeking phase, the zone fixed, both seekers sharing live locations."""
    await tg.new_game()
    hider, seekers = await tg.begin()
    await tg.pin(hider, *HIDER_SPOT, private=True)
    live = {
        seeker: await tg.pin(seeker, SEEKERS_START[0] + i * 1e-4, SEEKERS_START[1])
        for i, seeker in enumerate(seekers)
    }
    await tg.wait(timedelta(minutes=31))
    state = tg.state()
    zone = state.current_round.zone if state.current_round else None
    assert state.phase == Phase.SEEKING and zone is not None, "the game did not reach seeking"
    return Setup(tg, seekers, live, (zone.lat, zone.lon, zone.radius_m))


def _far(setup: Setup) -> Iterator[tuple[str, float, float]]:
    """Both seekers shuffle around their start, 2 km out, taking turns."""
    for i in range(10**9):
        seeker = setup.seekers[i % 2]
        wobble = 1e-5 * (i % 40)
        yield seeker, SEEKERS_START[0] + wobble, SEEKERS_START[1] + (i % 2) * 1e-4


def _edge(setup: Setup) -> Iterator[tuple[str, float, float]]:
    """One seeker walks along the zone's edge, weaving between 30 and 240 m outside it."""
    lat0, lon0, radius = setup.zone
    low, high = EDGE_BAND
    for i in range(10**9):
        bearing = math.radians((i * 0.05) % 360)  # about 0.9 m along the edge per edit
        out = low + (high - low) * (0.5 + 0.5 * math.sin(i / 50))
        r = radius + out
        lat = lat0 + r * math.cos(bearing) / 111_320
        lon = lon0 + r * math.sin(bearing) / (111_320 * math.cos(math.radians(lat0)))
        yield setup.seekers[0], lat, lon


def _baseline_app(setup: Setup) -> Application:  # type: ignore[type-arg]
    """An application whose only handler inserts the ping of each live-location edit."""
    uow_factory = setup.tg.uow_factory
    clock = setup.tg.clock

    async def record(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        edited = update.edited_message
        assert edited is not None and edited.location is not None
        assert edited.from_user is not None
        where = edited.location
        with uow_factory() as uow:
            found = uow.pings.record(
                key(edited.chat.id),
                key(edited.from_user.id),
                where.latitude,
                where.longitude,
                clock.now(),
                where.horizontal_accuracy,
                "live",
            )
            assert found is not None
            uow.commit()

    api = RecordingRequest()
    app = (
        Application.builder()
        .token(TOKEN)
        .request(api)
        .get_updates_request(api)
        .job_queue(None)
        .build()
    )
    app.add_handler(TypeHandler(Update, record))
    return app


async def _measure(
    setup: Setup,
    walk: Callable[[Setup], Iterator[tuple[str, float, float]]],
    updates: int,
    profile: cProfile.Profile | None,
) -> dict[str, list[float]]:
    tg = setup.tg
    baseline = _baseline_app(setup)
    await baseline.initialize()
    apps = {"baseline": baseline, "bot": tg.app}
    positions = walk(setup)

    def edits(n: int) -> list[Update]:
        return [
            make_live_edit(
                tg.bot,
                setup.live[seeker],
                lat,
                lon,
                live_period=LIVE_FOREVER,
                chat_id=GROUP,
                user=USERS[seeker],
            )
            for seeker, lat, lon in (next(positions) for _ in range(n))
        ]

    async def run(name: str, batch: list[Update], times: list[float] | None) -> None:
        app = apps[name]
        for update in batch:
            tg.clock.advance(STEP)
            if profile is not None and name == "bot":
                profile.enable()
            began = time.perf_counter()
            await app.process_update(update)
            elapsed = time.perf_counter() - began
            if profile is not None:
                profile.disable()
            if times is not None:
                times.append(elapsed)

    try:
        for name in apps:  # warm up connections, caches and compiled statements
            await run(name, edits(100), None)
        times: dict[str, list[float]] = {name: [] for name in apps}
        done = 0
        while done < updates:  # alternate blocks so both paths see the same conditions
            size = min(BLOCK, updates - done)
            for name in apps:
                await run(name, edits(size), times[name])
            done += size
    finally:
        await baseline.shutdown()
    tg.check()  # nothing logged as a problem, no unexpected Bot API call
    assert tg.state().phase == Phase.SEEKING, "the walk changed the game; the numbers are off"
    return times


def _row(database: str, workload: str, name: str, samples: list[float], base: float) -> str:
    rate = len(samples) / sum(samples)
    cuts = statistics.quantiles(samples, n=100)
    share = "" if name == "baseline" else f"{rate / base:>6.0%}"
    return (
        f"{database:<10} {workload:<5} {name:<8} {rate:>10,.0f} "
        f"{cuts[49] * 1000:>8.2f} {cuts[98] * 1000:>8.2f} {share:>7}"
    )


async def _bench(engine: Engine, database: str, updates: int, profile_workload: str | None) -> None:
    Base.metadata.create_all(engine)
    for workload, walk in (("far", _far), ("edge", _edge)):
        # A fresh game per workload, so one's pings do not weigh on the other's.
        with engine.begin() as connection:
            for table in reversed(Base.metadata.sorted_tables):
                connection.execute(table.delete())
        uow_factory = unit_of_work_factory(engine)
        profile = cProfile.Profile() if profile_workload == workload else None
        async with telegram(uow_factory) as tg:
            setup = await _seeking_game(tg)
            if workload == "edge":
                lat0, lon0, radius = setup.zone
                for _, lat, lon in _take(walk(setup), 2000):
                    assert radius < distance_m(lat0, lon0, lat, lon) <= radius + 250.0
            times = await _measure(setup, walk, updates, profile)
        base = len(times["baseline"]) / sum(times["baseline"])
        for name, samples in times.items():
            print(_row(database, workload, name, samples, base), flush=True)
        if profile is not None:
            print(f"\nprofile of the bot's path, {database}, {workload}:")
            pstats.Stats(profile).sort_stats("cumulative").print_stats(30)


def _take(items: Iterator[tuple[str, float, float]], n: int) -> list[tuple[str, float, float]]:
    return [next(items) for _ in range(n)]


@contextmanager
def _postgres_engine(base: str) -> Iterator[Engine]:
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(base)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in base else "?"
    engine = make_engine(f"{base}{separator}options={quote(f'-csearch_path={schema}')}")
    try:
        yield engine
    finally:
        engine.dispose()
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=3000)
    parser.add_argument("--postgres", default=os.environ.get("HIDESEEK_TEST_POSTGRES_URL"))
    parser.add_argument("--profile", choices=("far", "edge"), help="cProfile the bot's path")
    args = parser.parse_args()
    # Timings on a shared machine move with its load: print it next to them.
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"{'database':<10} {'walk':<5} {'path':<8} {'updates/s':>10} {'p50 ms':>8} {'p99 ms':>8}")
    with tempfile.TemporaryDirectory() as directory:
        engine = make_engine(f"sqlite:///{Path(directory) / 'bench.sqlite3'}")
        try:
            asyncio.run(_bench(engine, "sqlite", args.updates, args.profile))
        finally:
            engine.dispose()
    if args.postgres:
        with _postgres_engine(args.postgres) as engine:
            asyncio.run(_bench(engine, "postgresql", args.updates, args.profile))
    else:
        print("postgresql: skipped (no --postgres URL and HIDESEEK_TEST_POSTGRES_URL unset)")


if __name__ == "__main__":
    main()
