"""Languages on Telegram: the command menus (one for groups, one for private chats) in every
shipped language (setMyCommands once per scope and language code), and the app language a
person's updates carry."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from hideseek_chat.chat.i18n import LANGUAGES
from hideseek_chat.chat.model import CommandIn
from hideseek_chat.chat.routes import Where, menu
from hideseek_chat.telegram import runner
from hideseek_chat.telegram.runner import set_command_menus
from tests.telegram.conftest import Harness
from tests.telegram.factories import ALICE, make_command


def _scope(sent: dict[str, Any]) -> str:
    scope = sent["scope"]
    return str((json.loads(scope) if isinstance(scope, str) else scope)["type"])


async def test_the_menu_is_set_for_every_shipped_language(harness: Harness) -> None:
    await set_command_menus(harness.app.bot, asyncio.Event())
    menus = {
        (_scope(s), s.get("language_code")): s["commands"]
        for s in harness.api.sent("setMyCommands")
    }
    codes = {None} | {code for code in LANGUAGES if code != "en"}
    scopes = {"all_group_chats": Where.GROUP, "all_private_chats": Where.PRIVATE}
    assert set(menus) == {(scope, code) for scope in scopes for code in codes}
    for scope, where in scopes.items():
        names = [name for name, _ in menu(where)]
        for code in codes:
            commands = menus[(scope, code)]
            assert [c["command"] for c in commands] == names
            assert all(0 < len(c["description"]) <= 256 for c in commands)
        english = {c["command"]: c["description"] for c in menus[(scope, None)]}
        german = {c["command"]: c["description"] for c in menus[(scope, "de")]}
        spanish = {c["command"]: c["description"] for c in menus[(scope, "es")]}
        assert english["help"] == "how to play with this bot"
        assert german["help"] != english["help"] and spanish["help"] != english["help"]
        for command in names:  # every description is translated, none left in English
            assert german[command] != english[command], command
            assert spanish[command] != english[command], command
    group = {c["command"]: c["description"] for c in menus[("all_group_chats", "de")]}
    assert group["join"] == "beim Spiel mitmachen"


async def test_one_failing_language_does_not_stop_the_others(harness: Harness) -> None:
    harness.api.fail("setMyCommands", 400, "Bad Request: bad command description")
    await set_command_menus(harness.app.bot, asyncio.Event())
    assert len(harness.api.sent("setMyCommands")) == 2 * len(LANGUAGES)


async def test_a_senders_app_language_comes_with_their_updates(harness: Harness) -> None:
    austrian = {**ALICE, "language_code": "de-AT"}
    await harness.feed(make_command(harness.app.bot, "/newgame", user=austrian))
    await harness.feed(make_command(harness.app.bot, "/join"))  # no language_code sent
    first, second = harness.conversation.inbound
    assert isinstance(first, CommandIn) and first.sender.language == "de-AT"
    assert second.sender.language is None


async def test_a_menu_telegram_could_not_take_is_set_again_after_a_backoff(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner.random, "uniform", lambda low, high: 0.0)  # no real waiting
    harness.api.fail("setMyCommands", 502, "Bad Gateway")
    await set_command_menus(harness.app.bot, asyncio.Event())
    sent = harness.api.sent("setMyCommands")
    assert len(sent) == 2 * len(LANGUAGES) + 1
    menus = {(_scope(s), s.get("language_code")) for s in sent}
    assert len(menus) == 2 * len(LANGUAGES)  # the one that failed was set on the retry
