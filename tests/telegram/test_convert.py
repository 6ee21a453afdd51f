"""Updates become the conversation's Inbound values, through python-telegram-bot's own parsing."""

from __future__ import annotations

from datetime import timedelta

from hideseek_chat.chat.model import (
    AnswerButton,
    ButtonIn,
    ChatKind,
    CommandIn,
    FileIn,
    LocationIn,
    PhotoIn,
    Sender,
    TextIn,
)
from tests.telegram.conftest import GAME_NOW, Harness
from tests.telegram.factories import (
    BOB,
    GROUP,
    SENT_AT,
    make_callback,
    make_command,
    make_document,
    make_live_edit,
    make_location,
    make_photo,
    make_text,
    message,
    next_message_id,
    update,
)


async def test_a_command_loses_the_bot_mention_and_keeps_its_arguments(harness: Harness) -> None:
    command = make_command(harness.app.bot, "/Join@HideSeekBot red  team")
    await harness.feed(command)
    [msg] = harness.conversation.inbound
    assert isinstance(msg, CommandIn)
    assert (msg.name, msg.args) == ("join", ("red", "team"))
    assert msg.chat == f"tg:{GROUP}" and msg.kind == ChatKind.GROUP
    assert msg.sender == Sender("tg:42", "Alice Smith")
    assert msg.update_id == f"tg:{command.update_id}"
    assert msg.message_ref == str(command.effective_message.message_id)
    assert harness.conversation.bot_names == ["HideSeekBot"]


async def test_at_is_the_game_clock_not_telegrams_date(harness: Harness) -> None:
    await harness.feed(make_command(harness.app.bot, "/status"))
    assert harness.conversation.inbound[0].at == GAME_NOW


async def test_a_command_for_another_bot_is_not_ours(harness: Harness) -> None:
    await harness.feed(make_command(harness.app.bot, "/join@SomeOtherBot"))
    assert harness.conversation.inbound == []


async def test_a_private_command_without_mention(harness: Harness) -> None:
    await harness.feed(make_command(harness.app.bot, "/hand", chat_id=42))
    [msg] = harness.conversation.inbound
    assert isinstance(msg, CommandIn) and msg.name == "hand" and msg.args == ()
    assert msg.chat == "tg:42" and msg.kind == ChatKind.PRIVATE


async def test_plain_text_and_a_name_from_the_username(harness: Harness) -> None:
    await harness.feed(make_text(harness.app.bot, "is it the bakery?", user=BOB))
    [msg] = harness.conversation.inbound
    assert isinstance(msg, TextIn) and msg.text == "is it the bakery?"
    assert msg.sender == Sender("tg:43", "bob_rides", username="bob_rides")


async def test_a_text_starting_with_a_slash_but_no_command_entity_is_text(harness: Harness) -> None:
    await harness.feed(make_text(harness.app.bot, "/ shrug"))
    assert isinstance(harness.conversation.inbound[0], TextIn)


async def test_a_single_location_is_not_live(harness: Harness) -> None:
    await harness.feed(make_location(harness.app.bot, 36.12, -97.07, accuracy=12.5))
    [msg] = harness.conversation.inbound
    assert isinstance(msg, LocationIn)
    assert (msg.lat, msg.lon, msg.accuracy_m) == (36.12, -97.07, 12.5)
    assert not (msg.live or msg.live_ended or msg.edited or msg.forwarded)


async def test_a_live_location_its_edits_and_its_end(harness: Harness) -> None:
    bot = harness.app.bot
    start = make_location(bot, 36.12, -97.07, live_period=3600)
    message_id = start.effective_message.message_id
    await harness.feed(start)
    await harness.feed(make_live_edit(bot, message_id, 36.13, -97.06, live_period=3600))
    await harness.feed(make_live_edit(bot, message_id, 36.14, -97.05, live_period=None))
    first, moved, stopped = harness.conversation.inbound
    assert isinstance(first, LocationIn) and first.live and not first.edited
    assert isinstance(moved, LocationIn) and moved.live and moved.edited
    assert not moved.live_ended and (moved.lat, moved.lon) == (36.13, -97.06)
    assert isinstance(stopped, LocationIn) and stopped.live and stopped.live_ended
    assert {m.message_ref for m in (first, moved, stopped)} == {str(message_id)}


async def test_each_version_of_a_live_location_names_its_edit_date(harness: Harness) -> None:
    bot = harness.app.bot
    start = make_location(bot, 36.12, -97.07, live_period=3600)
    message_id = start.effective_message.message_id
    await harness.feed(start)
    await harness.feed(
        make_live_edit(bot, message_id, 36.13, -97.06, live_period=3600, edited_after_s=30)
    )
    first, moved = harness.conversation.inbound
    assert isinstance(first, LocationIn) and isinstance(moved, LocationIn)
    # Telegram's times (the message's date, then the edit's), not the game's clock.
    assert first.sent_at == SENT_AT and first.at == GAME_NOW
    assert moved.sent_at == SENT_AT + timedelta(seconds=30)


