"""The python-telegram-bot ``Application``: every update to the conversation, and a timer tick.

One handler takes every update (messages, edited messages for live locations, button
presses), converts it and hands it to the shared drive loop (``chat.drive``), which lets the
conversation handle it, performs the replies here and drains the game's outbox. A repeating
job ticks the timers and drains the outbox too, so announcements go out when nobody writes.
The command menus come from the conversation's routing table.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeAlias

from telegram import (
    Bot,
    BotCommand,
    BotCommandScope,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    Update,
)
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

from hideseek_chat.chat import routes
from hideseek_chat.chat.clock import GameClock
from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.drive import Capabilities, Driver
from hideseek_chat.chat.i18n import LANGUAGES, Formatter
from hideseek_chat.chat.model import AnswerButton, Outbound
from hideseek_chat.telegram.convert import MAX_DOWNLOAD_BYTES, key, to_inbound
from hideseek_chat.telegram.send import perform

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
#: Rate-limited calls are retried this often after Telegram's flood control answers.
FLOOD_RETRIES = 3
#: Only these updates are asked for (long polling and the webhook alike).
ALLOWED_UPDATES = (Update.MESSAGE, Update.EDITED_MESSAGE, Update.CALLBACK_QUERY)
#: What Telegram can do with the conversation's actions.
CAPABILITIES = Capabilities()

ConversationFactory: TypeAlias = Callable[[str], Conversation]


class TelegramChannel:
    """python-telegram-bot's side of the shared drive loop (``chat.drive.Driver``).

    The conversation is made on first use with the bot's username, known only once the
    application has asked Telegram who it is (``Application.initialize``).
    """

    capabilities = CAPABILITIES

    def __init__(
        self,
        conversation_factory: ConversationFactory,
        clock: GameClock,
        *,
        max_download: int = MAX_DOWNLOAD_BYTES,
    ) -> None:
        self._factory = conversation_factory
        self._driver: Driver | None = None
        self._bot: Bot | None = None
        self._clock = clock
        self._max_download = max_download

    def driver(self, bot: Bot) -> Driver:
        """Return the drive loop, making the conversation for ``bot``'s username first."""
        if self._driver is None:
            self._bot = bot
            self._driver = Driver(self._factory(bot.username), self, self._clock.now)
        return self._driver

    async def perform(self, actions: Sequence[Outbound], now: datetime) -> bool:
        """Perform ``actions`` with the Bot API (see ``send.perform``)."""
        assert self._bot is not None and self._driver is not None
        return await perform(self._bot, self._driver.conversation, actions, now=now)

    async def on_update(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Handle one update: convert it and hand it to the drive loop."""
        bot = context.bot
        driver = self.driver(bot)
        now = self._clock.now()
        inbound = await to_inbound(
            update, bot_username=bot.username, now=now, max_download=self._max_download
        )
        if inbound is not None:
            await driver.on_message(inbound)
            return
        query = update.callback_query
        if query is not None:  # a press the conversation cannot read, answered all the same
            await self.perform([AnswerButton(key(query.from_user.id), press_ref=query.id)], now)
        await driver.drain()

    async def on_tick(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Fire the due timers, then send what they announced."""
        await self.driver(context.bot).on_tick()


#: One command menu per kind of chat, each listing what can be done there.
MENU_SCOPES: tuple[tuple[routes.Where, BotCommandScope], ...] = (
    (routes.Where.GROUP, BotCommandScopeAllGroupChats()),
    (routes.Where.PRIVATE, BotCommandScopeAllPrivateChats()),
)


def command_menu(language: str, where: routes.Where) -> list[BotCommand]:
    """The command menu of a ``where`` chat (group or private) in ``language``."""
    fmt = Formatter(language)
    return [BotCommand(name, fmt.t(description)) for name, description in routes.menu(where)]


async def _set_commands(application: TelegramApp) -> None:
    """A menu for groups and one for private chats: in English for everyone, and in each
    shipped language for apps set to it."""
    for where, scope in MENU_SCOPES:
        for language in LANGUAGES:
            code = None if language == "en" else language
            try:
                await application.bot.set_my_commands(
                    command_menu(language, where), scope=scope, language_code=code
                )
            except TelegramError as err:  # the bot still works without a command menu
                log.warning("could not set the %s command list (%s): %s", where, language, err)
    log.info("running as @%s", application.bot.username)


async def _log_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log a failed update by its id and kind, never its content: a location in it may be
    the hider's."""
    if isinstance(update, Update):
        kind = next(
            (
                name
                for name in ("message", "edited_message", "callback_query", "my_chat_member")
                if getattr(update, name, None) is not None
            ),
            "other",
        )
        log.error("handling update %s (%s) failed", update.update_id, kind, exc_info=context.error)
    else:
        log.error("handling %s failed", type(update).__name__, exc_info=context.error)


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
