"""The conversation's Outbound actions become Bot API calls; Telegram's errors never escape."""

from __future__ import annotations

from hideseek_chat.chat.model import AnswerButton, Button, DeleteMessage, SendText
from hideseek_chat.telegram.bot import build_application, channel_of
from tests.telegram.conftest import GAME_NOW, Harness
from tests.telegram.factories import GROUP, TOKEN, make_command
from tests.telegram.fakes import (
    Delivery,
    FakeConversation,
    FixedClock,
    RecordingRequest,
    VirtualTime,
    virtual_limiter,
)

G = f"tg:{GROUP}"


async def reply_with(harness: Harness, *actions: object) -> None:
    """Feed a command whose direct replies are ``actions``."""
    harness.conversation.replies.append(list(actions))  # type: ignore[arg-type]
    await harness.feed(make_command(harness.app.bot, "/status"))


async def test_a_text_with_buttons_replies_to_the_command(harness: Harness) -> None:
    join = Button("Join", data="join:1")
    private = Button("Open a private chat", private_link=True)
    await reply_with(
        harness, SendText(G, text="A new game!", buttons=((join,), (private,)), reply_to="77")
    )
    [sent] = harness.api.sent("sendMessage")
    assert sent["chat_id"] == GROUP and sent["text"] == "A new game!"
    assert sent["reply_parameters"] == {"message_id": 77, "allow_sending_without_reply": True}
    assert sent["reply_markup"] == {
        "inline_keyboard": [
            [{"text": "Join", "callback_data": "join:1"}],
            [{"text": "Open a private chat", "url": "https://t.me/HideSeekBot?start=hi"}],
        ]
    }


async def test_a_photo_is_relayed_with_the_text_as_caption(harness: Harness) -> None:
    await reply_with(harness, SendText(G, text="The hider's photo", photo_ref="photo-1280x960"))
    assert harness.api.methods == ["sendPhoto"]
    [sent] = harness.api.sent("sendPhoto")
    assert (sent["photo"], sent["caption"]) == ("photo-1280x960", "The hider's photo")


async def test_a_text_longer_than_telegram_allows_is_split_at_lines(harness: Harness) -> None:
    line = "x" * 99
    text = "\n".join([line] * 60)  # 5,999 characters
    await reply_with(harness, SendText(G, text=text, buttons=((Button("OK", "ok"),),)))
    first, second = harness.api.sent("sendMessage")
    assert len(first["text"]) <= 4096 and first["text"] + "\n" + second["text"] == text
    assert "reply_markup" not in first and "reply_markup" in second


async def test_an_unreachable_person_is_reported_and_the_group_told(harness: Harness) -> None:
    harness.api.fail("sendMessage", 403, "Forbidden: bot can't initiate conversation with a user")
    notice = SendText(
        G,
        text="Alice, open a private chat with me",
        buttons=((Button("Open", private_link=True),),),
    )
    harness.conversation.notices.append(notice)
    await reply_with(harness, SendText("tg:42", text="Your hand: ...", private=True))
    assert harness.conversation.unreachable_refs == ["tg:42"]
    to_person, to_group = harness.api.sent("sendMessage")
    assert to_person["chat_id"] == 42
    assert to_group["chat_id"] == GROUP and to_group["text"] == "Alice, open a private chat with me"


async def test_a_person_is_reported_once_per_batch(harness: Harness) -> None:
    harness.api.fail("sendMessage", 403, "Forbidden: bot was blocked by the user")
    harness.api.fail("sendMessage", 403, "Forbidden: bot was blocked by the user")
    hand = SendText("tg:42", text="Your hand", private=True)
    await reply_with(harness, hand, hand)
    assert harness.conversation.unreachable_refs == ["tg:42"]


async def test_a_group_that_removed_the_bot_is_logged_not_raised(harness: Harness) -> None:
    harness.api.fail("sendMessage", 403, "Forbidden: bot was kicked from the supergroup chat")
    await reply_with(harness, SendText(G, text="hello"), SendText(G, text="still here"))
    assert harness.conversation.unreachable_refs == []
    assert [m["text"] for m in harness.api.sent("sendMessage")] == ["hello", "still here"]


async def test_the_first_status_is_sent_pinned_quietly_and_remembered(harness: Harness) -> None:
    await reply_with(harness, SendText(G, text="Round 1: seeking", slot="status"))
    assert harness.api.methods == ["sendMessage", "pinChatMessage"]
    [pin] = harness.api.sent("pinChatMessage")
    assert pin["chat_id"] == GROUP and pin["disable_notification"] is True
    assert harness.conversation.statuses[G] == str(pin["message_id"])


async def test_a_known_status_is_edited_in_place(harness: Harness) -> None:
    harness.conversation.statuses[G] = "555"
    await reply_with(harness, SendText(G, text="Round 1: end game", slot="status"))
    assert harness.api.methods == ["editMessageText"]
    [edit] = harness.api.sent("editMessageText")
    assert (edit["chat_id"], edit["message_id"], edit["text"]) == (GROUP, 555, "Round 1: end game")


async def test_an_unchanged_status_is_fine(harness: Harness) -> None:
    harness.conversation.statuses[G] = "555"
    harness.api.fail(
        "editMessageText",
        400,
        "Bad Request: message is not modified: specified new message content and reply markup are exactly the same",
    )
    await reply_with(harness, SendText(G, text="Round 1", slot="status"))
    assert harness.api.methods == ["editMessageText"]
    assert harness.conversation.statuses[G] == "555"


