"""Running the bot: long polling or the webhook, both storing every update before Telegram
counts it as delivered.

- Long polling (``Poller``): each batch ``getUpdates`` returns is stored in the inbox and
  committed before the next call, whose ``offset`` is what confirms the batch to Telegram;
  then each update is applied in its chat's lane. A batch that cannot be stored is fetched
  again. Updates are read as raw JSON, so one the library cannot parse is kept as
  unreadable and skipped instead of wedging the loop.
- The webhook (``web.server``): each request is answered 200 once its update is stored
  (applied, refused, failed or unreadable); a crash before that leaves Telegram to deliver
  it again, and the inbox makes the second delivery harmless.

On start, updates stored but not applied (a poller that died) are applied; a network that
is away is retried with backoff, one log line per failure.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from functools import partial
from typing import Any

from telegram import Bot, BotCommand, BotCommandScope
from telegram.error import BadRequest, InvalidToken, NetworkError, RetryAfter, TelegramError
from telegram.request import RequestData

# The one parameter type RequestData takes; the library exports it from this module only.
from telegram.request._requestparameter import RequestParameter

from hideseek_chat.chat.drive import wall_clock
from hideseek_chat.logs import one_line
from hideseek_chat.store.inbox import Stored
from hideseek_chat.telegram.bot import (
    ALLOWED_UPDATES,
    TelegramApp,
    TelegramChannel,
    channel_of,
    lane_of,
)
from hideseek_chat.telegram.limits import retry_seconds
from hideseek_chat.telegram.setup import check_privacy, command_menus

log = logging.getLogger(__name__)

#: Seconds ``getUpdates`` waits for news before answering empty.
POLL_TIMEOUT = 30
#: The longest wait between retries when Telegram cannot be reached (seconds).
MAX_BACKOFF = 60.0
#: How often stored updates nobody is applying are looked for (seconds).
RESUME_EVERY = 30.0
#: How long a stopping bot waits for the updates in hand (seconds); what is left is applied
#: by the next start, as after a crash.
STOP_PATIENCE = 20.0

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class Webhook:
    """Where the webhook listens and what Telegram is told."""

    url: str  # the public https:// address
    path: str  # the path the server serves it at
    secret: str
    host: str = "0.0.0.0"  # every interface: a container port behind the TLS proxy
    port: int = 8080


class Backoff:
    """Waits that grow (with jitter) while a call keeps failing, and reset on success."""

    def __init__(self, stop: asyncio.Event, maximum: float = MAX_BACKOFF) -> None:
        self.stop = stop
        self.maximum = maximum
        self.failures = 0

    async def wait(self, what: str, err: Exception) -> None:
        """Log one line for the failure, then wait (or return early on stop)."""
        self.failures += 1
        if isinstance(err, RetryAfter):
            delay = retry_seconds(err.retry_after)
        else:
            delay = min(self.maximum, 2.0 ** min(self.failures, 6)) * random.uniform(0.5, 1.0)
        log.warning("%s failed (%s); trying again in %.0f s", what, one_line(err), delay)
        with suppress(TimeoutError):
            await asyncio.wait_for(self.stop.wait(), timeout=delay)

    def reset(self) -> None:
        self.failures = 0


class Poller:
    """Long polling that stores before it confirms; see the module docstring."""

    def __init__(self, bot: Bot, channel: TelegramChannel, stop: asyncio.Event) -> None:
        self.bot = bot
        self.channel = channel
        self.stop = stop
        self.offset: int | None = None

    async def run(self) -> None:
        """Poll until ``stop`` is set."""
        backoff = Backoff(self.stop)
        while not self.stop.is_set():
            try:
                updates = await self._fetch_unless_stopped()
                if updates:
                    await self._store(updates)
            except InvalidToken:
                raise
            except (NetworkError, RetryAfter, TelegramError) as err:
                await backoff.wait("getUpdates", err)
                continue
            except Exception as err:  # the database away: the batch is fetched again
                log.error("storing updates failed (%s); fetching them again", one_line(err))
                await backoff.wait("storing updates", err)
                continue
            backoff.reset()

    async def _fetch_unless_stopped(self) -> list[dict[str, Any]]:
        """``_fetch``, abandoned when ``stop`` is set: a long poll may wait 30 s, and what it
        would return is not confirmed, so Telegram sends it again to the next start."""
        fetching = asyncio.ensure_future(self._fetch())
        stopping = asyncio.ensure_future(self.stop.wait())
        try:
            await asyncio.wait([fetching, stopping], return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
            if not fetching.done():
                fetching.cancel()
                with suppress(asyncio.CancelledError):
                    await fetching
        return fetching.result() if not fetching.cancelled() else []

    async def _fetch(self) -> list[dict[str, Any]]:
        kwargs: dict[str, Any] = {
            "timeout": POLL_TIMEOUT,
            "allowed_updates": list(ALLOWED_UPDATES),
        }
        if self.offset is not None:
            kwargs["offset"] = self.offset
        request = self.channel.poll_request
        if request is None:
            raise RuntimeError("the channel was not built by build_application")
        data = RequestData([RequestParameter.from_input(k, v) for k, v in kwargs.items()])
        result = await request.post(
            f"{self.bot.base_url}/getUpdates", request_data=data, read_timeout=POLL_TIMEOUT + 10
        )
        if not isinstance(result, list):
            raise NetworkError("getUpdates answered something other than a list")
        updates = []
        for raw in result:
            update_id = raw.get("update_id") if isinstance(raw, dict) else None
            if isinstance(update_id, int) and not isinstance(update_id, bool):
                updates.append(raw)
            else:
                log.warning("getUpdates returned an entry without an update id; skipped")
        return updates

    async def _store(self, updates: list[dict[str, Any]]) -> None:
        """Store the batch, move the offset past it (confirmed by the next call), then
        apply each update in its lane."""
        rows = [(f"tg:{u['update_id']}", lane_of(u), json.dumps(u)) for u in updates]
        driver = self.channel.driver(self.bot)
        await driver._run(driver.conversation.store_updates, rows, wall_clock())
        self.offset = max(u["update_id"] for u in updates) + 1
        for update_id, lane, payload in rows:  # in order; a redelivered one changes nothing
            self.channel.dispatch_stored(Stored(0, update_id, lane, payload, 0), self.bot)


#: Serves the webhook until ``stop`` is set (the web server's, wired by ``app``).
Serve = Callable[[TelegramApp, TelegramChannel, "Webhook", asyncio.Event], Awaitable[None]]


async def run(
    application: TelegramApp,
    stop: asyncio.Event,
    webhook: Webhook | None = None,
    *,
    serve: Serve | None = None,
) -> None:
    """Run the bot until ``stop`` is set: the webhook served by ``serve`` when ``webhook``
    is given, else long polling. Starts the timers' tick; stops cleanly (the updates in
    hand are finished, the outbox stays consistent)."""
    if webhook is not None and serve is None:
        raise ValueError("a webhook needs a server to serve it")
    channel = channel_of(application)
    backoff = Backoff(stop)
    while not stop.is_set():
        try:
            await application.initialize()  # getMe: is the token good, is Telegram there
            break
        except InvalidToken:
            raise
        except (NetworkError, TelegramError) as err:
            await backoff.wait("reaching Telegram", err)
    if stop.is_set():
        return
    bot = application.bot
    log.info("running as @%s", bot.username)
    check_privacy(bot)
    channel.driver(bot)
    await application.start()  # the job queue: timers and the outbox
    resumer = asyncio.ensure_future(_keep_resuming(channel, bot, stop))
    menus = asyncio.ensure_future(set_command_menus(bot, stop))
    try:
        await channel.resume(bot)
        if webhook is None:
            await call_until_stopped(stop, "deleteWebhook", lambda: bot.delete_webhook())
            await Poller(bot, channel, stop).run()
        else:
            assert serve is not None
            await serve(application, channel, webhook, stop)
        await _finish_in_hand(channel)
    finally:
        resumer.cancel()
        menus.cancel()
        await application.stop()
        await application.shutdown()


async def call_until_stopped(
    stop: asyncio.Event, what: str, call: Callable[[], Awaitable[object]]
) -> None:
    """Make a set-up call to Telegram, retrying with backoff until it works or we stop."""
    backoff = Backoff(stop)
    while not stop.is_set():
        try:
            await call()
            return
        except InvalidToken:
            raise
        except (NetworkError, TelegramError) as err:
            await backoff.wait(what, err)


async def _finish_in_hand(channel: TelegramChannel) -> None:
    """Let the lanes apply the updates they hold before the job queue stops (at most
    ``STOP_PATIENCE``)."""
    try:
        await asyncio.wait_for(channel.lanes.join(), timeout=STOP_PATIENCE)
    except TimeoutError:
        log.warning("stopping with updates still in hand; the next start applies them")


async def set_command_menus(bot: Bot, stop: asyncio.Event) -> None:
    """Set the command menus (``bot.command_menus``), each retried with backoff while
    Telegram cannot be reached; one Telegram refuses is logged and left out (the bot works
    without it)."""
    for scope, language, commands in command_menus():
        call = partial(_set_menu, bot, scope, language, commands)
        await call_until_stopped(stop, "setMyCommands", call)


async def _set_menu(
    bot: Bot, scope: BotCommandScope, language: str | None, commands: list[BotCommand]
) -> None:
    try:
        await bot.set_my_commands(commands, scope=scope, language_code=language)
    except BadRequest as err:  # nothing a retry fixes
        log.warning("could not set a command menu (%s, %s): %s", scope.type, language, err)


async def _keep_resuming(channel: TelegramChannel, bot: Bot, stop: asyncio.Event) -> None:
    """Now and then, apply stored updates that no lane is working on (another worker that
    died stored them)."""
    while not stop.is_set():
        try:
            await asyncio.wait_for(stop.wait(), timeout=RESUME_EVERY)
        except TimeoutError:
            try:
                await channel.resume(bot)
            except Exception as err:  # the database away: next time
                log.warning("looking for stored updates failed (%s)", one_line(err))
