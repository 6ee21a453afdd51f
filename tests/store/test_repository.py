"""Games as rows: load(save(state)) == state for states from real games, diffs, plain SQL."""

from __future__ import annotations

import copy
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import Engine, event, text

from hideseek_chat.rules.ruleset import Category
from hideseek_chat.rules.state import (
    BannedQuestion,
    Deadline,
    DeadlineKind,
    GameState,
    PendingCatch,
    Zone,
)
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.batch import StaleState
from hideseek_chat.store.chats import ChatPrefs
from hideseek_chat.store.checks import CheckNumbers, CheckVerdict, Computation
from hideseek_chat.store.repository import GameNotFound
from tests.store.helpers import CHAT, load, replay, start, statements
from tests.store.scenarios import play

T0 = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)


def _save(uow_factory: UnitOfWorkFactory, game_id: int, state: GameState) -> None:
    with uow_factory() as uow:
        uow.games.save(game_id, state)
        uow.commit()


def _get(uow_factory: UnitOfWorkFactory, game_id: int) -> GameState:
    """The state as ``get`` loads it, which ``read`` (plain rows, no ORM) must equal."""
    with uow_factory() as uow:
        state = uow.games.get(game_id)
    with uow_factory() as uow:
        assert uow.games.read(game_id) == state
    return state


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_every_state_of_a_played_game_comes_back_equal(
    uow_factory: UnitOfWorkFactory, seed: int
) -> None:
    players = ("alice", "bob", "carol", "dave") if seed % 2 else ("alice", "bob", "carol")
    script = play(seed, steps=150, players=players)
    game_id = start(uow_factory, script)
    assert _get(uow_factory, game_id) == script.initial
    for step in script.steps:
        _save(uow_factory, game_id, step.state)
        assert _get(uow_factory, game_id) == step.state


