"""Several workers starting together migrate one after the other, never at once.

The workers are processes, as in a deployment (Alembic's ``context`` is one per process, so
threads of one process cannot migrate at the same time anyway).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import Connection, inspect, text

from hideseek_chat.store import make_engine
from hideseek_chat.store.migrate import LOCK_NAME, check
from hideseek_chat.store.models import Base

#: How long a test waits for a worker that should finish (seconds); not a timer under test.
PATIENCE = 120.0
ROOT = Path(__file__).resolve().parents[2]
#: A worker: wait until the file ``go`` exists (so that all start together), then migrate.
WORKER = """
import os, sys, time
from hideseek_chat.store.migrate import upgrade
while not os.path.exists(sys.argv[2]):
    time.sleep(0.005)
upgrade(sys.argv[1])
"""


def _worker(url: str, go: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", WORKER, url, str(go)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def _finish(worker: subprocess.Popen[bytes]) -> None:
    try:
        out, _ = worker.communicate(timeout=PATIENCE)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.communicate()
    assert worker.returncode == 0, out.decode(errors="replace")


def test_workers_upgrading_a_fresh_database_at_once_all_succeed(
    database_url: str, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    workers = [_worker(database_url, go) for _ in range(3)]
    go.touch()
    for worker in workers:
        _finish(worker)
    check(database_url)
    engine = make_engine(database_url)
    try:
        tables = set(inspect(engine).get_table_names())
        with engine.connect() as connection:
            versions = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    finally:
        engine.dispose()
    assert set(Base.metadata.tables) <= tables
    assert len(versions) == 1


@pytest.mark.postgres
def test_an_upgrade_waits_for_the_advisory_lock(database_url: str, tmp_path: Path) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("the advisory lock is PostgreSQL's")
    engine = make_engine(database_url)
    try:
        with engine.connect() as holder:
            key = text("SELECT hashtext(:name || current_schema())").bindparams(name=LOCK_NAME)
            lock_id = holder.execute(key).scalar_one()
            holder.execute(text("SELECT pg_advisory_lock(:id)").bindparams(id=lock_id))
            holder.commit()
            go = tmp_path / "go"
            go.touch()
            worker = _worker(database_url, go)
            try:
                _wait_for_the_lock(holder, lock_id, worker)
            except BaseException:
                worker.kill()
                worker.communicate()
                raise
            holder.execute(text("SELECT pg_advisory_unlock(:id)").bindparams(id=lock_id))
            holder.commit()
            _finish(worker)
        check(database_url)
    finally:
        engine.dispose()


def _wait_for_the_lock(holder: Connection, lock_id: int, worker: subprocess.Popen[bytes]) -> None:
    """Return once ``worker`` waits for the lock ``holder`` holds, having migrated nothing."""
    # The worker asks for the same lock and waits: pg_locks shows it not granted.
    waiting = text(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        " AND objid::text::bigint = ((:id)::bigint & 4294967295)"
    ).bindparams(id=lock_id)
    deadline = time.monotonic() + PATIENCE
    while holder.execute(waiting).scalar_one() == 0:
        holder.rollback()
        assert worker.poll() is None, "the upgrade ran without waiting for the lock"
        assert time.monotonic() < deadline, "the upgrade never asked for the lock"
        time.sleep(0.02)
    holder.rollback()
    assert worker.poll() is None
    assert "alembic_version" not in inspect(holder).get_table_names()
    holder.rollback()