async def test_a_deleted_status_is_sent_again_and_pinned(harness: Harness) -> None:
    harness.conversation.statuses[G] = "555"
    harness.api.fail("editMessageText", 400, "Bad Request: message to edit not found")
    await reply_with(harness, SendText(G, text="Round 1", slot="status"))
    assert harness.api.methods == ["editMessageText", "sendMessage", "pinChatMessage"]
    assert harness.conversation.statuses[G] == str(
        harness.api.sent("pinChatMessage")[0]["message_id"]
    )


async def test_a_status_the_bot_may_not_pin_is_still_remembered(harness: Harness) -> None:
    harness.api.fail(
        "pinChatMessage",
        400,
        "Bad Request: not enough rights to manage pinned messages in the chat",
    )
    await reply_with(harness, SendText(G, text="Round 1", slot="status"))
    assert G in harness.conversation.statuses


async def test_a_delete_the_bot_may_not_do_is_skipped(harness: Harness) -> None:
    harness.api.fail("deleteMessage", 400, "Bad Request: message can't be deleted")
    await reply_with(harness, DeleteMessage(G, message_ref="88"), SendText(G, text="next"))
    assert harness.api.sent("deleteMessage") == [{"chat_id": GROUP, "message_id": 88}]
    assert [m["text"] for m in harness.api.sent("sendMessage")] == ["next"]


async def test_an_answer_to_an_old_press_names_its_query(harness: Harness) -> None:
    await reply_with(harness, AnswerButton("tg:42", text="Too late", press_ref="cq-old"))
    assert harness.api.sent("answerCallbackQuery") == [
        {"callback_query_id": "cq-old", "text": "Too late"}
    ]


async def test_the_outbox_is_sent_after_the_replies_and_marked_delivered(harness: Harness) -> None:
    harness.conversation.outbox += [
        Delivery(1, (SendText(G, text="Alice joined"),)),
        Delivery(2, (SendText(G, text="Bob joined"),)),
    ]
    await reply_with(harness, SendText(G, text="reply first"))
    assert [m["text"] for m in harness.api.sent("sendMessage")] == [
        "reply first",
        "Alice joined",
        "Bob joined",
    ]
    assert harness.conversation.delivered_ids == [1, 2]


async def test_a_network_failure_leaves_the_delivery_for_the_next_drain(harness: Harness) -> None:
    harness.conversation.outbox += [
        Delivery(1, (SendText(G, text="Alice joined"),)),
        Delivery(2, (SendText(G, text="Bob joined"),)),
    ]
    harness.api.fail("sendMessage", 502, "Bad Gateway")
    await harness.feed(make_command(harness.app.bot, "/status"))
    assert harness.conversation.delivered_ids == []
    await harness.feed(make_command(harness.app.bot, "/status"))
    assert harness.conversation.delivered_ids == [1, 2]


async def test_a_refused_delivery_is_marked_delivered_so_it_does_not_block_the_rest(
    harness: Harness,
) -> None:
    harness.conversation.outbox += [
        Delivery(1, (SendText(G, text="x" * 10, reply_to="999"),)),
        Delivery(2, (SendText(G, text="next"),)),
    ]
    harness.api.fail("sendMessage", 400, "Bad Request: chat not found")
    await harness.feed(make_command(harness.app.bot, "/status"))
    assert harness.conversation.delivered_ids == [1, 2]


async def test_another_channels_key_is_skipped(harness: Harness) -> None:
    await reply_with(harness, SendText("sms:+15550100", text="hi"), SendText(G, text="ok"))
    assert [m["text"] for m in harness.api.sent("sendMessage")] == ["ok"]


async def test_status_edits_waiting_for_a_full_group_window_are_coalesced() -> None:
    """A group whose 20-a-minute window is full gets no queue of status edits: the newest
    one is held and sent once, when there is room again."""
    time = VirtualTime()
    api = RecordingRequest()
    conversation = FakeConversation()
    app = build_application(
        TOKEN, FixedClock(GAME_NOW), conversation.named, request=api, limiter=virtual_limiter(time)
    )
    await app.initialize()
    try:
        harness = Harness(app, api, conversation)
        channel = channel_of(app)
        assert channel.pacer is not None
        for _ in range(20):  # the group's window, full this minute
            assert channel.pacer.reserve(str(GROUP), group=True) == 0
        conversation.statuses[G] = "555"
        for n in range(1, 6):
            await reply_with(harness, SendText(G, text=f"Round 1: update {n}", slot="status"))
        assert api.sent("editMessageText") == []  # nothing waits in a queue
        await channel.flush_statuses(GAME_NOW)
        assert api.sent("editMessageText") == []  # still no room
        time.now += 61
        await channel.flush_statuses(GAME_NOW)
        await channel.flush_statuses(GAME_NOW)
        [edit] = api.sent("editMessageText")
        assert edit["text"] == "Round 1: update 5"
        # A status with room goes at once, and drops an older held one.
        await reply_with(harness, SendText(G, text="Round 1: update 6", slot="status"))
        assert [e["text"] for e in api.sent("editMessageText")][-1] == "Round 1: update 6"
    finally:
        await app.shutdown()
