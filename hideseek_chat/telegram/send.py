"""Perform the conversation's ``Outbound`` actions with the Telegram Bot API.

Failures are Telegram's, not the game's: they are logged and never escape. A private message
to someone who never opened a chat with the bot (or blocked it) is reported to the
conversation, which answers with what to send instead. ``perform`` tells its caller whether
a transient failure (network, flood control) means the actions should be tried again later.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Protocol

from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    KeyboardButton,
    ReplyKeyboardMarkup,
    ReplyParameters,
)
from telegram.constants import MessageLimit, ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError

from hideseek_chat import metrics
from hideseek_chat.chat.model import (
    STATUS_SLOT,
    AnswerButton,
    Button,
    DeleteMessage,
    EditButtons,
    Outbound,
    SendFile,
    SendText,
    Unpin,
)
from hideseek_chat.logs import who
from hideseek_chat.telegram.convert import telegram_id

log = logging.getLogger(__name__)


class ConversationPort(Protocol):
    """What sending needs from the conversation (``chat.conversation.Conversation``)."""

    def unreachable(self, ref: str, now: datetime) -> list[Outbound]: ...

    def status_ref(self, chat: str, slot: str = STATUS_SLOT) -> str | None: ...

    def topic_of(self, chat: str) -> str | None: ...

    def remember_status(
        self, chat: str, message_ref: str, now: datetime, slot: str = STATUS_SLOT
    ) -> None: ...


class _Unreachable(Exception):
    """A private message could not be delivered to its person."""


async def perform(
    bot: Bot,
    conversation: ConversationPort,
    actions: Sequence[Outbound],
    *,
    now: datetime,
    press_id: str | None = None,
) -> bool:
    """Perform ``actions`` in order; return False if a transient failure stopped them.

    ``press_id`` is the callback query being handled: an ``AnswerButton`` without a
    ``press_ref`` answers it. Permanent failures (a message that cannot be edited, a chat
    the bot was removed from) are logged and skipped, so one bad action never blocks the
    ones after it. A person unreachable in private is reported once per call.
    """
    unreachable: set[str] = set()
    pending = list(actions)
    while pending:
        action = pending.pop(0)
        try:
            await _perform_one(bot, conversation, action, press_id, now)
        except _Unreachable:
            metrics.sent("unreachable")
            if action.to in unreachable:
                continue
            unreachable.add(action.to)
            # What to say instead (a notice in their group) goes out right after.
            pending[:0] = conversation.unreachable(action.to, now)
        except BadRequest as err:  # a subclass of NetworkError, but nothing a retry fixes
            metrics.sent("refused")
            log.warning("Telegram refused %s: %s", _describe(action), err)
        except (RetryAfter, NetworkError) as err:
            metrics.sent("429" if isinstance(err, RetryAfter) else "retry")
            log.warning("Telegram unreachable for %s, will retry: %s", _describe(action), err)
            return False
        except TelegramError as err:
            metrics.sent("refused")
            log.warning("Telegram refused %s: %s", _describe(action), err)
        except ValueError as err:  # a key of another channel
            metrics.sent("failed")
            log.error("cannot perform %s on Telegram: %s", _describe(action), err)
        else:
            metrics.sent("ok")
    return True


async def _perform_one(
    bot: Bot,
    conversation: ConversationPort,
    action: Outbound,
    press_id: str | None,
    now: datetime,
) -> None:
    if isinstance(action, SendText):
        await _send_text(bot, conversation, action, now)
    elif isinstance(action, SendFile):
        await _send_file(bot, action, _thread(conversation, action))
    elif isinstance(action, Unpin):
        await _unpin(bot, conversation, action)
    elif isinstance(action, DeleteMessage):
        await _delete(bot, action)
    elif isinstance(action, EditButtons):
        await _edit_buttons(bot, action)
    elif isinstance(action, AnswerButton):
        query_id = action.press_ref or press_id
        if query_id:
            await bot.answer_callback_query(query_id, text=action.text or None)
    else:
        log.error("no Telegram action for %s", _describe(action))


async def _send_text(
    bot: Bot, conversation: ConversationPort, action: SendText, now: datetime
) -> None:
    chat_id = telegram_id(action.to)
    if not (action.text or action.photo_ref or action.image or action.pre):
        log.warning("not sending an empty message to %s", who(action.to))
        return
    markup = keyboard(action.buttons, bot.username)
    thread = _thread(conversation, action)
    try:
        if action.slot is not None:
            await _send_status(bot, conversation, action, chat_id, markup, now, thread)
        elif action.edit_ref is not None and await _edit(bot, action, chat_id, markup):
            return
        else:
            # Telegram offers a location button in private chats only (user ids are > 0).
            located = location_keyboard(action.buttons) if chat_id > 0 else None
            await _send_message(bot, action, chat_id, located or markup, thread)
    except (Forbidden, BadRequest) as err:
        private = action.private or chat_id > 0  # Telegram's user ids are positive
        if private and (isinstance(err, Forbidden) or "chat not found" in str(err).lower()):
            raise _Unreachable from err
        raise


def _thread(conversation: ConversationPort, action: SendText | SendFile) -> int | None:
    """The forum topic of a group to send ``action`` to: its own ``topic``, else the one the
    group's game lives in; None for the main thread and for private chats."""
    chat_id = telegram_id(action.to)
    if chat_id > 0:  # a person: private chats have no topics
        return None
    topic = action.topic if isinstance(action, SendText) else None
    if topic is None:
        topic = conversation.topic_of(action.to)
    if not topic:
        return None
    try:
        return int(topic)
    except ValueError:
        return None


