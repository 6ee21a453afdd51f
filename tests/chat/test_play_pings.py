"""Location pings are stored once per (message, edit date), an older version never replaces a
newer one, and order inside a game is a sequence, not a clock (issue 18, item 6).

Locations here arrive as the Telegram adapter hands them over: a live location is one
message (``message_ref``) whose versions carry the device's edit date (``sent_at``), each in
an update of its own; the game's clock (``at``) is the bot's.
"""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, event, func, select

from hideseek_chat.chat.model import ChatKind, LocationIn, Sender
from hideseek_chat.console.table import Table
from hideseek_chat.rules.state import Phase
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.models import InboxRow, PingRow
from tests.chat.play import SEEKERS_START, events_count, state_of
from tests.chat.test_play_catch import HIDER_SPOT, seeking, walk_into_zone

_updates = itertools.count(1)
#: the device's clock, which has nothing to do with the game's
DEVICE = datetime.fromisoformat("2026-05-02T07:00:00+00:00")


def edit(
    table: Table,
    name: str,
    message: str,
    sent_at: datetime,
    where: tuple[float, float],
    *,
    private: bool = False,
) -> None:
    """A version of ``name``'s live location ``message`` in the group (or their private
    chat), in an update of its own."""
    who = table.people[name.lower()]
    table.deliver(
        LocationIn(
            chat=who.ref if private else table.group,
            kind=ChatKind.PRIVATE if private else ChatKind.GROUP,
            sender=Sender(who.ref, who.name),
            at=table.now,
            update_id=f"tg-test:{next(_updates)}",
            message_ref=message,
            lat=where[0],
            lon=where[1],
            accuracy_m=10.0,
            live=True,
            edited=True,
            sent_at=sent_at,
        )
    )


def pings_of(uow_factory: UnitOfWorkFactory, table: Table, name: str) -> list[tuple[float, float]]:
    """``name``'s stored pings, oldest first."""
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        player = loaded.state.player_by_ref(table.people[name.lower()].ref)
        assert player is not None
        rows = uow.session.execute(
            select(PingRow.lat, PingRow.lon)
            .where(PingRow.game_id == loaded.id, PingRow.player_id == player.id)
            .order_by(PingRow.id)
        )
        return [(lat, lon) for lat, lon in rows]


def latest(uow_factory: UnitOfWorkFactory, table: Table, name: str) -> tuple[float, float]:
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        player = loaded.state.player_by_ref(table.people[name.lower()].ref)
        assert player is not None
        (ping,) = uow.pings.last(loaded.id, player.id)
        return ping.lat, ping.lon