async def test_a_live_edit_after_its_period_has_ended(harness: Harness) -> None:
    edit = make_live_edit(
        harness.app.bot, next_message_id(), 1.0, 2.0, live_period=60, edited_after_s=61
    )
    await harness.feed(edit)
    [msg] = harness.conversation.inbound
    assert isinstance(msg, LocationIn) and msg.live_ended


async def test_an_edited_text_is_not_handed_over_again(harness: Harness) -> None:
    body = message(
        text="/begin", entities=[{"type": "bot_command", "offset": 0, "length": 6}], edit_date=1
    )
    await harness.feed(update(harness.app.bot, edited_message=body))
    assert harness.conversation.inbound == []


async def test_a_forwarded_location_is_flagged(harness: Harness) -> None:
    await harness.feed(make_location(harness.app.bot, 36.12, -97.07, forwarded=True))
    [msg] = harness.conversation.inbound
    assert isinstance(msg, LocationIn) and msg.forwarded


async def test_a_button_press_becomes_button_in_and_is_answered(harness: Harness) -> None:
    press = make_callback(harness.app.bot, "join:7", message_id=321)
    await harness.feed(press)
    [msg] = harness.conversation.inbound
    assert isinstance(msg, ButtonIn)
    assert (msg.data, msg.message_ref, msg.press_ref) == ("join:7", "321", press.callback_query.id)
    assert msg.sender.ref == "tg:42" and msg.chat == f"tg:{GROUP}"
    # The conversation said nothing: the press is still acknowledged, silently.
    assert harness.api.sent("answerCallbackQuery") == [
        {"callback_query_id": press.callback_query.id}
    ]


async def test_the_conversations_answer_to_a_press_is_the_toast(harness: Harness) -> None:
    press = make_callback(harness.app.bot, "join:7", message_id=321)
    press_ref = press.callback_query.id
    harness.conversation.replies.append(
        [AnswerButton("tg:42", text="You joined", press_ref=press_ref)]
    )
    await harness.feed(press)
    assert harness.api.sent("answerCallbackQuery") == [
        {"callback_query_id": press_ref, "text": "You joined"}
    ]


async def test_a_small_document_is_downloaded(harness: Harness) -> None:
    harness.api.files["documents/doc-1"] = b'{"house": "rules"}'
    await harness.feed(make_document(harness.app.bot, "rules.toml", 18))
    [msg] = harness.conversation.inbound
    assert isinstance(msg, FileIn)
    assert (msg.filename, msg.size, msg.content) == ("rules.toml", 18, b'{"house": "rules"}')
    assert harness.api.methods == ["getFile", "download"]


async def test_a_large_or_unsized_document_is_not_downloaded(harness: Harness) -> None:
    await harness.feed(make_document(harness.app.bot, "map.geojson", 6 * 1024 * 1024))
    await harness.feed(make_document(harness.app.bot, "what.bin", None))
    big, unsized = harness.conversation.inbound
    assert isinstance(big, FileIn) and big.size == 6 * 1024 * 1024 and big.content is None
    assert isinstance(unsized, FileIn) and unsized.content is None
    assert harness.api.methods == []


async def test_a_photo_hands_over_its_largest_size(harness: Harness) -> None:
    await harness.feed(
        make_photo(harness.app.bot, [(90, 67), (1280, 960), (320, 240)], caption="the tree")
    )
    [msg] = harness.conversation.inbound
    assert isinstance(msg, PhotoIn)
    assert (msg.file_ref, msg.caption) == ("photo-1280x960", "the tree")


async def test_a_sticker_is_nothing_the_game_reads(harness: Harness) -> None:
    sticker = {
        "file_id": "s",
        "file_unique_id": "s",
        "type": "regular",
        "width": 1,
        "height": 1,
        "is_animated": False,
        "is_video": False,
    }
    await harness.feed(update(harness.app.bot, message=message(sticker=sticker)))
    assert harness.conversation.inbound == [] and harness.api.methods == []


async def test_a_command_entity_over_blank_text_is_just_text(harness: Harness) -> None:
    """Found by the fuzzer: a command entity over a blank text raised ValueError."""
    entity = {"type": "bot_command", "offset": 0, "length": 1}
    for text in (" ", "/"):
        await harness.feed(update(harness.app.bot, message=message(text=text, entities=[entity])))
    assert [type(m) for m in harness.conversation.inbound] == [TextIn, TextIn]


async def test_photo_sizes_without_a_file_size_compare(harness: Harness) -> None:
    """Found by the fuzzer: two sizes of one area, one without ``file_size``, raised
    TypeError when the largest was picked."""
    sizes = [
        {"file_id": "small", "file_unique_id": "a", "width": 9, "height": 9},
        {"file_id": "known", "file_unique_id": "b", "width": 9, "height": 9, "file_size": 3},
    ]
    await harness.feed(update(harness.app.bot, message=message(photo=sizes)))
    [msg] = harness.conversation.inbound
    assert isinstance(msg, PhotoIn) and msg.file_ref == "known"
