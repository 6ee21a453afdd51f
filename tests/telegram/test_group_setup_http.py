"""The bot's set-up over real HTTP: the bot runs (``runner.run``, long polling) against the fake
Bot API on 127.0.0.1, which reports privacy mode on and the bot added to a group as a plain
member; the start-up log says so once, and the group hears the introduction with the rights
the bot needs."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from hideseek_chat.chat.clock import GameClock
from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.i18n import LANGUAGES
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.telegram import runner
from hideseek_chat.telegram.bot import build_application
from tests.telegram.fake_botapi import BOT_USER, PLAIN_MEMBER, TOKEN, FakeBotApi

GROUP = -1_009_876_543_210
ALICE = {"id": 4242, "is_bot": False, "first_name": "Alice"}


def added_to_the_group(update_id: int) -> dict[str, object]:
    return {
        "update_id": update_id,
        "my_chat_member": {
            "chat": {"id": GROUP, "type": "supergroup", "title": "Hide+Seek night"},
            "from": ALICE,
            "date": int(time.time()),
            "old_chat_member": {"status": "left", "user": BOT_USER},
            "new_chat_member": PLAIN_MEMBER,
        },
    }


async def test_privacy_mode_and_the_introduction_over_http(
    fake_api: FakeBotApi, uow_factory: UnitOfWorkFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    fake_api.me = {**BOT_USER, "can_read_all_group_messages": False}
    fake_api.put([added_to_the_group(1)])
    app = build_application(
        TOKEN, GameClock(), lambda name: Conversation(uow_factory), base_url=fake_api.base_url
    )
    stop = asyncio.Event()
    running = asyncio.ensure_future(runner.run(app, stop))
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (
            fake_api.messages() and len(fake_api.sent("setMyCommands")) == 2 * len(LANGUAGES)
        ):
            await asyncio.sleep(0.05)  # the bot works over HTTP meanwhile
    finally:
        stop.set()
        await asyncio.wait_for(running, timeout=30)
    [(chat_id, text)] = fake_api.messages()
    assert chat_id == GROUP
    assert "Delete messages" in text and "Pin messages" in text and "privacy mode" in text
    warnings = [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and "privacy mode" in r.getMessage()
    ]
    assert len(warnings) == 1 and "/setprivacy" in warnings[0]
    assert len(fake_api.sent("setMyCommands")) == 2 * len(LANGUAGES)
