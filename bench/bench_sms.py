"""Webhook to reply over SMS: how long a text takes from the gateway's webhook POST to the
bot's reply reaching the gateway's REST API, at a steady rate of inbound texts.

The bot runs as in production: the project's web server (uvicorn, Starlette) with the SMS
routes (signature checked, stored in the inbox before 200), ``SmsChannel`` on its drive loop,
the conversation and the store, and twilio's REST client for every reply. The gateway side
runs in a child process, so that it does not share the bot's interpreter: a fake Twilio
Messages API on 127.0.0.1 and a load generator that posts signed webhooks open-loop at
``--rate`` texts a second (each at its scheduled time, whether or not earlier ones were
answered), and times each reply against its post on one clock.

The texts are ``--body`` (STATUS by default) from players of ``--games`` SMS games of
``--players`` each, in their hiding period (set up by text first); every STATUS gets one
reply, to its sender only: the whole path through the conversation (the game loaded, the
status rendered). HELP is answered by the channel alone (inbox, number, reply).

    python bench/bench_sms.py [--rate 200] [--seconds 15] [--body STATUS|HELP] [--api-ms 0]
        [--workers N] [--busy SHARE] [--postgres URL]

Each run prints the rate asked and the rate posted and answered, the bot process's CPU per
text (all its threads), the floor (one raw Core insert of a text's inbox row, committed, on
the same database) and p50/p90/p99 from post to reply. ``--api-ms`` makes the fake API take
that long to answer each send (a real gateway's round trip), which holds a sending thread.
``--busy`` keeps that share of one core busy in a process of the bench's own during the load,
to measure what is left when the shared machine runs slower; the database server's own CPU a
text is printed too, when it runs on this machine.

Target (issue 22): p99 <= 50 ms on PostgreSQL at 200 texts a second. PostgreSQL is measured
in a throwaway schema when ``--postgres`` or ``HIDESEEK_TEST_POSTGRES_URL`` is given, else
SQLite. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import Engine, create_engine, insert, text
from twilio.request_validator import RequestValidator

from hideseek_chat.app import freeze_heap
from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.sms.channel import SmsChannel, SmsIn
from hideseek_chat.sms.gateway import Gateway, GatewaySettings
from hideseek_chat.store import make_engine, unit_of_work_factory
from hideseek_chat.store.models import Base, InboxRow, InboxStatus
from hideseek_chat.web.server import make_app, make_server
from hideseek_chat.web.sms import SmsWebhook, sms_routes

ACCOUNT = "AC" + "0" * 32
TOKEN = "bench-token"
BOT = "+41790000000"
START = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)


def number(game: int, player: int) -> str:
    return f"+41791{game:03d}{player:03d}"


class Recorder:
    """A gateway whose ``send`` only records (the set-up phase, before the clock runs)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []
        self.prefix = "SM" + uuid.uuid4().hex[:8]  # one of each process's recorders

    def send(self, to: str, body: str, photo: str | None = None) -> str:
        self.sent.append((to, body))
        return f"{self.prefix}{len(self.sent):024d}"


# ----------------------------------------------------------------- the gateway's side


def api_side(port: int, api_ms: float, ready: Any, out: Any) -> None:
    """In a process of its own: the fake Messages API (asyncio, keep-alive connections),
    noting when each text arrived (``time.perf_counter``: one clock for all processes)."""
    arrived: list[tuple[str, float]] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                at = time.perf_counter()
                length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
                body = await reader.readexactly(int(length[1]) if length else 0)
                arrived.append((parse_qs(body.decode())["To"][0], at))
                if api_ms:
                    await asyncio.sleep(api_ms / 1000)  # the real API's round trip
                data = json.dumps({"sid": "SM" + uuid.uuid4().hex, "status": "queued"}).encode()
                writer.write(
                    b"HTTP/1.1 201 Created\r\ncontent-type: application/json\r\n"
                    b"content-length: %d\r\n\r\n%s" % (len(data), data)
                )
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()
        except asyncio.CancelledError:  # the API stops: its idle keep-alive connections go
            writer.close()

    async def serve() -> None:
        server = await asyncio.start_server(answer, "127.0.0.1", port, backlog=1024)
        cpu = time.process_time()  # from here: the imports and the start are not the load's
        ready.set()
        await asyncio.get_running_loop().run_in_executor(None, out.recv)  # "stop"
        server.close()
        out.send((arrived, time.process_time() - cpu))

    asyncio.run(serve())


