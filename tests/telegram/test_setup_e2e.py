"""Setting up and ending a game through the real python-telegram-bot stack (SQLite and
PostgreSQL): /team and its buttons, the settings keyboard whose ticks are edited in place,
/abort confirmed with a button, keyboards removed with ``editMessageReplyMarkup`` once used or
stale, and /help per kind of chat."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from hideseek_chat.chat.routes import Where, menu
from hideseek_chat.rules.state import Phase, Transport
from hideseek_chat.store import UnitOfWorkFactory
from tests.telegram.e2e import Sent, Telegram, telegram, user_id
from tests.telegram.factories import GROUP


@pytest.fixture
async def tg(uow_factory: UnitOfWorkFactory) -> AsyncIterator[Telegram]:
    async with telegram(uow_factory) as tg:
        await tg.new_game()
        yield tg


def markups(tg: Telegram, since: int) -> list[dict[str, Any]]:
    """The ``editMessageReplyMarkup`` calls since ``since``."""
    return [c.params for c in tg.api.calls[since:] if c.method == "editMessageReplyMarkup"]


def buttons_of(params: dict[str, Any]) -> list[str]:
    markup = params.get("reply_markup") or {}
    if isinstance(markup, str):
        markup = json.loads(markup)
    return [str(b["text"]) for row in markup.get("inline_keyboard", []) for b in row]


def newest(tg: Telegram, text: str, name: str | None = None) -> Sent:
    return next(s for s in reversed(tg.said(name)) if text in s.text)


async def test_teams_and_settings_on_telegram(tg: Telegram) -> None:
    await tg.send("Alice", "/team Red")
    await tg.send("Bob", "/team Red")
    await tg.send("Carol", "/team")
    screen = newest(tg, "Teams (")
    assert [label for label, _ in screen.buttons] == ["Join Red", "Join Carol", "🚶 Play on my own"]
    await tg.press("Carol", "Join Red")
    assert "Alice, Bob and Carol now play together as team Red" in tg.texts()
    assert len(tg.state().active_team_ids()) == 1

    await tg.send("Alice", "/settings")
    settings = newest(tg, "Settings (admin only)")
    mark = tg.mark()
    press = await tg.press_data(
        "Alice", dict((lb, d) for lb, d in settings.buttons)["🚶 On foot"], settings
    )
    assert tg.answer(press) == "Done."
    [edit] = markups(tg, mark)
    assert (edit["chat_id"], edit["message_id"]) == (GROUP, settings.message_id)
    assert "✓ 🚶 On foot" in buttons_of(edit) and "🚆 Transit" in buttons_of(edit)
    assert "on foot only" in tg.texts(since=mark)
    assert tg.state().settings.transport == Transport.FOOT


async def test_abort_and_stale_keyboards_on_telegram(tg: Telegram) -> None:
    await tg.begin()
    mark = tg.mark()
    await tg.send("Alice", "/abort")
    ask = newest(tg, "End the game now?")
    press = await tg.press("Alice", "Yes, end the game")
    assert tg.answer(press) == "Done."
    [removed] = markups(tg, mark)
    assert (removed["chat_id"], removed["message_id"]) == (GROUP, ask.message_id)
    assert buttons_of(removed) == []
    assert "🛑 Game aborted." in tg.texts(since=mark)
    assert tg.state().phase == Phase.GAME_OVER

    # The game-created message's Join button is stale now: a toast, and it is removed.
    created = newest(tg, "set up a new game")
    mark = tg.mark()
    press = await tg.press_data("Bob", created.buttons[0][1], created)
    assert tg.answer(press) == "This game is over. Start a new one with /newgame."
    [removed] = markups(tg, mark)
    assert removed["message_id"] == created.message_id and buttons_of(removed) == []


async def test_help_in_a_group_and_in_private_on_telegram(tg: Telegram) -> None:
    mark = tg.mark()
    await tg.send("Bob", "/help")
    await tg.send("Bob", "/help", private=True)
    group = tg.texts(since=mark)
    private = tg.texts("Bob", since=mark)
    assert [line.split(" — ")[0] for line in group.splitlines() if line.startswith("/")] == [
        f"/{name}" for name, _ in menu(Where.GROUP)
    ]
    assert [line.split(" — ")[0] for line in private.splitlines() if line.startswith("/")] == [
        f"/{name}" for name, _ in menu(Where.PRIVATE)
    ]
    assert user_id("Bob") != GROUP
