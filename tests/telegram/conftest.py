"""An Application built by the bot's own builder, on a Bot API that never leaves the process."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
from telegram import Update

from hideseek_chat.telegram.bot import TelegramApp, build_application
from tests.telegram.factories import TOKEN
from tests.telegram.fake_botapi import FakeBotApi
from tests.telegram.fakes import FakeConversation, FixedClock, RecordingRequest, virtual_limiter

#: The game clock's time in every test: far from the updates' own dates on purpose.
GAME_NOW = datetime(2031, 1, 2, 3, 4, 5, tzinfo=UTC)


@dataclass
class Harness:
    app: TelegramApp
    api: RecordingRequest
    conversation: FakeConversation

    async def feed(self, update: Update) -> None:
        """Run ``update`` through the application like a polled update."""
        await self.app.process_update(update)


@pytest.fixture
async def harness() -> AsyncIterator[Harness]:
    api = RecordingRequest()
    conversation = FakeConversation()
    app = build_application(
        TOKEN, FixedClock(GAME_NOW), conversation.named, request=api, limiter=virtual_limiter()
    )
    await app.initialize()
    try:
        yield Harness(app, api, conversation)
    finally:
        await app.shutdown()
    assert api.unexpected == [], f"unexpected Bot API calls: {api.unexpected}"


@pytest.fixture
def fake_api() -> Iterator[FakeBotApi]:
    """The fake Bot API on 127.0.0.1 (``fake_botapi``), served for one test."""
    api = FakeBotApi()
    api.start()
    yield api
    api.stop()
