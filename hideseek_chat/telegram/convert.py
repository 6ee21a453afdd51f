"""Telegram updates to the conversation's ``Inbound`` values.

Keys are channel-prefixed: a chat is ``tg:<chat id>``, a person ``tg:<user id>`` (their private
chat with the bot has the same id), an update ``tg:<update id>``; a message ref is the
message id. ``at`` is always the app's ``GameClock`` time, never Telegram's date, so that a
fast rehearsal clock scales every timer the same way.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from telegram import (
    Chat,
    ChatMember,
    ChatMemberAdministrator,
    ChatMemberOwner,
    ChatMemberUpdated,
    Document,
    Location,
    MaybeInaccessibleMessage,
    Message,
    MessageEntity,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError

from hideseek_chat.chat.model import (
    BotRights,
    ButtonIn,
    ChatKind,
    CommandIn,
    FileIn,
    Inbound,
    LocationIn,
    Membership,
    MembershipIn,
    PhotoIn,
    Sender,
    TextIn,
)

log = logging.getLogger(__name__)

PREFIX = "tg:"
#: Documents up to this size are downloaded and handed over; larger ones arrive without content.
MAX_DOWNLOAD_BYTES = 5 * 1024 * 1024
#: Telegram's ``live_period`` for a live location shared "until I stop".
LIVE_FOREVER = 0x7FFFFFFF


def key(telegram_id: int) -> str:
    """Return the channel-prefixed key of a Telegram chat or user id."""
    return f"{PREFIX}{telegram_id}"


def telegram_id(chat_key: str) -> int:
    """Return the Telegram id behind ``chat_key``; ``ValueError`` for another channel's key."""
    if not chat_key.startswith(PREFIX):
        raise ValueError(f"{chat_key!r} is not a Telegram key")
    return int(chat_key[len(PREFIX) :])


def sender_of(user: User) -> Sender:
    """Name a person as the group knows them: first (and last) name, else the username."""
    # Telegram requires a first name, but an empty one still arrives now and then.
    name = (user.full_name or "").strip() or (user.username or "").strip() or str(user.id)
    return Sender(
        ref=key(user.id),
        name=name,
        language=user.language_code or None,
        username=user.username or None,
    )


def chat_kind(chat: Chat) -> ChatKind | None:
    """Return the kind of ``chat``, or None for a chat the bot does not play in (channels)."""
    if chat.type == ChatType.PRIVATE:
        return ChatKind.PRIVATE
    if chat.type in (ChatType.GROUP, ChatType.SUPERGROUP):
        return ChatKind.GROUP
    return None


async def to_inbound(
    update: Update,
    *,
    bot_username: str,
    now: datetime,
    max_download: int = MAX_DOWNLOAD_BYTES,
    reads_all: bool = True,
) -> Inbound | None:
    """Convert ``update`` for the conversation; None when it is nothing the game reads.

    Documents are downloaded here (hence async) when their size is known and at most
    ``max_download`` bytes. ``reads_all``: the bot's privacy mode is off (``getMe``'s
    ``can_read_all_group_messages``), for the rights a membership change reports.
    """
    update_ref = key(update.update_id)
    if update.my_chat_member is not None:
        return membership(update.my_chat_member, update_ref, now, reads_all)
    if update.callback_query is not None:
        query = update.callback_query
        message = query.message
        if message is None:  # a button under an inline-mode message: not ours
            return None
        kind = chat_kind(message.chat)
        if kind is None:
            return None
        return ButtonIn(
            chat=key(message.chat.id),
            kind=kind,
            sender=sender_of(query.from_user),
            at=now,
            update_id=update_ref,
            message_ref=str(message.message_id),
            data=query.data or "",
            press_ref=query.id,
            topic=topic_of(message),
        )
    if update.edited_message is not None:
        edited = update.edited_message
        if edited.location is None:
            return None  # an edited text never runs a command twice
        common = _common(edited, update_ref, now)
        if common is None:
            return None
        return _location(edited, edited.location, common, edited=True)
    if update.message is None:
        return None
    message = update.message
    common = _common(message, update_ref, now)
    if common is None:
        return None
    if message.location is not None:
        return _location(message, message.location, common, edited=False)
    if message.text is not None:
        if _starts_with_command(message):
            return _command(message.text, common, bot_username)
        return TextIn(**common, text=message.text)
    if message.document is not None:
        document = message.document
        return FileIn(
            **common,
            filename=document.file_name or "",
            size=document.file_size or 0,
            content=await _download(document, max_download),
        )
    if message.photo:
        largest = max(
            message.photo, key=lambda size: (size.width * size.height, size.file_size or 0)
        )
        return PhotoIn(**common, file_ref=largest.file_id, caption=message.caption or "")
    return None


