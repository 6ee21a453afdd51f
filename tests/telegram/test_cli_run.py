"""``hideseek-chat run`` and ``webhook``: settings checked first, then everything wired once."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from hideseek_chat import app as app_module
from hideseek_chat.cli import main
from hideseek_chat.config import Config, ConfigError
from hideseek_chat.telegram import runner
from tests.telegram.factories import GROUP, TOKEN, make_command
from tests.telegram.fakes import RecordingRequest
from tests.telegram.processes import PATIENCE, free_port, wait_until


@pytest.fixture(autouse=True)
def _logging_restored(restore_logging: None) -> None:
    """``run`` and ``webhook`` set up logging for the process: undone after each test."""


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    for name in (
        "TELEGRAM_BOT_TOKEN",
        "TELEGRAM_BASE_URL",
        "DATABASE_URL",
        "WEBHOOK_URL",
        "WEBHOOK_SECRET",
        "PORT",
        "HIDESEEK_WEB_PORT",
        "HIDESEEK_LOG_LEVEL",
        "HIDESEEK_LOG_FORMAT",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HIDESEEK_DATA_DIR", str(tmp_path))
    return monkeypatch


@pytest.fixture
def never_run(monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, Any]]:
    """Stand in for the runner; record how it was called (polling, or which webhook)."""
    calls: dict[str, dict[str, Any]] = {}

    async def run(
        application: Any, stop: Any, webhook: runner.Webhook | None = None, **_: Any
    ) -> None:
        if webhook is None:
            calls["polling"] = {"application": application}
        else:
            calls["webhook"] = {
                "port": webhook.port,
                "url_path": webhook.path,
                "webhook_url": webhook.url,
                "secret_token": webhook.secret,
            }

    monkeypatch.setattr(runner, "run", run)
    return calls


@pytest.mark.parametrize("command", ["run", "webhook"])
def test_without_a_token_the_bot_says_so_in_one_line(
    command: str, env: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "TELEGRAM_BOT_TOKEN is not set" in captured.err
    assert "Traceback" not in captured.err and captured.out == ""
    assert not (tmp_path / "hideseek.sqlite3").exists()  # nothing was built


@pytest.mark.parametrize(
    "token", ["98765", "abc:defghijklmnopqrstuvwxyz0123456789", "123456:short", f"{TOKEN} extra"]
)
def test_a_malformed_token_is_refused_without_echoing_it(
    token: str, env: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env.setenv("TELEGRAM_BOT_TOKEN", token)
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not look like a bot token" in err
    assert token not in err
    assert not (tmp_path / "hideseek.sqlite3").exists()


def test_webhook_needs_its_url(env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    env.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    assert main(["webhook"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "WEBHOOK_URL is not set" in err


def test_run_refuses_to_poll_where_a_webhook_is_configured(
    env: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Procfile's `worker` started beside its `web` would delete the webhook and take the
    updates: `run` stops at once with the fix instead."""
    env.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    env.setenv("WEBHOOK_URL", "https://bot.example.org/hook")
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "hideseek-chat webhook" in err
    assert not (tmp_path / "hideseek.sqlite3").exists()  # nothing was built


def test_run_migrates_and_polls_for_the_updates_the_bot_reads(
    env: pytest.MonkeyPatch, tmp_path: Path, never_run: dict[str, dict[str, Any]]
) -> None:
    env.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    assert main(["run"]) == 0
    assert (tmp_path / "hideseek.sqlite3").is_file()
    assert "polling" in never_run