async def _send_file(bot: Bot, action: SendFile, thread: int | None) -> None:
    """A document with its caption (cut to what a caption may hold)."""
    caption, _ = _split(action.caption, MessageLimit.CAPTION_LENGTH)
    try:
        await bot.send_document(
            telegram_id(action.to),
            InputFile(action.content, filename=action.filename),
            caption=caption or None,
            message_thread_id=thread,
        )
    except Forbidden as err:
        if action.private:
            raise _Unreachable from err
        raise


async def _send_message(
    bot: Bot,
    action: SendText,
    chat_id: int,
    markup: InlineKeyboardMarkup | ReplyKeyboardMarkup | None,
    thread: int | None = None,
) -> None:
    reply = (
        ReplyParameters(message_id=int(action.reply_to), allow_sending_without_reply=True)
        if action.reply_to
        else None
    )
    text = action.text
    if action.image is not None:
        # The picture shows what the fixed-width block would, so the block is not sent.
        caption, text = _split(text, MessageLimit.CAPTION_LENGTH)
        await bot.send_photo(
            chat_id,
            action.image,
            caption=caption or None,
            reply_parameters=reply,
            reply_markup=None if text else markup,
            message_thread_id=thread,
        )
        reply = None
    elif action.pre:
        block = f"<pre>{html.escape(action.pre)}</pre>"
        if len(text) + len(block) < MessageLimit.MAX_TEXT_LENGTH - 100:
            body = f"{html.escape(text)}\n{block}" if text else block
            await bot.send_message(
                chat_id,
                body,
                parse_mode=ParseMode.HTML,
                reply_parameters=reply,
                reply_markup=markup,
                message_thread_id=thread,
            )
            return
        await _send_message(bot, replace(action, pre=""), chat_id, None, thread)
        await bot.send_message(
            chat_id,
            block,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            message_thread_id=thread,
        )
        return
    if action.photo_ref:
        caption, text = _split(text, MessageLimit.CAPTION_LENGTH)
        await bot.send_photo(
            chat_id,
            action.photo_ref,
            caption=caption or None,
            reply_parameters=reply,
            reply_markup=None if text else markup,
            message_thread_id=thread,
        )
        reply = None
    chunks = _chunks(text, MessageLimit.MAX_TEXT_LENGTH)
    for i, chunk in enumerate(chunks):
        last = i == len(chunks) - 1
        await bot.send_message(
            chat_id,
            chunk,
            reply_parameters=reply,
            reply_markup=markup if last else None,
            message_thread_id=thread,
        )
        reply = None


async def _edit(
    bot: Bot, action: SendText, chat_id: int, markup: InlineKeyboardMarkup | None
) -> bool:
    """Replace the text and buttons of message ``action.edit_ref``; False when it can no
    longer be edited (too old, gone), so that a new message is sent instead."""
    assert action.edit_ref is not None
    text, _ = _split(action.text, MessageLimit.MAX_TEXT_LENGTH)
    try:
        await bot.edit_message_text(
            text, chat_id=chat_id, message_id=int(action.edit_ref), reply_markup=markup
        )
    except BadRequest as err:
        reason = str(err).lower()
        if "not modified" in reason:
            return True
        log.info("message %s in %s cannot be edited (%s)", action.edit_ref, who(action.to), err)
        return False
    return True


