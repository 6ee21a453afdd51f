"""Tracker settings and wiring (issue 20): PUBLIC_URL (WEBHOOK_URL's origin by default) and
the per-token cap; long polling starts the web server when trackers are on, and a tracker
app reaches it over real HTTP while the bot polls a fake Bot API."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from hideseek_chat import app as app_module
from hideseek_chat.config import TRACKER_RATE_PER_MIN, Config, ConfigError
from hideseek_chat.store import make_engine, unit_of_work_factory
from tests.telegram.fake_botapi import TOKEN, FakeBotApi, post_update
from tests.telegram.processes import Bot, bot_env, wait_until
from tests.web.trackers_server import free_port


def test_trackers_are_off_without_a_public_address() -> None:
    config = Config.from_env({})
    assert config.tracker_url is None
    assert config.tracker_rate_per_min == TRACKER_RATE_PER_MIN == 120
    assert not app_module.serves_web_when_polling(config)


def test_the_public_address_defaults_to_the_webhooks_origin() -> None:
    config = Config.from_env({"WEBHOOK_URL": "https://bot.example.org:8443/tg/hook"})
    assert config.tracker_url == "https://bot.example.org:8443"
    config = Config.from_env(
        {"WEBHOOK_URL": "https://a.example.org/hook", "PUBLIC_URL": "https://b.example.org/"}
    )
    assert config.tracker_url == "https://b.example.org"
    assert Config.from_env({"HIDESEEK_TRACKER_RATE": "30"}).tracker_rate_per_min == 30


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PUBLIC_URL", "bot.example.org"),
        ("PUBLIC_URL", "ftp://bot.example.org"),
        ("HIDESEEK_TRACKER_RATE", "many"),
        ("HIDESEEK_TRACKER_RATE", "0"),
        ("HIDESEEK_TRACKER_RATE", "-5"),
    ],
)
def test_a_malformed_tracker_setting_is_one_clear_sentence(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Config.from_env({name: value})


def test_long_polling_serves_the_tracker_routes(tmp_path: Path) -> None:
    api = FakeBotApi()
    api.start()
    port = free_port()
    config = Config.from_env(
        {
            "TELEGRAM_BOT_TOKEN": TOKEN,
            "TELEGRAM_BASE_URL": api.base_url,
            "HIDESEEK_DATA_DIR": str(tmp_path),
            "PUBLIC_URL": f"http://127.0.0.1:{port}",
            "HOST": "127.0.0.1",
            "PORT": str(port),
        }
    )
    assert app_module.serves_web_when_polling(config)
    built = app_module.build(config)
    with built.uow_factory() as uow:
        token = uow.trackers.issue("tg:4242", datetime.now(UTC))
        uow.commit()
    stamp = int(datetime.now(UTC).timestamp())
    ping = {"_type": "location", "lat": 48.2, "lon": 16.37, "tst": stamp}
    answers: dict[str, int] = {}

    async def tracker_app() -> None:
        async with httpx.AsyncClient(timeout=5) as client:
            for _ in range(200):  # until the bot knows its name and the server is up
                try:
                    answer = await client.post(
                        f"http://127.0.0.1:{port}/trackers/{token}/owntracks", json=ping
                    )
                except httpx.TransportError:
                    answer = None
                if answer is not None and answer.status_code != 503:
                    break
                await asyncio.sleep(0.05)
            assert answer is not None
            answers["good"] = answer.status_code
            wrong = await client.post(
                f"http://127.0.0.1:{port}/trackers/{'x' * 32}/owntracks", json=ping
            )
            answers["wrong"] = wrong.status_code
        os.kill(os.getpid(), signal.SIGTERM)  # the bot stops cleanly on SIGTERM

    async def main() -> None:
        client = asyncio.ensure_future(tracker_app())
        await app_module._run_until_signal(built, None)
        await client

    try:
        asyncio.run(main())
    finally:
        built.engine.dispose()
        api.stop()
        gc.unfreeze()  # the app froze the heap as it began serving: not this test run's
    assert answers == {"good": 200, "wrong": 401}
    assert api.sent("getUpdates") == [] and api.polls > 0  # it was polling meanwhile


def test_the_webhook_process_serves_the_tracker_routes_beside_the_webhook(
    tmp_path: Path,
) -> None:
    """``hideseek-chat webhook`` as deployed (a process of its own): the tracker routes on
    the same server as Telegram's webhook, trackers on from WEBHOOK_URL's origin."""
    api = FakeBotApi()
    api.start()
    url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
    bot = Bot("webhook", bot_env(api, url, tmp_path), tmp_path / "bot.log")
    bot.start()
    try:
        wait_until(lambda: bool(api.sent("setWebhook")), "the webhook set", patience=60)
        engine = make_engine(url)
        try:
            with unit_of_work_factory(engine)() as uow:
                token = uow.trackers.issue("tg:4242", datetime.now(UTC))
                uow.commit()
        finally:
            engine.dispose()
        stamp = int(datetime.now(UTC).timestamp())
        ping = {"_type": "location", "lat": 48.2, "lon": 16.37, "tst": stamp}
        base = f"http://127.0.0.1:{bot.port}/trackers"
        with httpx.Client(timeout=10) as client:
            assert client.post(f"{base}/{token}/owntracks", json=ping).json() == []
            assert client.post(f"{base}/{'y' * 32}/owntracks", json=ping).status_code == 401
        assert post_update(bot.webhook, "wrong", {"update_id": 1}) == 403  # the webhook too
    finally:
        bot.stop()
        api.stop()
    assert "48.2" not in (tmp_path / "bot.log").read_text()
