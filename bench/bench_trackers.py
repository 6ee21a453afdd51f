"""Tracker ingest through HTTP on PostgreSQL, against a raw insert of the same row.

Measured in one run, in a fresh schema, with games seeking (their zone fixed) and two
seekers each posting Traccar Client (OsmAnd) pings, far from the zone:

* ``floor``: a raw SQLAlchemy Core insert of the ping row (``engine.begin()``, one insert,
  commit), from one thread - what storing a position costs at the least;
* ``http 1``: one client posting pings one after another to the real web server (uvicorn,
  Starlette, ``web.trackers``) on 127.0.0.1, run in a process of its own as the bot runs:
  token check and last-heard (one statement), the ping through ``Conversation.handle`` in
  the drive loop's threads, the answer. The client is a minimal HTTP/1.1 keep-alive client
  on asyncio streams (httpx took 1.1 ms of CPU a ping, as much as the server, on the same
  cores);
* ``http N``: ``--clients`` clients posting at once (keep-alive connections), the store
  calls in ``STORE_THREADS`` threads as the bot runs them; with ``--servers``, that many
  worker processes share the port (as N workers behind one URL).

Reported: pings/s, the ratio to the floor, p50 and p99 latency seen by the client, and the
CPU time a ping costs the server's processes (an insert costs the floor's). The
rate cap is raised for the run (a real token is held to 120 a minute). Targets (issue 20):
>= 1,000 pings/s, p99 <= 10 ms.

    python bench/bench_trackers.py [--pings 3000] [--games 50] [--clients 8] [--servers 1]
                                   [--postgres URL]

PostgreSQL comes from ``--postgres``, ``HIDESEEK_BENCH_POSTGRES_URL`` or the local default
(postgresql+psycopg://postgres@127.0.0.1:5432/test). Run by hand; not part of the test
suite.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import multiprocessing
import os
import re
import socket
import statistics
import sys
import threading
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast
from urllib.parse import quote, urlencode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import Engine, Table, create_engine, insert, text, update

from bench.bench_store import SEEKER_AT, Game
from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.drive import Capabilities, Driver
from hideseek_chat.chat.model import Outbound
from hideseek_chat.store import make_engine, unit_of_work_factory
from hideseek_chat.store.models import Base, OutboxRow, PingRow
from hideseek_chat.telegram.bot import STORE_THREADS
from hideseek_chat.web.server import make_app, make_server
from hideseek_chat.web.trackers import BATCH, IN_FLIGHT, DriverIngest, tracker_routes

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
PORT = 8791


class Quiet:
    """A channel that performs nothing (tracker pings far from the zone say nothing)."""

    capabilities = Capabilities()

    async def perform(self, actions: Sequence[Outbound], now: datetime) -> bool:
        return True


def _quantile(samples: list[float], q: int) -> float:
    return statistics.quantiles(samples, n=100)[q - 1] * 1000


def _report(name: str, samples: list[float], wall: float, floor_rate: float | None) -> float:
    rate = len(samples) / wall
    ratio = f"{rate / floor_rate:5.2f} of floor" if floor_rate else " " * 14
    print(
        f"{name:<9} {rate:>7,.0f} pings/s  {ratio}  p50 {_quantile(samples, 50):6.2f} ms"
        f"  p99 {_quantile(samples, 99):6.2f} ms"
    )
    return rate


def _measure(
    engine: Engine,
    pings: int,
    games: int,
    clients: list[int],
    servers: int,
    batch: int,
    in_flight: int,
) -> None:
    Base.metadata.create_all(engine)
    uow_factory = unit_of_work_factory(engine)
    made = [Game(uow_factory, f"tg:-300{i}", f"t{i}") for i in range(games)]
    tokens: list[str] = []
    with uow_factory() as uow:
        for game in made:
            seekers = [
                p.ref
                for p in uow.games.get(uow.games.for_chat(game.chat).id).players  # type: ignore[union-attr]
                if p.ref != game.hider
            ]
            tokens.extend(uow.trackers.issue(ref, datetime.now(UTC)) for ref in seekers)
        uow.commit()
        target = uow.pings.target(made[0].chat, made[0].seeker)
    assert target is not None
    # The games' set-up announcements are not tracker work: sent before the server starts,
    # or its first minutes go to rendering them while the pings are timed.
    with engine.begin() as connection:
        connection.execute(
            update(OutboxRow).where(OutboxRow.sent_at.is_(None)).values(sent_at=datetime.now(UTC))
        )
    spawn = multiprocessing.get_context("spawn")
    stop = spawn.Event()
    children = []
    for _ in range(servers):
        ready = spawn.Event()
        database = str(engine.url.render_as_string(hide_password=False))
        child = spawn.Process(target=_serve, args=(database, ready, stop, batch, in_flight))
        child.start()
        if not ready.wait(60):
            raise RuntimeError("the server did not start")
        children.append(child)

    base = datetime.now(UTC) - timedelta(hours=1)
    counter = itertools.count(1)

    def request() -> bytes:
        """The next ping: a Traccar Client POST, parameters in the query, empty body."""
        address, params = url()
        path = address.removeprefix(f"http://127.0.0.1:{PORT}")
        return (
            f"POST {path}?{urlencode(params)} HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\n"
            "User-Agent: bench\r\nContent-Length: 0\r\n\r\n"
        ).encode()

    def url() -> tuple[str, dict[str, str]]:
        n = next(counter)
        token = tokens[n % len(tokens)]
        stamp = int((base + timedelta(milliseconds=n)).timestamp() * 1000)
        params = {
            "id": "bench",
            "lat": f"{SEEKER_AT[0] + (n % 7) * 1e-6:.7f}",
            "lon": f"{SEEKER_AT[1]:.7f}",
            "timestamp": str(stamp),
            "accuracy": "8",
            "speed": "1.5",
        }
        return f"http://127.0.0.1:{PORT}/trackers/{token}/traccar", params

    table = cast(Table, PingRow.__table__)
    raw = insert(table)
    floor: list[float] = []
    began_all = time.perf_counter()
    cpu_floor = time.process_time()
    for n in range(pings):
        began = time.perf_counter()
        with engine.begin() as connection:
            connection.execute(
                raw,
                {
                    "game_id": target.game_id,
                    "player_id": target.player_id,
                    "lat": SEEKER_AT[0],
                    "lon": SEEKER_AT[1],
                    "accuracy_m": 8.0,
                    "source": "tracker:traccar",
                    "forwarded": False,
                    "at": base + timedelta(milliseconds=n),
                    "message_ref": "trk:floor",
                    "sent_at": base + timedelta(milliseconds=n),
                    "speed_kmh": 2.8,
                },
            )
        floor.append(time.perf_counter() - began)
    floor_rate = _report("floor", floor, time.perf_counter() - began_all, None)
    floor_cpu = (time.process_time() - cpu_floor) / pings * 1000
    print(f"{'':<9} this process: {floor_cpu:.2f} ms of CPU an insert")

    def server_cpu() -> float:
        return sum(_cpu_seconds(child.pid) for child in children)

    async def post_all(n_clients: int, total: int) -> tuple[list[float], float, float, float]:
        """The latencies, the wall time, and the servers' and this client's CPU seconds, all
        after the warm-up (its first-time costs: each game's state, prepared statements)."""
        samples: list[float] = []
        left = itertools.count()
        connections = [await asyncio.open_connection("127.0.0.1", PORT) for _ in range(n_clients)]

        async def post(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(request())
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head[9:12])
            length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
            if length is None:
                raise RuntimeError("no content-length")
            await reader.readexactly(int(length[1]))
            if status != 200:
                raise RuntimeError(f"answered {status}")

        async def one_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while next(left) < total:
                began = time.perf_counter()
                await post(reader, writer)
                samples.append(time.perf_counter() - began)

        try:
            for _ in range(max(25, len(tokens) // len(connections) + 1)):  # warm up: each
                for reader, writer in connections:  # connection, each token's game once
                    await post(reader, writer)
            began = time.perf_counter()
            cpu, client_cpu = server_cpu(), time.process_time()
            await asyncio.gather(*(one_client(*pair) for pair in connections))
            wall = time.perf_counter() - began
            used, client_used = server_cpu() - cpu, time.process_time() - client_cpu
        finally:
            for _, writer in connections:
                writer.close()
        return samples, wall, used, client_used

    try:
        for n_clients in clients:
            samples, wall, used, client_used = asyncio.run(post_all(n_clients, pings))
            _report(f"http {n_clients}", samples, wall, floor_rate)
            per_ping = used / len(samples) * 1000
            client_cpu = client_used / len(samples) * 1000
            print(
                f"{'':<9} the servers' processes: {per_ping:.2f} ms of CPU a ping"
                f" ({per_ping / floor_cpu:.1f} times the floor's); the client {client_cpu:.2f} ms"
            )
    finally:
        stop.set()
        for child in children:
            child.join(30)


def _cpu_seconds(pid: int | None) -> float:
    """The CPU time (user and system) process ``pid`` has used, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _serve(url: str, ready: Any, stop: Any, batch: int, in_flight: int) -> None:
    """The bot's side, in a process of its own: the web server with the tracker routes
    around a conversation whose store calls run in ``STORE_THREADS`` threads."""
    engine = make_engine(url, pool_size=16)
    conversation = Conversation(unit_of_work_factory(engine), seeds=lambda: 11)
    threads = ThreadPoolExecutor(STORE_THREADS, thread_name_prefix="store")
    driver = Driver(conversation, Quiet(), lambda: datetime.now(UTC), threads=threads)
    ingest = DriverIngest(lambda: driver, batch=batch, in_flight=in_flight)
    routes = tracker_routes(ingest, 10_000_000)
    server = make_server(make_app(routes), "127.0.0.1", PORT)
    # Several workers share the port (SO_REUSEPORT): the kernel spreads the connections.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # NODELAY
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("127.0.0.1", PORT))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    ready.set()
    stop.wait()
    server.should_exit = True
    thread.join(10)
    threads.shutdown()
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pings", type=int, default=3000)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--clients", default="1,4,8", help="client counts, one run each")
    parser.add_argument("--servers", type=int, default=1, help="worker processes, one port")
    parser.add_argument("--batch", type=int, default=BATCH, help="pings stored in one commit")
    parser.add_argument("--in-flight", type=int, default=IN_FLIGHT, help="batches at once")
    parser.add_argument(
        "--postgres", default=os.environ.get("HIDESEEK_BENCH_POSTGRES_URL", DEFAULT_POSTGRES)
    )
    args = parser.parse_args()
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(args.postgres)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in args.postgres else "?"
    options = quote(f"-csearch_path={schema}")
    engine = make_engine(f"{args.postgres}{separator}options={options}", pool_size=16)
    try:
        _measure(
            engine,
            args.pings,
            args.games,
            [int(n) for n in args.clients.split(",")],
            args.servers,
            args.batch,
            args.in_flight,
        )
    finally:
        engine.dispose()
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


if __name__ == "__main__":
    main()
