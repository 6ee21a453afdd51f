"""Fake Overpass and Nominatim servers on 127.0.0.1, scriptable per request.

Each server runs ``http.server`` in a thread on a free port and records every request
(method, path, query, form, headers, body). Replies come from the script first
(``server.script(Reply(429, headers={"Retry-After": "7"}), Reply.json({...}))``, one per
request), then from the server's default responder:

- :class:`FakeOverpass` answers ``{"elements": [...]}`` from ``by_kind``, keyed by the
  ``/* hideseek:KIND */`` marker that ``maps.fetch`` writes at the head of each query
  (an unknown kind gets no elements);
- :class:`FakeNominatim` answers the ``results`` list stored for the ``q`` parameter
  (an unknown query gets ``[]``).

A :class:`Reply` with ``stall=True`` holds the connection until the server stops (for
client timeouts, with no sleep in the test). Use them as context managers or through the
``fake_overpass`` / ``fake_nominatim`` fixtures in ``tests/maps/conftest.py``.
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

OVERPASS_PATH = "/api/interpreter"
_MARKER = re.compile(r"/\*\s*hideseek:([\w-]+)\s*\*/")


@dataclass(frozen=True)
class Reply:
    """One scripted HTTP answer."""

    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    stall: bool = False

    @classmethod
    def json(cls, data: Any, status: int = 200, **headers: str) -> Reply:
        return cls(
            status, json.dumps(data).encode(), {"Content-Type": "application/json", **headers}
        )


@dataclass(frozen=True)
class Recorded:
    """One request the server received."""

    method: str
    path: str
    query: dict[str, str]
    form: dict[str, str]
    headers: dict[str, str]
    body: bytes

    @property
    def user_agent(self) -> str:
        return self.headers.get("user-agent", "")


Responder = Callable[[Recorded], Reply]


class FakeServer:
    """An HTTP server in a thread: scripted replies first, then ``respond``."""

    def __init__(self, respond: Responder | None = None) -> None:
        self.requests: list[Recorded] = []
        self._script: deque[Reply] = deque()
        self._respond = respond or (lambda _: Reply(404))
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def url(self) -> str:
        return self.base_url

    def script(self, *replies: Reply) -> None:
        """Queue replies for the next requests, in order."""
        with self._lock:
            self._script.extend(replies)

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _reply_to(self, request: Recorded) -> Reply:
        with self._lock:
            self.requests.append(request)
            scripted = self._script.popleft() if self._script else None
        return scripted or self._respond(request)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                form = {k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
                query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
                recorded = Recorded(
                    self.command,
                    parts.path,
                    query,
                    form,
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                )
                reply = server._reply_to(recorded)
                if reply.stall:
                    server._stopping.wait(timeout=10)
                    self.close_connection = True
                    return
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = _serve
            do_POST = _serve

            def log_message(self, format: str, *args: Any) -> None:
                return None

        return Handler


def query_kind(request: Recorded) -> str:
    """Return the kind named by a query's ``/* hideseek:KIND */`` marker ("" when none)."""
    found = _MARKER.search(request.form.get("data", ""))
    return found.group(1) if found else ""


class FakeOverpass(FakeServer):
    """A fake Overpass API: ``url`` is the interpreter endpoint; ``by_kind`` answers."""

    def __init__(self, by_kind: Mapping[str, list[dict[str, Any]]] | None = None) -> None:
        self.by_kind: dict[str, list[dict[str, Any]]] = dict(by_kind or {})
        super().__init__(self._elements)

    @property
    def url(self) -> str:
        return self.base_url + OVERPASS_PATH

    def _elements(self, request: Recorded) -> Reply:
        if request.path != OVERPASS_PATH:
            return Reply(404)
        elements = self.by_kind.get(query_kind(request), [])
        return Reply.json({"version": 0.6, "generator": "fake", "elements": elements})

    def kinds_asked(self) -> list[str]:
        return [query_kind(r) for r in self.requests]


class FakeNominatim(FakeServer):
    """A fake Nominatim: ``results[q]`` is the JSON list ``/search?q=...`` returns."""

    def __init__(self, results: Mapping[str, list[dict[str, Any]]] | None = None) -> None:
        self.results: dict[str, list[dict[str, Any]]] = dict(results or {})
        super().__init__(self._search)

    def _search(self, request: Recorded) -> Reply:
        if request.path != "/search":
            return Reply(404)
        return Reply.json(self.results.get(request.query.get("q", ""), []))
