"""Reading a player's pings: the pin before a moment, every player's newest, and how the
reads scale with a long game's history (PostgreSQL's plans), notices to a player included."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, event, func, insert, select, text

from hideseek_chat.rules import Size, load_ruleset, new_game
from hideseek_chat.rules.events import PlayerJoined
from hideseek_chat.store import handle, ping_sql, start_game
from hideseek_chat.store.models import OutboxRow, PingRow
from hideseek_chat.store.rawrow import _compile
from hideseek_chat.store.uow import UnitOfWorkFactory

START = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)


def _game(uow_factory: UnitOfWorkFactory, chat: str) -> tuple[int, list[int]]:
    """A game of three in ``chat``: its id and its players' ids."""
    refs = [f"{chat}:a", f"{chat}:b", f"{chat}:c"]
    state, decisions = new_game(load_ruleset("metric"), Size.SMALL, 7, refs[0], "A", START)
    game_id = start_game(uow_factory, chat, state, decisions, START)
    assert game_id is not None
    for ref in refs[1:]:
        handle(uow_factory, chat, PlayerJoined(ref, ref[-1].upper()), START)
    players = []
    with uow_factory() as uow:
        for ref in refs:
            target = uow.pings.target(chat, ref)
            assert target is not None
            players.append(target.player_id)
    return game_id, players


def test_before_is_the_newest_stored_at_or_before(uow_factory: UnitOfWorkFactory) -> None:
    game_id, (a, b, _) = _game(uow_factory, "tg:-1")
    # Game times in the order stored; the clock went back once (a restart of a fast clock).
    times = [0, 10, 20, 5, 30]
    with uow_factory() as uow:
        for n, minutes in enumerate(times):
            uow.pings.add(game_id, a, 1.0 + n, 2.0, START + timedelta(minutes=minutes))
        uow.pings.add(game_id, b, 9.0, 9.0, START + timedelta(minutes=1))
        uow.commit()
    with uow_factory() as uow:
        at = uow.pings.before
        assert at(game_id, a, START + timedelta(minutes=25)).lat == 4.0  # type: ignore[union-attr]
        # 20 min was stored before the 5 min pin: the newest stored that is old enough wins
        assert at(game_id, a, START + timedelta(minutes=12)).lat == 4.0  # type: ignore[union-attr]
        assert at(game_id, a, START + timedelta(minutes=4)).lat == 1.0  # type: ignore[union-attr]
        assert at(game_id, a, START - timedelta(minutes=1)) is None
        assert at(game_id, b, START + timedelta(minutes=30)).lat == 9.0  # type: ignore[union-attr]