def test_webhook_serves_the_urls_path_with_a_stable_secret(
    env: pytest.MonkeyPatch, never_run: dict[str, dict[str, Any]]
) -> None:
    env.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    env.setenv("WEBHOOK_URL", "https://bot.example.org/tg/hook")
    env.setenv("PORT", "9000")
    assert main(["webhook"]) == 0
    call = never_run["webhook"]
    assert (call["port"], call["url_path"], call["webhook_url"]) == (
        9000,
        "tg/hook",
        "https://bot.example.org/tg/hook",
    )
    derived = call["secret_token"]
    assert derived == Config.from_env({"TELEGRAM_BOT_TOKEN": TOKEN}).effective_webhook_secret
    assert TOKEN not in derived and len(derived) == 64

    env.setenv("WEBHOOK_SECRET", "my-own_secret")
    assert main(["webhook"]) == 0
    assert never_run["webhook"]["secret_token"] == "my-own_secret"


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("PORT", "http", "PORT must be a port number"),
        ("PORT", "70000", "PORT must be a port number"),
        ("WEBHOOK_URL", "bot.example.org/hook", "WEBHOOK_URL must be an https:// address"),
        ("WEBHOOK_SECRET", "not allowed!", "WEBHOOK_SECRET must be 1 to 256"),
        ("WEBHOOK_SECRET", "x" * 257, "WEBHOOK_SECRET must be 1 to 256"),
    ],
)
def test_webhook_settings_are_validated(name: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Config.from_env({name: value})


def test_the_derived_secret_needs_a_token() -> None:
    with pytest.raises(ConfigError, match="TELEGRAM_BOT_TOKEN"):
        _ = Config().effective_webhook_secret


async def test_build_wires_store_clock_and_jobs(tmp_path: Path) -> None:
    config = Config(telegram_token=TOKEN, data_dir=tmp_path, clock_speed=30)
    api = RecordingRequest()
    app = app_module.build(config, request=api)
    try:
        assert app.clock.speed == 30
        assert app.engine.url.database == str(tmp_path / "hideseek.sqlite3")
        assert app.telegram.job_queue is not None
        names = {job.name for job in app.telegram.job_queue.jobs()}
        assert names == {"tick", "purge-pings"}
        await app.telegram.initialize()
        [purge] = app.telegram.job_queue.get_jobs_by_name("purge-pings")
        await purge.run(app.telegram)  # a fresh database: nothing to purge, nothing sent
        assert api.methods == [] and api.unexpected == []
        await app.telegram.shutdown()
    finally:
        app.engine.dispose()


async def test_the_real_conversation_answers_through_the_bot(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    api = RecordingRequest()
    app = app_module.build(Config(telegram_token=TOKEN, data_dir=tmp_path), request=api)
    try:
        await app.telegram.initialize()
        with caplog.at_level(logging.ERROR):
            await app.telegram.process_update(
                make_command(app.telegram.bot, "/newgame@HideSeekBot")
            )
        assert caplog.text == ""
        assert [m["chat_id"] for m in api.sent("sendMessage")] == [GROUP]
        assert api.unexpected == []
        await app.telegram.shutdown()
    finally:
        app.engine.dispose()


# ----------------------------------------------------------------- serving and stopping


def test_a_port_makes_long_polling_serve_the_web_routes() -> None:
    assert not Config.from_env({}).serve_web  # the webhook's default port, nothing served
    assert Config.from_env({"PORT": "9100"}).serve_web
    config = Config.from_env({"HIDESEEK_WEB_PORT": "9200", "PORT": "9100"})
    assert (config.serve_web, config.port) == (True, 9200)
    with pytest.raises(ConfigError, match="HIDESEEK_WEB_PORT must be a port number"):
        Config.from_env({"HIDESEEK_WEB_PORT": "web"})


def test_bad_log_settings_are_one_sentence(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    env.setenv("HIDESEEK_LOG_FORMAT", "xml")
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "HIDESEEK_LOG_FORMAT must be text or json" in err


def test_run_without_telegram_retries_serves_health_and_stops_on_sigterm(
    tmp_path: Path,
) -> None:
    """``hideseek-chat run`` as a process, Telegram unreachable (nothing listens on its
    port): one line per failed attempt, no traceback; /healthz and /readyz answer meanwhile
    (a PORT is set); SIGTERM ends it cleanly."""
    web = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIDESEEK_", "TELEGRAM_"))}
    env.update(
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_BASE_URL=f"http://127.0.0.1:{free_port()}/bot",
        HIDESEEK_DATA_DIR=str(tmp_path),
        PORT=str(web),
        HOST="127.0.0.1",
        HIDESEEK_LOG_FORMAT="json",
        PYTHONPATH=str(Path(__file__).resolve().parents[2]),
    )
    env.pop("DATABASE_URL", None)
    log = tmp_path / "bot.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "hideseek_chat", "run"],
            env=env,
            cwd=tmp_path,  # no .env of the checkout
            stdout=out,
            stderr=out,
        )
    try:

        def failures() -> list[dict[str, Any]]:
            entries = [json.loads(line) for line in log.read_text().splitlines()]
            return [e for e in entries if e["message"].startswith("reaching Telegram failed")]

        wait_until(lambda: len(failures()) >= 2, "two attempts to reach Telegram")
        assert process.poll() is None, "still running, still trying"
        for path, answer in (("/healthz", "ok"), ("/readyz", "ready")):
            reply = httpx.get(f"http://127.0.0.1:{web}{path}", timeout=10)
            assert (reply.status_code, reply.text) == (200, answer)
        page = httpx.get(f"http://127.0.0.1:{web}/metrics", timeout=10).text
        assert "hideseek_updates_handled" in page
        process.send_signal(signal.SIGTERM)
        stopped = time.monotonic()
        assert process.wait(timeout=PATIENCE) == 0
        # Promptly: the backoff's wait ends on the signal, not when its delay is over.
        assert time.monotonic() - stopped < 10
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    text = log.read_text()
    assert "Traceback" not in text and TOKEN not in text
    assert all("exc" not in e for e in failures())
    assert all(line.startswith("{") for line in text.splitlines()), text
    with pytest.raises(httpx.ConnectError):  # the web server stopped with it
        httpx.get(f"http://127.0.0.1:{web}/healthz", timeout=2)


async def test_the_route_list_has_the_webhook_only_in_webhook_mode(tmp_path: Path) -> None:
    config = Config(
        telegram_token=TOKEN, data_dir=tmp_path, webhook_url="https://bot.example.org/tg/hook"
    )
    app = app_module.build(config, request=RecordingRequest())

    async def receive(update: dict[str, Any]) -> None:
        raise AssertionError("not called")

    try:
        webhook = app_module.webhook_settings(config)
        paths = [getattr(r, "path", None) for r in app_module.web_routes(app, webhook, receive)]
        # WEBHOOK_URL's origin is where tracker apps reach the bot too (issue 20).
        trackers = ["/trackers/{token}/{app}", "/trackers/{app}"]
        assert paths == ["/tg/hook", "/healthz", "/readyz", "/metrics", *trackers]
        polling = [getattr(r, "path", None) for r in app_module.web_routes(app)]
        assert polling == ["/healthz", "/readyz", "/metrics", *trackers]
        with pytest.raises(ValueError, match="receiver"):
            app_module.web_routes(app, webhook)
    finally:
        app.engine.dispose()


async def test_a_network_error_in_a_job_or_update_is_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from telegram.error import TimedOut

    from hideseek_chat.telegram import bot as bot_module

    class Context:
        error: Exception = TimedOut()

    with caplog.at_level(logging.WARNING, logger="hideseek_chat.telegram.bot"):
        await bot_module._log_error(None, Context())  # type: ignore[arg-type]
        Context.error = KeyError("a bug")
        await bot_module._log_error(None, Context())  # type: ignore[arg-type]
    network, bug = caplog.records
    assert (network.levelname, network.exc_info) == ("WARNING", None)
    assert network.getMessage() == "a job failed (TimedOut: Timed out)"
    assert bug.levelname == "ERROR" and bug.exc_info is not None


def test_a_database_away_at_start_is_one_line(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    env.setenv("DATABASE_URL", f"postgresql://postgres:pa55word@127.0.0.1:{free_port()}/x")
    assert main(["run"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot be reached" in err, err
    assert "pa55word" not in err and "Traceback" not in err