def gateway_side(
    api_port: int,
    webhook_url: str,
    workers: list[int],
    numbers: list[str],
    rate: float,
    seconds: float,
    body: str,
    api_ms: float,
    out: Any,
) -> None:
    """In a child process: the load on the bot (open loop, a minimal HTTP/1.1 client on
    asyncio streams: httpx took more CPU than the bot), with the fake API in a process of
    its own; reports the latencies and both processes' CPU per text. Each text goes to the
    next of the ``workers`` (their ports) in turn, as a round-robin balancer would send it;
    all are signed for the one public ``webhook_url``."""
    spawn = multiprocessing.get_context("spawn")
    ready, (ours, theirs) = spawn.Event(), spawn.Pipe()
    api = spawn.Process(target=api_side, args=(api_port, api_ms, ready, theirs))
    api.start()
    ready.wait(30)
    out.send("ready")
    out.recv()  # the bot is ready too
    posts: dict[str, list[float]] = {n: [] for n in numbers}
    validator = RequestValidator(TOKEN)
    statuses: list[int] = []
    address = urlsplit(webhook_url)
    idles: dict[int, list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]] = {
        port: [] for port in workers
    }

    async def post(request: bytes, port: int) -> int:
        """Post on a kept connection (a fresh one when none is free, or when the server
        closed the kept one); 0 when even a fresh connection failed."""
        idle = idles[port]
        for fresh in (not idle, True):
            if fresh:
                try:
                    pair = await asyncio.open_connection(address.hostname, port)
                except OSError:
                    return 0
            else:
                pair = idle.pop()
            reader, writer = pair
            try:
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
                await reader.readexactly(int(length[1]) if length else 0)
            except (asyncio.IncompleteReadError, ConnectionError):
                writer.close()
                if fresh:
                    return 0
                continue
            idle.append(pair)
            return int(head[9:12])
        return 0

    async def load() -> float:
        total = int(rate * seconds)
        begin = time.perf_counter()
        tasks = []
        for i in range(total):
            due = begin + i / rate
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            sender = numbers[i % len(numbers)]
            form = {
                "MessageSid": f"SMb{i:031d}",
                "AccountSid": ACCOUNT,
                "From": sender,
                "To": BOT,
                "Body": body,
                "NumMedia": "0",
            }
            encoded = urlencode(form).encode()
            request = (
                f"POST {address.path} HTTP/1.1\r\nHost: {address.netloc}\r\n"
                "Content-Type: application/x-www-form-urlencoded\r\n"
                f"X-Twilio-Signature: {validator.compute_signature(webhook_url, form)}\r\n"
                f"Content-Length: {len(encoded)}\r\n\r\n"
            ).encode() + encoded
            posts[sender].append(time.perf_counter())
            tasks.append(asyncio.ensure_future(post(request, workers[i % len(workers)])))
        statuses.extend(await asyncio.gather(*tasks))
        achieved = total / (time.perf_counter() - begin)
        await asyncio.sleep(3)  # the last replies
        return achieved

    load_cpu = time.process_time()
    achieved = asyncio.run(load())
    load_cpu = time.process_time() - load_cpu
    ours.send("stop")
    arrived, api_cpu = ours.recv()
    api.join()
    out.send(("achieved", achieved))
    replies: dict[str, list[float]] = {n: [] for n in numbers}
    for to, at in arrived:
        replies.setdefault(to, []).append(at)
    latencies: list[float] = []
    missing = 0
    for sender, sent in posts.items():
        got = replies.get(sender, [])
        for i, at in enumerate(sent):
            if i < len(got):
                latencies.append((got[i] - at) * 1000)
            else:
                missing += 1
    texts = max(1, len(statuses))
    cpu = (1000 * load_cpu / texts, 1000 * api_cpu / texts)
    out.send(("done", latencies, missing, [s for s in statuses if s != 200], cpu))


# ----------------------------------------------------------------- the bot's side


async def setup_games(channel: SmsChannel, games: int, players: int) -> None:
    """Each game: its first player texts NEW, the others JOIN, then BEGIN."""
    recorder = channel.gateway
    assert isinstance(recorder, Recorder)
    sid = 0

    async def say(who: str, body: str) -> None:
        nonlocal sid
        sid += 1
        await channel.receive_form(f"SMsetup{sid:027d}", who, body)
        await channel.lanes.join()
        await channel.driver.idle()

    for game in range(games):
        first = number(game, 0)
        await say(first, "NEW small metric")
        code = next(body for to, body in recorder.sent if to == first and "code is" in body)
        code = code.split("code is ", 1)[1][:4]
        for player in range(1, players):
            await say(number(game, player), f"JOIN {code}")
        await say(first, "begin")


