"""Telegram updates for tests, built as the Bot API sends them and parsed by python-telegram-bot.

Every factory takes the bot the update is bound to (so that ``get_file`` and friends work)
and returns a real ``telegram.Update``.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any

from telegram import Bot, Update

BOT_ID = 7_000_001
BOT_USERNAME = "HideSeekBot"
TOKEN = f"{BOT_ID}:AAE-test_token_0123456789abcdefghijklmno"
GROUP = -1_001_234_567_890
ALICE = {"id": 42, "is_bot": False, "first_name": "Alice", "last_name": "Smith"}
BOB = {"id": 43, "is_bot": False, "first_name": "", "username": "bob_rides"}
#: When the updates say they happened (the bot ignores it in favour of its own clock).
SENT_AT = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)

_update_ids = itertools.count(1000)
_message_ids = itertools.count(500)


def next_message_id() -> int:
    return next(_message_ids)


def chat(chat_id: int) -> dict[str, Any]:
    """A group (negative id) or a private chat (a person's id)."""
    if chat_id < 0:
        return {"id": chat_id, "type": "supergroup", "title": "Hide+Seek night"}
    return {"id": chat_id, "type": "private", "first_name": "Someone"}


def message(
    *,
    chat_id: int = GROUP,
    user: dict[str, Any] | None = None,
    message_id: int | None = None,
    date: datetime = SENT_AT,
    **fields: Any,
) -> dict[str, Any]:
    """A message as the Bot API serializes it; ``fields`` add text, location, ..."""
    return {
        "message_id": message_id if message_id is not None else next_message_id(),
        "date": int(date.timestamp()),
        "chat": chat(chat_id),
        "from": user if user is not None else ALICE,
        **fields,
    }


def update(bot: Bot, **payload: Any) -> Update:
    """An update with a fresh id around ``payload`` (``message=...``, ``callback_query=...``)."""
    return Update.de_json({"update_id": next(_update_ids), **payload}, bot)


def make_text(bot: Bot, text: str, **kwargs: Any) -> Update:
    return update(bot, message=message(text=text, **kwargs))


def make_command(bot: Bot, text: str, **kwargs: Any) -> Update:
    """``/cmd[@bot] args``, with the bot_command entity Telegram marks it with."""
    head = text.split()[0]
    entity = {"type": "bot_command", "offset": 0, "length": len(head)}
    return update(bot, message=message(text=text, entities=[entity], **kwargs))


def location(
    lat: float, lon: float, *, live_period: int | None = None, accuracy: float | None = None
) -> dict[str, Any]:
    data: dict[str, Any] = {"latitude": lat, "longitude": lon}
    if live_period is not None:
        data["live_period"] = live_period
    if accuracy is not None:
        data["horizontal_accuracy"] = accuracy
    return data


def make_location(
    bot: Bot,
    lat: float,
    lon: float,
    *,
    live_period: int | None = None,
    accuracy: float | None = None,
    forwarded: bool = False,
    **kwargs: Any,
) -> Update:
    """A location message; ``live_period`` makes it the start of a live location."""
    fields: dict[str, Any] = {
        "location": location(lat, lon, live_period=live_period, accuracy=accuracy)
    }
    if forwarded:
        fields["forward_origin"] = {
            "type": "user",
            "date": int(SENT_AT.timestamp()) - 600,
            "sender_user": BOB,
        }
    return update(bot, message=message(**fields, **kwargs))


def make_live_edit(
    bot: Bot,
    message_id: int,
    lat: float,
    lon: float,
    *,
    live_period: int | None = 900,
    edited_after_s: int = 60,
    **kwargs: Any,
) -> Update:
    """An edit of live location ``message_id``; ``live_period=None`` is the "stopped" edit."""
    body = message(
        message_id=message_id,
        location=location(lat, lon, live_period=live_period),
        edit_date=int(SENT_AT.timestamp()) + edited_after_s,
        **kwargs,
    )
    return update(bot, edited_message=body)


def make_callback(
    bot: Bot,
    data: str,
    *,
    message_id: int,
    chat_id: int = GROUP,
    user: dict[str, Any] | None = None,
) -> Update:
    """A press of a button under the bot's message ``message_id``."""
    bot_user = {"id": BOT_ID, "is_bot": True, "first_name": "Referee", "username": BOT_USERNAME}
    query = {
        "id": f"cq{next(_update_ids)}",
        "from": user if user is not None else ALICE,
        "chat_instance": "ci-1",
        "data": data,
        "message": message(chat_id=chat_id, user=bot_user, message_id=message_id, text="Join?"),
    }
    return update(bot, callback_query=query)


def make_document(
    bot: Bot, file_name: str, size: int | None, *, file_id: str = "doc-1", **kwargs: Any
) -> Update:
    document: dict[str, Any] = {
        "file_id": file_id,
        "file_unique_id": f"u-{file_id}",
        "file_name": file_name,
    }
    if size is not None:
        document["file_size"] = size
    return update(bot, message=message(document=document, **kwargs))


def make_photo(
    bot: Bot, sizes: list[tuple[int, int]], *, caption: str = "", **kwargs: Any
) -> Update:
    """A photo in the given (width, height) sizes; the file id names the size."""
    photo = [
        {"file_id": f"photo-{w}x{h}", "file_unique_id": f"p{w}x{h}", "width": w, "height": h}
        for w, h in sizes
    ]
    fields: dict[str, Any] = {"photo": photo}
    if caption:
        fields["caption"] = caption
    return update(bot, message=message(**fields, **kwargs))


def make_membership(
    bot: Bot,
    old: dict[str, Any],
    new: dict[str, Any],
    *,
    chat_id: int = GROUP,
    user: dict[str, Any] | None = None,
) -> Update:
    """``my_chat_member``: the bot's membership of a group went from ``old`` to ``new``
    (``ChatMember`` dicts such as ``{"status": "left", "user": ...}``)."""
    change = {
        "chat": chat(chat_id),
        "from": user if user is not None else ALICE,
        "date": int(SENT_AT.timestamp()),
        "old_chat_member": old,
        "new_chat_member": new,
    }
    return update(bot, my_chat_member=change)
