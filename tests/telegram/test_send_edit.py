"""A menu's next screen edits the message whose button was pressed; a message that can no
longer be edited gets a new one instead."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from hideseek_chat.chat.model import Button, SendText
from hideseek_chat.store import UnitOfWorkFactory
from tests.telegram.conftest import Harness
from tests.telegram.e2e import Telegram, telegram
from tests.telegram.factories import GROUP, make_command

G = f"tg:{GROUP}"


async def reply_with(harness: Harness, *actions: object) -> None:
    harness.conversation.replies.append(list(actions))  # type: ignore[arg-type]
    await harness.feed(make_command(harness.app.bot, "/status"))


async def test_a_screen_edits_the_pressed_message(harness: Harness) -> None:
    back = Button("⬅️ Back", data="askm:1")
    await reply_with(
        harness, SendText(G, text="Radar: which one?", buttons=((back,),), edit_ref="55")
    )
    assert harness.api.methods == ["editMessageText"]
    [edited] = harness.api.sent("editMessageText")
    assert (edited["chat_id"], edited["message_id"]) == (GROUP, 55)
    assert edited["text"] == "Radar: which one?"
    assert edited["reply_markup"] == {
        "inline_keyboard": [[{"text": "⬅️ Back", "callback_data": "askm:1"}]]
    }


async def test_an_unchanged_screen_is_no_failure(harness: Harness) -> None:
    harness.api.fail("editMessageText", 400, "Bad Request: message is not modified")
    await reply_with(harness, SendText(G, text="Radar: which one?", edit_ref="55"))
    assert harness.api.sent("sendMessage") == []


async def test_a_message_too_old_to_edit_gets_a_new_one(harness: Harness) -> None:
    harness.api.fail("editMessageText", 400, "Bad Request: message can't be edited")
    await reply_with(harness, SendText(G, text="Radar: which one?", edit_ref="55"))
    [sent] = harness.api.sent("sendMessage")
    assert sent["text"] == "Radar: which one?"


# ----------------------------------------------------------------- the /ask menu, end to end


@pytest.fixture
async def tg(uow_factory: UnitOfWorkFactory) -> AsyncIterator[Telegram]:
    async with telegram(uow_factory) as tg:
        yield tg


async def test_the_ask_menu_is_one_message_edited_screen_by_screen(tg: Telegram) -> None:
    await tg.new_game()
    hider, (s1, _s2) = await tg.begin()
    await tg.pin(hider, 36.12622, -97.06401, private=True)
    await tg.wait(timedelta(minutes=31))
    await tg.pin(s1, 36.14, -97.08)
    mark = tg.mark()
    await tg.send(s1, "/ask")
    menu = tg.said(since=mark)[-1]
    assert [label.split(" (")[0] for label, _ in menu.buttons] == [
        "Matching",
        "Measuring",
        "Radar",
        "Thermometer",
        "Photo",
    ]
    press = await tg.press(s1, "Radar")
    assert tg.answer(press) == ""  # the new screen says enough
    edit = tg.api.sent("editMessageText")[-1]
    assert (edit["chat_id"], edit["message_id"]) == (GROUP, menu.message_id)
    assert edit["text"].startswith("❓ Radar: which one?")
    mark = tg.mark()
    await tg.press(s1, "Distance of your choice")
    await tg.press(s1, "750 m")
    edits = [e for e in tg.api.sent("editMessageText") if e["message_id"] == menu.message_id]
    assert [e["text"].split(":")[0] for e in edits] == ["❓ Radar", "📏 Radar", "❓ Asked"]
    assert edits[-1]["text"] == "❓ Asked: Radar 750 m" and "reply_markup" not in edits[-1]
    assert f"{s1} asks: Radar 750 m" in tg.texts(since=mark)
    assert tg.state().round_questions()[-1].distance_m == 750.0
