"""The python-telegram-bot ``Application``: every update to the conversation, and a timer tick.

One handler takes every update (messages, edited messages for live locations, button
presses), converts it, lets the conversation handle it, performs the direct replies and then
drains the game's outbox. A repeating job ticks the conversation's timers and drains the
outbox too, so announcements go out even when nobody writes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from telegram import Bot, BotCommand, Update
from telegram.error import TelegramError
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    ContextTypes,
    ExtBot,
    JobQueue,
    TypeHandler,
)
from telegram.request import BaseRequest

from hideseek_chat.chat.clock import GameClock
from hideseek_chat.chat.i18n import LANGUAGES, N_, Formatter
from hideseek_chat.chat.model import AnswerButton, Inbound, Outbound
from hideseek_chat.telegram.convert import MAX_DOWNLOAD_BYTES, key, to_inbound
from hideseek_chat.telegram.send import ConversationPort, perform

if TYPE_CHECKING:
    from hideseek_chat.chat.service import Delivery

log = logging.getLogger(__name__)

# ExtBot[int]: the bot's rate-limiter arguments are AIORateLimiter's retry counts.
TelegramApp: TypeAlias = Application[
    ExtBot[int],
    ContextTypes.DEFAULT_TYPE,
    dict[Any, Any],
    dict[Any, Any],
    dict[Any, Any],
    JobQueue[ContextTypes.DEFAULT_TYPE],
]

#: How often the timers are ticked and the outbox drained (wall-clock seconds).
TICK_SECONDS = 2.0
#: Deliveries taken from the outbox per drain.
DRAIN_LIMIT = 50
#: Rate-limited calls are retried this often after Telegram's flood control answers.
FLOOD_RETRIES = 3
#: Only these updates are asked for (long polling and the webhook alike).
ALLOWED_UPDATES = (Update.MESSAGE, Update.EDITED_MESSAGE, Update.CALLBACK_QUERY)
#: The command menu Telegram shows (descriptions are msgids, shown in each shipped
#: language); the conversation decides what each command does.
COMMANDS = (
    ("newgame", N_("start a new game in this group")),
    ("join", N_("join the game")),
    ("leave", N_("leave the game")),
    ("begin", N_("start the game (admin)")),
    ("ask", N_("ask the hider a question")),
    ("found", N_("claim that you found the hider")),
    ("endgame", N_("claim that the end game has begun")),
    ("cleared", N_("report the active curse done")),
    ("pause", N_("pause the game clock")),
    ("resume", N_("resume the game clock")),
    ("status", N_("show the game's status")),
    ("score", N_("show the scores")),
    ("review", N_("review a finished round's answers")),
    ("hand", N_("show your cards (in private)")),
    ("track", N_("hider: where the seekers were last seen")),
    ("map", N_("choose the game's map (admin)")),
    ("settings", N_("change the game's settings (admin)")),
    ("language", N_("choose the language I speak")),
    ("botnet", N_("two players: hide && seek on the botnet grid")),
    ("claim", N_("botnet: claim a device, like /claim e6")),
    ("resign", N_("botnet: give up the match")),
    ("help", N_("how to play with this bot")),
)


class ConversationLike(ConversationPort, Protocol):
    """What the adapter needs from ``hideseek_chat.chat.service.Conversation``."""

    def handle(self, msg: Inbound) -> list[Outbound]: ...

    def outgoing(self, now: datetime, limit: int = 50) -> list[Delivery]: ...

    def delivered(self, delivery_id: int, now: datetime) -> None: ...

    def tick(self, now: datetime) -> None: ...


ConversationFactory: TypeAlias = Callable[[str], ConversationLike]


class TelegramChannel:
    """Route updates and ticks between python-telegram-bot and the conversation.

    The conversation is made on first use with the bot's username, known only once the
    application has asked Telegram who it is (``Application.initialize``).
    """

    def __init__(
        self,
        conversation_factory: ConversationFactory,
        clock: GameClock,
        *,
        max_download: int = MAX_DOWNLOAD_BYTES,
    ) -> None:
        self._factory = conversation_factory
        self._conversation: ConversationLike | None = None
        self._clock = clock
        self._max_download = max_download
        # The update handler and the tick job drain concurrently; one delivery, one send.
        self._drain_lock = asyncio.Lock()

    def conversation(self, bot: Bot) -> ConversationLike:
        """Return the conversation, making it for ``bot``'s username on first use."""
        if self._conversation is None:
            self._conversation = self._factory(bot.username)
        return self._conversation

    async def on_update(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Handle one update: convert, hand to the conversation, reply, drain the outbox."""
        bot = context.bot
        now = self._clock.now()
        query = update.callback_query
        inbound = await to_inbound(
            update, bot_username=bot.username, now=now, max_download=self._max_download
        )
        conversation = self.conversation(bot)
        replies = conversation.handle(inbound) if inbound is not None else []
        if query is not None and not any(isinstance(r, AnswerButton) for r in replies):
            # Every press is answered, or the person's client shows a spinner for a while.
            replies = [AnswerButton(to=key(query.from_user.id), press_ref=query.id), *replies]
        await perform(bot, conversation, replies, now=now, press_id=query.id if query else None)
        await self.drain(bot)

    async def on_tick(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Fire the due timers, then send what they announced."""
        self.conversation(context.bot).tick(self._clock.now())
        await self.drain(context.bot)

    async def drain(self, bot: Bot) -> None:
        """Send the outbox's deliveries in order; stop at a transient failure to retry later."""
        async with self._drain_lock:
            conversation = self.conversation(bot)
            now = self._clock.now()
            for delivery in conversation.outgoing(now, DRAIN_LIMIT):
                if not await perform(bot, conversation, delivery.actions, now=now):
                    return
                conversation.delivered(delivery.id, self._clock.now())


def command_menu(language: str) -> list[BotCommand]:
    """The command menu in ``language``."""
    fmt = Formatter(language)
    return [BotCommand(name, fmt.t(description)) for name, description in COMMANDS]


async def _set_commands(application: TelegramApp) -> None:
    """English for everyone, and each shipped language for apps set to it."""
    for language in LANGUAGES:
        code = None if language == "en" else language
        try:
            await application.bot.set_my_commands(command_menu(language), language_code=code)
        except TelegramError as err:  # the bot still works without a command menu
            log.warning("could not set the command list (%s): %s", language, err)
    log.info("running as @%s", application.bot.username)


async def _log_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    log.error("handling %r failed", update, exc_info=context.error)


def build_application(
    token: str,
    clock: GameClock,
    conversation_factory: ConversationFactory,
    *,
    base_url: str | None = None,
    request: BaseRequest | None = None,
    tick_seconds: float = TICK_SECONDS,
    max_download: int = MAX_DOWNLOAD_BYTES,
) -> TelegramApp:
    """Build the bot's ``Application``; nothing connects until it is initialized or run.

    ``base_url`` names a self-hosted Bot API server (``http://host:8081/bot``); its file URL
    is derived (``.../file/bot``). ``request`` replaces the HTTP layer (tests).
    """
    channel = TelegramChannel(conversation_factory, clock, max_download=max_download)
    builder = (
        ApplicationBuilder()
        .token(token)
        .rate_limiter(AIORateLimiter(max_retries=FLOOD_RETRIES))
        .post_init(_set_commands)
    )
    if base_url:
        builder = builder.base_url(base_url)
        if base_url.rstrip("/").endswith("/bot"):
            builder = builder.base_file_url(_file_url(base_url))
    if request is not None:
        builder = builder.request(request).get_updates_request(request)
    application = builder.build()
    application.add_handler(TypeHandler(Update, channel.on_update))
    application.add_error_handler(_log_error)
    assert application.job_queue is not None  # the job-queue extra is a dependency
    application.job_queue.run_repeating(
        channel.on_tick,
        interval=tick_seconds,
        first=1.0,
        name="tick",
        job_kwargs={"coalesce": True},
    )
    return application


def _file_url(base_url: str) -> str:
    """``http://host:8081/bot`` -> ``http://host:8081/file/bot`` (the Bot API's layout)."""
    return base_url.rstrip("/").removesuffix("/bot") + "/file/bot"