async def _send_status(
    bot: Bot,
    conversation: ConversationPort,
    action: SendText,
    chat_id: int,
    markup: InlineKeyboardMarkup | None,
    now: datetime,
    thread: int | None = None,
) -> None:
    text, _ = _split(action.text, MessageLimit.MAX_TEXT_LENGTH)
    slot = action.slot or STATUS_SLOT
    ref = conversation.status_ref(action.to, slot)
    if ref is not None and action.opens_slot:
        return  # the job spoke first: its message stays
    if ref is not None:
        try:
            await bot.edit_message_text(
                text, chat_id=chat_id, message_id=int(ref), reply_markup=markup
            )
            return
        except BadRequest as err:
            reason = str(err).lower()
            if "not modified" in reason:
                return
            if "not found" not in reason and "can't be edited" not in reason:
                raise
            gone = "%s message %s in %s is gone (%s); sending a new one"
            log.info(gone, slot, ref, who(action.to), err)
    if action.transient:
        return  # progress of a message that is gone: the outcome will be sent anew
    sent = await bot.send_message(chat_id, text, reply_markup=markup, message_thread_id=thread)
    if slot == STATUS_SLOT:
        try:
            await bot.pin_chat_message(chat_id, sent.message_id, disable_notification=True)
        except TelegramError as err:  # not an admin: the status still works, unpinned
            log.info("could not pin the status in %s: %s", who(action.to), err)
    conversation.remember_status(action.to, str(sent.message_id), now, slot)


async def _unpin(bot: Bot, conversation: ConversationPort, action: Unpin) -> None:
    """Unpin the message kept in the action's slot (the final status), if there is one."""
    ref = conversation.status_ref(action.to, action.slot)
    if ref is None:
        return
    try:
        await bot.unpin_chat_message(telegram_id(action.to), message_id=int(ref))
    except (BadRequest, Forbidden) as err:  # not an admin, or the message is gone
        log.info("could not unpin message %s in %s: %s", ref, who(action.to), err)


async def _delete(bot: Bot, action: DeleteMessage) -> None:
    try:
        await bot.delete_message(telegram_id(action.to), int(action.message_ref))
    except (BadRequest, Forbidden) as err:  # too old, already gone, or the bot is no admin
        log.info(
            "could not delete message %s in %s: %s", action.message_ref, who(action.to), err
        )


async def _edit_buttons(bot: Bot, action: EditButtons) -> None:
    try:
        await bot.edit_message_reply_markup(
            telegram_id(action.to),
            int(action.message_ref),
            reply_markup=keyboard(action.buttons, bot.username),
        )
    except BadRequest as err:  # already changed, too old, or gone: nothing left to remove
        log.info(
            "could not edit the buttons of %s in %s: %s", action.message_ref, who(action.to), err
        )


def location_keyboard(rows: Sequence[Sequence[Button]]) -> ReplyKeyboardMarkup | None:
    """A reply keyboard of the ``share_location`` buttons (one tap sends the person's
    location; Telegram offers it in private chats only), or None when there are none.

    Telegram cannot mix it with inline buttons: a message with one gets only these.
    """
    wanted = [[b for b in row if b.share_location] for row in rows]
    wanted = [row for row in wanted if row]
    if not wanted:
        return None
    return ReplyKeyboardMarkup(
        [[KeyboardButton(b.label, request_location=True) for b in row] for row in wanted],
        resize_keyboard=True,
        one_time_keyboard=True,
    )


def keyboard(rows: Sequence[Sequence[Button]], bot_username: str) -> InlineKeyboardMarkup | None:
    """Build the inline keyboard; a ``private_link`` button opens the bot's private chat.
    ``share_location`` buttons are not inline buttons (``location_keyboard``)."""
    inline = [
        [
            InlineKeyboardButton(b.label, url=f"https://t.me/{bot_username}?start=hi")
            if b.private_link
            else InlineKeyboardButton(b.label, callback_data=b.data or b.label)
            for b in row
            if not b.share_location
        ]
        for row in rows
    ]
    inline = [row for row in inline if row]
    return InlineKeyboardMarkup(inline) if inline else None


def _split(text: str, limit: int) -> tuple[str, str]:
    """Cut ``text`` at a line break (else a space, else hard) so the head fits in ``limit``."""
    if len(text) <= limit:
        return text, ""
    cut = text.rfind("\n", 0, limit + 1)
    if cut <= 0:
        cut = text.rfind(" ", 0, limit + 1)
    if cut <= 0:
        cut = limit
    return text[:cut], text[cut:].lstrip("\n ")


def _chunks(text: str, limit: int) -> list[str]:
    chunks: list[str] = []
    while text:
        head, text = _split(text, limit)
        chunks.append(head)
    return chunks


def _describe(action: Outbound) -> str:
    return f"{type(action).__name__} to {who(action.to)}"
