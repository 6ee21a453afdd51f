"""Location pings, their retention, and erasing one person's data."""

from __future__ import annotations

import copy
from datetime import timedelta

from sqlalchemy import Engine, select

from hideseek_chat.rules.events import GameAborted
from hideseek_chat.store import UnitOfWorkFactory, delete_player_data, handle, purge_pings
from hideseek_chat.store.models import EventRow, OutboxRow, PingRow, TeamRow
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
            target = uow.pings.record(
                CHAT, "bob", 36.1 + i / 100, -97.0, at + timedelta(seconds=i), 8.0, "live", i == 4
            )
            assert target is not None
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
