"""The project's one HTTP server (Starlette on uvicorn), python-telegram-bot's documented
custom-webhook pattern: the route parses and checks, the channel stores, then 200.

``telegram_route`` serves Telegram's webhook: the secret header must match (403), the body
must be a JSON object with an integer ``update_id`` (at most ``MAX_UPDATE_ID``) within a
size cap (400, 413); a good
update is answered only once it is stored in the inbox, so Telegram redelivers whatever a
crash interrupted. Nothing in an answer or a log line echoes the update.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

log = logging.getLogger(__name__)

try:
    import httptools  # noqa: F401  (uvicorn's C parser; h11 otherwise)
except ImportError:  # pragma: no cover - a dependency, but the server runs without it
    _HAS_HTTPTOOLS = False
else:
    _HAS_HTTPTOOLS = True

#: The largest webhook body accepted (Telegram's updates are far smaller).
MAX_BODY_BYTES = 1_000_000
#: The largest update id taken (Telegram's fit in 32 bits; the store keeps ids as text of
#: at most 64 characters, and a larger number would not fit there).
MAX_UPDATE_ID = 2**63 - 1
#: The header Telegram sends the webhook's secret in.
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"

Receive = Callable[[dict[str, Any]], Awaitable[None]]


def telegram_route(path: str, secret: str, receive: Receive) -> Route:
    """The webhook at ``path``: checks, then ``receive(update)``, then 200."""

    async def webhook(request: Request) -> Response:
        given = request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), secret.encode()):
            return PlainTextResponse("forbidden", status_code=403)
        body = await capped_body(request, MAX_BODY_BYTES)
        if body is None:
            return PlainTextResponse("too large", status_code=413)
        try:
            update = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return PlainTextResponse("not JSON", status_code=400)
        update_id = update.get("update_id") if isinstance(update, dict) else None
        if (
            not isinstance(update_id, int)
            or isinstance(update_id, bool)
            or not 0 <= update_id <= MAX_UPDATE_ID
        ):
            return PlainTextResponse("not an update", status_code=400)
        await receive(update)
        return Response(status_code=200)

    return Route("/" + path.lstrip("/"), webhook, methods=["POST"])


async def capped_body(request: Request, limit: int) -> bytes | None:
    """The request's body, or None when it is larger than ``limit`` bytes (by its declared
    length, or as it streams in: a body is never read past the limit)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def make_app(routes: Sequence[BaseRoute]) -> Starlette:
    """The server's application with ``routes``."""
    return Starlette(routes=list(routes))


class Server(uvicorn.Server):
    """uvicorn inside the bot's event loop; the bot handles the signals (a clean stop sets
    ``should_exit``)."""

    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def make_server(app: Starlette, host: str, port: int) -> Server:
    """A server for ``app``: ``await server.serve()``, and ``server.should_exit = True``.

    HTTP is parsed by httptools (C) when it is importable, else by h11 (pure Python)."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http="httptools" if _HAS_HTTPTOOLS else "h11",
        log_level="warning",
        access_log=False,
        lifespan="off",
    )
    return Server(config)
