"""Location pings, their retention, and erasing one person's data."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, select

from hideseek_chat.rules.botnet import (
    BotnetEvent,
    DeviceClaimed,
    Ending,
    ProxyMoved,
    Resigned,
    apply,
    neighbours,
    new_match,
)
from hideseek_chat.rules.events import GameAborted
from hideseek_chat.store import UnitOfWorkFactory, delete_player_data, handle, purge_pings
from hideseek_chat.store.botnet import StoredMatch
from hideseek_chat.store.models import BotnetSeatRow, EventRow, OutboxRow, PingRow, TeamRow
from tests.store.helpers import CHAT, count, load, replay, start
from tests.store.scenarios import play


def _game(uow_factory: UnitOfWorkFactory, steps: int = 40) -> int:
    script = play(0, steps=steps)
    game_id = start(uow_factory, script)
    replay(uow_factory, script)
    return game_id


def test_a_ping_finds_the_players_game_and_phase(uow_factory: UnitOfWorkFactory) -> None:
    game_id = _game(uow_factory)
    state = load(uow_factory)
    bob = state.player_by_ref("bob")
    assert bob is not None
    at = state.last_event_at
    assert at is not None
    with uow_factory() as uow:
        for i in range(5):
            recorded = uow.pings.record(
                CHAT, "bob", 36.1 + i / 100, -97.0, at + timedelta(seconds=i), 8.0, "live", i == 4
            )
            assert recorded is not None and recorded.stored
            target = recorded.target
            assert (target.game_id, target.player_id, target.phase) == (
                game_id,
                bob.id,
                state.phase,
            )
        assert uow.pings.record(CHAT, "mallory", 0.0, 0.0, at) is None
        assert uow.pings.record("tg:other", "bob", 0.0, 0.0, at) is None
        uow.commit()
    with uow_factory() as uow:
        last = uow.pings.last(game_id, bob.id, 2)
    assert [p.lat for p in last] == [36.14, 36.13]
    assert last[0].forwarded and not last[1].forwarded
    assert last[0].at == at + timedelta(seconds=4) and last[0].accuracy_m == 8.0


def test_pings_are_purged_a_while_after_their_game_ends(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    finished, running = play(0, steps=30), play(1, steps=30)
    for chat, script in ((CHAT, finished), ("tg:running", running)):
        start(uow_factory, script, chat=chat)
        replay(uow_factory, script, chat=chat)
    at = max(s.steps[-1].now for s in (finished, running))
    with uow_factory() as uow:
        for chat in (CHAT, "tg:running"):
            for ref in ("alice", "bob"):
                assert uow.pings.record(chat, ref, 36.1, -97.0, at) is not None
        uow.commit()
    ended = at + timedelta(minutes=10)
    handle(uow_factory, CHAT, GameAborted("alice"), ended)
    assert load(uow_factory).ended_at == ended

    keep = timedelta(hours=24)
    assert purge_pings(uow_factory, ended + keep - timedelta(seconds=1), keep) == 0
    assert count(engine, PingRow) == 4
    assert purge_pings(uow_factory, ended + keep, keep) == 2
    with uow_factory() as uow:
        game_id = uow.games.current_id("tg:running")
        remaining = uow.session.scalars(select(PingRow.game_id)).all()
    assert remaining == [game_id, game_id]  # the running game's pings stay


def test_a_player_can_erase_their_data(engine: Engine, uow_factory: UnitOfWorkFactory) -> None:
    game_id = _game(uow_factory, steps=60)
    state = load(uow_factory)
    bob = state.player_by_ref("bob")
    alice = state.player_by_ref("alice")
    assert bob is not None and alice is not None
    at = state.last_event_at
    assert at is not None
    with uow_factory() as uow:
        uow.pings.record(CHAT, "bob", 36.1, -97.0, at)
        uow.pings.record(CHAT, "alice", 36.1, -97.0, at)
        uow.commit()
    mentions_before = _mentions(engine, "bob", "Bob")
    assert mentions_before > 0

    erased = delete_player_data(uow_factory, "bob")
    assert erased.players == 1 and erased.pings == 1 and erased.events >= 1
    assert erased.botnet_seats == 0

    after = load(uow_factory)
    assert after.player_by_ref("bob") is None
    assert after.player(bob.id).name == "" and after.player(bob.id).ref.startswith("erased:")
    assert after.player(alice.id) == alice
    # the rest of the game is untouched: same shape, same answers
    expected = copy.deepcopy(state)
    expected.players = after.players
    expected.teams = after.teams
    assert after == expected
    # Bob's one-person team carried his name; it goes too, other teams keep theirs
    assert after.team(bob.team_id).name == ""
    assert after.team(alice.team_id).name == state.team(alice.team_id).name
    assert _mentions(engine, "bob", "Bob") == 0
    with uow_factory() as uow:
        assert uow.pings.last(game_id, bob.id, 5) == []
        assert len(uow.pings.last(game_id, alice.id, 5)) == 1


def _mentions(engine: Engine, ref: str, name: str) -> int:
    with engine.connect() as connection:
        events = connection.execute(select(EventRow.actor_ref, EventRow.payload)).all()
        params = connection.scalars(select(OutboxRow.params)).all()
        teams = connection.scalars(select(TeamRow.name)).all()
    hits = sum(
        actor == ref or f'"{ref}"' in payload or f'"{name}"' in payload for actor, payload in events
    )
    return hits + sum(f'"{name}"' in p for p in params) + teams.count(name)


BOTNET_AT = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def _botnet_match(
    uow_factory: UnitOfWorkFactory, chat: str, seats: list[tuple[str, str]], over: bool = False
) -> int:
    """A started match with a move and a claim of seat 0 (resigned by seat 1 when ``over``)."""
    match = new_match(0)
    events: list[BotnetEvent] = [ProxyMoved(0, match.legal_moves(0)[0])]
    match = apply(match, events[0])
    walked = match.paths[0] + match.paths[1]
    free = (c for c in neighbours(match.botnets[0][0]) if match.owner(c) is None)
    events.append(DeviceClaimed(0, next(c for c in free if c not in walked)))
    if over:
        events.append(Resigned(1))
    with uow_factory() as uow:
        match_id = uow.botnet.create(chat, seats, BOTNET_AT)
        uow.botnet.start(match_id, 0)
        for event in events:
            uow.botnet.append(match_id, event.seat, event, BOTNET_AT)
        if over:
            uow.botnet.finish(match_id, 0, Ending.RESIGNED, BOTNET_AT)
        uow.commit()
    return match_id


def _seats(engine: Engine) -> list[tuple[int, int, str, str]]:
    with engine.connect() as connection:
        rows = connection.execute(
            select(
                BotnetSeatRow.match_id,
                BotnetSeatRow.seat,
                BotnetSeatRow.person_ref,
                BotnetSeatRow.name,
            ).order_by(BotnetSeatRow.match_id, BotnetSeatRow.seat)
        ).all()
    return [(r.match_id, r.seat, r.person_ref, r.name) for r in rows]


def test_erasure_anonymizes_the_persons_botnet_seats(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    playing = _botnet_match(uow_factory, CHAT, [("alice", "Alice"), ("bob", "Bob")])
    over = _botnet_match(uow_factory, "tg:other", [("bob", "Bobby B."), ("carol", "Carol")], True)
    untouched = _botnet_match(uow_factory, "tg:third", [("alice", "Alice"), ("carol", "Carol")])
    with uow_factory() as uow:
        before = {i: uow.botnet.get(i) for i in (playing, over, untouched)}
        assert _ids(uow.botnet.active_for_person("bob")) == [playing]
    seats_before = _seats(engine)

    erased = delete_player_data(uow_factory, "bob")
    assert (erased.players, erased.pings, erased.events, erased.messages) == (0, 0, 0, 0)
    assert erased.botnet_seats == 2

    seats_after = _seats(engine)
    assert all(
        "bob" not in ref.lower() and "bob" not in name.lower() for _, _, ref, name in seats_after
    )
    bobs = {(playing, 1), (over, 0)}
    assert [s for s in seats_after if s[:2] not in bobs] == [
        s for s in seats_before if s[:2] not in bobs
    ]  # Alice's and Carol's seats are as they were
    assert [s for s in seats_after if s[:2] in bobs] == [
        (playing, 1, f"erased:{playing}:1", ""),
        (over, 0, f"erased:{over}:0", ""),
    ]
    with uow_factory() as uow:
        assert uow.botnet.active_for_person("bob") == []
        assert _ids(uow.botnet.active_for_person("alice")) == [untouched, playing]
        for match_id, old in before.items():
            stored = uow.botnet.get(match_id)
            assert stored is not None and old is not None
            # the match keeps its shape: same status, steps, and where it stands
            assert (stored.status, stored.first_seat, stored.events) == (
                old.status,
                old.first_seat,
                old.events,
            )
            assert (stored.winner_seat, stored.ending) == (old.winner_seat, old.ending)
            assert stored.match == old.match and stored.match is not None
            assert stored.seat_of("bob") is None
    assert before[over] is not None and before[over].match is not None
    assert before[over].match.ending == Ending.RESIGNED


def _ids(matches: list[StoredMatch]) -> list[int]:
    return [m.id for m in matches]
