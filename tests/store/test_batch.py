"""The timers' batch path: several games read at once, changes written as Core statements,
the result equal to what the ORM repository stores."""

from __future__ import annotations

import copy
import gc

import pytest
from sqlalchemy import text

from hideseek_chat.rules.state import GameState
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.batch import StagedWrites, collection_paused, read_states
from tests.store.helpers import start
from tests.store.scenarios import play
from tests.store.test_repository import _rich_state


def _write(uow_factory: UnitOfWorkFactory, changes: dict[int, tuple[GameState, GameState]]) -> None:
    with uow_factory() as uow:
        writes = StagedWrites(uow.session)
        for game_id, (before, after) in changes.items():
            writes.stage(game_id, before, after)
        writes.write()
        uow.commit()


def _orm(uow_factory: UnitOfWorkFactory, game_id: int) -> GameState:
    with uow_factory() as uow:
        return uow.games.get(game_id)


@pytest.mark.parametrize("seed", [0, 1])
def test_every_step_of_two_played_games_written_together_comes_back_equal(
    uow_factory: UnitOfWorkFactory, seed: int
) -> None:
    one = play(seed, steps=120)
    two = play(seed + 10, steps=120, players=("alice", "bob", "carol", "dave"))
    ids = [start(uow_factory, one, chat="tg:1"), start(uow_factory, two, chat="tg:2")]
    before = {ids[0]: one.initial, ids[1]: two.initial}
    with uow_factory() as uow:
        assert read_states(uow.session, ids) == before
    for first, second in zip(one.steps, two.steps, strict=False):
        after = {ids[0]: first.state, ids[1]: second.state}
        _write(uow_factory, {gid: (before[gid], after[gid]) for gid in ids})
        with uow_factory() as uow:
            if uow.session.get_bind().dialect.name == "postgresql":  # times come back in UTC
                uow.session.execute(text("SET LOCAL TimeZone = 'Asia/Kathmandu'"))
            read = read_states(uow.session, [*ids, 999_999])
        assert read == after  # a missing game: left out
        assert repr(read) == repr(after)  # the same types too: 5.0 not 5, times in UTC
        for game_id in ids:
            assert _orm(uow_factory, game_id) == after[game_id]
        before = after


def test_rarer_rows_are_inserted_updated_and_deleted(uow_factory: UnitOfWorkFactory) -> None:
    script = play(4, steps=60)
    game_id = start(uow_factory, script)
    rich = _rich_state()
    rich.curses = copy.deepcopy(play(2, steps=60).steps[-1].state.curses)[:1]
    rich.banned[0].curse_id = rich.curses[0].id
    with uow_factory() as uow:
        (stored,) = read_states(uow.session, [game_id]).values()
    _write(uow_factory, {game_id: (stored, rich)})
    assert _orm(uow_factory, game_id) == rich

    plain = copy.deepcopy(rich)
    current = plain.rounds[-1]
    current.previous_zones, current.zone, current.hand_limit_bonus = [], None, {}
    plain.banned, plain.pending_catch, plain.settings.rest_periods = [], None, []
    plain.deadlines.pop()
    _write(uow_factory, {game_id: (rich, plain)})
    assert _orm(uow_factory, game_id) == plain


def test_an_unchanged_game_writes_nothing(uow_factory: UnitOfWorkFactory) -> None:
    script = play(0, steps=10)
    game_id = start(uow_factory, script)
    with uow_factory() as uow:
        writes = StagedWrites(uow.session)
        writes.stage(game_id, script.initial, copy.deepcopy(script.initial))
        assert not (writes._inserts or writes._updates or writes._deletes)


def test_a_paused_collector_is_restored_after_nested_pauses() -> None:
    assert gc.isenabled()
    with collection_paused():
        with collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still holds
    assert gc.isenabled()
    gc.disable()
    try:
        with collection_paused():
            pass
        assert not gc.isenabled()  # left as it was found
    finally:
        gc.enable()


def test_logged_events_and_outbox_are_written_as_the_orm_writes_them(
    uow_factory: UnitOfWorkFactory,
) -> None:
    script = play(0, steps=30)
    game_id = start(uow_factory, script)
    steps = [step for step in script.steps if step.decisions][:3]
    with uow_factory() as uow:
        writes = StagedWrites(uow.session)
        for n, step in enumerate(steps):
            writes.log(game_id, step.event, step.now, step.decisions, n)
        writes.write()
        uow.commit()
    with uow_factory() as uow:
        logged = [(e.type, e.occurred_at, e.event()) for e in uow.events.for_game(game_id)[-3:]]
        queued = [(m.decision, m.created_at) for m in uow.outbox.pending(limit=1000)]
    assert logged == [(type(s.event).__name__, s.now, s.event) for s in steps]
    assert queued[-sum(len(s.decisions) for s in steps) :] == [
        (decision, s.now) for s in steps for decision in s.decisions
    ]
