"""The composition root with the SMS channel configured: its routes on the one web server,
sharing the Telegram channel's drive loop and outbox."""

from __future__ import annotations

from pathlib import Path

from hideseek_chat import app as app_module
from hideseek_chat.config import Config, SmsSettings
from hideseek_chat.sms.gateway import Gateway
from hideseek_chat.telegram.bot import channel_of
from tests.telegram.factories import TOKEN
from tests.telegram.fakes import RecordingRequest


async def test_the_sms_routes_are_served_when_the_gateway_is_configured(tmp_path: Path) -> None:
    sms = SmsSettings("AC" + "1" * 32, "token", "+41790000000", "https://bot.example.org")
    config = Config(telegram_token=TOKEN, data_dir=tmp_path, sms=sms)
    app = app_module.build(config, request=RecordingRequest())
    try:
        assert app.sms is not None
        assert channel_of(app.telegram).also is app.sms
        paths = [getattr(r, "path", None) for r in app_module.web_routes(app)]
        sms_paths = ["/sms", "/sms/status", "/sms/media/{token}"]
        health = ["/healthz", "/readyz", "/metrics"]
        # Tracker apps reach the same server at SMS_PUBLIC_URL when nothing else names one.
        trackers = ["/trackers/{token}/{app}", "/trackers/{app}"]
        assert paths == sms_paths + health + trackers
        assert config.tracker_url == "https://bot.example.org"
        gateway = app.sms.gateway
        assert isinstance(gateway, Gateway)
        assert gateway.settings.status_url == "https://bot.example.org/sms/status"
    finally:
        app.engine.dispose()
    plain = app_module.build(
        Config(telegram_token=TOKEN, data_dir=tmp_path), request=RecordingRequest()
    )
    try:
        assert plain.sms is None and channel_of(plain.telegram).also is None
    finally:
        plain.engine.dispose()


def test_what_start_up_made_is_kept_out_of_the_collectors_sight() -> None:
    """``freeze_heap`` (called just before serving): a full collection then walks only
    what was made after it, so it no longer holds every thread for 100 ms and more."""
    import gc

    from hideseek_chat.app import freeze_heap

    kept = [[index] for index in range(10_000)]  # tracked containers made at start-up
    try:
        before = gc.get_freeze_count()
        freeze_heap()
        assert gc.get_freeze_count() >= before + len(kept)
        assert all(not any(item is row for item in gc.get_objects(2)) for row in kept[:3])
    finally:
        gc.unfreeze()  # the rest of the test session collects as before
