"""A fake SMS gateway on 127.0.0.1 (Twilio's Messages API), and players who text the bot
through the real web server with signed webhook posts."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode

import httpx
from starlette.routing import BaseRoute
from twilio.request_validator import RequestValidator

from hideseek_chat.web.server import make_app, make_server

ACCOUNT = "AC" + "0" * 32
TOKEN = "secret-auth-token"
BOT_NUMBER = "+41790000000"
#: A picture the fake gateway serves at ``/media/photo.jpg`` (a JPEG's first bytes).
PHOTO = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 4
#: The gateway's basic auth, as its media URLs want it.
MEDIA_AUTH = "Basic " + base64.b64encode(f"{ACCOUNT}:{TOKEN}".encode()).decode()


@dataclass
class Sent:
    """A text the bot sent through the fake gateway."""

    sid: str
    to: str
    body: str
    status_callback: str | None
    media: str | None = None  # the image's URL of an MMS


@dataclass
class FakeGateway:
    """Twilio's ``POST /2010-04-01/Accounts/{sid}/Messages.json`` on 127.0.0.1: records
    each text, answers 201 with a message id; ``fail`` makes it answer 500 (or ``status``)."""

    sent: list[Sent] = field(default_factory=list)
    fail: int = 0  # how many requests to fail next
    fail_status: int = 500
    auth_seen: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""
    #: media fetched (the paths), with or without the right credentials
    fetched: list[str] = field(default_factory=list)
    #: holds back ``/media/stall``'s body until the gateway stops
    release: threading.Event = field(default_factory=threading.Event)
    _server: ThreadingHTTPServer | None = None

    def start(self) -> None:
        gateway = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                """``/media/<name>``: a picture behind basic auth (401 without); names
                ``photo.jpg``, ``page.html`` (not an image), ``declared-huge`` (a huge
                Content-Length), ``streamed-huge`` (6 MB without one), ``stall`` (headers,
                then nothing)."""
                gateway.fetched.append(self.path)
                if self.headers.get("authorization") != MEDIA_AUTH:
                    self._raw(401, "text/plain", b"unauthorized")
                    return
                name = self.path.removeprefix("/media/")
                try:
                    if name == "photo.jpg":
                        self._raw(200, "image/jpeg", PHOTO)
                    elif name == "page.html":
                        self._raw(200, "text/html", b"<html></html>")
                    elif name == "declared-huge":
                        self._raw(200, "image/jpeg", b"", length=10**9)
                    elif name == "streamed-huge":
                        self.send_response(200)
                        self.send_header("content-type", "image/png")
                        self.end_headers()
                        for _ in range(6 * 16):
                            self.wfile.write(b"\0" * 65536)
                    elif name == "stall":
                        self.send_response(200)
                        self.send_header("content-type", "image/png")
                        self.end_headers()
                        self.wfile.flush()
                        gateway.release.wait(10)
                    else:
                        self._raw(404, "text/plain", b"not found")
                except OSError:
                    pass  # the client gave up: as it should

            def _raw(self, status: int, kind: str, data: bytes, length: int | None = None) -> None:
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data) if length is None else length))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                gateway.auth_seen.add(self.headers.get("authorization", ""))
                with gateway.lock:
                    if not self.path.endswith(f"/Accounts/{ACCOUNT}/Messages.json"):
                        self._answer(404, {"code": 20404, "message": "not found"})
                        return
                    if gateway.fail:
                        gateway.fail -= 1
                        self._answer(gateway.fail_status, {"code": 30001, "message": "down"})
                        return
                    sid = f"SM{len(gateway.sent):032x}"
                    gateway.sent.append(
                        Sent(
                            sid,
                            form["To"],
                            form["Body"],
                            form.get("StatusCallback"),
                            form.get("MediaUrl"),
                        )
                    )
                self._answer(201, {"sid": sid, "status": "queued", "to": form["To"]})

            def _answer(self, status: int, body: dict[str, object]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def to(self, number: str) -> list[str]:
        """Every text sent to ``number``, oldest first."""
        with self.lock:
            return [s.body for s in self.sent if s.to == number]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def inbound_form(sid: str, number: str, body: str, **extra: str) -> dict[str, str]:
    """The gateway's webhook form of a text ``number`` sent to the bot."""
    return {
        "MessageSid": sid,
        "AccountSid": ACCOUNT,
        "From": number,
        "To": BOT_NUMBER,
        "Body": body,
        "NumMedia": "0",
        **extra,
    }


def signed(url: str, form: dict[str, str], token: str = TOKEN) -> dict[str, str]:
    """The gateway's signature header for posting ``form`` to ``url``."""
    return {"X-Twilio-Signature": RequestValidator(token).compute_signature(url, form)}


@asynccontextmanager
async def serving(routes: Sequence[BaseRoute], port: int) -> AsyncIterator[httpx.AsyncClient]:
    """The project's web server with ``routes`` on 127.0.0.1:``port``, and a client."""
    server = make_server(make_app(routes), "127.0.0.1", port)
    task = asyncio.ensure_future(server.serve())
    try:
        for _ in range(500):
            if server.started:
                break
            await asyncio.sleep(0.01)
        assert server.started, "the web server did not start"
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
            yield client
    finally:
        server.should_exit = True
        await task


@dataclass
class Phones:
    """People texting the bot through the web server: ``text(number, body)`` posts a signed
    webhook and waits until the bot has acted on it and sent what it had to."""

    client: httpx.AsyncClient
    url: str  # the public URL of the inbound route, as the gateway signs it
    settle: Callable[[], object]  # an awaitable factory: the bot is done
    gateway: FakeGateway
    now: Callable[[], datetime]
    count: int = 0

    async def text(self, number: str, body: str, **extra: str) -> httpx.Response:
        self.count += 1
        form = inbound_form(f"SMin{self.count:030d}", number, body, **extra)
        response = await self.client.post("/sms", data=form, headers=signed(self.url, form))
        assert response.status_code == 200, response.text
        await self.settle()  # type: ignore[misc]
        return response

    def said(self, number: str) -> list[str]:
        return self.gateway.to(number)

    def last(self, number: str) -> str:
        texts = self.said(number)
        return texts[-1] if texts else ""

    def since(self, number: str, mark: int) -> str:
        return "\n".join(self.said(number)[mark:])


def urlencoded(form: dict[str, str]) -> bytes:
    return urlencode(form).encode()
