"""Live-location ingest through the whole path, against a raw insert of the same row.

Every update is its own transaction. Measured in one run, on one database, in a fresh schema:

* ``floor``: a raw SQLAlchemy Core insert of the ping row (``engine.begin()``, one insert,
  commit) - what storing a location costs at the least;
* ``group``: a seeker's live-location edit in the group, through ``Conversation.handle``
  with an ``update_id`` (as the Telegram adapter calls it: the inbox row and the ping in
  one transaction), the game seeking, the seeker far from the zone;
* ``private``: the hider's live-location edit in their private chat (the game found from
  the person, the staying-put check read from their last pins);
* ``restart``: the first group edit of each of many games in a new ``Conversation``
  (empty caches), as after a restart.

Reported: updates/s, the ratio to the floor, p50 and p99, this process's CPU an update
(steadier than the times on a shared machine; the database's is not in it), and the
statements each update sends (``before_cursor_execute``, plus its commit; on PostgreSQL a
game state's read is one more round trip, sent on the raw cursor and so not counted).
Statements are counted in a pass of their own before the timing: with a listener on the
engine, ``store/rawrow.py`` sends its statements through SQLAlchemy's result path instead
of the bot's. Targets
(issue 18) on PostgreSQL: group >= 1,000/s and >= 0.7 of the floor, private >= 0.6 of the
floor, restart p99 <= 5 ms.

    python bench/bench_store.py [--updates 3000] [--games 300] [--postgres URL] [--no-sqlite]

PostgreSQL comes from ``--postgres``, ``HIDESEEK_BENCH_POSTGRES_URL`` or the local default
(postgresql+psycopg://postgres@127.0.0.1:5432/test); SQLite (a WAL file) is the second line.
Run by hand; not part of the test suite.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import Engine, Table, create_engine, event, insert, text

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.model import ChatKind, LocationIn, Sender
from hideseek_chat.rules import Size, load_ruleset, new_game
from hideseek_chat.rules.events import GameBegun, PlayerJoined, ZoneFixed
from hideseek_chat.store import handle, make_engine, start_game, unit_of_work_factory
from hideseek_chat.store.models import Base, PingRow
from hideseek_chat.store.uow import UnitOfWorkFactory

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
START = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)
SEEKING_AT = START + timedelta(minutes=31)  # the small game's hiding period is 30 minutes
DEVICE = datetime(2026, 5, 2, 7, 0, tzinfo=UTC)  # the phones' clock: not the game's
STATION = (36.1267339, -97.0643939)
HIDER_AT = (36.12622, -97.06401)  # 67 m from the station: inside the zone
SEEKER_AT = (36.14000, -97.08000)  # about 2 km away
NAMES = ("alice", "bob", "carol")
BLOCK = 250


class Counter:
    """Statements sent to the database and commits, counted by engine events."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.statements = 0
        self.commits = 0
        event.listen(engine, "before_cursor_execute", self._statement)
        event.listen(engine, "commit", self._commit)

    def stop(self) -> None:
        """Stop counting: a listener sends ``first_row`` through SQLAlchemy's result path
        (``store/rawrow.py``), which is not the path the bot takes."""
        event.remove(self.engine, "before_cursor_execute", self._statement)
        event.remove(self.engine, "commit", self._commit)

    def _statement(self, *_: Any) -> None:
        self.statements += 1

    def _commit(self, *_: Any) -> None:
        self.commits += 1

    def read(self) -> tuple[int, int]:
        return self.statements, self.commits


class Game:
    """A small game of three, seeking, its zone fixed: who hides, who seeks."""

    def __init__(self, uow_factory: UnitOfWorkFactory, chat: str, prefix: str) -> None:
        refs = [f"tg:{prefix}{name}" for name in NAMES]
        state, decisions = new_game(load_ruleset("metric"), Size.SMALL, 11, refs[0], "Alice", START)
        game_id = start_game(uow_factory, chat, state, decisions, START)
        assert game_id is not None
        for ref in refs[1:]:
            handle(uow_factory, chat, PlayerJoined(ref, ref[-5:].title()), START)
        handle(uow_factory, chat, GameBegun(refs[0]), START)
        zone = ZoneFixed(None, "bench-station", "Bench Station", *STATION)
        handle(uow_factory, chat, zone, SEEKING_AT)  # the hiding period's end fires first
        with uow_factory() as uow:
            loaded = uow.games.for_chat(chat)
            assert loaded is not None
            state = loaded.state
        hider_team = state.hider_team_id()
        assert hider_team is not None and state.current_round is not None
        assert state.current_round.zone is not None
        self.chat = chat
        self.hider = next(p.ref for p in state.team_players(hider_team))
        self.seeker = next(p.ref for p in state.players if p.team_id != hider_team)


class Updates:
    """Telegram-shaped live-location edits: fresh update ids, edit dates, game times."""

    def __init__(self) -> None:
        self.n = itertools.count(1)
        self.run = uuid.uuid4().hex[:6]

    def edit(self, chat: str, kind: ChatKind, ref: str, where: tuple[float, float]) -> LocationIn:
        n = next(self.n)
        return LocationIn(
            chat=chat,
            kind=kind,
            sender=Sender(ref, "Someone"),
            at=SEEKING_AT + timedelta(milliseconds=10 * n),
            update_id=f"tg:{self.run}{n}",
            message_ref="4242",
            lat=where[0] + (n % 7) * 1e-6,
            lon=where[1],
            accuracy_m=8.0,
            live=True,
            edited=True,
            sent_at=DEVICE + timedelta(seconds=n),
        )


