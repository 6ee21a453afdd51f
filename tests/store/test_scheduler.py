"""Durable timers: due deadlines fire in order, also after a restart, across games."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from hideseek_chat.rules import apply, due_deadlines, load_ruleset
from hideseek_chat.rules.decisions import Decision
from hideseek_chat.rules.events import DeadlineReached
from hideseek_chat.rules.state import GameState, Phase
from hideseek_chat.store import Scheduler, UnitOfWorkFactory, make_engine, unit_of_work_factory
from hideseek_chat.store.deadlines import Deadlines, DueDeadline
from hideseek_chat.store.migrate import upgrade
from tests.store.helpers import load, replay, start
from tests.store.scenarios import Script, play


def _in_memory(state: GameState, until: datetime) -> tuple[GameState, list[tuple[int, Decision]]]:
    """What the engine alone does when the clock runs to ``until``: the reference."""
    rules = load_ruleset(state.ruleset)
    fired: list[tuple[int, Decision]] = []
    while due := due_deadlines(state, until):
        deadline = due[0]
        assert deadline.due_at is not None
        state, decisions = apply(rules, state, DeadlineReached(deadline.id), deadline.due_at)
        fired += [(deadline.id, d) for d in decisions]
        if not decisions:
            fired.append((deadline.id, None))  # type: ignore[arg-type]
    return state, fired


def _middle_of_a_round(script: Script) -> int:
    """The index of a step after which a round is under way with deadlines open."""
    for index in range(len(script.steps) // 2, len(script.steps)):
        state = script.steps[index].state
        if state.phase == Phase.SEEKING and len(state.open_deadlines()) >= 2:
            return index + 1
    raise AssertionError("no step in the middle of a round")


def test_due_deadlines_fire_in_order_like_the_engine_alone(
    uow_factory: UnitOfWorkFactory,
) -> None:
    script = play(3, steps=150, players=("alice", "bob", "carol", "dave"))
    stop = _middle_of_a_round(script)
    start(uow_factory, script)
    replay(uow_factory, script, stop_at=stop)
    state = script.steps[stop - 1].state
    until = state.last_event_at + timedelta(hours=3)  # type: ignore[operator]
    expected_state, expected = _in_memory(copy.deepcopy(state), until)
    assert expected, "deadlines should fall due in three hours"

    with uow_factory() as uow:
        due = uow.deadlines.due(until)
    assert [d.due_at for d in due] == sorted(d.due_at for d in due)
    fired = Scheduler(uow_factory).run_due(until)
    got = [(f.deadline_id, d) for f in fired for d in (f.decisions or (None,))]
    assert got == expected
    assert load(uow_factory) == expected_state
    assert Scheduler(uow_factory).run_due(until) == []


def test_after_a_restart_missed_deadlines_fire_in_order_and_nothing_is_lost(
    database_url: str,
) -> None:
    script = play(3, steps=150, players=("alice", "bob", "carol", "dave"))
    stop = _middle_of_a_round(script)
    state = script.steps[stop - 1].state
    down_until = state.last_event_at + timedelta(hours=2)  # type: ignore[operator]
    expected_state, expected = _in_memory(copy.deepcopy(state), down_until)
    assert len({deadline_id for deadline_id, _ in expected}) >= 2

    # First run: migrate on start, play into the middle of a round, deliver some messages.
    upgrade(database_url)
    engine = make_engine(database_url)
    uow_factory = unit_of_work_factory(engine)
    start(uow_factory, script)
    replay(uow_factory, script, stop_at=stop)
    with uow_factory() as uow:
        pending_at_stop = [m.decision for m in uow.outbox.pending(limit=10_000)]
        assert uow.deadlines.next_due_at() is not None
    engine.dispose()  # the process stops; the clock runs on

    # Second run: migrate again (nothing to do), catch up on the timers, send the outbox.
    upgrade(database_url)
    engine = make_engine(database_url)
    try:
        uow_factory = unit_of_work_factory(engine)
        fired = Scheduler(uow_factory).run_due(down_until)
        assert [f.due_at for f in fired] == sorted(f.due_at for f in fired)
        got = [(f.deadline_id, d) for f in fired for d in (f.decisions or (None,))]
        assert got == expected
        assert load(uow_factory) == expected_state
        with uow_factory() as uow:
            pending = [m.decision for m in uow.outbox.pending(limit=10_000)]
        assert pending == pending_at_stop + [d for _, d in expected if d is not None]
    finally:
        engine.dispose()


def _begun(script: Script) -> int:
    return next(i for i, s in enumerate(script.steps) if s.state.phase == Phase.HIDING) + 1


def test_deadlines_of_several_games_fire_oldest_first(uow_factory: UnitOfWorkFactory) -> None:
    one, two = play(0, steps=20), play(1, steps=20, players=("alice", "bob", "carol", "dave"))
    start(uow_factory, one, chat="tg:1")
    start(uow_factory, two, chat="tg:2")
    replay(uow_factory, one, stop_at=_begun(one), chat="tg:1")
    replay(uow_factory, two, stop_at=_begun(two), chat="tg:2")
    states = [s.steps[_begun(s) - 1].state for s in (one, two)]
    until = max(s.last_event_at for s in states) + timedelta(hours=1)  # type: ignore[type-var]
    expected = [_in_memory(copy.deepcopy(s), until) for s in states]

    fired = Scheduler(uow_factory).run_due(until)
    assert [f.due_at for f in fired] == sorted(f.due_at for f in fired)
    with uow_factory() as uow:
        ids = [uow.games.current_id(chat) for chat in ("tg:1", "tg:2")]
    for game_id, chat, (state, decisions) in zip(ids, ("tg:1", "tg:2"), expected, strict=True):
        got = [(f.deadline_id, d) for f in fired if f.game_id == game_id for d in f.decisions]
        assert got == [(i, d) for i, d in decisions if d is not None]
        assert load(uow_factory, chat) == state


def _begun_game(
    uow_factory: UnitOfWorkFactory, chat: str, admin: str = "alice"
) -> tuple[int, datetime]:
    from hideseek_chat.rules import new_game
    from hideseek_chat.rules.events import GameBegun, PlayerJoined
    from hideseek_chat.rules.ruleset import Size
    from hideseek_chat.store import handle, start_game

    begun = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)
    state, decisions = new_game(load_ruleset("metric"), Size.SMALL, 3, admin, "Admin", begun)
    game_id = start_game(uow_factory, chat, state, decisions, begun)
    assert game_id is not None
    handle(uow_factory, chat, PlayerJoined("bob", "Bob"), begun)
    handle(uow_factory, chat, GameBegun(admin), begun)
    return game_id, begun


def test_a_deadline_the_engine_fails_on_does_not_stop_other_games(
    uow_factory: UnitOfWorkFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine failing on one game of a batch: the others' timers fire, that game's
    deadline is closed unapplied (alone, after the batch)."""
    broken, begun = _begun_game(uow_factory, "tg:-1", admin="zed")
    healthy, _ = _begun_game(uow_factory, "tg:-2")
    import hideseek_chat.store.scheduler as scheduler_module

    real_apply = scheduler_module.apply

    def failing_apply(ruleset, state, event, now):  # type: ignore[no-untyped-def]
        if state.players[0].ref == "zed":
            raise IndexError("a bug in the engine")
        return real_apply(ruleset, state, event, now)

    monkeypatch.setattr(scheduler_module, "apply", failing_apply)
    fired = Scheduler(uow_factory).run_due(begun + timedelta(minutes=31))
    errors = [f for f in fired if f.error]
    assert errors and all(f.game_id == broken for f in errors)
    healthy_fired = [f for f in fired if f.game_id == healthy and not f.error]
    assert {f.kind.value for f in healthy_fired} >= {"hiding_reminder", "hiding_ends"}
    with uow_factory() as uow:
        assert uow.games.get(healthy).phase == Phase.SEEKING
        assert not due_deadlines(uow.games.get(broken), begun + timedelta(minutes=31))


