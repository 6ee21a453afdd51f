"""Starting the bot: getMe's privacy mode is reported in one start-up line with the fix, and
the command menus are set once the bot runs."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.i18n import LANGUAGES
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.telegram import runner
from hideseek_chat.telegram.bot import build_application
from tests.telegram.conftest import GAME_NOW
from tests.telegram.factories import TOKEN
from tests.telegram.fakes import BOT_USER, FixedClock, RecordingRequest, virtual_limiter


class OnePollApi(RecordingRequest):
    """A Bot API whose first ``getUpdates`` stops the bot (after the start-up calls)."""

    def __init__(self, stop: asyncio.Event, reads_all: bool) -> None:
        super().__init__()
        self.stop = stop
        self.me = {**BOT_USER, "can_read_all_group_messages": reads_all}

    def _answer_getMe(self, params: dict[str, Any]) -> Any:
        return self.me

    def _answer_deleteWebhook(self, params: dict[str, Any]) -> Any:
        return True

    def _answer_getUpdates(self, params: dict[str, Any]) -> Any:
        self.stop.set()
        return []


async def start_once(uow_factory: UnitOfWorkFactory, reads_all: bool) -> OnePollApi:
    stop = asyncio.Event()
    api = OnePollApi(stop, reads_all)
    app = build_application(
        TOKEN,
        FixedClock(GAME_NOW),
        lambda name: Conversation(uow_factory),
        request=api,
        limiter=virtual_limiter(),
    )
    await asyncio.wait_for(runner.run(app, stop), timeout=30)
    return api


def privacy_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [
        r
        for r in caplog.records
        if r.levelno == logging.WARNING and "privacy mode" in r.getMessage()
    ]


async def test_privacy_mode_on_is_one_warning_with_the_fix(
    uow_factory: UnitOfWorkFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    api = await start_once(uow_factory, reads_all=False)
    [line] = privacy_lines(caplog)
    message = line.getMessage()
    assert "/setprivacy" in message and "Disable" in message and "admin" in message
    assert "\n" not in message
    assert "getUpdates" in api.methods  # the bot runs all the same


async def test_privacy_mode_off_says_nothing(
    uow_factory: UnitOfWorkFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    await start_once(uow_factory, reads_all=True)
    assert privacy_lines(caplog) == []


class MenusThenStopApi(OnePollApi):
    """Polls answer empty until every command menu is set; then the bot stops."""

    def _answer_getUpdates(self, params: dict[str, Any]) -> Any:
        if len(self.sent("setMyCommands")) == 2 * len(LANGUAGES):
            self.stop.set()
        return []


async def test_the_menus_are_set_at_start(uow_factory: UnitOfWorkFactory) -> None:
    stop = asyncio.Event()
    api = MenusThenStopApi(stop, True)
    app = build_application(
        TOKEN,
        FixedClock(GAME_NOW),
        lambda name: Conversation(uow_factory),
        request=api,
        limiter=virtual_limiter(),
    )
    await asyncio.wait_for(runner.run(app, stop), timeout=30)
    scopes = {
        (s["scope"]["type"] if isinstance(s["scope"], dict) else s["scope"])
        for s in api.sent("setMyCommands")
    }
    assert len(api.sent("setMyCommands")) == 2 * len(LANGUAGES)
    assert len(scopes) == 2
