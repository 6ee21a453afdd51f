"""Live-location ping ingest through the store, against an insert-only baseline.

Each ping is its own transaction. The store path does what the chat layer does for a ping:
a unit of work that finds the chat's current game, the player and the phase (one query),
inserts the ping and commits. The baseline, measured in the same run on the same database,
only inserts the ping row through the ORM and commits. Target: >= 50% of the baseline.

    python bench/bench_store.py [--pings 3000] [--postgres URL]

PostgreSQL is measured when ``--postgres`` or ``HIDESEEK_TEST_POSTGRES_URL`` is given (in a
throwaway schema). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import Engine, create_engine, text

from hideseek_chat.rules import Size, load_ruleset, new_game
from hideseek_chat.rules.events import GameBegun, PlayerJoined
from hideseek_chat.store import (
    handle,
    make_engine,
    session_factory,
    start_game,
    unit_of_work_factory,
)
from hideseek_chat.store.models import Base, PingRow

START = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)
CHAT = "tg:-100bench"
BLOCK = 250


def _setup(engine: Engine) -> tuple[int, int]:
    Base.metadata.create_all(engine)
    uow_factory = unit_of_work_factory(engine)
    state, decisions = new_game(load_ruleset("metric"), Size.SMALL, 1, "alice", "Alice", START)
    game_id = start_game(uow_factory, CHAT, state, decisions, START)
    assert game_id is not None
    for ref in ("bob", "carol"):
        handle(uow_factory, CHAT, PlayerJoined(ref, ref.title()), START)
    handle(uow_factory, CHAT, GameBegun("alice"), START)
    with uow_factory() as uow:
        target = uow.pings.target(CHAT, "bob")
    assert target is not None
    return game_id, target.player_id


def _measure(engine: Engine, pings: int) -> dict[str, list[float]]:
    game_id, player_id = _setup(engine)
    sessions = session_factory(engine)
    uow_factory = unit_of_work_factory(engine)
    counter = iter(range(10**9))

    def baseline() -> None:
        i = next(counter)
        with sessions() as session:
            session.add(
                PingRow(
                    game_id=game_id,
                    player_id=player_id,
                    lat=36.1 + i * 1e-6,
                    lon=-97.0,
                    accuracy_m=5.0,
                    source="live",
                    forwarded=False,
                    at=START + timedelta(seconds=i),
                )
            )
            session.commit()

    def store() -> None:
        i = next(counter)
        with uow_factory() as uow:
            found = uow.pings.record(
                CHAT, "bob", 36.1 + i * 1e-6, -97.0, START + timedelta(seconds=i), 5.0
            )
            assert found is not None and found.phase is not None
            uow.commit()

    paths: dict[str, Callable[[], None]] = {"baseline": baseline, "store": store}
    for run in paths.values():  # warm up connections, caches and compiled statements
        for _ in range(100):
            run()
    times: dict[str, list[float]] = {name: [] for name in paths}
    done = 0
    while done < pings:  # alternate blocks so both paths see the same conditions
        for name, run in paths.items():
            for _ in range(min(BLOCK, pings - done)):
                began = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - began)
        done += BLOCK
    return times


def _report(database: str, times: dict[str, list[float]]) -> None:
    rates = {}
    for name, samples in times.items():
        rates[name] = len(samples) / sum(samples)
        p99 = statistics.quantiles(samples, n=100)[98] * 1000
        print(f"{database:<10} {name:<9} {rates[name]:>9,.0f} pings/s   p99 {p99:6.2f} ms")
    print(f"{database:<10} store/baseline = {rates['store'] / rates['baseline']:.0%}\n")


def _postgres(base: str, pings: int) -> None:
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(base)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in base else "?"
    engine = make_engine(f"{base}{separator}options={quote(f'-csearch_path={schema}')}")
    try:
        _report("postgresql", _measure(engine, pings))
    finally:
        engine.dispose()
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pings", type=int, default=3000)
    parser.add_argument("--postgres", default=os.environ.get("HIDESEEK_TEST_POSTGRES_URL"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        engine = make_engine(f"sqlite:///{Path(directory) / 'bench.sqlite3'}")
        try:
            _report("sqlite", _measure(engine, args.pings))
        finally:
            engine.dispose()
    if args.postgres:
        _postgres(args.postgres, args.pings)
    else:
        print("postgresql: skipped (no --postgres URL and HIDESEEK_TEST_POSTGRES_URL unset)")


if __name__ == "__main__":
    main()