def _bot(
    database: str, port: int, public: str, api_port: int, numbers: list[str], out: Any
) -> None:
    """One bot worker process, as in production: its own engine, channel, conversation and
    web server on ``port``, all signed for the one ``public`` URL."""
    asyncio.run(_serve(database, port, public, api_port, numbers, out))


async def _serve(
    database: str, port: int, public: str, api_port: int, numbers: list[str], out: Any
) -> None:
    engine = make_engine(database, pool_size=20)
    uow_factory = unit_of_work_factory(engine)
    clock = lambda: START  # noqa: E731 (the game's time stands still: STATUS only)
    channel = SmsChannel(uow_factory, Recorder(), clock, pool=ThreadPoolExecutor(16))
    threads = ThreadPoolExecutor(8, thread_name_prefix="store")
    driver = channel.attach(Conversation(uow_factory, seeds=lambda: 11), threads=threads)
    for i, sender in enumerate(numbers):  # warm: the map, the caches, prepared statements
        await channel.receive_form(f"SMwarm{port:05d}{i:021d}", sender, "STATUS")
    await channel.lanes.join()
    await driver.idle()
    channel.gateway = Gateway(
        GatewaySettings(ACCOUNT, TOKEN, BOT, base_url=f"http://127.0.0.1:{api_port}")
    )
    routes = sms_routes(SmsWebhook(public, TOKEN), channel.receive_form, channel.record_status)
    freeze_heap()  # as the app does before it serves
    server = make_server(make_app(routes), "127.0.0.1", port)
    serving = asyncio.ensure_future(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    loop = asyncio.get_running_loop()
    out.send("ready")
    await loop.run_in_executor(None, out.recv)  # "go"
    cpu = time.process_time()
    await loop.run_in_executor(None, out.recv)  # the load is over
    await channel.lanes.join()
    await driver.idle()
    out.send(time.process_time() - cpu)  # this process, all its threads
    server.should_exit = True
    await serving
    threads.shutdown()
    engine.dispose()


async def run_bot(engine: Engine, database: str, args: argparse.Namespace) -> list[float]:
    """Set the games up in this process, then run ``--workers`` bot processes on
    ``database`` (one process on SQLite, which serves one) and the gateway's side."""
    Base.metadata.create_all(engine)
    uow_factory = unit_of_work_factory(engine)
    channel = SmsChannel(uow_factory, Recorder(), lambda: START, pool=ThreadPoolExecutor(4))
    channel.attach(Conversation(uow_factory, seeds=lambda: 11))
    await setup_games(channel, args.games, args.players)
    engine.dispose()
    numbers = [number(g, p) for g in range(args.games) for p in range(args.players)]
    api_port = _free_port()
    ports = [_free_port() for _ in range(args.workers)]
    public = f"http://127.0.0.1:{ports[0]}"
    spawn = multiprocessing.get_context("spawn")
    bots = []
    for port in ports:
        ours, theirs = spawn.Pipe()
        bot = spawn.Process(target=_bot, args=(database, port, public, api_port, numbers, theirs))
        bot.start()
        bots.append((bot, ours))
    ours, theirs = spawn.Pipe()
    child = spawn.Process(
        target=gateway_side,
        args=(
            api_port,
            f"{public}/sms",
            ports,
            numbers,
            args.rate,
            args.seconds,
            args.body,
            args.api_ms,
            theirs,
        ),
    )
    child.start()
    busy = None
    if args.busy > 0:  # another process takes that share of a core meanwhile
        stop = spawn.Event()
        busy = spawn.Process(target=_keep_busy, args=(args.busy, stop))
        busy.start()
    loop = asyncio.get_running_loop()
    for _, pipe in bots:
        assert await loop.run_in_executor(None, pipe.recv) == "ready"
    await loop.run_in_executor(None, ours.recv)  # "ready": the API listens
    database_before = _database_cpu(engine)
    for _, pipe in bots:
        pipe.send("go")
    ours.send("go")
    _, achieved = await loop.run_in_executor(None, ours.recv)
    cpu = 0.0
    for _, pipe in bots:
        pipe.send("over")
        cpu += await loop.run_in_executor(None, pipe.recv)
    _, latencies, missing, bad, (load_cpu, api_cpu) = await loop.run_in_executor(None, ours.recv)
    database_after = _database_cpu(engine)
    child.join()
    for bot, _ in bots:
        bot.join()
    if busy is not None:
        stop.set()
        busy.join()
    texts = int(args.rate * args.seconds)
    print(
        f"posted and answered at {achieved:.0f}/s (asked: {args.rate:.0f}/s) by"
        f" {args.workers} bot process(es){_busy_note(args.busy)};"
        f" replies missing {missing}; non-200 answers"
        f" {len(bad)}; bot CPU {1000 * cpu / texts:.1f} ms a text;"
        f" floor (one Core insert of an inbox row, committed) {_floor(engine):.2f} ms;"
        f" the load's CPU {load_cpu:.1f} ms, the fake API's {api_cpu:.1f} ms a text;"
        f" {_database_figure(database_before, database_after, texts)}"
    )
    return list(latencies)


def _floor(engine: Engine, count: int = 300) -> float:
    """Milliseconds one raw Core insert of a text's inbox row takes, committed: the least a
    text can cost before its 200."""
    statement = insert(InboxRow)
    payload = SmsIn("SMfloor", number(0, 0), "STATUS").payload()
    begin = time.perf_counter()
    for i in range(count):
        with engine.begin() as connection:
            connection.execute(
                statement,
                {
                    "update_id": f"sms:SMfloor{i:025d}",
                    "lane": "floor",
                    "status": InboxStatus.PENDING,
                    "received_at": START,
                    "payload": payload,
                    "attempts": 0,
                },
            )
    return (time.perf_counter() - begin) * 1000 / count


def _busy_note(share: float) -> str:
    return f", with {share:.0%} of a core kept busy meanwhile" if share > 0 else ""


def _keep_busy(share: float, stop: Any) -> None:
    """Spin ``share`` of every 10 ms on one core until ``stop`` is set: the machine as when
    another tenant takes that much of it (``--busy``)."""
    while not stop.is_set():
        started = time.perf_counter()
        while time.perf_counter() - started < 0.01 * share:
            pass
        time.sleep(0.01 * (1 - share))


def _database_cpu(engine: Engine) -> dict[int, float] | None:
    """CPU seconds so far of each PostgreSQL server process (its backends, WAL writer,
    checkpointer...), read from ``/proc``: None off PostgreSQL, or when the server runs
    elsewhere or as a user whose processes this one cannot read."""
    if engine.dialect.name != "postgresql":
        return None
    with engine.connect() as connection:
        pids = list(connection.scalars(text("SELECT pid FROM pg_stat_activity")))
    ticks = os.sysconf("SC_CLK_TCK")
    found: dict[int, float] = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[pid] = (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return found or None


def _database_figure(
    before: dict[int, float] | None, after: dict[int, float] | None, texts: int
) -> str:
    """The database server's own CPU a text during the load (processes that started meanwhile
    count whole; one that ended meanwhile is missed), or why it was not measured."""
    if before is None or after is None:
        return "the database's CPU not measured (not a PostgreSQL server on this machine)"
    spent = sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())
    return f"the database's CPU {1000 * spent / texts:.1f} ms a text"


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _postgres_engine(base: str) -> Iterator[tuple[Engine, str]]:
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(base)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in base else "?"
    url = f"{base}{separator}options={quote(f'-csearch_path={schema}')}"
    engine = make_engine(url, pool_size=20)
    try:
        yield engine, url
    finally:
        engine.dispose()
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def _report(database: str, latencies: list[float]) -> None:
    if not latencies:
        print(f"{database}: no replies")
        return
    ordered = sorted(latencies)
    p = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    print(
        f"{database:<10} {len(ordered):>6} replies  p50 {p(0.50):6.1f} ms  p90 {p(0.90):6.1f} ms"
        f"  p99 {p(0.99):6.1f} ms  max {ordered[-1]:6.1f} ms  mean {statistics.mean(ordered):.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument(
        "--body", default="STATUS", help="what each text says: STATUS (the game) or HELP"
    )
    parser.add_argument(
        "--api-ms",
        type=float,
        default=0.0,
        help="how long the fake API takes to answer a send (a real one: 100 ms or more)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="bot processes on one PostgreSQL, the texts dealt to them in turn",
    )
    parser.add_argument(
        "--busy",
        type=float,
        default=0.0,
        help="a process of the bench's own keeps this share of one core busy during the"
        " load (0 to 1): the headroom left when the machine is slower or shared",
    )
    parser.add_argument("--postgres", default=os.environ.get("HIDESEEK_TEST_POSTGRES_URL"))
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    if args.postgres:
        with _postgres_engine(args.postgres) as (engine, url):
            _report("postgresql", asyncio.run(run_bot(engine, url, args)))
        return
    if args.workers != 1:
        parser.error("SQLite serves one process: --workers needs --postgres")
    with tempfile.TemporaryDirectory() as directory:
        url = f"sqlite:///{Path(directory) / 'bench.sqlite3'}"
        engine = make_engine(url)
        try:
            _report("sqlite", asyncio.run(run_bot(engine, url, args)))
        finally:
            engine.dispose()


if __name__ == "__main__":
    main()
