"""Botnet matches in the store: seats, steps in order, replay, lookups, constraints, cascade."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, column, func, select, table, text
from sqlalchemy.exc import IntegrityError, OperationalError

from hideseek_chat.rules.botnet import (
    ALL_CELLS,
    BotnetEvent,
    DeviceClaimed,
    Ending,
    Match,
    ProxyMoved,
    Resigned,
    Stage,
    apply,
    cell_name,
    new_match,
    other,
    parse_cell,
)
from hideseek_chat.store import UnitOfWorkFactory, make_engine, unit_of_work_factory
from hideseek_chat.store.botnet import MatchRunning, StoredMatch
from hideseek_chat.store.migrate import upgrade
from hideseek_chat.store.models import (
    Base,
    BotnetMatchRow,
    BotnetSeatRow,
    BotnetStatus,
    BotnetStepKind,
    BotnetStepRow,
)
from hideseek_chat.store.types import UTCDateTime

CHAT = "tg:-1001"
OTHER_CHAT = "tg:-1002"
ALICE, BOB = ("tg:11", "Alice"), ("tg:22", "Bob")
CAROL = ("tg:33", "Carol")
START = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def _play(first: int, turns: int) -> list[BotnetEvent]:
    """A legal match of ``turns`` turns that is not over; the third claim skips devices."""
    match = new_match(first)
    events: list[BotnetEvent] = []
    while match.turns < turns:
        seat = match.to_move
        event: BotnetEvent
        if match.stage == Stage.MOVE:
            event = ProxyMoved(seat, match.legal_moves(seat)[0])
        else:
            event = DeviceClaimed(seat, _claimable(match, seat, costly=match.turns == 2))
        match = apply(match, event)
        assert not match.is_over
        events.append(event)
    return events


def _claimable(match: Match, seat: int, costly: bool) -> tuple[int, int]:
    walked = set(match.paths[0]) | set(match.paths[1])
    return next(
        cell
        for cell in ALL_CELLS
        if match.owner(cell) is None
        and cell not in walked
        and (match.skipped(seat, cell) > 0) == costly
    )


def _replayed(first: int, events: list[BotnetEvent]) -> Match:
    match = new_match(first)
    for event in events:
        match = apply(match, event)
    return match


def _create(
    uow_factory: UnitOfWorkFactory,
    chat: str = CHAT,
    seats: tuple[tuple[str, str], tuple[str, str]] = (ALICE, BOB),
    at: datetime = START,
) -> int:
    with uow_factory() as uow:
        match_id = uow.botnet.create(chat, seats, at)
        uow.commit()
    return match_id


def _store_events(uow_factory: UnitOfWorkFactory, match_id: int, events: list[BotnetEvent]) -> None:
    with uow_factory() as uow:
        for index, event in enumerate(events):
            uow.botnet.append(match_id, event.seat, event, START + timedelta(minutes=index))
        uow.commit()


def _get(uow_factory: UnitOfWorkFactory, match_id: int) -> StoredMatch:
    with uow_factory() as uow:
        stored = uow.botnet.get(match_id)
    assert stored is not None
    return stored


def _ids(matches: list[StoredMatch]) -> list[int]:
    return [m.id for m in matches]


def test_a_match_is_stored_and_replays_to_the_match_played_in_memory(
    uow_factory: UnitOfWorkFactory,
) -> None:
    match_id = _create(uow_factory)
    chosen = _get(uow_factory, match_id)
    assert chosen.chat_key == CHAT
    assert (chosen.refs, chosen.names) == (("tg:11", "tg:22"), ("Alice", "Bob"))
    assert (chosen.status, chosen.first_seat, chosen.events) == (BotnetStatus.CHOOSING, None, ())
    assert chosen.match is None
    assert chosen.created_at == START
    assert [chosen.seat_of(ref) for ref in ("tg:11", "tg:22", "tg:33")] == [0, 1, None]

    events = _play(first=1, turns=7)
    assert {type(e) for e in events} == {ProxyMoved, DeviceClaimed}
    played = _replayed(1, events)
    with uow_factory() as uow:
        uow.botnet.start(match_id, 1)
        uow.commit()
    started = _get(uow_factory, match_id)
    assert (started.status, started.first_seat, started.match) == (
        BotnetStatus.PLAYING,
        1,
        new_match(1),
    )

    _store_events(uow_factory, match_id, events)
    stored = _get(uow_factory, match_id)
    assert stored.events == tuple(events)
    assert all(isinstance(e.cell, tuple) for e in stored.events if not isinstance(e, Resigned))
    assert stored.match == played
    assert stored.status == BotnetStatus.PLAYING

    loser = played.to_move
    ending = apply(played, Resigned(loser))
    ended_at = START + timedelta(hours=1)
    with uow_factory() as uow:
        uow.botnet.append(match_id, loser, Resigned(loser), ended_at)
        assert ending.winner is not None and ending.ending is not None
        uow.botnet.finish(match_id, ending.winner, ending.ending, ended_at)
        uow.commit()
    over = _get(uow_factory, match_id)
    assert over.events == (*events, Resigned(loser))
    assert over.match == ending
    assert (over.status, over.winner_seat, over.ending, over.ended_at) == (
        BotnetStatus.OVER,
        other(loser),
        Ending.RESIGNED,
        ended_at,
    )


def test_a_claim_on_the_hidden_proxy_round_trips_as_found(uow_factory: UnitOfWorkFactory) -> None:
    events = _play(first=0, turns=4)
    match = _replayed(0, events)
    seat = match.to_move
    move = ProxyMoved(seat, match.legal_moves(seat)[0])
    match = apply(match, move)
    found = DeviceClaimed(seat, match.proxy(other(seat)))
    match = apply(match, found)
    assert match.ending == Ending.FOUND
    match_id = _create(uow_factory)
    with uow_factory() as uow:
        uow.botnet.start(match_id, 0)
        uow.commit()
    _store_events(uow_factory, match_id, [*events, move, found])
    with uow_factory() as uow:
        uow.botnet.finish(match_id, seat, Ending.FOUND, START)
        uow.commit()
    stored = _get(uow_factory, match_id)
    assert stored.match == match
    assert (stored.winner_seat, stored.ending) == (seat, Ending.FOUND)


def test_steps_come_back_in_seq_order_whatever_order_they_were_written(
    uow_factory: UnitOfWorkFactory,
) -> None:
    events = _play(first=0, turns=5)
    match_id = _create(uow_factory)
    with uow_factory() as uow:
        uow.botnet.start(match_id, 0)
        for seq in range(len(events), 0, -1):  # newest first
            event = events[seq - 1]
            assert not isinstance(event, Resigned)
            kind = BotnetStepKind.MOVE if isinstance(event, ProxyMoved) else BotnetStepKind.CLAIM
            cell = cell_name(event.cell)
            uow.session.add(
                BotnetStepRow(
                    match_id=match_id, seq=seq, seat=event.seat, kind=kind, cell=cell, at=START
                )
            )
            uow.session.flush()
        uow.commit()
    stored = _get(uow_factory, match_id)
    assert stored.events == tuple(events)
    assert stored.match == _replayed(0, events)


def test_append_numbers_the_steps_of_each_match_on_its_own(uow_factory: UnitOfWorkFactory) -> None:
    first, second = _create(uow_factory), _create(uow_factory, OTHER_CHAT, (BOB, CAROL))
    with uow_factory() as uow:
        assert uow.botnet.append(first, 0, ProxyMoved(0, parse_cell("g1")), START) == 1
        assert uow.botnet.append(second, 0, ProxyMoved(0, parse_cell("h2")), START) == 1
        assert uow.botnet.append(first, 0, DeviceClaimed(0, parse_cell("f4")), START) == 2
        uow.commit()
    with uow_factory() as uow:
        rows = uow.session.execute(
            select(
                BotnetStepRow.match_id, BotnetStepRow.seq, BotnetStepRow.kind, BotnetStepRow.cell
            ).order_by(BotnetStepRow.match_id, BotnetStepRow.seq)
        ).all()
    assert [tuple(r) for r in rows] == [
        (first, 1, "move", "g1"),
        (first, 2, "claim", "f4"),
        (second, 1, "move", "h2"),
    ]


def test_append_refuses_an_event_of_the_other_seat(uow_factory: UnitOfWorkFactory) -> None:
    match_id = _create(uow_factory)
    with uow_factory() as uow, pytest.raises(ValueError):
        uow.botnet.append(match_id, 1, ProxyMoved(0, parse_cell("g1")), START)


def test_create_refuses_anything_but_two_different_players(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        with pytest.raises(ValueError):
            uow.botnet.create(CHAT, [ALICE, ALICE], START)
        with pytest.raises(ValueError):
            uow.botnet.create(CHAT, [ALICE], START)


def test_changing_a_missing_match_raises_lookup_error(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        assert uow.botnet.get(404) is None
        with pytest.raises(LookupError):
            uow.botnet.start(404, 0)
        with pytest.raises(LookupError):
            uow.botnet.finish(404, 0, Ending.STUCK, START)


def test_the_active_match_of_a_chat_is_its_newest_not_over(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        assert uow.botnet.active_for_chat(CHAT) is None
        assert uow.botnet.latest_for_chat(CHAT) is None
    older = _create(uow_factory)
    elsewhere = _create(uow_factory, OTHER_CHAT)
    with uow_factory() as uow:
        active = uow.botnet.active_for_chat(CHAT)
        assert active is not None and active.id == older
        uow.botnet.finish(older, 1, Ending.STUCK, START)
        uow.commit()
    newer = _create(uow_factory, seats=(BOB, CAROL))
    with uow_factory() as uow:
        active = uow.botnet.active_for_chat(CHAT)
        latest = uow.botnet.latest_for_chat(CHAT)
        assert active is not None and active.id == newer
        assert latest is not None and latest.id == newer
        uow.botnet.finish(newer, 0, Ending.RESIGNED, START)
        uow.commit()
    with uow_factory() as uow:
        assert uow.botnet.active_for_chat(CHAT) is None
        latest = uow.botnet.latest_for_chat(CHAT)
        assert latest is not None and latest.id == newer and latest.status == BotnetStatus.OVER
        other_chat = uow.botnet.active_for_chat(OTHER_CHAT)
        assert other_chat is not None and other_chat.id == elsewhere


def test_the_active_matches_of_a_person_are_those_not_over_newest_first(
    uow_factory: UnitOfWorkFactory,
) -> None:
    finished = _create(uow_factory, seats=(ALICE, BOB))
    with uow_factory() as uow:
        uow.botnet.finish(finished, 0, Ending.FOUND, START)
        uow.commit()
    playing = _create(uow_factory, seats=(BOB, ALICE))
    choosing = _create(uow_factory, OTHER_CHAT, seats=(ALICE, CAROL))
    with uow_factory() as uow:
        uow.botnet.start(playing, 0)
        uow.commit()
    with uow_factory() as uow:
        alice = uow.botnet.active_for_person(ALICE[0])
        assert _ids(alice) == [choosing, playing]
        assert [m.seat_of(ALICE[0]) for m in alice] == [0, 1]
        assert _ids(uow.botnet.active_for_person(BOB[0])) == [playing]
        assert _ids(uow.botnet.active_for_person(CAROL[0])) == [choosing]
        assert uow.botnet.active_for_person("tg:99") == []


def test_nothing_is_stored_without_commit(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        match_id = uow.botnet.create(CHAT, [ALICE, BOB], START)
        uow.botnet.start(match_id, 0)
        uow.botnet.append(match_id, 0, ProxyMoved(0, parse_cell("g1")), START)
    with uow_factory() as uow:
        assert uow.botnet.get(match_id) is None
        assert uow.botnet.active_for_chat(CHAT) is None


def test_a_match_survives_a_restart(engine: Engine, database_url: str) -> None:
    events = _play(first=1, turns=3)
    uow_factory = unit_of_work_factory(engine)
    match_id = _create(uow_factory)
    with uow_factory() as uow:
        uow.botnet.start(match_id, 1)
        uow.commit()
    _store_events(uow_factory, match_id, events)
    engine.dispose()

    restarted = make_engine(database_url)
    try:
        with unit_of_work_factory(restarted)() as uow:
            stored = uow.botnet.active_for_chat(CHAT, for_update=True)
    finally:
        restarted.dispose()
    assert stored is not None
    assert (stored.id, stored.refs) == (match_id, (ALICE[0], BOB[0]))
    assert (stored.status, stored.first_seat) == (BotnetStatus.PLAYING, 1)
    assert stored.events == tuple(events)
    assert stored.match == _replayed(1, events)


def test_for_update_locks_the_match_row_until_the_unit_of_work_ends(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    match_id = _create(uow_factory)
    other_id = _create(uow_factory, OTHER_CHAT)
    if engine.dialect.name == "sqlite":  # the write lock is the whole database's
        with uow_factory() as uow:
            stored = uow.botnet.active_for_chat(CHAT, for_update=True)
            assert stored is not None and stored.id == match_id
        return

    def lock_is_free(row_id: int) -> bool:
        with engine.connect() as connection:
            try:
                connection.execute(
                    text("SELECT id FROM botnet_matches WHERE id = :id FOR UPDATE NOWAIT"),
                    {"id": row_id},
                )
            except OperationalError:
                return False
            return True

    with uow_factory() as uow:
        assert uow.botnet.active_for_chat(CHAT) is not None
        assert lock_is_free(match_id)
    with uow_factory() as uow:
        assert uow.botnet.active_for_chat(CHAT, for_update=True) is not None
        assert not lock_is_free(match_id)
        assert lock_is_free(other_id)
    with uow_factory() as uow:
        assert uow.botnet.get(match_id, for_update=True) is not None
        assert not lock_is_free(match_id)
    assert lock_is_free(match_id)


def test_a_locked_reload_sees_what_another_unit_of_work_committed(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    if engine.dialect.name == "sqlite":
        pytest.skip("a SQLite unit of work holds the write lock from its first read")
    match_id = _create(uow_factory)
    with uow_factory() as reader:
        assert reader.botnet.get(match_id) is not None
        held = reader.session.get(BotnetMatchRow, match_id)  # kept in the identity map
        assert held is not None and held.status == BotnetStatus.CHOOSING
        assert reader.session.scalars(select(BotnetStepRow)).all() == []
        move = ProxyMoved(1, new_match(1).legal_moves(1)[0])
        with uow_factory() as writer:
            writer.botnet.start(match_id, 1)
            writer.botnet.append(match_id, 1, move, START)
            writer.commit()
        stored = reader.botnet.get(match_id, for_update=True)
    assert stored is not None
    assert (stored.status, stored.first_seat, stored.events) == (BotnetStatus.PLAYING, 1, (move,))
    assert stored.match == _replayed(1, [move])


# ----- the schema itself, as the models build it and as the migrations do -----


@pytest.fixture(params=["models", "migrations"])
def built(request: pytest.FixtureRequest, database_url: str) -> Iterator[Engine]:
    """An engine on a database whose schema the models or the migrations built."""
    if request.param == "migrations":
        upgrade(database_url)
    engine = make_engine(database_url)
    if request.param == "models":
        Base.metadata.create_all(engine)
    try:
        yield engine
    finally:
        engine.dispose()


def _insert(engine: Engine, name: str, values: dict[str, Any]) -> None:
    """Insert raw values, past the ORM's own checks, so only the database can refuse."""
    columns = [
        column(k, UTCDateTime() if isinstance(v, datetime) else None) for k, v in values.items()
    ]
    with engine.begin() as connection:
        connection.execute(table(name, *columns).insert().values(**values))