def test_a_game_changed_in_place_is_saved_without_orm_objects(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """``get`` then ``save``, as every applied event does: the state changed in place (as
    the timers' "close unapplied" does) is written, twice in one unit of work, and the
    session never holds a row object of the game (they cost ten times the CPU)."""
    script = play(0, steps=80)
    game_id = start(uow_factory, script)
    middle = script.steps[len(script.steps) // 2].state
    _save(uow_factory, game_id, middle)
    with uow_factory() as uow:
        state = uow.games.get(game_id)
        state.players[0].name = "Alicia"  # the very object ``get`` returned, changed
        uow.games.save(game_id, state)
        state.players[1].name = "Roberto"
        uow.games.save(game_id, state)
        assert len(uow.session.identity_map) == 0
        uow.commit()
    with uow_factory() as uow:
        stored = uow.games.read(game_id)
    assert [p.name for p in stored.players[:2]] == ["Alicia", "Roberto"]
    assert stored == state


def test_a_save_after_a_rollback_writes_against_what_is_stored(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """A refusal rolls a turn back and the unit of work goes on (the inbox row is written
    after it): a later save must not take the rolled-back write for stored."""
    script = play(0, steps=80)
    game_id = start(uow_factory, script)
    _save(uow_factory, game_id, script.steps[len(script.steps) // 2].state)
    with uow_factory() as uow:
        state = uow.games.get(game_id)
        first = state.players[0].name
        state.players[0].name = "Alicia"
        uow.games.save(game_id, state)
        uow.rollback()
        state.players[1].name = "Roberto"  # still "Alicia" in this copy: saved again
        uow.games.save(game_id, state)
        uow.commit()
    with uow_factory() as uow:
        stored = uow.games.read(game_id)
    assert first != "Alicia"
    assert [p.name for p in stored.players[:2]] == ["Alicia", "Roberto"]


def test_a_change_to_rows_that_are_no_longer_stored_is_refused_not_lost(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """``save`` updates rows by their keys: when the rows it was worked out from are gone
    (deleted behind its back), it raises rather than reporting a write that matched
    nothing."""
    script = play(0, steps=80)
    game_id = start(uow_factory, script)
    middle = next(s.state for s in script.steps if s.state.players[1:] and s.state.deadlines)
    _save(uow_factory, game_id, middle)
    with uow_factory() as uow:
        state = uow.games.get(game_id)
        uow.session.execute(text("DELETE FROM players WHERE game_id = :g"), {"g": game_id})
        state.players[0].name = "Alicia"
        with pytest.raises(StaleState):
            uow.games.save(game_id, state)


def test_a_game_read_alone_is_not_planned_again_on_each_read(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """A prepared read PostgreSQL plans again each time costs it more than running it (a
    restarted bot reads a state on each game's first edit): after the first few reads
    it must run on its generic plan."""
    script = play(0, steps=40)
    game_id = start(uow_factory, script)
    with uow_factory() as uow:
        if uow.session.get_bind().dialect.name != "postgresql":
            pytest.skip("plans of prepared statements are PostgreSQL's")
        generic, custom = _plans_after_reads(
            uow, lambda: uow.games.read(game_id) == script.initial, "SELECT json_build_array("
        )
    assert generic >= 6 and custom <= 6


def _plans_after_reads(uow: Any, read: Any, prefix: str) -> tuple[int, int]:
    """The generic and custom plans PostgreSQL made for the one prepared statement that
    starts with ``prefix`` over twelve ``read``s (each True) on ``uow``'s connection, whose
    earlier statements are let go first."""
    uow.session.execute(text("DEALLOCATE ALL"))
    for _ in range(12):
        assert read()
    plans = uow.session.execute(
        text(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
            " WHERE starts_with(statement, :prefix)"
        ),
        {"prefix": prefix},
    ).all()
    assert len(plans) == 1
    return int(plans[0][0]), int(plans[0][1])


def _rich_state() -> GameState:
    script = play(4, steps=60)
    state = copy.deepcopy(next(s.state for s in script.steps if s.state.rounds))
    current = state.rounds[-1]
    team = current.hider_team_id
    current.previous_zones = [
        Zone("stop-1", "First", 36.1, -97.1, 800.0, T0),
        Zone("stop-2", "Second", 36.2, -97.2, 800.0, T0 + timedelta(minutes=5)),
    ]
    current.zone = Zone("stop-3", "Third", 36.3, -97.3, 804.5, T0 + timedelta(minutes=9))
    current.hand_limit_bonus = {team: 2}
    current.spotty_category = Category.RADAR
    current.bonus_minutes = 12.5
    state.banned = [BannedQuestion(current.number, "radar-1km", 99)]
    state.curses = []
    state.pending_catch = PendingCatch(current.number, state.players[1].id, T0, 3.25)
    state.settings.rest_periods = [("22:00", "08:00"), ("12:00", "13:00")]
    state.deadlines.append(
        Deadline(state.new_id(), DeadlineKind.MOVE_ENDS, None, current.number, None, 61.5)
    )
    return state


def test_rarer_fields_round_trip_and_are_deleted_again(uow_factory: UnitOfWorkFactory) -> None:
    script = play(4, steps=60)
    game_id = start(uow_factory, script)
    rich = _rich_state()
    # The banned question needs its curse: keep a curse row it can point at.
    rich.curses = copy.deepcopy(play(2, steps=60).steps[-1].state.curses)[:1]
    assert rich.curses, "seed 2 casts a curse"
    rich.banned[0].curse_id = rich.curses[0].id
    _save(uow_factory, game_id, rich)
    assert _get(uow_factory, game_id) == rich

    plain = copy.deepcopy(rich)
    current = plain.rounds[-1]
    current.previous_zones, current.zone, current.hand_limit_bonus = [], None, {}
    plain.banned, plain.pending_catch, plain.settings.rest_periods = [], None, []
    plain.deadlines.pop()
    _save(uow_factory, game_id, plain)
    assert _get(uow_factory, game_id) == plain


def test_datetimes_come_back_aware_in_utc(uow_factory: UnitOfWorkFactory) -> None:
    script = play(0, steps=30)
    game_id = start(uow_factory, script)
    state = copy.deepcopy(script.steps[-1].state)
    state.started_at = datetime(2026, 5, 2, 11, 0, tzinfo=timezone(timedelta(hours=2)))
    _save(uow_factory, game_id, state)
    loaded = _get(uow_factory, game_id)
    assert loaded.started_at == state.started_at
    assert loaded.started_at is not None and loaded.started_at.utcoffset() == timedelta(0)
    for deadline in loaded.deadlines:
        assert deadline.due_at is None or deadline.due_at.tzinfo is not None


def test_naive_datetimes_are_refused(uow_factory: UnitOfWorkFactory) -> None:
    script = play(0, steps=5)
    game_id = start(uow_factory, script)
    state = copy.deepcopy(script.steps[-1].state)
    state.last_event_at = datetime(2026, 5, 2, 9, 0)
    with pytest.raises(Exception, match="naive datetime"):
        _save(uow_factory, game_id, state)


def _writes(engine: Engine) -> list[str]:
    statements: list[str] = []

    @event.listens_for(engine, "before_cursor_execute")
    def _record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.split()[0].upper() in ("INSERT", "UPDATE", "DELETE"):
            statements.append(statement)

    return statements


def test_saving_changes_only_the_rows_that_changed(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    script = play(0, steps=80)
    game_id = start(uow_factory, script)
    middle = script.steps[len(script.steps) // 2].state
    _save(uow_factory, game_id, middle)
    writes = _writes(engine)
    _save(uow_factory, game_id, middle)
    assert writes == []  # nothing changed: no statement at all

    changed = copy.deepcopy(middle)
    changed.players[0].name = "Alicia"
    _save(uow_factory, game_id, changed)
    assert len(writes) == 1 and writes[0].startswith("UPDATE players")


def test_what_did_bob_ask_and_when_is_one_sql_query(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    script = play(0, steps=150)
    start(uow_factory, script)
    replay(uow_factory, script)
    final = script.steps[-1].state
    bob = final.player(final.questions[0].asked_by)  # whoever asked first plays "Bob"
    expected = sorted(
        (q.asked_at, q.question_id, q.answer) for q in final.questions if q.asked_by == bob.id
    )
    with engine.connect() as connection:
        rows = connection.execute(
            text(
                "SELECT q.asked_at, q.question_id, q.answer FROM questions q"
                " JOIN players p ON p.game_id = q.game_id AND p.id = q.asked_by"
                " JOIN games g ON g.id = q.game_id JOIN chats c ON c.id = g.chat_id"
                " WHERE c.key = :chat AND p.name = :name ORDER BY q.asked_at, q.id"
            ),
            {"chat": CHAT, "name": bob.name},
        ).all()
    got = [
        (a if isinstance(a, datetime) else datetime.fromisoformat(a), q, ans) for a, q, ans in rows
    ]
    got = [(a.replace(tzinfo=UTC) if a.tzinfo is None else a, q, ans) for a, q, ans in got]
    assert got == expected


def test_a_chat_without_a_game_has_none(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        assert uow.games.for_chat("tg:nobody") is None
        with pytest.raises(GameNotFound):
            uow.games.get(12345)


def test_the_newest_game_is_the_chats_current_game(uow_factory: UnitOfWorkFactory) -> None:
    first, second = play(0, steps=10), play(1, steps=10)
    start(uow_factory, first)
    second_id = start(uow_factory, second)
    with uow_factory() as uow:
        game = uow.games.for_chat(CHAT)
        assert game is not None and game.id == second_id and game.state == second.initial
    assert load(uow_factory) == second.initial


def test_a_chat_is_read_to_its_newest_game_in_one_statement(
    uow_factory: UnitOfWorkFactory, engine: Engine
) -> None:
    """``read_chat`` (every turn that reads its group's game): None for a chat without a
    game, else the newest game as ``read`` gives it; on PostgreSQL found and read in one
    statement, which keeps its generic plan."""
    first, second = play(0, steps=10), play(1, steps=10)
    start(uow_factory, first)
    with uow_factory() as uow:
        assert uow.games.read_chat("tg:nobody") is None
    second_id = start(uow_factory, second)
    with uow_factory() as uow:
        game = uow.games.read_chat(CHAT)
        assert game is not None and game.id == second_id and game.chat_key == CHAT
        assert game.state == second.initial == uow.games.read(second_id)
    with statements(engine) as seen, uow_factory() as uow:
        assert uow.games.read_chat(CHAT) == game
    if engine.dialect.name != "postgresql":
        return  # the game's id, then each table: read as ``read`` reads them
    # The one statement runs on the driver's own cursor, below SQLAlchemy's events: no
    # statement of SQLAlchemy's (such as the game's id looked up first) ran.
    assert seen == []
    with uow_factory() as uow:
        generic, custom = _plans_after_reads(
            uow, lambda: uow.games.read_chat(CHAT) == game, "WITH newest AS"
        )
    assert generic >= 6 and custom <= 6


def test_a_chats_preferences_come_with_its_game_and_follow_its_changes(
    uow_factory: UnitOfWorkFactory, engine: Engine
) -> None:
    """On PostgreSQL ``read_chat`` brings the chat's preferences along, so the turn's
    ``Chats.prefs`` reads nothing more; preferences set in the unit of work are what it says
    after, read again. The same answers on SQLite, where each is read on its own."""
    start(uow_factory, play(0, steps=10))
    with statements(engine) as seen:
        with uow_factory() as uow:
            assert uow.games.read_chat(CHAT) is not None
            assert uow.chats.prefs(CHAT) == ChatPrefs()  # none chosen: the defaults
            if engine.dialect.name == "postgresql":
                assert not [s for s in seen if "chat_prefs" in s]
            first = ChatPrefs(language="es", units="metric")
            uow.chats.set_prefs(CHAT, first, T0)
            assert uow.chats.prefs(CHAT) == first
            chosen = ChatPrefs(language="de", units="imperial", auto_answer=True)
            uow.chats.set_prefs(CHAT, chosen, T0)
            assert uow.games.read_chat(CHAT) is not None  # read after the change: flushed
            assert uow.chats.prefs(CHAT) == chosen
            uow.commit()
        with uow_factory() as uow:
            assert uow.games.read_chat(CHAT) is not None
            assert uow.chats.prefs(CHAT) == chosen
            assert uow.chats.prefs("tg:other") == ChatPrefs()  # another chat: read alone


def test_a_check_keeps_what_the_pins_said_next_to_the_real_answer(
    uow_factory: UnitOfWorkFactory,
) -> None:
    script = play(0, steps=150)
    start(uow_factory, script)
    replay(uow_factory, script)
    question = next(q for q in script.steps[-1].state.questions if q.answer is not None)
    computed = Computation("no", None, "ok", False, T0, T0, CheckNumbers(distance_m=2100.0))
    with uow_factory() as uow:
        game = uow.games.for_chat(CHAT)
        assert game is not None
        uow.checks.computed(game.id, question.id, computed)
        uow.commit()
    with uow_factory() as uow:
        assert uow.checks.suggestion(game.id, question.id) == ("no", None)
        uow.checks.decide(game.id, question.id, CheckVerdict.DISAGREED, T0, sent=("yes", None))
        uow.commit()
    with uow_factory() as uow:
        # A decided check keeps what it was decided on.
        uow.checks.computed(game.id, question.id, replace(computed, answer="yes"))
        check = uow.checks.get(game.id, question.id)
        assert check is not None and check.computation == computed
        assert (check.verdict, check.answer_sent) == (CheckVerdict.DISAGREED, "yes")
        round_checks = uow.checks.for_round(game.id, question.round_number)
        assert list(round_checks) == [question.id]
        assert uow.games.get(game.id).question_record(question.id).answer == question.answer
