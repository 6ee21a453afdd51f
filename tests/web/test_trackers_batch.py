"""Tracker pings stored together (issue 20's speed): ``Conversation.handle_trackers`` keeps
each ping's answer what it would be alone, and a ping that fails sinks nothing else; the
web side groups the pings that wait while a batch is being stored, and hands each request
its own outcome."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any, cast

import pytest
from sqlalchemy import Engine, event, select

from hideseek_chat.chat.drive import Capabilities, Driver
from hideseek_chat.chat.handlers import pins
from hideseek_chat.chat.model import ChatKind, Outbound, Sender, TrackerIn
from hideseek_chat.chat.turn import Turn
from hideseek_chat.console.table import Table
from hideseek_chat.store import UnitOfWorkFactory, trackers
from hideseek_chat.store.models import PingRow
from hideseek_chat.store.pings import Recorded
from hideseek_chat.store.trackers import token_hash
from hideseek_chat.web.trackers import DriverIngest
from tests.chat.play import SEEKERS_START, begin
from tests.chat.test_play_two_games import FIRST, SECOND, game_id_in, pings_in, two_games
from tests.web.trackers_server import token_of, tracker_table

FAILING_LAT = 12.345


def ping(at: datetime, lat: float = SEEKERS_START[0]) -> TrackerIn:
    return TrackerIn(
        chat="",
        kind=ChatKind.PRIVATE,
        sender=Sender("", ""),
        at=at,
        lat=lat,
        lon=SEEKERS_START[1],
        accuracy_m=8.0,
        live=True,
        edited=True,
        sent_at=at,
        app="traccar",
        speed_kmh=3.0,
    )


def stored(uow_factory: UnitOfWorkFactory, table: Table, name: str) -> int:
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        player = loaded.state.player_by_ref(table.people[name.lower()].ref)
        assert player is not None
        return len(uow.pings.last(loaded.id, player.id, 50))


def seekers_with_trackers(uow_factory: UnitOfWorkFactory) -> tuple[Table, list[str], list[str]]:
    """A game two minutes into hiding; its seekers' names and their tokens' hashes."""
    table = tracker_table(uow_factory, 9)
    _hider, seekers = begin(table)
    hashes = [token_hash(token_of(table, name)) for name in seekers]
    table.wait(timedelta(minutes=2))
    return table, seekers, hashes


def test_a_batch_answers_each_ping_as_it_would_be_answered_alone(
    uow_factory: UnitOfWorkFactory,
) -> None:
    table, (s1, s2), (first, second) = seekers_with_trackers(uow_factory)
    now = table.now
    answers = table.conversation.handle_trackers(
        [
            (ping(now), first),
            (ping(now), token_hash("x" * 32)),  # no such token
            (ping(now), second),
            (ping(now), first),  # the same fix again: not stored twice
            (ping(now + timedelta(seconds=5)), first),  # a newer one
        ]
    )
    assert answers == [[], None, [], [], []]
    assert stored(uow_factory, table, s1) == 2
    assert stored(uow_factory, table, s2) == 1


def test_a_ping_that_fails_sinks_nothing_else(
    uow_factory: UnitOfWorkFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, (s1, s2), (first, second) = seekers_with_trackers(uow_factory)
    after_record = pins._after_record  # what every stored ping goes through

    def failing(turn: Turn, recorded: Recorded, lat: float, lon: float) -> list[Outbound]:
        if lat == FAILING_LAT:
            raise RuntimeError("broken handler")
        return after_record(turn, recorded, lat, lon)

    monkeypatch.setattr(pins, "_after_record", failing)
    answers = table.conversation.handle_trackers(
        [(ping(table.now), first), (ping(table.now, FAILING_LAT), second)]
    )
    assert answers[0] == []
    assert isinstance(answers[1], RuntimeError)
    assert stored(uow_factory, table, s1) == 1, "the good ping is kept"
    assert stored(uow_factory, table, s2) == 0, "the failed one changed nothing"


class Recording:
    """A conversation that records the batches it is handed; a ping at ``FAILING_LAT``
    fails, one whose chat says "unknown" has no holder."""

    def __init__(self) -> None:
        self.batches: list[int] = []
        self.maybe_pending = False

    def handle_trackers(self, pings: Sequence[tuple[TrackerIn, str]]) -> list[Any]:
        self.batches.append(len(pings))
        return [
            RuntimeError("broken")
            if msg.lat == FAILING_LAT
            else None
            if hashed == "unknown"
            else []
            for msg, hashed in pings
        ]


def test_waiting_pings_go_together_and_each_request_hears_its_own_outcome() -> None:
    conversation = Recording()

    async def perform(actions: object, now: datetime) -> bool:
        return True

    channel = SimpleNamespace(perform=perform, capabilities=Capabilities())
    with ThreadPoolExecutor(2) as threads:
        driver = cast(
            Driver, SimpleNamespace(conversation=conversation, channel=channel, threads=threads)
        )
        ingest = DriverIngest(lambda: driver, batch=4, in_flight=1)
        now = datetime(2026, 5, 1, 12, 0)

        async def all_at_once() -> list[Any]:
            sent = [ping(now, FAILING_LAT if n == 3 else 50.0) for n in range(7)]
            hashes = ["unknown" if n == 5 else f"h{n}" for n in range(7)]
            return await asyncio.gather(
                *(ingest.receive(msg, hashed) for msg, hashed in zip(sent, hashes, strict=True)),
                return_exceptions=True,
            )

        outcomes = asyncio.run(all_at_once())
    # All seven wait before the writer runs: four at most, then the other three.
    assert conversation.batches == [4, 3]
    assert outcomes[:3] == [True, True, True]
    assert isinstance(outcomes[3], RuntimeError)
    assert outcomes[4:] == [True, False, True]


def test_a_ping_is_one_statement_with_its_token_on_postgresql(
    uow_factory: UnitOfWorkFactory, engine: Engine
) -> None:
    """The token's check, its last-heard note and the ping go in one statement when the
    holder plays in one game (``Pings.record_tracked``); the ping is stored once, and a
    revoked token stores nothing."""
    table, (s1, _), (first, _) = seekers_with_trackers(uow_factory)
    conversation = table.conversation
    assert conversation.handle_tracker(ping(table.now), first) == []  # the state is cached
    statements: list[str] = []

    def count(_c: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    later = table.now + timedelta(seconds=5)
    event.listen(engine, "before_cursor_execute", count)
    try:
        assert conversation.handle_tracker(ping(later), first) == []
    finally:
        event.remove(engine, "before_cursor_execute", count)
    if engine.dialect.name == "postgresql":
        assert len(statements) == 1, statements
    assert conversation.handle_tracker(ping(later), first) == []  # the same fix again
    assert stored(uow_factory, table, s1) == 2
    with uow_factory() as uow:
        tracker = uow.trackers.active(table.people[s1.lower()].ref)
        versions = set(uow.session.scalars(select(PingRow.message_ref)))
    assert tracker is not None and tracker.last_heard_at == later
    assert f"trk:{tracker.id}" in versions  # a device's fixes are versions of one "message"
    table.send(s1, "/tracker off", private=True)
    assert conversation.handle_tracker(ping(later + timedelta(seconds=5)), first) is None
    assert stored(uow_factory, table, s1) == 2


def test_a_token_found_by_a_looser_match_than_its_hash_writes_nothing(
    uow_factory: UnitOfWorkFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Were the database to find a token's row by a loose match (a collation), the hashes'
    comparison refuses it and what the statement wrote is rolled back."""
    table, (s1, _), (first, _) = seekers_with_trackers(uow_factory)
    monkeypatch.setattr(trackers, "checked", lambda row, hashed: None)
    assert table.conversation.handle_tracker(ping(table.now), first) is None
    assert stored(uow_factory, table, s1) == 0
    with uow_factory() as uow:
        tracker = uow.trackers.active(table.people[s1.lower()].ref)
    assert tracker is not None and tracker.last_heard_at is None


def test_a_holder_in_two_games_feeds_the_newest_unless_they_chose(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """Someone in two games: their tracker feeds the game their private messages are about
    (the newest, unless they chose one), never both."""
    table = tracker_table(uow_factory, 9)
    table.person("Dave")
    table.person("Erin")
    two_games(table)
    hashed = token_hash(token_of(table, "Alice"))
    conversation = table.conversation
    assert conversation.handle_tracker(ping(table.now), hashed) == []
    assert (pings_in(uow_factory, FIRST), pings_in(uow_factory, SECOND)) == (0, 1)
    game_id = game_id_in(uow_factory, FIRST)
    with uow_factory() as uow:
        uow.chats.choose_game(table.people["alice"].ref, game_id)
        uow.commit()
    assert conversation.handle_tracker(ping(table.now + timedelta(seconds=5)), hashed) == []
    assert (pings_in(uow_factory, FIRST), pings_in(uow_factory, SECOND)) == (1, 1)
