"""SIGTERM stops the polling bot at once, even in the middle of a long poll, after it has
applied the updates in hand; what a stopped bot had not confirmed, Telegram sends again."""

from __future__ import annotations

import time
from pathlib import Path

from hideseek_chat.store.models import InboxStatus
from tests.telegram.fake_botapi import FakeBotApi
from tests.telegram.processes import PATIENCE, Bot, bot_env, inbox, script, wait_until

#: How long the fake's empty getUpdates waits, like Telegram's long poll (seconds).
LONG_POLL = 40.0


def test_sigterm_during_a_long_poll_exits_promptly_with_every_confirmed_update_applied(
    tmp_path: Path,
) -> None:
    api = FakeBotApi(poll_wait=LONG_POLL)
    api.start()
    url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
    log = tmp_path / "bot.log"
    bot = Bot("run", bot_env(api, url, tmp_path), log)
    try:
        updates = script(12)
        api.put(updates)
        bot.start()
        ids = [u["update_id"] for u in updates]
        # Confirmed by the next getUpdates, which now waits LONG_POLL for news.
        wait_until(lambda: set(ids) <= set(api.confirmed), "the batch confirmed")
        polls = api.polls
        assert bot.process is not None
        bot.process.terminate()  # SIGTERM
        stopped = time.monotonic()
        assert bot.process.wait(timeout=PATIENCE) == 0
        assert time.monotonic() - stopped < LONG_POLL / 2, "it waited for the long poll"
        assert api.polls == polls  # no poll after the signal
    finally:
        bot.kill()
        api.stop()
    statuses = inbox(url)
    pending = [i for i in ids if statuses.get(f"tg:{i}") in (None, InboxStatus.PENDING)]
    assert pending == [], "a stopping bot left updates it held unapplied"
    text = log.read_text(errors="replace")
    assert "Traceback" not in text, text[-3000:]