def _match_values() -> dict[str, Any]:
    return {"chat_key": CHAT, "created_at": START, "status": "playing", "first_seat": 0}


def _raw_match(engine: Engine) -> int:
    """A running match of its own chat (a chat runs one match at a time)."""
    with engine.connect() as connection:
        count = int(connection.scalar(text("SELECT count(*) FROM botnet_matches")) or 0)
    _insert(engine, "botnet_matches", _match_values() | {"chat_key": f"tg:-{100 + count}"})
    with engine.connect() as connection:
        return int(connection.scalar(text("SELECT max(id) FROM botnet_matches")) or 0)


def _seat_values(match_id: int) -> dict[str, Any]:
    return {"match_id": match_id, "seat": 0, "person_ref": "tg:11", "name": "Alice"}


def _step_values(match_id: int) -> dict[str, Any]:
    return {"match_id": match_id, "seq": 1, "seat": 0, "kind": "move", "cell": "g1", "at": START}


REFUSED = [
    ("botnet_matches", {"status": "paused"}),
    ("botnet_matches", {"first_seat": 2}),
    ("botnet_matches", {"winner_seat": -1}),
    ("botnet_matches", {"ending": "draw"}),
    ("botnet_seats", {"seat": 2}),
    ("botnet_steps", {"seat": 2}),
    ("botnet_steps", {"kind": "jump"}),
    ("botnet_steps", {"kind": "claim", "cell": None}),
    ("botnet_steps", {"kind": "resign", "cell": "g1"}),
]
ACCEPTED = [
    ("botnet_matches", {"status": "choosing", "first_seat": None}),
    ("botnet_matches", {"status": "over", "winner_seat": 1, "ending": "stuck"}),
    ("botnet_seats", {"seat": 1}),
    ("botnet_steps", {"kind": "claim", "seat": 1}),
    ("botnet_steps", {"kind": "resign", "cell": None}),
]


