"""A menu's next screen edits the message whose button was pressed; a message that can no
longer be edited gets a new one instead."""

from __future__ import annotations

from hideseek_chat.chat.model import Button, SendText
from tests.telegram.conftest import Harness
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
