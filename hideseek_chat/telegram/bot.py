"""The python-telegram-bot ``Application``: every update to the conversation, and a timer tick.

One handler takes every update (messages, edited messages for live locations, button
presses), converts it and hands it to the shared drive loop (``chat.drive``), which lets the
conversation handle it, performs the replies here and drains the game's outbox. A repeating
job ticks the timers and drains the outbox too, so announcements go out when nobody writes.
The command menus come from the conversation's routing table.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime
from typing import Any, Protocol, TypeAlias

from telegram import (
    Bot,
    Update,
)
from telegram.ext import (
    Application,
    ApplicationBuilder,
    ContextTypes,
    ExtBot,
    JobQueue,
    TypeHandler,
)
from telegram.request import BaseRequest, HTTPXRequest

from hideseek_chat import metrics
from hideseek_chat.chat import routes
from hideseek_chat.chat.clock import GameClock
from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.drive import REPLYING, Capabilities, Channel, Driver, background_pool
from hideseek_chat.chat.lanes import Lanes
from hideseek_chat.chat.model import (
    STATUS_SLOT,
    AnswerButton,
    BotRights,
    Inbound,
    Outbound,
    SendText,
)
from hideseek_chat.chat.pacing import Pacer
from hideseek_chat.logs import is_network_error, one_line, who
from hideseek_chat.store.inbox import Stored
from hideseek_chat.store.models import InboxStatus
from hideseek_chat.telegram.convert import (
    MAX_DOWNLOAD_BYTES,
    is_present,
    is_whole,
    key,
    rights_of,
    telegram_id,
    to_inbound,
)
from hideseek_chat.telegram.limits import PacingLimiter
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
ALLOWED_UPDATES = (
    Update.MESSAGE,
    Update.EDITED_MESSAGE,
    Update.CALLBACK_QUERY,
    Update.MY_CHAT_MEMBER,  # the bot added to a group, removed, promoted or demoted
)
#: What Telegram can do with the conversation's actions.
CAPABILITIES = Capabilities()
#: Threads the updates' store calls of one process run in.
STORE_THREADS = 8
#: Threads the timers and the outbox run in, apart: a burst never holds up an update, and
#: one thread of it leaves the updates most of the interpreter (one thread runs at a time).
BACKGROUND_THREADS = 1
#: Where the application keeps its channel (``channel_of``).
CHANNEL = "hideseek.channel"
#: How long a long poll may take to answer (``getUpdates``' own timeout is 30 s).
POLL_READ_TIMEOUT = 40.0
#: Stored updates looked up per ``resume``.
PENDING_BATCH = 200

ConversationFactory: TypeAlias = Callable[[str], Conversation]


class SharingChannel(Channel, Protocol):
    """Another channel on this drive loop (SMS): it applies its own stored updates."""

    def dispatch_stored(self, stored: Stored) -> None: ...


class TelegramChannel:
    """python-telegram-bot's side of the shared drive loop (``chat.drive.Driver``).

    The conversation is made on first use with the bot's username, known only once the
    application has asked Telegram who it is (``Application.initialize``). Store calls run
    in a thread pool of their own (``threads``), so that one chat's update never holds up
    another's, and the timers and the outbox in a second, smaller one, so that a burst of
    timers never holds up an update; ``receive`` takes the raw updates of the poller and
    the webhook.
    """

    capabilities = CAPABILITIES

    def __init__(
        self,
        conversation_factory: ConversationFactory,
        clock: GameClock,
        *,
        max_download: int = MAX_DOWNLOAD_BYTES,
        threads: int = STORE_THREADS,
    ) -> None:
        self._factory = conversation_factory
        self._driver: Driver | None = None
        self._bot: Bot | None = None
        self._clock = clock
        self._max_download = max_download
        self._threads = ThreadPoolExecutor(threads, thread_name_prefix="store")
        self._behind = background_pool(BACKGROUND_THREADS)
        self.lanes = Lanes()
        #: the HTTP layer ``getUpdates`` goes through (the poller reads raw JSON with it)
        self.poll_request: BaseRequest | None = None
        #: the send limits (the rate limiter's), read to coalesce status edits
        self.pacer: Pacer | None = None
        #: each group's newest status that is waiting for room in the group's window
        self._held: dict[str, SendText] = {}
        #: stored updates handed to a lane and not yet done (not handed out twice)
        self._in_lanes: set[str] = set()
        #: the bot's rights per group, as Telegram last told them (membership updates and
        #: ``getChatMember``); the fallback when ``getChatMember`` fails
        self.rights: dict[str, BotRights] = {}
        #: another channel sharing this drive loop (SMS): it gets every action for a chat
        #: that is not Telegram's, and the texts to Telegram groups (for its members there)
        self.also: SharingChannel | None = None

    @property
    def current_driver(self) -> Driver | None:
        """The drive loop once ``driver`` made it (the bot knows its username), else None."""
        return self._driver

    def driver(self, bot: Bot) -> Driver:
        """Return the drive loop, making the conversation for ``bot``'s username first."""
        if self._driver is None:
            self._bot = bot
            self._driver = Driver(
                self._factory(bot.username),
                self,
                self._clock.now,
                threads=self._threads,
                background=self._behind,
            )
        return self._driver

    async def perform(self, actions: Sequence[Outbound], now: datetime) -> bool:
        """Perform ``actions`` with the Bot API (see ``send.perform``).

        A group's status that would have to wait for the group's send window is held
        instead, the newest replacing an older one, and sent by ``flush_statuses`` once
        there is room: status edits are coalesced, never queued behind each other."""
        assert self._bot is not None and self._driver is not None
        if self.also is not None:
            replies = REPLYING.get()  # a reply in a group is for its Telegram readers
            theirs = [
                a for a in actions if not a.to.startswith("tg:") or (_to_group(a) and not replies)
            ]
            if theirs and not await self.also.perform(theirs, now):
                return False
            actions = [a for a in actions if a.to.startswith("tg:")]
        kept: list[Outbound] = []
        for action in actions:
            if _is_status(action):
                assert isinstance(action, SendText)
                self._held.pop(action.to, None)  # this one is newer
                if self.pacer is not None and self.pacer.wait_for(_chat_id(action.to), True):
                    self._held[action.to] = action
                    continue
            kept.append(action)
        if not kept:
            return True
        if any(_texted_photo(a) is not None for a in kept):
            loop = asyncio.get_running_loop()
            kept = await loop.run_in_executor(self._threads, self._with_texted_photos, kept)
        return await perform(self._bot, self._driver.conversation, kept, now=now)

    def _with_texted_photos(self, actions: list[Outbound]) -> list[Outbound]:
        """A photo an SMS player texted (``sms-media:<id>``, kept by the SMS channel) as
        the picture itself: Telegram cannot fetch the gateway's URL, which wants its
        credentials."""
        assert self._driver is not None
        shown: list[Outbound] = []
        with self._driver.conversation.uow_factory() as uow:
            for action in actions:
                media_id = _texted_photo(action)
                if media_id is not None:
                    assert isinstance(action, SendText)
                    kept = uow.sms.media(media_id)
                    image = None if kept is None else kept[1]
                    action = replace(action, photo_ref=None, image=image)
                shown.append(action)
        return shown

    async def flush_statuses(self, now: datetime) -> None:
        """Send the held statuses of the groups whose window has room again."""
        if self._bot is None or self._driver is None:
            return
        for chat, action in list(self._held.items()):
            if self.pacer is not None and self.pacer.wait_for(_chat_id(chat), True):
                continue
            if self._held.get(chat) is action:
                del self._held[chat]
                await perform(self._bot, self._driver.conversation, [action], now=now)

    async def on_update(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Handle one update (``Application.process_update``): convert it and hand it to the
        drive loop, in the update's own task."""
        await self._apply(update, context.bot)

    async def _apply(
        self,
        update: Update,
        bot: Bot,
        payload: str | None = None,
        stored: asyncio.Future[None] | None = None,
    ) -> None:
        """Convert ``update`` and run it through the drive loop; ``stored`` is resolved
        once it is in the inbox (before the replies go out)."""
        driver = self.driver(bot)
        now = self._clock.now()
        started = time.perf_counter()
        reads_all = bool(bot.can_read_all_group_messages)
        inbound = await to_inbound(
            update,
            bot_username=bot.username,
            now=now,
            max_download=self._max_download,
            reads_all=reads_all,
        )
        change = update.my_chat_member
        if change is not None and is_whole(change):  # added, removed, promoted, demoted
            chat = key(change.chat.id)
            if is_present(change.new_chat_member):
                self.rights[chat] = rights_of(change.new_chat_member, reads_all)
            else:
                self.rights.pop(chat, None)
        elif inbound is not None and routes.wants_rights(inbound):
            inbound = await self._with_rights(inbound, bot)
        if inbound is not None:
            if payload is None:
                payload = json.dumps(update.to_dict(), default=str)
            await driver.on_message(inbound, payload, stored)
            return
        # Nothing the conversation reads (a service message, a kind of update the bot does
        # not use): done, so that a stored one does not wait in its lane for ever.
        lane = lane_of(update.to_dict())
        await driver._run(
            driver.conversation.settle, _ref(update.update_id), InboxStatus.APPLIED, now, lane
        )
        query = update.callback_query
        if query is not None:  # a press the conversation cannot read, answered all the same
            await self.perform([AnswerButton(key(query.from_user.id), press_ref=query.id)], now)
        metrics.update_handled("other", time.perf_counter() - started)
        await driver.drain()

    async def _with_rights(self, inbound: Inbound, bot: Bot) -> Inbound:
        """``inbound`` with the bot's rights in its group, asked of Telegram now (a game or
        a round is starting), else as last known."""
        chat = inbound.chat
        try:
            member = await bot.get_chat_member(telegram_id(chat), bot.id)
        except Exception as err:  # the rights are a courtesy: the game goes on without
            log.info("could not read the bot's rights in %s (%s)", who(chat), type(err).__name__)
        else:
            self.rights[chat] = rights_of(member, bool(bot.can_read_all_group_messages))
        rights = self.rights.get(chat)
        return inbound if rights is None else replace(inbound, bot_rights=rights)

    # ------------------------------------------------------------------ raw updates

    async def receive(self, raw: dict[str, Any], bot: Bot) -> None:
        """Handle a raw update the webhook received, in its chat's lane; return once it is
        stored (applied, refused, failed or unreadable), before its replies are sent."""
        stored: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.lanes.submit(lane_of(raw), lambda: self._apply_raw(raw, bot, stored))
        await stored

    def dispatch_stored(self, stored: Stored, bot: Bot, follow: bool = False) -> None:
        """Apply a stored (pending) update in its lane, unless it is on its way already;
        with ``follow``, then the lane's next pending update (a resumed lane, in order)."""
        if not stored.update_id.startswith("tg:"):  # another channel's (an SMS)
            if self.also is not None:
                self.also.dispatch_stored(stored)
            return
        if stored.update_id in self._in_lanes:
            return
        self._in_lanes.add(stored.update_id)
        try:
            raw = json.loads(stored.payload or "")
        except ValueError:
            raw = None

        async def work() -> None:
            try:
                if not isinstance(raw, dict):
                    await self._unreadable(stored.update_id, stored.lane, stored.payload, bot)
                else:
                    await self._apply_raw(raw, bot, None)
            finally:
                self._in_lanes.discard(stored.update_id)
            if follow:
                await self._follow(stored, bot)

        self.lanes.submit(stored.lane or stored.update_id, work)

    async def _follow(self, done: Stored, bot: Bot) -> None:
        """Hand the lane of ``done`` its next pending update (submitted before this work
        ends, so a lane's updates stay in order and ``lanes.join`` waits for them too)."""
        if done.lane is None:
            return
        driver = self.driver(bot)
        try:
            following = await driver._run(driver.conversation.next_pending, done.lane)
        except Exception as err:  # the database away: the periodic resume tries again
            log.warning("looking for the next stored update failed (%s)", type(err).__name__)
            return
        if following is not None and following.update_id != done.update_id:
            self.dispatch_stored(following, bot, follow=True)

    async def resume(self, bot: Bot) -> None:
        """Hand the stored updates no lane is working on to their lanes (after a restart,
        or those a worker that died had stored); each lane then goes on to its next."""
        driver = self.driver(bot)
        pending = await driver._run(driver.conversation.pending_updates, PENDING_BATCH)
        for stored in pending:
            self.dispatch_stored(stored, bot, follow=True)

    async def _apply_raw(
        self, raw: dict[str, Any], bot: Bot, stored: asyncio.Future[None] | None
    ) -> None:
        update_ref = _ref(raw.get("update_id"))
        payload = json.dumps(raw)
        try:
            try:
                update = Update.de_json(raw, bot)
                if update is None:
                    raise ValueError("empty update")
            except Exception:
                await self._unreadable(update_ref, lane_of(raw), payload, bot)
                return
            await self._apply(update, bot, payload, stored)
        except Exception:
            log.error("handling update %s (%s) failed", update_ref, _kind(raw), exc_info=True)
        finally:
            if stored is not None and not stored.done():
                stored.set_result(None)

    async def _unreadable(
        self, update_ref: str, lane: str | None, payload: str | None, bot: Bot
    ) -> None:
        """Keep an update the library cannot read, say so once, and go on."""
        log.warning("update %s could not be read; it is kept and skipped", update_ref)
        driver = self.driver(bot)
        await driver._run(
            driver.conversation.settle,
            update_ref,
            InboxStatus.UNREADABLE,
            self._clock.now(),
            lane,
            payload,
        )

    async def on_tick(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Fire the due timers, then send what they announced and the held statuses."""
        driver = self.driver(context.bot)
        await driver.on_tick()
        await self.flush_statuses(self._clock.now())

    async def settle(self) -> None:
        """Wait for the pictures being drawn and the outbox sends started in the background
        (a clean shutdown; tests that read what was sent)."""
        if self._driver is not None:
            await self._driver.pictures_done()
            await self._driver.idle()

    async def close(self) -> None:
        """Let the lanes finish and stop the thread pool (a clean shutdown)."""
        await self.lanes.join()
        await self.settle()
        self._threads.shutdown(wait=True)
        self._behind.shutdown(wait=True)


def _texted_photo(action: Outbound) -> int | None:
    """The id of the SMS player's photo ``action`` shows, if it shows one."""
    if not isinstance(action, SendText) or action.photo_ref is None:
        return None
    kind, _, rest = action.photo_ref.partition(":")
    return int(rest) if kind == "sms-media" and rest.isdigit() else None


def _is_status(action: Outbound) -> bool:
    """Whether ``action`` is a group's pinned status (what ``perform`` may coalesce)."""
    if not (isinstance(action, SendText) and action.slot == STATUS_SLOT):
        return False
    try:
        return telegram_id(action.to) < 0
    except ValueError:
        return False


def _chat_id(chat: str) -> str:
    """The chat as the send limits name it (the Bot API's chat id)."""
    return str(telegram_id(chat))


def lane_of(raw: dict[str, Any]) -> str:
    """The chat a raw update belongs to (its lane), or its own id when it names none."""
    for field in ("message", "edited_message", "channel_post", "edited_channel_post"):
        message = raw.get(field)
        if isinstance(message, dict) and isinstance(message.get("chat"), dict):
            return _ref(message["chat"].get("id"))
    query = raw.get("callback_query")
    if isinstance(query, dict):
        message = query.get("message")
        if isinstance(message, dict) and isinstance(message.get("chat"), dict):
            return _ref(message["chat"].get("id"))
        sender = query.get("from")
        if isinstance(sender, dict):
            return _ref(sender.get("id"))
    for field in ("my_chat_member", "chat_member", "chat_join_request"):
        member = raw.get(field)
        if isinstance(member, dict) and isinstance(member.get("chat"), dict):
            return _ref(member["chat"].get("id"))
    return _ref(raw.get("update_id"))


def _kind(raw: dict[str, Any]) -> str:
    """What kind of update ``raw`` is, for a log line (never its content)."""
    return next((name for name in raw if name != "update_id"), "empty")


async def _log_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log a failed update by its id and kind, never its content: a location in it may be
    the hider's."""
    error = context.error
    if error is not None and is_network_error(error):  # expected now and then: one line
        log.warning("%s failed (%s)", _what(update), one_line(error))
        return
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


def _what(update: object) -> str:
    """What failed, for a one-line log: an update by its id, else a job or call by type."""
    if isinstance(update, Update):
        return f"handling update {update.update_id}"
    return "a job" if update is None else f"handling {type(update).__name__}"


def build_application(
    token: str,
    clock: GameClock,
    conversation_factory: ConversationFactory,
    *,
    base_url: str | None = None,
    request: BaseRequest | None = None,
    tick_seconds: float = TICK_SECONDS,
    max_download: int = MAX_DOWNLOAD_BYTES,
    limiter: PacingLimiter | None = None,
) -> TelegramApp:
    """Build the bot's ``Application``; nothing connects until it is initialized or run.

    ``base_url`` names a self-hosted Bot API server (``http://host:8081/bot``); its file URL
    is derived (``.../file/bot``). ``request`` replaces the HTTP layer and ``limiter`` the
    send limits' clock (tests).
    """
    channel = TelegramChannel(conversation_factory, clock, max_download=max_download)
    limiter = limiter or PacingLimiter(max_retries=FLOOD_RETRIES)
    channel.pacer = limiter.pacer
    builder = (
        ApplicationBuilder()
        .token(token)
        .rate_limiter(limiter)
        .updater(None)  # the poller and the webhook are ours (``telegram.runner``)
        .post_shutdown(_close_channel)
    )
    if base_url:
        builder = builder.base_url(base_url)
        if base_url.rstrip("/").endswith("/bot"):
            builder = builder.base_file_url(_file_url(base_url))
    if request is not None:
        builder = builder.request(request)
    # The poller reads getUpdates as raw JSON through this request (``runner.Poller``), so
    # one update the library cannot parse is kept and skipped instead of wedging the loop.
    poll_request = request or HTTPXRequest(connection_pool_size=1, read_timeout=POLL_READ_TIMEOUT)
    builder = builder.get_updates_request(poll_request)
    application = builder.build()
    channel.poll_request = poll_request
    application.bot_data[CHANNEL] = channel
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


def _to_group(action: Outbound) -> bool:
    """A text to a Telegram group (its SMS players get it too)."""
    return isinstance(action, SendText) and action.to.startswith("tg:-")


def channel_of(application: TelegramApp) -> TelegramChannel:
    """The channel ``build_application`` wired into ``application``."""
    channel = application.bot_data[CHANNEL]
    assert isinstance(channel, TelegramChannel)
    return channel


async def _close_channel(application: TelegramApp) -> None:
    await channel_of(application).close()


def _file_url(base_url: str) -> str:
    """``http://host:8081/bot`` -> ``http://host:8081/file/bot`` (the Bot API's layout)."""
    return base_url.rstrip("/").removesuffix("/bot") + "/file/bot"


def _ref(value: Any) -> str:
    """A raw id as the store names it (``tg:123``), whatever its type."""
    return f"tg:{value}"