def test_an_event_after_an_undelivered_deadline_sees_the_deadline_first(
    uow_factory: UnitOfWorkFactory,
) -> None:
    from hideseek_chat.rules.events import GamePaused
    from hideseek_chat.store import handle

    game_id, begun = _begun_game(uow_factory, "tg:-3")
    late = begun + timedelta(minutes=45)  # the scheduler never ran: hiding ended at 09:30
    decisions = handle(uow_factory, "tg:-3", GamePaused("bob"), late)
    keys = [getattr(d, "key", None) for d in decisions]
    assert keys.index("round.seeking_started") < keys.index("game.paused")
    with uow_factory() as uow:
        state = uow.games.get(game_id)
    assert state.rounds[0].seeking_started_at == begun + timedelta(minutes=30)
    assert state.phase == Phase.SEEKING and state.is_paused


def test_a_deadline_another_process_fired_between_the_look_and_the_lock_is_passed_over(
    uow_factory: UnitOfWorkFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL re-reads only the locked game row: a claim can name a deadline that the
    process it waited for has just fired. The scheduler then looks again, and raises
    nothing."""
    script = play(3, steps=150, players=("alice", "bob", "carol", "dave"))
    stop = _middle_of_a_round(script)
    start(uow_factory, script)
    replay(uow_factory, script, stop_at=stop)
    until = script.steps[stop - 1].state.last_event_at + timedelta(hours=3)  # type: ignore[operator]
    with uow_factory() as uow:
        stale = uow.deadlines.claim_next(until)
    assert stale is not None
    fired = Scheduler(uow_factory).run_due(until)
    assert fired, "deadlines were due"
    claims = iter([stale])
    real = Deadlines.claim_next

    def claim_next(self: Deadlines, now: datetime) -> DueDeadline | None:
        return next(claims, None) or real(self, now)

    monkeypatch.setattr(Deadlines, "claim_next", claim_next)
    assert Scheduler(uow_factory).fire_next(until) is None


def _failing_saves(monkeypatch: pytest.MonkeyPatch, broken: int, error: Exception) -> None:
    """Every write of game ``broken``'s state raises ``error`` (alone or in a batch)."""
    from hideseek_chat.store.batch import StagedWrites
    from hideseek_chat.store.repository import GameRepository

    real_save, real_stage = GameRepository.save, StagedWrites.stage

    def save(self, game_id, state):  # type: ignore[no-untyped-def]
        if game_id == broken:
            raise error
        return real_save(self, game_id, state)

    def stage(self, game_id, before, after):  # type: ignore[no-untyped-def]
        if game_id == broken:
            raise error
        return real_stage(self, game_id, before, after)

    monkeypatch.setattr(GameRepository, "save", save)
    monkeypatch.setattr(StagedWrites, "stage", stage)


def test_a_game_whose_write_always_fails_does_not_hold_up_the_others(
    uow_factory: UnitOfWorkFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game whose state cannot be written (the same fault every time) was retried on
    every tick ahead of every other game's timers; now its deadline is closed unapplied,
    in its row alone, and the others fire."""
    from hideseek_chat.store.batch import StaleState

    broken, begun = _begun_game(uow_factory, "tg:-1")
    healthy, _ = _begun_game(uow_factory, "tg:-2")
    _failing_saves(monkeypatch, broken, StaleState("players: 1 of 2 rows"))
    when = begun + timedelta(minutes=31)
    fired = Scheduler(uow_factory).run_due(when)
    monkeypatch.undo()
    errors = [f for f in fired if f.error]
    assert errors and {f.game_id for f in errors} == {broken}
    assert all("StaleState" in (f.error or "") for f in errors)
    assert {f.kind.value for f in fired if f.game_id == healthy} >= {"hiding_ends"}
    with uow_factory() as uow:
        assert uow.games.get(healthy).phase == Phase.SEEKING
        left = uow.games.get(broken)
        assert not due_deadlines(left, when)  # closed, each as it came up
        assert left.phase == Phase.HIDING  # nothing else of its state was written
    assert Scheduler(uow_factory).run_due(when) == []


def test_a_database_fault_closes_nothing(
    uow_factory: UnitOfWorkFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database away or failing is not a game's fault: the deadline stays open for the
    next tick, and the error reaches the caller."""
    from sqlalchemy.exc import OperationalError

    broken, begun = _begun_game(uow_factory, "tg:-1")
    _failing_saves(monkeypatch, broken, OperationalError("UPDATE", {}, OSError("gone")))
    when = begun + timedelta(minutes=31)
    with pytest.raises(OperationalError):
        Scheduler(uow_factory).run_due(when)
    monkeypatch.undo()
    with uow_factory() as uow:
        assert due_deadlines(uow.games.get(broken), when)  # still open
    fired = Scheduler(uow_factory).run_due(when)
    assert fired and not any(f.error for f in fired)


def test_a_lock_timeout_while_reading_the_game_closes_nothing(
    engine: Any, uow_factory: UnitOfWorkFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The state's read runs on the driver's cursor: its errors must reach the scheduler
    as SQLAlchemy's, or a lock held by a migration would be taken for the game's fault
    and its deadline closed unapplied."""
    if engine.dialect.name != "postgresql":
        pytest.skip("a lock timeout is PostgreSQL's")
    from sqlalchemy import text
    from sqlalchemy.exc import OperationalError

    game, begun = _begun_game(uow_factory, "tg:-1")
    when = begun + timedelta(minutes=31)
    real_claim = Deadlines.claim_next
    blocker = engine.connect()

    def claim_next(self: Deadlines, now: datetime) -> DueDeadline | None:
        claimed = real_claim(self, now)
        self.session.execute(text("SET LOCAL lock_timeout = '100ms'"))
        blocker.execute(text("LOCK TABLE players IN ACCESS EXCLUSIVE MODE"))  # a migration
        return claimed

    monkeypatch.setattr(Deadlines, "claim_next", claim_next)
    try:
        with pytest.raises(OperationalError):
            Scheduler(uow_factory).fire_next(when)
    finally:
        blocker.rollback()
        blocker.close()
    monkeypatch.undo()
    with uow_factory() as uow:
        assert len(due_deadlines(uow.games.get(game), when)) == 2  # both still open
    assert {f.kind.value for f in Scheduler(uow_factory).run_due(when)} >= {"hiding_ends"}


def _wrapped(error: Exception) -> Exception:
    """``error`` as SQLAlchemy raises a driver's error."""
    import sqlite3

    import psycopg
    from sqlalchemy.exc import DBAPIError

    base = psycopg.Error if isinstance(error, psycopg.Error) else sqlite3.Error
    return DBAPIError.instance("SELECT 1", {}, error, base)


@pytest.mark.parametrize(
    ("name", "transient"),
    [
        ("SerializationFailure", True),
        ("DeadlockDetected", True),
        ("LockNotAvailable", True),
        ("QueryCanceled", True),
        ("AdminShutdown", True),
        ("UndefinedTable", True),  # a migration not run yet
        ("UniqueViolation", False),
        ("ForeignKeyViolation", False),
        ("StringDataRightTruncation", False),
        ("DivisionByZero", False),
    ],
)
def test_a_database_fault_is_told_from_the_games_own(name: str, transient: bool) -> None:
    import psycopg.errors

    from hideseek_chat.store.health import is_transient

    error = getattr(psycopg.errors, name)("x")
    assert is_transient(_wrapped(error)) is transient


def test_sqlites_and_the_drivers_own_faults_are_told_by_class() -> None:
    import sqlite3

    from sqlalchemy import create_engine
    from sqlalchemy.exc import DBAPIError

    from hideseek_chat.store.health import is_transient

    assert is_transient(_wrapped(sqlite3.OperationalError("database is locked")))
    assert not is_transient(_wrapped(sqlite3.IntegrityError("UNIQUE constraint failed")))
    sqlite = create_engine("sqlite://")  # a value no driver can send
    with sqlite.connect() as connection, pytest.raises(DBAPIError) as raised:
        connection.exec_driver_sql("select ?", (object(),))
    assert not is_transient(raised.value)
    assert is_transient(OSError("connection refused")) and not is_transient(KeyError("x"))