def _values(engine: Engine, name: str, change: dict[str, Any]) -> dict[str, Any]:
    if name == "botnet_matches":
        return _match_values() | change
    base = _seat_values if name == "botnet_seats" else _step_values
    return base(_raw_match(engine)) | change


@pytest.mark.parametrize(("name", "change"), REFUSED)
def test_the_database_refuses_a_bad_seat_status_kind_or_cell(
    built: Engine, name: str, change: dict[str, Any]
) -> None:
    values = _values(built, name, change)
    with pytest.raises(IntegrityError):
        _insert(built, name, values)


@pytest.mark.parametrize(("name", "change"), ACCEPTED)
def test_the_database_accepts_good_rows(built: Engine, name: str, change: dict[str, Any]) -> None:
    _insert(built, name, _values(built, name, change))
    with built.connect() as connection:
        assert connection.scalar(text(f"SELECT count(*) FROM {name}")) == 1


def test_a_person_holds_one_seat_of_a_match(built: Engine) -> None:
    match_id = _raw_match(built)
    _insert(built, "botnet_seats", _seat_values(match_id))
    with pytest.raises(IntegrityError):
        _insert(built, "botnet_seats", _seat_values(match_id) | {"seat": 1})
    _insert(built, "botnet_seats", _seat_values(_raw_match(built)))  # another match: fine


