"""Two webhook workers on one PostgreSQL, every update delivered to both at once, behave like
one worker given each update once: the same events, the same messages, none twice, and no
IntegrityError in their logs.

The workers are real processes (``python -m hideseek_chat webhook``) reached over HTTP on
127.0.0.1, sending through the fake Bot API (``fake_botapi``); the reference is one worker
on its own database.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, func, select

from hideseek_chat.store.models import OutboxRow
from tests.telegram.fake_botapi import FakeBotApi, post_update
from tests.telegram.processes import (
    PATIENCE,
    SECRET,
    Bot,
    all_applied,
    bot_env,
    events,
    script,
    wait_until,
)

pytestmark = pytest.mark.postgres


def unsent(url: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            count = connection.scalar(
                select(func.count(OutboxRow.id)).where(OutboxRow.sent_at.is_(None))
            )
    finally:
        engine.dispose()
    return int(count or 0)


def deliver(bots: list[Bot], update: dict[str, Any]) -> None:
    """Deliver ``update`` to every worker in ``bots`` at the same moment, each until it
    answers 2xx (as Telegram redelivers)."""
    start = threading.Barrier(len(bots))
    failures: list[str] = []

    def one(bot: Bot) -> None:
        start.wait()
        deadline = time.monotonic() + PATIENCE
        while post_update(bot.webhook, SECRET, update, timeout=PATIENCE) != 200:
            if time.monotonic() > deadline:
                failures.append(bot.webhook)
                return
            time.sleep(0.05)

    threads = [threading.Thread(target=one, args=(bot,)) for bot in bots]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def play(
    workers: int, api: FakeBotApi, url: str, tmp: Path, updates: list[dict[str, Any]]
) -> tuple[Counter[tuple[str, int, str]], list[str], str]:
    """Run ``workers`` webhook processes on ``url``, deliver every update to all of them,
    wait until everything is applied and sent; return the messages, the event types and
    the workers' logs."""
    env = bot_env(api, url, tmp)
    # The schema first, once: workers starting together would each migrate.
    subprocess.run([sys.executable, "-m", "hideseek_chat", "db", "upgrade"], env=env, check=True)
    bots = [Bot("webhook", env, tmp / f"worker{i}.log") for i in range(workers)]
    try:
        for bot in bots:
            bot.start()
        for update in updates:
            deliver(bots, update)
        ids = [f"tg:{u['update_id']}" for u in updates]
        wait_until(lambda: all_applied(url, ids), "every update applied")
        wait_until(lambda: unsent(url) == 0, "the outbox sent")
    finally:
        for bot in bots:
            bot.stop()
    sent = Counter(
        (call.method, int(call.params.get("chat_id", 0)), _masked(str(call.params.get("text", ""))))
        for call in api.sent()
        if call.method in ("sendMessage", "editMessageText", "sendPhoto")
    )
    logs = "\n".join(bot.log.read_text(errors="replace") for bot in bots)
    return sent, [kind for kind, _ in events(url)], logs


def _masked(text: str) -> str:
    """``text`` with its numbers masked (clock times differ between two runs)."""
    return re.sub(r"\d+", "#", text)


def test_two_workers_given_every_update_twice_act_like_one(
    database_url: str, fake_api: FakeBotApi, tmp_path: Path
) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("several workers share one PostgreSQL")
    updates = script(16)
    one_api = FakeBotApi()
    one_api.start()
    try:
        reference_url = f"sqlite:///{tmp_path / 'one.sqlite3'}"
        (tmp_path / "one").mkdir()
        alone, alone_events, _ = play(1, one_api, reference_url, tmp_path / "one", updates)
    finally:
        one_api.stop()
    (tmp_path / "two").mkdir()
    together, together_events, logs = play(2, fake_api, database_url, tmp_path / "two", updates)
    assert together_events == alone_events
    assert together == alone, (together - alone, alone - together)
    assert "IntegrityError" not in logs
    assert "Traceback" not in logs, logs[-3000:]