def test_before_after_record_reads_what_the_database_holds(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """``record`` remembers a player's newest pings in its unit of work; ``before`` answers
    from them only what the stored pings answer."""
    game_id, (a, _, _) = _game(uow_factory, "tg:-2")
    with uow_factory() as uow:
        for minutes in (0, 10, 20):
            uow.pings.add(game_id, a, float(minutes), 0.0, START + timedelta(minutes=minutes))
        uow.commit()
    moments = [START + timedelta(minutes=m) for m in (-1, 5, 15, 25, 35)]
    with uow_factory() as uow:
        recorded = uow.pings.record("tg:-2", "tg:-2:a", 30.0, 0.0, START + timedelta(minutes=30))
        assert recorded is not None and recorded.stored
        remembered = [uow.pings.before(game_id, a, moment) for moment in moments]
        uow.commit()
    with uow_factory() as uow:
        stored = [uow.pings.before(game_id, a, moment) for moment in moments]
    assert [p.lat if p else None for p in remembered] == [None, 0.0, 10.0, 20.0, 30.0]
    assert [p.lat if p else None for p in stored] == [None, 0.0, 10.0, 20.0, 30.0]


def test_newest_of_each_player(uow_factory: UnitOfWorkFactory) -> None:
    game_id, (a, b, c) = _game(uow_factory, "tg:-3")
    other_id, (x, _, _) = _game(uow_factory, "tg:-4")
    with uow_factory() as uow:
        uow.pings.add(game_id, a, 1.0, 0.0, START)
        uow.pings.add(game_id, b, 2.0, 0.0, START)
        uow.pings.add(other_id, x, 5.0, 0.0, START + timedelta(minutes=9))
        uow.pings.add(game_id, a, 3.0, 0.0, START - timedelta(minutes=1))  # stored later
        uow.commit()
    with uow_factory() as uow:
        newest = uow.pings.newest(game_id)
    assert {player: ping.lat for player, ping in newest.items()} == {a: 3.0, b: 2.0}
    assert c not in newest


def test_record_alone_stores_only_in_the_one_unfinished_game(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    """A private location is about the sender's only unfinished game: ``record_alone``
    finds it with the ping (PostgreSQL), and stores nothing for a person in several games
    or none, whose chat layer must ask or refuse (and everywhere else)."""
    game_id, (a, _, _) = _game(uow_factory, "tg:-5")
    count = lambda: _pings(uow_factory, game_id)  # noqa: E731
    with uow_factory() as uow:
        alone = uow.pings.record_alone("tg:-5:a", 1.0, 2.0, START, message_ref="m", sent_at=START)
        nobody = uow.pings.record_alone("tg:-5:nobody", 1.0, 2.0, START)
        uow.commit()
    assert nobody is None
    if engine.dialect.name != "postgresql":
        assert alone is None and count() == 0  # the chat layer finds the game first
        return
    assert alone is not None and alone.stored and alone.chat == ("tg:-5", None)
    assert (alone.target.game_id, alone.target.player_id) == (game_id, a)
    with uow_factory() as uow:
        assert alone.target == uow.pings.target("tg:-5", "tg:-5:a")
        again = uow.pings.record_alone("tg:-5:a", 1.0, 2.0, START, message_ref="m", sent_at=START)
        uow.commit()
    assert again is not None and not again.stored and count() == 1  # this version is stored
    # A in a second game too: no game is "the" game, nothing is stored.
    other_id, _ = _game(uow_factory, "tg:-6")
    handle(uow_factory, "tg:-6", PlayerJoined("tg:-5:a", "A"), START)
    with uow_factory() as uow:
        later = START + timedelta(minutes=1)
        assert uow.pings.record_alone("tg:-5:a", 1.0, 2.0, later, sent_at=later) is None
        uow.commit()
    assert count() == 1 and _pings(uow_factory, other_id) == 0


def _pings(uow_factory: UnitOfWorkFactory, game_id: int) -> int:
    """How many pings ``game_id`` has stored."""
    with uow_factory() as uow:
        counted = select(func.count()).select_from(PingRow).where(PingRow.game_id == game_id)
        return int(uow.session.scalar(counted) or 0)


@pytest.mark.postgres
def test_a_long_history_is_read_through_the_player_index(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    """Ten games whose pings interleave, 24,000 kept: every read of one player's pings walks
    that player's entries of the (game, player, id) index, never the table's primary key
    back from the newest ping of all (PostgreSQL chose that for an equality on the player,
    to the table's first row for a player without pings), and the newer-version check of a
    ping reads one entry of the unique index."""
    if engine.dialect.name != "postgresql":
        pytest.skip("the plans of PostgreSQL")
    games = [_game(uow_factory, f"tg:-5{i}") for i in range(10)]
    rows: list[dict[str, Any]] = []
    for n in range(1200):
        for game_id, players in games:
            for player_id in players[:2]:  # the third player of each game never pings
                at = START + timedelta(seconds=3 * n)
                rows.append(
                    {
                        "game_id": game_id,
                        "player_id": player_id,
                        "lat": 1.0,
                        "lon": 2.0,
                        "source": "live",
                        "forwarded": False,
                        "at": at,
                        "message_ref": "1",
                        "sent_at": at,
                    }
                )
    with engine.begin() as connection:
        connection.execute(insert(PingRow), rows)
        connection.execute(text("ANALYZE location_pings"))
    game_id, (first, _, silent) = games[0]
    early = START + timedelta(minutes=5)
    reads: dict[str, tuple[Any, dict[str, Any]]] = {
        "last": (ping_sql.LAST, {"game": game_id, "player": silent, "n": 2}),
        "before": (ping_sql.BEFORE_AT, {"game": game_id, "player": first, "at": early}),
        "newest": (ping_sql.NEWEST["postgresql"], {"game": game_id}),
    }
    with engine.connect() as connection:
        cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
        for name, (statement, values) in reads.items():
            compiled = _compile(statement, engine.dialect)
            params = compiled.construct(values)
            for bind, processor in compiled.binds:
                params[bind] = processor(params[bind])
            cursor.execute("EXPLAIN " + compiled.sql, params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert "ix_location_pings_game_id_player_id_id" in plan, (name, plan)
            assert "pk_location_pings" not in plan, (name, plan)
        insert_ping = _compile(ping_sql.INSERT["postgresql"], engine.dialect)
        params = insert_ping.construct(
            {**rows[0], "player_id": first, "accuracy_m": None, "speed_kmh": None}
        )
        for bind, processor in insert_ping.binds:
            params[bind] = processor(params[bind])
        cursor.execute("EXPLAIN " + insert_ping.sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
        assert "Index Only Scan Backward using uq_location_pings" in plan, plan
    with uow_factory() as uow:
        newest = uow.pings.newest(game_id)
        assert set(newest) == {first, games[0][1][1]}
        before = uow.pings.before(game_id, first, early)
        assert before is not None and before.at == early
        assert uow.pings.before(game_id, silent, early) is None


@pytest.mark.postgres
def test_what_a_player_was_told_is_found_through_an_index(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    """``Outbox.notified_since`` (asked each minute for every quiet live location) reads an
    index of (game, player, time), not every notice of every game the outbox keeps."""
    if engine.dialect.name != "postgresql":
        pytest.skip("the plans of PostgreSQL")
    game_id, (first, _, _) = _game(uow_factory, "tg:-6")
    notices: list[dict[str, Any]] = [
        {
            "game_id": game_id,
            "kind": "Notify",
            "audience_kind": "group",
            "key": "game.news",
            "params": "{}",
            "created_at": START + timedelta(seconds=n),
            "sent_at": START + timedelta(seconds=n),
        }
        for n in range(20_000)
    ]
    with engine.begin() as connection:
        connection.execute(insert(OutboxRow), notices)
        connection.execute(text("ANALYZE outbox"))
    sent: list[tuple[str, Any]] = []

    def remember(conn: Any, cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        sent.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", remember)
    try:
        with uow_factory() as uow:
            asked = ("chat.live_ended", "chat.live_quiet")
            assert not uow.outbox.notified_since(game_id, first, asked, START)
    finally:
        event.remove(engine, "before_cursor_execute", remember)
    statement, parameters = next((s, p) for s, p in sent if "FROM outbox" in s)
    with engine.connect() as connection:
        cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
        cursor.execute("EXPLAIN " + statement, parameters)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "ix_outbox_game_id_audience_player_id" in plan, plan
    assert "Seq Scan" not in plan, plan
