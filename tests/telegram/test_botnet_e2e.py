"""The botnet game through the real python-telegram-bot stack: the board as an uploaded
picture in the group, the proxy's choices as buttons with a fixed-width board in private."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from hideseek_chat.store import UnitOfWorkFactory
from tests.telegram.e2e import Telegram, telegram, user_id
from tests.telegram.factories import GROUP


@pytest.fixture
async def tg(uow_factory: UnitOfWorkFactory) -> AsyncIterator[Telegram]:
    async with telegram(uow_factory) as tg:
        yield tg


def group_captions(tg: Telegram, since: int) -> list[str]:
    return [
        str(c.params.get("text") or c.params.get("caption") or "")
        for c in tg.api.calls[since:]
        if c.method in ("sendMessage", "sendPhoto") and int(c.params["chat_id"]) == GROUP
    ]


async def test_a_match_on_telegram(tg: Telegram) -> None:
    for name in ("Alice", "Bob"):
        await tg.send(name, "/start", private=True)
    mark = tg.mark()
    await tg.send("Alice", "/botnet")
    await tg.press("Bob", "Accept")
    await tg.press("Bob", "Alice")  # Alice moves first
    photos = [c.params for c in tg.api.calls[mark:] if c.method == "sendPhoto"]
    assert len(photos) == 1 and int(photos[0]["chat_id"]) == GROUP
    assert photos[0]["_uploads"]["photo"].startswith(b"\x89PNG")
    assert "Alice moves first." in photos[0]["caption"]
    prompt = tg.said("Alice")[-1]
    assert "your proxy is on h1" in prompt.text
    [html] = [
        c.params
        for c in tg.api.calls[mark:]
        if c.method == "sendMessage"
        and int(c.params["chat_id"]) == user_id("Alice")
        and "<pre>" in c.params["text"]
    ]
    assert html["parse_mode"] == "HTML" and "  a b c d e f g h" in html["text"]

    # typed in the group, a move is deleted before the opponent can read it
    update = await tg.send("Alice", "/move g1")
    assert update.message is not None
    deleted = tg.api.sent("deleteMessage")
    assert deleted and int(deleted[-1]["message_id"]) == update.message.message_id

    await tg.press("Alice", "← g1")
    keyboard = tg.said()[-1]
    assert len(keyboard.buttons) == 64 and "Alice has moved their proxy" in keyboard.text
    press = await tg.press("Alice", "f4")
    assert tg.answer(press) == ""
    board = [c.params for c in tg.api.calls if c.method == "sendPhoto"][-1]
    assert "Alice claimed f4." in board["caption"] and "Bob's turn" in board["caption"]
    assert all("g1" not in text and "h1" not in text for text in group_captions(tg, mark))

    await tg.press("Bob", "↓ a7")
    await tg.press("Bob", "g1")  # where Alice's proxy hides
    final = [c.params for c in tg.api.calls if c.method == "sendPhoto"][-1]
    assert "Bob claimed g1, where Alice's proxy was hiding. Bob wins!" in final["caption"]
    assert "Alice's proxy went h1 → g1." in final["caption"]
    tg.check()


async def test_a_player_the_bot_cannot_write_to_is_asked_in_the_group(tg: Telegram) -> None:
    await tg.send("Alice", "/start", private=True)
    await tg.send("Alice", "/botnet")
    await tg.press("Bob", "Accept")
    closed = "Forbidden: bot can't initiate conversation with a user"
    tg.api.fail("sendMessage", 403, closed, chat_id=user_id("Bob"))
    mark = tg.mark()
    await tg.press("Alice", "Bob")  # Bob moves first, but his private chat is closed
    assert "Bob: I can't write to you privately yet" in tg.texts(since=mark)
    await tg.send("Bob", "/start", private=True)
    assert "your proxy is on a8" in tg.said("Bob")[-1].text
    await tg.press("Bob", "↓ a7")
    assert "Your proxy is on a7 now" in tg.said("Bob")[-1].text