def _common(message: Message, update_ref: str, now: datetime) -> dict[str, Any] | None:
    kind = chat_kind(message.chat)
    if kind is None or message.from_user is None:  # channels, anonymous admins
        return None
    return {
        "chat": key(message.chat.id),
        "kind": kind,
        "sender": sender_of(message.from_user),
        "at": now,
        "update_id": update_ref,
        "message_ref": str(message.message_id),
        "chat_title": message.chat.title if kind == ChatKind.GROUP else None,
        "topic": topic_of(message) if kind == ChatKind.GROUP else None,
    }


def topic_of(message: MaybeInaccessibleMessage) -> str | None:
    """The forum topic a group message belongs to (None: the group's main thread)."""
    if isinstance(message, Message) and message.is_topic_message and message.message_thread_id:
        return str(message.message_thread_id)
    return None


#: Member statuses of someone who is in the chat.
PRESENT = frozenset(
    {
        ChatMemberStatus.OWNER,
        ChatMemberStatus.ADMINISTRATOR,
        ChatMemberStatus.MEMBER,
        ChatMemberStatus.RESTRICTED,
    }
)


def is_present(member: ChatMember) -> bool:
    """Whether ``member`` is in the chat (a restricted member only while still in it)."""
    if member.status == ChatMemberStatus.RESTRICTED:
        return bool(getattr(member, "is_member", False))
    return member.status in PRESENT


def rights_of(member: ChatMember, reads_all: bool) -> BotRights:
    """What the bot, as ``member`` of a group, may see and do there."""
    admin = isinstance(member, ChatMemberAdministrator | ChatMemberOwner)
    if isinstance(member, ChatMemberOwner):
        delete = pin = True
    elif isinstance(member, ChatMemberAdministrator):
        delete = member.can_delete_messages
        pin = bool(member.can_pin_messages)
    else:
        delete = pin = False
    return BotRights(
        sees_all=reads_all or admin, admin=admin, delete_messages=delete, pin_messages=pin
    )


def is_whole(change: ChatMemberUpdated) -> bool:
    """Whether a membership update carries what it must (the chat, who, before and after)."""
    parts = (change.chat, change.from_user, change.old_chat_member, change.new_chat_member)
    return all(part is not None for part in parts) and change.chat.type is not None


def membership(
    change: ChatMemberUpdated, update_ref: str, now: datetime, reads_all: bool
) -> MembershipIn | None:
    """The bot added to a group or removed from it; None for a change of its rights (the
    channel remembers them) and for chats the bot does not play in."""
    if not is_whole(change) or chat_kind(change.chat) != ChatKind.GROUP:
        return None
    before, after = is_present(change.old_chat_member), is_present(change.new_chat_member)
    if before == after:
        return None
    return MembershipIn(
        chat=key(change.chat.id),
        kind=ChatKind.GROUP,
        sender=sender_of(change.from_user),
        at=now,
        update_id=update_ref,
        change=Membership.ADDED if after else Membership.REMOVED,
        chat_title=change.chat.title,
        bot_rights=rights_of(change.new_chat_member, reads_all) if after else None,
    )


def _starts_with_command(message: Message) -> bool:
    entities = message.entities
    return bool(
        entities and entities[0].type == MessageEntity.BOT_COMMAND and entities[0].offset == 0
    )


def _command(text: str, common: dict[str, Any], bot_username: str) -> Inbound | None:
    words = text.split()
    if not words or len(words[0]) < 2 or not words[0].startswith("/"):
        return TextIn(**common, text=text)  # an entity that marks no command: just text
    head, *args = words
    name, _, addressee = head[1:].partition("@")
    if addressee and addressee.lower() != bot_username.lower():
        return None  # "/join@OtherBot" in a group is for another bot
    return CommandIn(**common, name=name.lower(), args=tuple(args))


def _location(
    message: Message, location: Location, common: dict[str, Any], *, edited: bool
) -> LocationIn:
    # to_dict() gives live_period in seconds without PTB's int-or-timedelta deprecation.
    period: int | None = location.to_dict().get("live_period")
    live = period is not None
    ended = False
    if edited:
        # A live location's last edit comes without live_period once sharing stops.
        ended = period is None or _expired(message, period)
        live = True
    return LocationIn(
        **common,
        lat=location.latitude,
        lon=location.longitude,
        accuracy_m=location.horizontal_accuracy,
        live=live,
        live_ended=ended,
        edited=edited,
        forwarded=message.forward_origin is not None,
        sent_at=(message.edit_date if edited else None) or message.date,
    )


def _expired(message: Message, period_s: int) -> bool:
    if period_s >= LIVE_FOREVER or message.edit_date is None:
        return False
    return (message.edit_date - message.date).total_seconds() >= period_s


async def _download(document: Document, limit: int) -> bytes | None:
    if document.file_size is None or document.file_size > limit:
        return None
    try:
        file = await document.get_file()
        return bytes(await file.download_as_bytearray())
    except TelegramError as err:
        log.warning("could not download document %s: %s", document.file_unique_id, err)
        return None
