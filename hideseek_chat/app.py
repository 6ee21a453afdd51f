"""The composition root: store, clock, conversation and the Telegram channel, wired once.

Nothing here connects at import time; ``build`` does, in this order: check the token,
migrate the database, open the engine, make the clock, the conversation (on the first
update, once the bot knows its username) and the bot's ``Application`` with its jobs.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache, partial
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Engine
from starlette.routing import BaseRoute
from telegram.ext import ContextTypes
from telegram.request import BaseRequest

from hideseek_chat.chat.clock import GameClock
from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.drive import wall_clock
from hideseek_chat.chat.map_clients import MapClients
from hideseek_chat.chat.painter import PicturesPainter
from hideseek_chat.config import Config, ConfigError, SmsSettings
from hideseek_chat.pictures.tiles import TileClient
from hideseek_chat.rules.ruleset import Ruleset, ruleset_paths
from hideseek_chat.rules.ruleset_loader import load_ruleset
from hideseek_chat.sms.channel import SmsChannel
from hideseek_chat.sms.gateway import Gateway, GatewaySettings
from hideseek_chat.store import (
    UnitOfWorkFactory,
    make_engine,
    migrate,
    purge_pings,
    unit_of_work_factory,
)
from hideseek_chat.store.inbox import RETENTION as INBOX_RETENTION
from hideseek_chat.store.sms import is_sms
from hideseek_chat.telegram import runner
from hideseek_chat.telegram.bot import (
    ALLOWED_UPDATES,
    PENDING_BATCH,
    TelegramApp,
    TelegramChannel,
    build_application,
    channel_of,
)
from hideseek_chat.web.health import health_routes
from hideseek_chat.web.server import Receive, make_app, make_server, telegram_route
from hideseek_chat.web.sms import SmsWebhook, sms_routes
from hideseek_chat.web.trackers import DriverIngest, tracker_routes

log = logging.getLogger(__name__)

#: How often the SMS digests that are due are sent.
DIGEST_EVERY = timedelta(minutes=1)
#: Seconds between two ticks (timers, the outbox) when the SMS channel runs alone.
SMS_TICK_SECONDS = 2.0
#: How often the location pings of finished games are purged.
PURGE_EVERY = timedelta(hours=1)
#: Seconds a geocoder request may take; an Overpass query (a city's kind of places);
#: tries per Overpass query, and the longest wait a 429's Retry-After may ask for.
GEOCODER_TIMEOUT = 15.0
OVERPASS_TIMEOUT = 180.0
OVERPASS_ATTEMPTS = 4
OVERPASS_MAX_WAIT = 120.0


@dataclass(frozen=True)
class App:
    """Everything ``build`` wired, for running it and for tests."""

    config: Config
    engine: Engine
    uow_factory: UnitOfWorkFactory
    clock: GameClock
    telegram: TelegramApp
    #: the SMS channel, sharing the Telegram channel's drive loop (None: not configured)
    sms: SmsChannel | None = None


def build(config: Config, *, request: BaseRequest | None = None) -> App:
    """Wire the application from ``config``; ``request`` replaces Telegram's HTTP (tests).

    Raises ``ConfigError`` before touching anything when the bot token is missing or
    malformed. Migrates the database to the newest schema.
    """
    token = config.require_telegram_token()
    url = config.effective_database_url
    migrate.upgrade(url)
    engine = make_engine(url)
    uow_factory = unit_of_work_factory(engine)
    clock = GameClock(config.clock_speed)
    conversation = conversation_factory(config, uow_factory)

    telegram = build_application(
        token, clock, conversation, base_url=config.telegram_base_url, request=request
    )

    async def purge(context: ContextTypes.DEFAULT_TYPE) -> None:
        purge_old(config, uow_factory, clock)

    assert telegram.job_queue is not None
    telegram.job_queue.run_repeating(
        purge, interval=PURGE_EVERY, first=timedelta(minutes=1), name="purge-pings"
    )
    return App(
        config,
        engine,
        uow_factory,
        clock,
        telegram,
        build_sms(config, uow_factory, clock, telegram),
    )


def conversation_factory(
    config: Config, uow_factory: UnitOfWorkFactory
) -> Callable[[str], Conversation]:
    """Make the conversation (given the bot's name, which it does not use)."""
    map_clients = build_map_clients(config)
    painter = PicturesPainter(build_tiles(config))

    def conversation(bot_name: str) -> Conversation:
        # The chat layer renders no bot name itself (private-chat buttons are deep links
        # the adapter builds), so ``bot_name`` stays here.
        if not config.rulesets_dirs:
            return Conversation(
                uow_factory,
                map_clients=map_clients,
                map_max_age=config.map_max_age,
                painter=painter,
                tracker_url=config.tracker_url,
            )
        return Conversation(
            uow_factory,
            rulesets=_ruleset_loader(config),
            known_rulesets=tuple(sorted(ruleset_paths(config.rulesets_dirs))),
            map_clients=map_clients,
            map_max_age=config.map_max_age,
            painter=painter,
            tracker_url=config.tracker_url,
        )

    return conversation


def purge_old(config: Config, uow_factory: UnitOfWorkFactory, clock: GameClock) -> None:
    """Purge finished games' pings, texted pictures of players in no running game and the
    inbox's handled updates (hourly)."""
    # Game time, like the games' end times the retention is measured from.
    count = purge_pings(uow_factory, clock.now(), config.ping_retention)
    if count:
        log.info("purged %d location pings of finished games", count)
    with uow_factory() as uow:  # texted pictures: as long, once their sender plays no more
        pictures = uow.sms.purge_media(clock.now(), config.ping_retention)
        uow.sms.purge_taken(clock.now())  # digests' announcements, kept a while (emptied)
        uow.commit()
    if pictures:
        log.info("purged %d texted pictures", pictures)
    # Real time, like the inbox's: Telegram redelivers for a day at most.
    with uow_factory() as uow:
        forgotten = uow.updates.purge(wall_clock() - INBOX_RETENTION)
        uow.commit()
    if forgotten:
        log.info("forgot %d handled updates", forgotten)


def sms_gateway(settings: SmsSettings) -> Gateway:
    """The gateway's REST client, its status callbacks pointed at ``/sms/status``."""
    webhook = SmsWebhook(settings.public_url, settings.auth_token)
    return Gateway(
        GatewaySettings(
            settings.account_sid,
            settings.auth_token,
            settings.sender,
            status_url=webhook.url(webhook.status_path),
            base_url=settings.api_url,
        )
    )


def build_sms(
    config: Config, uow_factory: UnitOfWorkFactory, clock: GameClock, telegram: TelegramApp
) -> SmsChannel | None:
    """The SMS channel when it is configured, on the Telegram channel's drive loop: one
    outbox, whose texts for SMS players (and for a Telegram group's SMS members) it sends."""
    settings = config.sms
    if settings is None:
        return None
    shared = channel_of(telegram)
    sms = SmsChannel(
        uow_factory,
        sms_gateway(settings),
        clock.now,
        region=settings.region,
        driver_of=lambda: shared.driver(telegram.bot),
        media_base=settings.public_url,
    )
    shared.also = sms

    async def flush_digests(context: ContextTypes.DEFAULT_TYPE) -> None:
        await sms.flush_digests()

    assert telegram.job_queue is not None
    telegram.job_queue.run_repeating(
        flush_digests, interval=DIGEST_EVERY, first=DIGEST_EVERY, name="sms-digests"
    )
    return sms


def build_map_clients(config: Config) -> MapClients:
    """The geocoder (Nominatim), the Overpass client and the pack builder of ``maps``, as
    configured (``HIDESEEK_NOMINATIM_URL``, ``HIDESEEK_OVERPASS_URLS``,
    ``HIDESEEK_USER_AGENT``)."""
    import hideseek_chat.maps.fetch as fetch  # network clients load when the bot starts
    import hideseek_chat.maps.modes as modes
    import hideseek_chat.maps.overpass as overpass
    import hideseek_chat.maps.places as places

    geocoder = places.Geocoder(config.nominatim_url, config.user_agent, timeout=GEOCODER_TIMEOUT)
    client = overpass.Overpass(
        config.overpass_urls,
        config.user_agent,
        timeout=OVERPASS_TIMEOUT,
        attempts=OVERPASS_ATTEMPTS,
        sleep=time.sleep,
        max_wait=OVERPASS_MAX_WAIT,
    )
    return MapClients(
        geocoder=geocoder,
        fetch=partial(fetch.fetch_pack, client),
        pack_name=fetch.pack_name,
        circle=places.circle,
        modes=tuple(modes.MODES),
        default_modes=modes.default_modes,
    )


def build_tiles(config: Config) -> TileClient | None:
    """The pictures' basemap tiles as configured (``HIDESEEK_TILE_URL``, ``off``: None, the
    pictures draw the map's own roads; ``HIDESEEK_TILE_RATE``), cached in the data folder.
    Nothing connects before a picture asks for a tile."""
    if config.tile_url is None:
        return None
    return TileClient(
        config.tile_url,
        user_agent=config.user_agent,
        cache_dir=config.tile_cache_dir,
        rate_per_s=config.tile_rate_per_s,
    )


def _ruleset_loader(config: Config) -> Callable[[str], Ruleset]:
    """Load rulesets by name from the shipped ones and ``HIDESEEK_RULESETS_DIR``, once each."""

    @lru_cache(maxsize=32)
    def load(name: str) -> Ruleset:
        return load_ruleset(name, config.rulesets_dirs)

    return load


def run_polling(config: Config) -> None:
    """Run the bot with long polling until interrupted (Ctrl-C, SIGTERM)."""
    app = build(config)
    try:
        asyncio.run(_run_until_signal(app, None))
    finally:
        app.engine.dispose()


def run_webhook(config: Config) -> None:
    """Serve Telegram's webhook on ``PORT`` at ``WEBHOOK_URL``'s path until interrupted.

    Telegram sends ``WEBHOOK_SECRET`` (or the secret derived from the token) with every
    request; the server refuses requests without it (403).
    """
    webhook = webhook_settings(config)
    app = build(config)
    try:
        asyncio.run(_run_until_signal(app, webhook))
    finally:
        app.engine.dispose()


def webhook_settings(config: Config) -> runner.Webhook:
    """Where the webhook listens, from ``WEBHOOK_URL``, ``WEBHOOK_SECRET`` and ``PORT``."""
    url = config.require_webhook_url()
    return runner.Webhook(
        url=url,
        path=urlsplit(url).path.lstrip("/"),
        secret=config.effective_webhook_secret,
        host=config.host,
        port=config.port,
    )


def freeze_heap() -> None:
    """Take what start-up made (modules, the configuration, the engine, the bot) out of
    the cyclic garbage collector's sight, just before serving. Otherwise each full
    collection walks all of it, holding every thread for 100-150 ms (measured with
    ``bench/bench_sms.py``: once every 1,500 texts or so, and the replies meanwhile wait)."""
    gc.collect()
    gc.freeze()


async def _run_until_signal(app: App, webhook: runner.Webhook | None) -> None:
    """Run until SIGTERM or SIGINT, then stop cleanly: the updates in hand are finished,
    no new timer or outbox entry is claimed. Long polling serves the web server's routes
    (health, metrics) too when a port is configured (``Config.serve_web``), and when
    tracker apps have an address to reach (``serves_web_when_polling``)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    freeze_heap()
    if webhook is not None or not (
        app.config.serve_web or serves_web_when_polling(app.config) or app.sms is not None
    ):
        await runner.run(app.telegram, stop, webhook, serve=partial(serve_webhook, app))
        return
    server = make_server(make_app(web_routes(app)), app.config.host, app.config.port)
    serving = asyncio.ensure_future(server.serve())
    try:
        await runner.run(app.telegram, stop)
    finally:
        server.should_exit = True
        await serving
        if app.sms is not None:  # the texts stored before the server stopped
            await app.sms.lanes.join()


def web_routes(
    app: App, webhook: runner.Webhook | None = None, receive: Receive | None = None
) -> list[BaseRoute]:
    """Every route of the web server: Telegram's webhook (``receive`` each update) when
    ``webhook`` is given, the SMS gateway's (``/sms``, ``/sms/status``) when the SMS
    channel is configured, the operator's ``/healthz``, ``/readyz``, ``/metrics``, and
    the GPS tracker apps' ingest when trackers are on (``web_tracker_routes``)."""
    routes: list[BaseRoute] = []
    if webhook is not None:
        if receive is None:
            raise ValueError("a webhook needs a receiver for its updates")
        routes.append(telegram_route(webhook.path, webhook.secret, receive))
    if app.sms is not None and app.config.sms is not None:
        settings = app.config.sms
        webhook_sms = SmsWebhook(settings.public_url, settings.auth_token)
        routes.extend(
            sms_routes(
                webhook_sms, app.sms.receive_form, app.sms.record_status, app.sms.media
            )
        )
    routes.extend(health_routes(app.engine))
    routes.extend(web_tracker_routes(app))
    return routes


def serves_web_when_polling(config: Config) -> bool:
    """Whether long polling also runs the web server because tracker apps have an address
    to reach (``PUBLIC_URL``)."""
    return config.tracker_url is not None


def web_tracker_routes(app: App) -> list[BaseRoute]:
    """The tracker apps' routes (``web.trackers``) when trackers are on, else none."""
    if app.config.tracker_url is None:
        return []
    channel = channel_of(app.telegram)
    ingest = DriverIngest(lambda: channel.current_driver)
    return list(tracker_routes(ingest, app.config.tracker_rate_per_min, clock=app.clock.now))


async def serve_webhook(
    app: App,
    application: TelegramApp,
    channel: TelegramChannel,
    webhook: runner.Webhook,
    stop: asyncio.Event,
) -> None:
    """Serve Telegram's webhook (and the other routes) on the web server until ``stop`` is
    set, and tell Telegram where it is."""
    bot = application.bot

    async def receive(update: dict[str, Any]) -> None:
        await channel.receive(update, bot)

    server = make_server(
        make_app(web_routes(app, webhook, receive)),
        webhook.host,
        webhook.port,
    )
    serving = asyncio.ensure_future(server.serve())
    await runner.call_until_stopped(
        stop,
        "setWebhook",
        lambda: bot.set_webhook(
            webhook.url, secret_token=webhook.secret, allowed_updates=list(ALLOWED_UPDATES)
        ),
    )
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait([serving, stopping], return_when=asyncio.FIRST_COMPLETED)
    server.should_exit = True
    stopping.cancel()
    await serving
    await channel.lanes.join()
    if app.sms is not None:
        await app.sms.lanes.join()


def run_sms_only(config: Config) -> None:
    """Serve the SMS channel alone (no ``TELEGRAM_BOT_TOKEN``): the web server's ``/sms``
    routes and health routes on ``PORT``, with the ticks (timers, the outbox), the
    digests, the resume of stored texts and the purge, until SIGTERM or SIGINT."""
    settings = config.sms
    if settings is None:
        raise ConfigError("Without TELEGRAM_BOT_TOKEN the SMS channel must be configured.")
    url = config.effective_database_url
    migrate.upgrade(url)
    engine = make_engine(url)
    threads = ThreadPoolExecutor(4, thread_name_prefix="store")
    try:
        uow_factory = unit_of_work_factory(engine)
        clock = GameClock(config.clock_speed)
        sms = SmsChannel(
            uow_factory,
            sms_gateway(settings),
            clock.now,
            region=settings.region,
            media_base=settings.public_url,
        )
        sms.attach(conversation_factory(config, uow_factory)(""), threads=threads)
        webhook = SmsWebhook(settings.public_url, settings.auth_token)
        routes: list[BaseRoute] = [
            *sms_routes(webhook, sms.receive_form, sms.record_status, sms.media),
            *health_routes(engine),
        ]
        if config.tracker_url is not None:  # the links /tracker hands out lead here
            ingest = DriverIngest(lambda: sms.driver)
            routes += tracker_routes(ingest, config.tracker_rate_per_min, clock=clock.now)
        purge = partial(purge_old, config, uow_factory, clock)
        asyncio.run(_serve_sms_only(config, sms, routes, purge))
    finally:
        threads.shutdown(wait=True)
        engine.dispose()


async def _serve_sms_only(
    config: Config, sms: SmsChannel, routes: list[BaseRoute], purge: Callable[[], None]
) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    freeze_heap()
    server = make_server(make_app(routes), config.host, config.port)
    serving = asyncio.ensure_future(server.serve())
    log.info("serving the SMS channel alone (no Telegram token)")
    minute = hour = time.monotonic()
    try:
        await _resume_sms(sms)
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), SMS_TICK_SECONDS)
                break
            except TimeoutError:
                pass
            try:
                await sms.driver.on_tick()
                now = time.monotonic()
                if now - minute >= DIGEST_EVERY.total_seconds():
                    minute = now
                    await sms.flush_digests()
                    await _resume_sms(sms)
                if now - hour >= PURGE_EVERY.total_seconds():
                    hour = now
                    await loop.run_in_executor(None, purge)
            except Exception as err:  # its type only; the next tick tries again
                log.error("an SMS tick failed (%s)", type(err).__name__)
    finally:
        server.should_exit = True
        await serving
        await sms.lanes.join()  # the texts stored before the server stopped
        await sms.driver.idle()


async def _resume_sms(sms: SmsChannel) -> None:
    """Apply the stored texts left pending (a restart, a crash)."""
    pending = await sms._call(sms.conversation.pending_updates, PENDING_BATCH)
    for stored in pending:
        if is_sms(stored.update_id):
            sms.dispatch_stored(stored)
