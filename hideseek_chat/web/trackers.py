"""Tracker ingest: OwnTracks, Traccar Client (OsmAnd) and GPSLogger post their positions to
``/trackers/{token}/{app}`` (``chat.tracker_links`` makes those URLs).

Each request is checked in this order, and a refused one changes nothing:

1. the token's shape (401) and its rate, ``per_minute`` pings a token (429 with
   ``Retry-After``), before any database work;
2. the body's size (413) and the app's format (``tracker_formats``; 400 for malformed or
   absurd values, 200 ``[]`` for an OwnTracks message that is not a location);
3. the token in the store, revoked or unknown (401), noting the app as last heard;
4. the ping handed to the conversation as a ``TrackerIn`` (a live location of the token's
   holder), in the drive loop's threads like a Telegram update, then 200.

OwnTracks may send the token as HTTP basic auth's password instead (``/trackers/{app}``).
No answer echoes anything sent or stored, and a log line names a token only by a short
hash.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
import math
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from typing import Protocol
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from hideseek_chat import metrics
from hideseek_chat.chat.drive import Driver, adapt, kind_of, wall_clock
from hideseek_chat.chat.model import ChatKind, Outbound, Sender, TrackerIn
from hideseek_chat.chat.tracker_links import APPS, PREFIX
from hideseek_chat.store.trackers import Holder, token_hash
from hideseek_chat.web import tracker_formats as formats
from hideseek_chat.web.server import capped_body
from hideseek_chat.web.tracker_formats import BadPing, Fix, Ignored

log = logging.getLogger(__name__)

#: The largest body taken (a location is a few hundred bytes).
MAX_BODY_BYTES = 16_384
#: What a token looks like (``store.trackers.new_token``: URL-safe base64).
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{16,64}")
#: The most fields a query string or form may have (a ping has about ten).
MAX_FIELDS = 64
#: Tokens whose rate is remembered at once; the fullest buckets are forgotten first.
MAX_BUCKETS = 50_000
#: The most pings stored in one transaction, and how many such batches may be in flight.
BATCH = 32
IN_FLIGHT = 2
#: How often (seconds) a holder whose app sends encrypted messages is told so, at most.
TELL_ENCRYPTED_EVERY = 6 * 3600.0


class Ingest(Protocol):
    """What the route needs of the rest of the bot."""

    async def holder(self, hashed: str) -> Holder | None:
        """Whose live token hashes to ``hashed``, writing nothing."""
        ...

    async def receive(self, msg: TrackerIn, hashed: str) -> bool:
        """Hand the ping to the conversation with its token's hash (and send what it has
        to say); False when the token is unknown or revoked (nothing written)."""
        ...

    async def encrypted(self, hashed: str, at: datetime) -> bool:
        """The token's app sends encrypted messages: tell its holder (now and then) how to
        stop that; False when the token is unknown or revoked."""
        ...


class NotReady(Exception):
    """The bot is still starting (it does not know its name yet): answered 503."""


class DriverIngest:
    """``Ingest`` through a channel's drive loop (``driver()``, None while the bot starts):
    the store's work in its threads, like an update's, then the replies and the outbox.

    Pings that arrive while ``in_flight`` batches are being stored wait and go together,
    at most ``batch`` at once, in one transaction (``Conversation.handle_trackers``): one
    commit for many, so a busy server spends less on each ping. Each is answered only after
    its batch was committed, and alone a ping goes at once."""

    def __init__(
        self,
        driver: Callable[[], Driver | None],
        *,
        batch: int = BATCH,
        in_flight: int = IN_FLIGHT,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._driver = driver
        self._monotonic = monotonic
        self._batch = batch
        self._in_flight = in_flight
        self._waiting: list[tuple[TrackerIn, str, asyncio.Future[list[Outbound] | None]]] = []
        self._writers: set[asyncio.Task[None]] = set()
        #: when each token's holder was last told their app encrypts (``time.monotonic``)
        self._told_encrypted: dict[str, float] = {}

    @property
    def driver(self) -> Driver:
        found = self._driver()
        if found is None:
            raise NotReady
        return found

    async def holder(self, hashed: str) -> Holder | None:
        driver = self.driver
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            driver.threads, driver.conversation.tracker_holder, hashed
        )

    async def receive(self, msg: TrackerIn, hashed: str) -> bool:
        driver = self.driver
        started = time.perf_counter()
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[list[Outbound] | None] = loop.create_future()
        self._waiting.append((msg, hashed, answer))
        if len(self._writers) < self._in_flight:
            writer = loop.create_task(self._write(driver))
            self._writers.add(writer)
            writer.add_done_callback(self._writers.discard)
        replies = await answer
        if replies is None:
            return False
        if replies:
            await driver.channel.perform(adapt(replies, driver.channel.capabilities), msg.at)
        if driver.conversation.maybe_pending:  # most pings announce nothing: no look
            await driver.drain()
        metrics.update_handled(kind_of(msg), time.perf_counter() - started)  # "tracker"
        return True

    async def encrypted(self, hashed: str, at: datetime) -> bool:
        driver = self.driver
        told = self._told_encrypted.get(hashed)
        if told is not None and self._monotonic() - told < TELL_ENCRYPTED_EVERY:
            return await self.holder(hashed) is not None
        loop = asyncio.get_running_loop()
        replies = await loop.run_in_executor(
            driver.threads, driver.conversation.tracker_encrypted, hashed
        )
        if replies is None:
            return False
        if await driver.channel.perform(adapt(replies, driver.channel.capabilities), at):
            self._told_encrypted.pop(hashed, None)  # re-inserted: the newest last
            if len(self._told_encrypted) >= MAX_BUCKETS:  # the oldest first
                del self._told_encrypted[next(iter(self._told_encrypted))]
            self._told_encrypted[hashed] = self._monotonic()
        return True

    async def _write(self, driver: Driver) -> None:
        """Store what waits, a batch at a time, until nothing does."""
        loop = asyncio.get_running_loop()
        while self._waiting:
            batch = self._waiting[: self._batch]
            del self._waiting[: self._batch]
            pings = [(msg, hashed) for msg, hashed, _ in batch]
            try:
                answers = await loop.run_in_executor(
                    driver.threads, driver.conversation.handle_trackers, pings
                )
            except Exception as failed:  # each waiting request hears of it
                answers = [failed] * len(batch)
            for (_, _, answer), outcome in zip(batch, answers, strict=True):
                if answer.done():  # the request went away: its ping is stored all the same
                    continue
                if isinstance(outcome, Exception):
                    answer.set_exception(outcome)
                else:
                    answer.set_result(outcome)


class RateLimit:
    """A token bucket per tracker token: ``per_minute`` pings a minute, in bursts of as
    many. ``take`` answers how many seconds to wait (0: go ahead); ``is_new_flood`` whether
    that refusal is the first since the token last got through (logged once a flood)."""

    def __init__(self, per_minute: int, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self.monotonic = monotonic
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._flooding: set[str] = set()
        self.is_new_flood = False

    def take(self, key: str) -> float:
        now = self.monotonic()
        level, then = self._buckets.pop(key, (self.capacity, now))
        level = min(self.capacity, level + (now - then) * self.rate)
        if level < 1.0:
            self._buckets[key] = (level, now)
            self.is_new_flood = key not in self._flooding
            if len(self._flooding) < MAX_BUCKETS:
                self._flooding.add(key)
            return (1.0 - level) / self.rate
        self._flooding.discard(key)
        self._buckets[key] = (level - 1.0, now)
        while len(self._buckets) > MAX_BUCKETS:
            self._buckets.popitem(last=False)  # the longest quiet: nearly full again
        return 0.0


def tracker_routes(
    ingest: Ingest,
    per_minute: int,
    *,
    clock: Callable[[], datetime] = wall_clock,
    wall: Callable[[], datetime] = wall_clock,
    monotonic: Callable[[], float] = time.monotonic,
) -> list[Route]:
    """The tracker apps' routes; ``clock`` is the game's time, ``wall`` the real one (a
    device's timestamp is checked against it)."""
    limit = RateLimit(per_minute, monotonic)

    async def with_token(request: Request) -> Response:
        token = str(request.path_params.get("token", ""))
        return await _guarded(request, token, str(request.path_params.get("app", "")))

    async def with_basic_auth(request: Request) -> Response:
        return await _guarded(request, _basic_password(request), str(request.path_params["app"]))

    async def _guarded(request: Request, token: str, app: str) -> Response:
        try:
            return await _ingest(request, token, app)
        except NotReady:
            return PlainTextResponse("starting", status_code=503, headers={"Retry-After": "5"})

    async def _ingest(request: Request, token: str, app: str) -> Response:
        if app not in APPS:
            return PlainTextResponse("not found", status_code=404)
        if not TOKEN_SHAPE.fullmatch(token):
            return _unauthorized()
        hashed = token_hash(token)
        wait = limit.take(hashed)
        if wait > 0:
            if limit.is_new_flood:  # one line a flood, not one a request
                log.info("tracker %s over its rate", hashed[:8])
            return PlainTextResponse(
                "too many pings", status_code=429, headers={"Retry-After": str(math.ceil(wait))}
            )
        body = await capped_body(request, MAX_BODY_BYTES)
        if body is None:
            return PlainTextResponse("too large", status_code=413)
        try:
            fix = await _parse(request, app, body, wall())
        except formats.Encrypted:
            if not await ingest.encrypted(hashed, clock()):
                return _unauthorized()
            return _ok(app)
        except Ignored:
            if await ingest.holder(hashed) is None:
                return _unauthorized()
            return _ok(app)
        except BadPing as bad:
            if await ingest.holder(hashed) is None:
                return _unauthorized()
            log.info("tracker %s sent a bad ping (%s)", hashed[:8], bad.reason)
            return PlainTextResponse("bad ping", status_code=400)
        if not await ingest.receive(_message(app, fix, clock()), hashed):
            return _unauthorized()
        return _ok(app)

    path = f"{PREFIX}/{{token}}/{{app}}"
    methods = ["GET", "POST"]
    return [
        Route(path, with_token, methods=methods),
        Route(f"{PREFIX}/{{app}}", with_basic_auth, methods=["POST"]),
    ]


def _message(app: str, fix: Fix, now: datetime) -> TrackerIn:
    """The ping as the conversation takes it: a live location in its holder's private chat
    (``Conversation.handle_tracker`` names the holder), at the device's time (never later
    than the game's now)."""
    return TrackerIn(
        chat="",
        kind=ChatKind.PRIVATE,
        sender=Sender("", ""),
        at=min(fix.at, now),
        lat=fix.lat,
        lon=fix.lon,
        accuracy_m=fix.accuracy_m,
        live=True,
        edited=True,
        sent_at=fix.at,
        app=app,
        speed_kmh=fix.speed_kmh,
    )


async def _parse(request: Request, app: str, body: bytes, now: datetime) -> Fix:
    if app == "owntracks":
        if request.method != "POST":
            raise BadPing("not_post")
        return formats.owntracks(body, now)
    # The query string parsed as Starlette's ``query_params`` would (the last of a repeated
    # name wins), without its multi-dict: a ping's path is hot.
    params = _fields(request.scope["query_string"].decode("latin-1"))
    kind = request.headers.get("content-type", "")
    if request.method == "POST" and kind.startswith("application/x-www-form-urlencoded"):
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise BadPing("not_utf8") from None
        params.update(_fields(text))
    if app == "traccar":
        return formats.osmand(params, body, now)
    return formats.gpslogger(params, now)


def _fields(encoded: str) -> dict[str, str]:
    """The fields of a query string or form; at most ``MAX_FIELDS`` (else a bad ping)."""
    try:
        return dict(parse_qsl(encoded, keep_blank_values=True, max_num_fields=MAX_FIELDS))
    except ValueError:  # more fields than that
        raise BadPing("too_many_fields") from None


def _basic_password(request: Request) -> str:
    """The password of an HTTP basic ``Authorization`` header ("" without one)."""
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "basic" or len(value) > 512:
        return ""
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return ""
    return decoded.partition(":")[2]


def _ok(app: str) -> Response:
    """What each app expects: OwnTracks a JSON list (of messages for it: none)."""
    if app == "owntracks":
        return JSONResponse([])
    return PlainTextResponse("OK")


def _unauthorized() -> Response:
    return PlainTextResponse("unknown tracker", status_code=401)