def test_deleting_a_match_deletes_its_seats_and_steps(built: Engine) -> None:
    uow_factory = unit_of_work_factory(built)
    gone, kept = _create(uow_factory), _create(uow_factory, OTHER_CHAT)
    for match_id in (gone, kept):
        _store_events(uow_factory, match_id, [ProxyMoved(0, parse_cell("g1")), Resigned(1)])
    with built.begin() as connection:
        connection.execute(text("DELETE FROM botnet_matches WHERE id = :id"), {"id": gone})
    with built.connect() as connection:
        seats = connection.execute(
            select(BotnetSeatRow.match_id, func.count()).group_by(BotnetSeatRow.match_id)
        ).all()
        steps = connection.execute(
            select(BotnetStepRow.match_id, func.count()).group_by(BotnetStepRow.match_id)
        ).all()
    assert [tuple(r) for r in seats] == [(kept, 2)]
    assert [tuple(r) for r in steps] == [(kept, 2)]
    with unit_of_work_factory(built)() as uow:
        assert uow.botnet.get(gone) is None
        stored = uow.botnet.get(kept)
    assert stored is not None and stored.events == (ProxyMoved(0, (6, 0)), Resigned(1))


def test_0004_downgrades_to_no_botnet_tables_and_upgrades_again(database_url: str) -> None:
    from alembic import command
    from sqlalchemy import inspect

    from hideseek_chat.store.migrate import alembic_config

    botnet_tables = {"botnet_matches", "botnet_seats", "botnet_steps"}
    engine = make_engine(database_url)
    try:
        upgrade(database_url)
        assert botnet_tables <= set(inspect(engine).get_table_names())
        command.downgrade(alembic_config(database_url), "0003")
        assert not botnet_tables & set(inspect(engine).get_table_names())
        upgrade(database_url)
        assert botnet_tables <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_a_chat_has_one_running_match_at_most(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        first = uow.botnet.create("tg:-5", [ALICE, BOB], START)
        uow.commit()
    with uow_factory() as uow, pytest.raises(MatchRunning):
        uow.botnet.create("tg:-5", [ALICE, BOB], START)
    with uow_factory() as uow:
        uow.botnet.create("tg:-6", [ALICE, BOB], START)  # another chat is another matter
        uow.botnet.finish(first, 0, Ending.RESIGNED, START)
        second = uow.botnet.create("tg:-5", [ALICE, BOB], START)  # the first one is over
        uow.commit()
    with uow_factory() as uow:
        running = uow.botnet.active_for_chat("tg:-5")
        assert running is not None and running.id == second
