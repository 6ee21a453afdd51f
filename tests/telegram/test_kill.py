"""kill -9 at the moment Telegram counts an update as delivered, in both modes: nothing lost,
nothing applied twice.

The bot runs as a real process (``python -m hideseek_chat run`` / ``webhook``) against the
fake Bot API on 127.0.0.1 (``fake_botapi``), which behaves like Telegram: long polling
confirms with the next offset and redelivers whatever is unconfirmed; the webhook is
redelivered until it answers 2xx. The test kills the process with SIGKILL right at that
confirmation (inside the fake's getUpdates, or as the 200 arrives) and starts it again.
Every confirmed update must then be in the inbox, applied once, and the game's events
must be those of a run without a kill.

A few kills run in every test run; ``-m chaos`` runs 20 per mode (CI runs that on
PostgreSQL).
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

import pytest

from hideseek_chat.store.models import InboxStatus
from tests.telegram.fake_botapi import FakeBotApi, post_update
from tests.telegram.processes import (
    PATIENCE,
    SECRET,
    Bot,
    bot_env,
    events,
    finish,
    inbox,
    script,
    wait_until,
)


def play_polling(bot: Bot, api: FakeBotApi, updates: list[dict[str, Any]], kills: int) -> int:
    """Feed ``updates`` in small batches; kill the bot at ``kills`` confirmations."""
    killed = 0

    def on_confirm(ids: list[int]) -> None:
        nonlocal killed
        if killed < kills:
            killed += 1
            bot.kill()

    api.on_confirm = on_confirm
    bot.start()
    batches = [updates[i : i + 2] for i in range(0, len(updates), 2)]
    for batch in batches:
        api.put(batch)
        ids = [u["update_id"] for u in batch]
        wait_until(lambda ids=ids: set(ids) <= set(api.confirmed), "a confirmation", bot)
    return killed


def play_webhook(bot: Bot, updates: list[dict[str, Any]], kills: int) -> int:
    """Deliver ``updates`` one by one until each is answered 2xx; kill the bot right at
    ``kills`` of those answers; every fifth update is delivered twice."""
    killed = 0
    bot.start()
    for index, update in enumerate(updates):
        deadline = time.monotonic() + PATIENCE
        while post_update(bot.webhook, SECRET, update, timeout=PATIENCE) != 200:
            if not bot.alive:
                bot.start()
            assert time.monotonic() < deadline, "the webhook never took the update"
            time.sleep(0.05)
        if killed < kills and index % max(1, len(updates) // kills) == 0:
            killed += 1
            bot.kill()
            bot.start()
        if index % 5 == 4:  # Telegram may deliver an update twice
            while post_update(bot.webhook, SECRET, update, timeout=PATIENCE) != 200:
                if not bot.alive:
                    bot.start()
                time.sleep(0.05)
    return killed


def check(url: str, updates: list[dict[str, Any]], reference: list[str], log: Path) -> None:
    ids = [f"tg:{u['update_id']}" for u in updates]
    statuses = inbox(url)
    lost = [i for i in ids if statuses.get(i) in (None, InboxStatus.PENDING)]
    assert lost == [], f"lost: {lost}"
    applied = events(url)
    per_update = [u for _, u in applied if u is not None]
    # Each update's events were written once, in one transaction.
    runs = [key for key, _ in itertools.groupby(per_update)]
    assert len(runs) == len(set(runs)), "an update's events were applied twice"
    assert [kind for kind, _ in applied] == reference
    text = log.read_text(errors="replace")
    assert "IntegrityError" not in text
    assert "Traceback" not in text, text[-3000:]


def reference_events(count: int, tmp: Path) -> list[str]:
    cached = _REFERENCES.get(count)
    if cached is not None:
        return cached
    api = FakeBotApi()
    api.start()
    try:
        url = f"sqlite:///{tmp / 'reference.sqlite3'}"
        env = bot_env(api, url, tmp)
        bot = Bot("run", env, tmp / "reference.log")
        updates = script(count)
        play_polling(bot, api, updates, kills=0)
        finish(bot, url, updates)
        kinds = [kind for kind, _ in events(url)]
    finally:
        api.stop()
    _REFERENCES[count] = kinds
    return kinds


_REFERENCES: dict[int, list[str]] = {}


def _kills(request: pytest.FixtureRequest) -> tuple[int, int]:
    """(updates, kills): a few in every run, 20 with ``-m chaos``."""
    chaos = request.node.get_closest_marker("chaos") is not None
    return (40, 20) if chaos else (10, 3)


@pytest.mark.parametrize("mode", ["run", "webhook"])
def test_kill_at_the_acknowledgment_loses_nothing(
    mode: str,
    database_url: str,
    fake_api: FakeBotApi,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
) -> None:
    count, kills = _kills(request)
    if database_url.startswith("postgresql") and request.node.get_closest_marker("chaos") is None:
        pytest.skip("PostgreSQL is the chaos run's (-m chaos), with 20 kills and more")
    expected = reference_events(count, tmp_path_factory.mktemp("reference"))
    updates = script(count)
    log = tmp_path / "bot.log"
    bot = Bot(mode, bot_env(fake_api, database_url, tmp_path), log)
    try:
        if mode == "run":
            killed = play_polling(bot, fake_api, updates, kills)
        else:
            killed = play_webhook(bot, updates, kills)
        finish(bot, database_url, updates)
    finally:
        bot.kill()
    assert killed == kills
    check(database_url, updates, expected, log)


@pytest.mark.chaos
@pytest.mark.postgres
@pytest.mark.parametrize("mode", ["run", "webhook"])
def test_twenty_kills_at_the_acknowledgment_lose_nothing(
    mode: str,
    database_url: str,
    fake_api: FakeBotApi,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("the long chaos run is PostgreSQL's")
    test_kill_at_the_acknowledgment_loses_nothing(
        mode, database_url, fake_api, tmp_path, tmp_path_factory, request
    )
