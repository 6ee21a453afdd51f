"""How the Application is built: rate limiter, command menu, the tick job, errors contained."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from hideseek_chat.chat.model import SendText
from hideseek_chat.chat.routes import Where, menu
from hideseek_chat.telegram.bot import TICK_SECONDS, build_application
from hideseek_chat.telegram.limits import PacingLimiter
from hideseek_chat.telegram.runner import set_command_menus
from tests.telegram.conftest import GAME_NOW, Harness
from tests.telegram.factories import GROUP, TOKEN, make_command
from tests.telegram.fakes import Delivery, FakeConversation, FixedClock, RecordingRequest


async def test_every_call_goes_through_the_rate_limiter(harness: Harness) -> None:
    assert isinstance(harness.app.bot.rate_limiter, PacingLimiter)


async def test_the_command_menus_are_set_on_startup_one_per_kind_of_chat(
    harness: Harness,
) -> None:
    await set_command_menus(harness.app.bot, asyncio.Event())
    english = {
        json.loads(s["scope"])["type"] if isinstance(s["scope"], str) else s["scope"]["type"]: [
            c["command"] for c in s["commands"]
        ]
        for s in harness.api.sent("setMyCommands")
        if "language_code" not in s
    }
    assert english == {
        "all_group_chats": [
            "newgame",
            "join",
            "team",
            "leave",
            "invite",
            "begin",
            "next",
            "ask",
            "found",
            "endgame",
            "cleared",
            "penalty",
            "lost",
            "pause",
            "resume",
            "status",
            "score",
            "review",
            "hand",
            "map",
            "seekmap",
            "stations",
            "settings",
            "abort",
            "language",
            "botnet",
            "claim",
            "resign",
            "help",
        ],
        "all_private_chats": [
            "next",
            "ask",
            "answer",
            "pause",
            "resume",
            "status",
            "score",
            "review",
            "hand",
            "play",
            "track",
            "tracker",
            "stations",
            "game",
            "language",
            "move",
            "resign",
            "forgetme",
            "help",
        ],
    }
    assert [name for name, _ in menu(Where.GROUP)] == english["all_group_chats"]
    assert [name for name, _ in menu(Where.PRIVATE)] == english["all_private_chats"]


async def test_a_failing_command_menu_does_not_stop_the_bot(harness: Harness) -> None:
    harness.api.fail("setMyCommands", 400, "Bad Request: bad command description")
    await set_command_menus(harness.app.bot, asyncio.Event())


async def test_the_tick_job_fires_timers_and_sends_their_announcements(harness: Harness) -> None:
    assert harness.app.job_queue is not None
    [job] = harness.app.job_queue.get_jobs_by_name("tick")
    assert job.job.trigger.interval.total_seconds() == TICK_SECONDS
    harness.conversation.outbox.append(
        Delivery(9, (SendText(f"tg:{GROUP}", text="Hiding time is over"),))
    )
    await job.run(harness.app)
    assert harness.conversation.ticks == [GAME_NOW]
    assert [m["text"] for m in harness.api.sent("sendMessage")] == ["Hiding time is over"]
    assert harness.conversation.delivered_ids == [9]


async def test_a_conversation_error_is_logged_not_raised(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(msg: object, payload: str | None = None) -> list[object]:
        raise RuntimeError("boom")

    harness.conversation.handle = broken  # type: ignore[assignment,method-assign]
    with caplog.at_level(logging.ERROR):
        await harness.feed(make_command(harness.app.bot, "/status"))
    assert "boom" in caplog.text


async def test_a_self_hosted_bot_api_server_is_used_for_calls_and_files() -> None:
    api = RecordingRequest()
    app = build_application(
        TOKEN,
        FixedClock(GAME_NOW),
        FakeConversation().named,
        base_url="http://127.0.0.1:8081/bot",
        request=api,
    )
    assert app.bot.base_url == f"http://127.0.0.1:8081/bot{TOKEN}"
    assert app.bot.base_file_url == f"http://127.0.0.1:8081/file/bot{TOKEN}"


async def test_a_failed_update_is_logged_without_its_location(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """An update that fails is logged by its id and kind: a location in it may be the hider's."""
    from hideseek_chat.telegram import bot as telegram_bot
    from tests.telegram.factories import make_location

    failed = make_location(harness.app.bot, 36.1262217, -97.0640153)
    context = type("Context", (), {"error": RuntimeError("boom")})()
    with caplog.at_level(logging.ERROR):
        await telegram_bot._log_error(failed, context)  # type: ignore[arg-type]
    assert f"handling update {failed.update_id} (message) failed" in caplog.text
    assert "36.126" not in caplog.text and "97.064" not in caplog.text
