"""A burst of due timers while a live location keeps arriving, on SQLite and PostgreSQL.

``size`` games' hiding periods end at the same moment; one tick of the drive loop fires
them in batches (a background thread) and sends what they announced, while after each batch
a seeker of another game sends a live-location edit (``tests.chat.burst``). Reported: the
burst size, the whole burst's time (timers and their announcements), the edits' latency
from arrival until stored and done with (p50, p99) and how late the deadlines fired (p50,
p99: the game clock follows the wall clock from the moment they fell due), and the firing
thread's CPU time a timer (the wall times depend on what else the machine runs).

    python bench/bench_timers.py [--size 1000] [--postgres URL]

PostgreSQL is measured when ``--postgres`` or ``HIDESEEK_TEST_POSTGRES_URL`` is given (in a
throwaway schema). Not part of the test suite (``tests/chat/test_timer_burst.py`` is).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import Engine, create_engine, text

from hideseek_chat.store import make_engine, unit_of_work_factory
from hideseek_chat.store.models import Base
from tests.chat import burst


def measure(engine: Engine, size: int, label: str) -> None:
    Base.metadata.create_all(engine)
    uow_factory = unit_of_work_factory(engine)
    began = time.perf_counter()
    prepared = burst.prepare(uow_factory, size)
    setup = time.perf_counter() - began
    outcome = asyncio.run(burst.run(prepared))
    fired = burst.deadlines_fired(uow_factory, prepared.games)
    assert fired == dict.fromkeys(prepared.games, 1), "a deadline fired twice or never"
    edits, late = outcome.edit_latency, outcome.lateness
    print(
        f"{label:<10} burst {size:>5}  setup {setup:5.1f} s  total {outcome.total:6.2f} s"
        f"  timers fired by {max(late):6.2f} s ({size / max(late):5.0f}/s)"
        f"  sent {outcome.sent}"
    )
    print(
        f"{'':<10} edits {len(edits):>4}  latency p50 {burst.percentile(edits, 50) * 1000:6.1f} ms"
        f"  p99 {burst.percentile(edits, 99) * 1000:6.1f} ms  max {max(edits) * 1000:6.1f} ms"
    )
    print(
        f"{'':<10} deadline lateness p50 {burst.percentile(late, 50):6.2f} s"
        f"  p99 {burst.percentile(late, 99):6.2f} s  (target <= 2 s)"
        f"  firing CPU {outcome.fire_cpu / size * 1000:5.2f} ms a timer"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1000, help="timers due together")
    parser.add_argument("--postgres", default=os.environ.get("HIDESEEK_TEST_POSTGRES_URL"))
    parser.add_argument("--no-sqlite", action="store_true", help="measure PostgreSQL only")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        if not args.no_sqlite:
            engine = make_engine(f"sqlite:///{Path(tmp) / 'bench.sqlite3'}")
            try:
                measure(engine, args.size, "sqlite")
            finally:
                engine.dispose()

    if args.postgres:
        schema = f"bench_{uuid.uuid4().hex[:8]}"
        admin = create_engine(args.postgres)
        with admin.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        separator = "&" if "?" in args.postgres else "?"
        url = f"{args.postgres}{separator}options={quote(f'-csearch_path={schema}')}"
        engine = make_engine(url)
        try:
            measure(engine, args.size, "postgresql")
        finally:
            engine.dispose()
            with admin.begin() as connection:
                connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()


if __name__ == "__main__":
    main()