def test_a_redelivered_edit_is_stored_once(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    _, (s1, _) = seeking(table, uow_factory)
    before = len(pings_of(uow_factory, table, s1))
    table.wait(timedelta(minutes=1))
    edit(table, s1, "m-1", DEVICE, SEEKERS_START)
    table.wait(timedelta(seconds=30))
    # The same version again, in another update (a second worker, a resent edit).
    edit(table, s1, "m-1", DEVICE, SEEKERS_START)
    edit(table, s1, "m-1", DEVICE, SEEKERS_START)
    assert len(pings_of(uow_factory, table, s1)) == before + 1
    # A new version of the same message is a new ping.
    edit(table, s1, "m-1", DEVICE + timedelta(seconds=20), (SEEKERS_START[0] + 0.001, -97.08))
    assert len(pings_of(uow_factory, table, s1)) == before + 2


def test_the_hiders_private_edits_are_stored_once_each_in_one_statement(
    table: Table, uow_factory: UnitOfWorkFactory, engine: Engine
) -> None:
    """A hider's live location is shared in private: the game is found from the person
    with the ping (``Pings.record_alone``), one statement with its inbox row on PostgreSQL;
    a redelivered version is stored once and a new one is a new ping."""
    hider, _ = seeking(table, uow_factory)
    before = len(pings_of(uow_factory, table, hider))
    statements: list[str] = []

    def count(_c: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    table.wait(timedelta(seconds=30))
    event.listen(engine, "before_cursor_execute", count)
    try:
        edit(table, hider, "h-1", DEVICE, HIDER_SPOT, private=True)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    if engine.dialect.name == "postgresql":
        assert len(statements) == 1, statements
    edit(table, hider, "h-1", DEVICE, HIDER_SPOT, private=True)  # redelivered elsewhere
    assert len(pings_of(uow_factory, table, hider)) == before + 1
    edit(table, hider, "h-1", DEVICE + timedelta(seconds=20), HIDER_SPOT, private=True)
    assert len(pings_of(uow_factory, table, hider)) == before + 2


def test_a_late_older_edit_leaves_the_position_and_the_catch_alone(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, s2) = seeking(table, uow_factory)
    walk_into_zone(table, s1)
    assert state_of(uow_factory, table).phase == Phase.END_GAME
    near = (HIDER_SPOT[0] + 0.00001, HIDER_SPOT[1])
    # s2's live location: far away, then next to the hider.
    table.wait(timedelta(minutes=1))
    edit(table, s2, "m-2", DEVICE, SEEKERS_START)
    table.wait(timedelta(minutes=2))
    edit(table, s2, "m-2", DEVICE + timedelta(minutes=2), near)
    stored = pings_of(uow_factory, table, s2)
    events = events_count(uow_factory)
    # Late: an edit made in between (far away), and the first version redelivered.
    table.wait(timedelta(seconds=30))
    edit(table, s2, "m-2", DEVICE + timedelta(minutes=1), SEEKERS_START)
    edit(table, s2, "m-2", DEVICE, SEEKERS_START)
    assert latest(uow_factory, table, s2) == near
    assert pings_of(uow_factory, table, s2) == stored, "an older version is not the position"
    assert events_count(uow_factory) == events
    # /found is judged from where s2 is: the claim goes to the hider, not refused as far.
    mark = table.mark()
    table.send(s2, "/found")
    assert not any("nowhere near" in line.text for line in table.said(s2, since=mark))
    assert "says they've found you" in table.said(hider)[-1].text


def test_a_late_older_edit_in_the_zone_starts_nothing(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    _, (s1, _) = seeking(table, uow_factory)
    table.wait(timedelta(minutes=10))
    edit(table, s1, "m-3", DEVICE + timedelta(minutes=5), SEEKERS_START)
    events = events_count(uow_factory)
    # Two versions from before, in the zone at a walking pace, arrive late: they are history.
    table.wait(timedelta(minutes=1))
    edit(table, s1, "m-3", DEVICE + timedelta(minutes=3), (36.12850, -97.06500))
    table.wait(timedelta(minutes=1))
    edit(table, s1, "m-3", DEVICE + timedelta(minutes=4), (36.12800, -97.06470))
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    assert events_count(uow_factory) == events
    assert latest(uow_factory, table, s1) == SEEKERS_START


def test_after_a_fast_clock_restarts_the_newest_ping_is_the_last_stored(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    _, (s1, _) = seeking(table, uow_factory)
    table.wait(timedelta(minutes=5))
    table.pin(s1, *SEEKERS_START)
    # The process restarts: a fast clock is anchored anew and game time jumps back an hour.
    table.now -= timedelta(hours=1)
    moved = (SEEKERS_START[0] + 0.002, SEEKERS_START[1])
    table.pin(s1, *moved)
    assert latest(uow_factory, table, s1) == moved


def test_a_hiders_notice_goes_to_this_rounds_hiders_after_the_clock_ran_back(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, s2) = seeking(table, uow_factory)
    walk_into_zone(table, s1)
    table.pin(s1, HIDER_SPOT[0] + 0.00001, HIDER_SPOT[1])
    table.send(s1, "/found")
    table.press(hider, "Yes, they found me")
    table.send("Alice", "/next")
    table.wait(timedelta(minutes=31))  # round 2 is seeking, with another hider
    state = state_of(uow_factory, table)
    assert len(state.rounds) == 2 and state.phase == Phase.SEEKING
    hider2 = next(p.name for p in state.team_players(state.rounds[1].hider_team_id))
    assert hider2 != hider
    seeker = next(n for n in (s1, s2, hider) if n != hider2 and n != hider)
    # A restart of the fast clock: game time is back before round 2 began.
    started = state.rounds[1].hiding_started_at
    assert started is not None
    table.now = started - timedelta(minutes=5)
    with uow_factory() as uow:
        before = uow.session.scalar(select(func.count()).select_from(PingRow))
    mark = table.mark()
    table.send(seeker, "/ask radar 1km")
    asked = [line for line in table.said(hider2, since=mark) if "radar" in line.text.lower()]
    assert asked, "the round's hider is asked"
    assert not [
        line for line in table.said(hider, since=mark) if "Answer" in line.text
    ], "last round's hider is a seeker now and must not get the hiders' question"
    with uow_factory() as uow:
        assert uow.session.scalar(select(func.count()).select_from(PingRow)) == before


# ----------------------------------------------------------------- the inbox row goes with it


def _located(table: Table, name: str, update_id: str, *, private: bool = False) -> LocationIn:
    who = table.people[name.lower()]
    return LocationIn(
        chat=who.ref if private else table.group,
        kind=ChatKind.PRIVATE if private else ChatKind.GROUP,
        sender=Sender(who.ref, who.name),
        at=table.now,
        update_id=update_id,
        message_ref="m-9",
        lat=SEEKERS_START[0],
        lon=SEEKERS_START[1],
        accuracy_m=10.0,
        live=True,
        edited=True,
        sent_at=DEVICE,
    )


def _inbox(uow_factory: UnitOfWorkFactory, update_id: str) -> tuple[str, str | None, int] | None:
    with uow_factory() as uow:
        row = uow.session.execute(
            select(InboxRow.status, InboxRow.payload, InboxRow.attempts).where(
                InboxRow.update_id == update_id
            )
        ).first()
        return None if row is None else (str(row[0]), row[1], row[2])


def test_a_location_update_delivered_twice_is_applied_once(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    _, (s1, _) = seeking(table, uow_factory)
    before = len(pings_of(uow_factory, table, s1))
    msg = _located(table, s1, "tg-test:twice")
    table.deliver(msg)
    table.deliver(msg)
    assert len(pings_of(uow_factory, table, s1)) == before + 1
    assert _inbox(uow_factory, "tg-test:twice") == ("applied", None, 1)


def test_a_stored_location_update_is_taken_over_and_applied_once(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    _, (s1, _) = seeking(table, uow_factory)
    before = len(pings_of(uow_factory, table, s1))
    conversation = table.conversation
    assert conversation.store_updates([("tg-test:polled", table.group, "{}")], table.now)
    assert _inbox(uow_factory, "tg-test:polled") == ("pending", "{}", 0)
    msg = _located(table, s1, "tg-test:polled")
    table.deliver(msg)
    table.deliver(msg)
    assert len(pings_of(uow_factory, table, s1)) == before + 1
    assert _inbox(uow_factory, "tg-test:polled") == ("applied", None, 1)


def test_a_private_location_without_a_game_is_answered_once(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    table.person("Dave")  # no game of theirs anywhere
    msg = _located(table, "Dave", "tg-test:nogame", private=True)
    mark = table.mark()
    table.deliver(msg)
    table.deliver(msg)
    answers = table.said("Dave", since=mark)
    assert len(answers) == 1 and "game" in answers[0].text
    assert _inbox(uow_factory, "tg-test:nogame") == ("applied", None, 1)


def test_each_players_newest_ping_in_one_query_agrees_with_their_last(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    _, (s1, s2) = seeking(table, uow_factory)
    for minute in range(1, 4):
        table.wait(timedelta(minutes=1))
        edit(table, s1, "m-s1", DEVICE + timedelta(minutes=minute), SEEKERS_START)
        edit(table, s2, "m-s2", DEVICE + timedelta(minutes=minute), HIDER_SPOT)
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        newest = uow.pings.newest(loaded.id)
        for player in loaded.state.players:
            last = uow.pings.last(loaded.id, player.id)
            assert newest.get(player.id) == (last[0] if last else None)
        assert len(newest) >= 2
