"""The real web server on 127.0.0.1 with the tracker routes, around a ``Table``'s
conversation, for the tracker tests: a table whose bot hands out tracker links, and
``Tracker`` clients that post what each app posts."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.drive import Driver
from hideseek_chat.console.table import Table
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.web.server import make_app, make_server
from hideseek_chat.web.trackers import DriverIngest, tracker_routes
from tests.chat.play import NAMES, START

LINK = re.compile(r"http://127\.0\.0\.1:\d+/trackers/([A-Za-z0-9_-]+)/owntracks")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def listening() -> tuple[socket.socket, int]:
    """A socket bound to a free port of 127.0.0.1 for the server, and its port: bound
    here, so no other process takes the port between choosing and serving it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    return sock, int(sock.getsockname()[1])


def tracker_table(uow_factory: UnitOfWorkFactory, port: int, seed: int = 11) -> Table:
    """Alice, Bob and Carol at a table whose bot hands out links to ``port``."""
    conversation = Conversation(
        uow_factory, seeds=lambda: seed, tracker_url=f"http://127.0.0.1:{port}"
    )
    table = Table(conversation, START)
    for name in NAMES:
        table.person(name)
    return table


@contextmanager
def serving(table: Table, sock: socket.socket, per_minute: int = 120) -> Iterator[str]:
    """The web server with the tracker routes on ``sock`` (``listening``), its own drive
    loop around the table's conversation (the game's clock and the device's both the
    table's)."""
    driver = Driver(table.conversation, table, lambda: table.now, jobs_inline=True)
    routes = tracker_routes(
        DriverIngest(lambda: driver, monotonic=lambda: table.now.timestamp()),
        per_minute,
        clock=lambda: table.now,
        wall=lambda: table.now,
        monotonic=lambda: table.now.timestamp(),
    )
    port = int(sock.getsockname()[1])
    server = make_server(make_app(routes), "127.0.0.1", port)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the web server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def token_of(table: Table, name: str) -> str:
    """``name`` asks for a tracker link in private; the token in it."""
    table.send(name, "/tracker", private=True)
    for line in reversed(table.said(name)):
        found = LINK.search(line.text)
        if found:
            return found.group(1)
    raise AssertionError("no tracker link was sent")


@dataclass
class Tracker:
    """One person's tracker app, posting to the server at ``base``."""

    base: str
    token: str
    app: str
    client: httpx.Client

    @property
    def url(self) -> str:
        return f"{self.base}/trackers/{self.token}/{self.app}"

    def ping(
        self,
        lat: float,
        lon: float,
        at: datetime,
        *,
        accuracy: float = 8.0,
        speed_kmh: float | None = None,
    ) -> httpx.Response:
        """Post a position as the app does."""
        stamp = int(at.timestamp())
        if self.app == "owntracks":
            body: dict[str, Any] = {
                "_type": "location",
                "lat": lat,
                "lon": lon,
                "tst": stamp,
                "acc": accuracy,
                "batt": 81,
                "tid": "al",
                "conn": "m",
            }
            if speed_kmh is not None:
                body["vel"] = round(speed_kmh)
            return self.client.post(self.url, json=body)
        if self.app == "traccar":
            params = {
                "id": "356938035643809",
                "lat": f"{lat:.6f}",
                "lon": f"{lon:.6f}",
                "timestamp": str(stamp),
                "accuracy": str(accuracy),
                "batt": "77.0",
                "bearing": "0.0",
                "altitude": "250.0",
            }
            if speed_kmh is not None:
                params["speed"] = f"{speed_kmh / 1.852:.4f}"  # knots
            return self.client.post(self.url, params=params)
        params = {
            "lat": f"{lat:.7f}",
            "lon": f"{lon:.7f}",
            "acc": f"{accuracy:.1f}",
            "spd": "" if speed_kmh is None else f"{speed_kmh / 3.6:.3f}",  # m/s
            "time": str(stamp),
            "batt": "64.0",
        }
        return self.client.get(self.url, params=params)