def _quantile(samples: list[float], q: int) -> float:
    return statistics.quantiles(samples, n=100)[q - 1] * 1000


def _measure(engine: Engine, updates: int, games: int) -> None:
    Base.metadata.create_all(engine)
    uow_factory = unit_of_work_factory(engine)
    counter = Counter(engine)
    game = Game(uow_factory, "tg:-100bench", "b")
    conversation = Conversation(uow_factory, seeds=lambda: 11)
    edits = Updates()
    with uow_factory() as uow:
        target = uow.pings.target(game.chat, game.seeker)
    assert target is not None
    table = cast(Table, PingRow.__table__)
    raw = insert(table)

    def floor() -> None:
        n = next(edits.n)
        with engine.begin() as connection:
            connection.execute(
                raw,
                {
                    "game_id": target.game_id,
                    "player_id": target.player_id,
                    "lat": SEEKER_AT[0],
                    "lon": SEEKER_AT[1],
                    "accuracy_m": 8.0,
                    "source": "live",
                    "forwarded": False,
                    "at": SEEKING_AT + timedelta(milliseconds=10 * n),
                    "message_ref": "4242",
                    "sent_at": DEVICE + timedelta(seconds=n),
                },
            )

    def group() -> None:
        conversation.handle(edits.edit(game.chat, ChatKind.GROUP, game.seeker, SEEKER_AT))

    def private() -> None:
        conversation.handle(edits.edit(game.hider, ChatKind.PRIVATE, game.hider, HIDER_AT))

    paths: dict[str, Callable[[], None]] = {"floor": floor, "group": group, "private": private}
    per_update: dict[str, tuple[float, float]] = {}
    for name, run in paths.items():  # warm up; count what one update sends
        for _ in range(100):
            run()
        before = counter.read()
        for _ in range(100):
            run()
        after = counter.read()
        per_update[name] = ((after[0] - before[0]) / 100, (after[1] - before[1]) / 100)
    # What the first edit of a game after a restart sends, counted on games of their own.
    counted = [Game(uow_factory, f"tg:-300{i}", f"c{i}") for i in range(20)]
    before = counter.read()
    fresh = Conversation(uow_factory, seeds=lambda: 11)
    for each in counted:
        fresh.handle(edits.edit(each.chat, ChatKind.GROUP, each.seeker, SEEKER_AT))
    after = counter.read()
    per_update["restart"] = ((after[0] - before[0]) / 20, (after[1] - before[1]) / 20)
    counter.stop()  # timed below without a listener, as the bot runs
    times: dict[str, list[float]] = {name: [] for name in paths}
    cpu: dict[str, float] = dict.fromkeys(paths, 0.0)  # this process's CPU seconds
    done = 0
    while done < updates:  # alternate blocks so every path sees the same conditions
        for name, run in paths.items():
            cpu_began = time.process_time()
            for _ in range(min(BLOCK, updates - done)):
                began = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - began)
            cpu[name] += time.process_time() - cpu_began
        done += BLOCK

    # The first edit of each game after a restart: a new Conversation, nothing cached.
    many = [Game(uow_factory, f"tg:-200{i}", f"g{i}") for i in range(games)]
    restarted = Conversation(uow_factory, seeds=lambda: 11)
    first: list[float] = []
    cpu_began = time.process_time()
    for each in many:
        msg = edits.edit(each.chat, ChatKind.GROUP, each.seeker, SEEKER_AT)
        began = time.perf_counter()
        restarted.handle(msg)
        first.append(time.perf_counter() - began)
    cpu["restart"] = time.process_time() - cpu_began
    times["restart"] = first

    floor_rate = len(times["floor"]) / sum(times["floor"])
    dialect = engine.dialect.name
    for name, samples in times.items():
        rate = len(samples) / sum(samples)
        statements, commits = per_update[name]
        print(
            f"{dialect:<10} {name:<8} {rate:>7,.0f} updates/s  {rate / floor_rate:5.2f} of floor"
            f"  p50 {_quantile(samples, 50):5.2f} ms  p99 {_quantile(samples, 99):5.2f} ms"
            f"  {statements:4.1f} statements + {commits:3.1f} commit"
            f"  {cpu[name] / len(samples) * 1000:4.2f} ms CPU"
        )
    print()


def _postgres(base: str, updates: int, games: int) -> None:
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(base)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in base else "?"
    engine = make_engine(f"{base}{separator}options={quote(f'-csearch_path={schema}')}")
    try:
        _measure(engine, updates, games)
    finally:
        engine.dispose()
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--updates", type=int, default=3000)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument(
        "--postgres", default=os.environ.get("HIDESEEK_BENCH_POSTGRES_URL", DEFAULT_POSTGRES)
    )
    parser.add_argument("--no-sqlite", action="store_true")
    args = parser.parse_args()
    _postgres(args.postgres, args.updates, args.games)
    if not args.no_sqlite:
        with tempfile.TemporaryDirectory() as directory:
            engine = make_engine(f"sqlite:///{Path(directory) / 'bench.sqlite3'}")
            try:
                _measure(engine, args.updates, args.games)
            finally:
                engine.dispose()


if __name__ == "__main__":
    main()
