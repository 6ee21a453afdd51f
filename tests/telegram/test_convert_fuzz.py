"""Any update python-telegram-bot can read converts without an exception (hypothesis).

Updates are built the way the Bot API serializes them, with every field a person or a
forger controls left to hypothesis: texts with and without a command entity, locations off
the Earth, photos of any size, documents of any name and size, button data of any length,
chats of every type, and kinds of update the bot does not read. ``to_inbound`` returns
None or an ``Inbound`` value; an update the library itself cannot read is the runner's
business (kept as unreadable), so it is left out here.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from telegram import Bot, Update

from hideseek_chat.chat.model import Inbound
from hideseek_chat.telegram.convert import to_inbound
from tests.telegram.factories import BOT_ID, BOT_USERNAME, SENT_AT, TOKEN

NOW = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)
BOT = Bot(TOKEN)

numbers = st.one_of(st.floats(), st.integers(-(2**64), 2**64))
texts = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            " ",
            "\u2003",
            "\n",
            "/",
            "/ ",
            " /join",
            "/join@",
            "/@HideSeekBot",
            "/ask 1/0 mi",
            "x" * 5000,
        ]
    ),
)
people = st.fixed_dictionaries(
    {"id": st.integers(1, 2**52), "is_bot": st.booleans(), "first_name": st.text(max_size=20)},
    optional={"last_name": st.text(max_size=20), "username": st.text(max_size=20)},
)
chats = st.fixed_dictionaries(
    {
        "id": st.integers(-(2**52), 2**52),
        "type": st.sampled_from(["private", "group", "supergroup", "channel", "sender"]),
    },
    optional={"title": st.text(max_size=10)},
)
locations = st.fixed_dictionaries(
    {"latitude": numbers, "longitude": numbers},
    optional={"horizontal_accuracy": numbers, "live_period": st.integers(-10, 2**31)},
)
photo_sizes = st.lists(
    st.fixed_dictionaries(
        {
            "file_id": st.text(min_size=1, max_size=8),
            "file_unique_id": st.text(min_size=1, max_size=8),
            "width": st.integers(0, 1),
            "height": st.integers(0, 1),
        },
        optional={"file_size": st.integers(0, 10)},
    ),
    max_size=4,
)
documents = st.fixed_dictionaries(
    {"file_id": st.text(min_size=1, max_size=8), "file_unique_id": st.just("u")},
    optional={"file_name": st.text(max_size=300), "file_size": st.integers(-1, 2**62)},
)


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    date = int(SENT_AT.timestamp())
    body: dict[str, Any] = {
        "message_id": draw(st.integers(1, 2**31)),
        "date": date,
        "chat": draw(chats),
    }
    if draw(st.booleans()):
        body["from"] = draw(people)
    if draw(st.booleans()):
        body["edit_date"] = date + draw(st.integers(-100, 10**6))
    content = draw(st.sampled_from(["text", "command", "location", "photo", "document", "none"]))
    if content in ("text", "command"):
        text = draw(texts)
        body["text"] = text
        if content == "command":
            length = draw(st.integers(0, len(text) + 2))
            body["entities"] = [{"type": "bot_command", "offset": 0, "length": length}]
    elif content == "location":
        body["location"] = draw(locations)
    elif content == "photo":
        body["photo"] = draw(photo_sizes)
        if draw(st.booleans()):
            body["caption"] = draw(texts)
    elif content == "document":
        body["document"] = draw(documents)
    if draw(st.booleans()):
        body["forward_origin"] = {"type": "user", "date": date - 60, "sender_user": draw(people)}
    return body


@st.composite
def updates(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(["message", "edited_message", "callback_query", "channel_post", "other"])
    )
    raw: dict[str, Any] = {"update_id": draw(st.integers(0, 2**62))}
    if kind in ("message", "edited_message", "channel_post"):
        raw[kind] = draw(messages())
    elif kind == "callback_query":
        bot_user = {"id": BOT_ID, "is_bot": True, "first_name": "R", "username": BOT_USERNAME}
        query: dict[str, Any] = {
            "id": draw(st.text(min_size=1, max_size=10)),
            "from": draw(people),
            "chat_instance": "ci",
        }
        if draw(st.booleans()):
            query["data"] = draw(st.text(max_size=200))
        if draw(st.booleans()):
            message = draw(messages())
            message["from"] = bot_user
            query["message"] = message
        raw["callback_query"] = query
    else:
        raw[draw(st.sampled_from(["poll", "my_chat_member", "something_new"]))] = {"x": 1}
    return raw


@settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(updates())
def test_converting_any_readable_update_never_raises(raw: dict[str, Any]) -> None:
    try:
        update = Update.de_json(raw, BOT)
    except Exception:
        update = None  # the library cannot read it: the runner keeps it as unreadable
    assume(update is not None)
    assert update is not None
    # max_download -1: no document is downloaded (no network in this test)
    converted = asyncio.run(to_inbound(update, bot_username=BOT_USERNAME, now=NOW, max_download=-1))
    assert converted is None or isinstance(converted, Inbound)
