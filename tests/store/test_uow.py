"""The unit of work: one transaction per event, the outbox, the event log, redeliveries."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine

from hideseek_chat.rules.errors import RuleViolation
from hideseek_chat.rules.events import DeadlineReached, GamePaused, QuestionAsked
from hideseek_chat.store import (
    GameNotFound,
    OutboxMessage,
    UnitOfWorkFactory,
    deliver,
    handle,
    start_game,
)
from hideseek_chat.store.models import EventRow, InboxRow, OutboxRow
from hideseek_chat.store.serialize import (
    decode_decision,
    decode_event,
    encode_decision,
    encode_event,
)
from tests.store.helpers import CHAT, count, load, replay, start
from tests.store.scenarios import play

LATER = datetime(2026, 5, 3, tzinfo=UTC)


def _rows(engine: Engine) -> tuple[int, int, int]:
    return count(engine, EventRow), count(engine, OutboxRow), count(engine, InboxRow)


def test_handle_saves_the_state_logs_the_event_and_queues_the_decisions(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    script = play(0, steps=40)
    start(uow_factory, script)
    replay(uow_factory, script)
    assert load(uow_factory) == script.steps[-1].state
    with uow_factory() as uow:
        game = uow.games.for_chat(CHAT)
        assert game is not None
        logged = uow.events.for_game(game.id)
        queued = uow.outbox.pending(limit=10_000)
    assert [e.type for e in logged] == ["GameCreated"] + [
        type(s.event).__name__ for s in script.steps
    ]
    assert [e.event() for e in logged[1:]] == [s.event for s in script.steps]
    assert [e.occurred_at for e in logged[1:]] == [
        # deadlines are logged at the time they fell due
        s.now if not isinstance(s.event, DeadlineReached) else e.occurred_at
        for s, e in zip(script.steps, logged[1:], strict=True)
    ]
    expected = list(script.initial_decisions) + [d for s in script.steps for d in s.decisions]
    assert [m.decision for m in queued] == expected
    assert {m.chat_key for m in queued} == {CHAT}


def test_a_redelivered_update_is_ignored(engine: Engine, uow_factory: UnitOfWorkFactory) -> None:
    script = play(0, steps=40)
    start(uow_factory, script)
    replay(uow_factory, script)
    before, rows = load(uow_factory), _rows(engine)
    for index, step in enumerate(script.steps):
        if not isinstance(step.event, DeadlineReached):
            assert handle(uow_factory, CHAT, step.event, LATER, update_id=f"{CHAT}:u{index}") == []
    assert load(uow_factory) == before
    assert _rows(engine) == rows


def test_a_redelivered_game_creation_is_ignored(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    script = play(0, steps=5)
    args = (uow_factory, CHAT, script.initial, script.initial_decisions, script.created_at)
    first = start_game(*args, update_id="new-1")
    assert first is not None
    rows = _rows(engine)
    assert start_game(*args, update_id="new-1") is None
    assert _rows(engine) == rows


def test_a_rule_violation_changes_nothing_and_is_raised(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    script = play(0, steps=40)
    start(uow_factory, script)
    replay(uow_factory, script)
    before, rows = load(uow_factory), _rows(engine)
    with pytest.raises(RuleViolation):
        handle(uow_factory, CHAT, QuestionAsked("mallory", "radar-1km"), LATER, update_id="x1")
    assert load(uow_factory) == before
    assert _rows(engine) == rows


def test_a_chat_without_a_game_is_reported(uow_factory: UnitOfWorkFactory) -> None:
    with pytest.raises(GameNotFound):
        handle(uow_factory, "tg:elsewhere", GamePaused("alice"), LATER)


def test_nothing_is_written_without_commit(engine: Engine, uow_factory: UnitOfWorkFactory) -> None:
    script = play(0, steps=10)
    with uow_factory() as uow:
        game_id = uow.games.create(CHAT, script.initial, script.created_at)
        uow.outbox.add(game_id, script.initial_decisions, script.created_at)
    with uow_factory() as uow:
        assert uow.games.for_chat(CHAT) is None
    assert count(engine, OutboxRow) == 0


def test_the_outbox_delivers_each_message_once_in_order(uow_factory: UnitOfWorkFactory) -> None:
    script = play(0, steps=40)
    start(uow_factory, script)
    replay(uow_factory, script)
    expected = list(script.initial_decisions) + [d for s in script.steps for d in s.decisions]
    sent: list[OutboxMessage] = []
    assert deliver(uow_factory, sent.append, LATER) == len(expected)
    assert [m.decision for m in sent] == expected
    assert deliver(uow_factory, sent.append, LATER) == 0
    with uow_factory() as uow:
        assert uow.outbox.pending() == []


class SendFailed(Exception):
    pass


def test_a_failed_send_is_retried_and_a_crash_before_commit_repeats_one_message(
    uow_factory: UnitOfWorkFactory,
) -> None:
    script = play(0, steps=40)
    start(uow_factory, script)
    replay(uow_factory, script)
    sent: list[int] = []

    def flaky(message: OutboxMessage) -> None:
        if len(sent) == 3:
            sent.append(-1)  # the fourth send fails: nothing goes out
            raise SendFailed
        sent.append(message.id)

    with pytest.raises(SendFailed):
        deliver(uow_factory, flaky, LATER)
    sent.remove(-1)

    def crash_after_send(message: OutboxMessage) -> None:
        sent.append(message.id)
        raise SystemExit  # the process dies before marking the message sent

    with pytest.raises(SystemExit):
        deliver(uow_factory, crash_after_send, LATER)
    deliver(uow_factory, lambda m: sent.append(m.id), LATER)
    with uow_factory() as uow:
        assert uow.outbox.pending() == []
    # every message went out; only the one in flight at the crash went out twice
    assert sorted(set(sent)) == sent[:4] + sorted(set(sent[5:]))
    assert len(sent) == len(set(sent)) + 1 and sent[3] == sent[4]


def test_decisions_and_events_survive_their_encoding() -> None:
    script = play(1, steps=150, players=("alice", "bob", "carol", "dave"))
    decisions = list(script.initial_decisions) + [d for s in script.steps for d in s.decisions]
    assert [decode_decision(encode_decision(d)) for d in decisions] == decisions
    events = [s.event for s in script.steps]
    assert [decode_event(encode_event(e)) for e in events] == events
    # types survive too, not only equality: tuples stay tuples, times stay aware
    for decision in decisions:
        again = decode_decision(encode_decision(decision))
        assert repr(again) == repr(decision)


def test_pending_messages_name_their_game_chat(uow_factory: UnitOfWorkFactory) -> None:
    one, two = play(0, steps=10), play(1, steps=10)
    start(uow_factory, one, chat="tg:1")
    start(uow_factory, two, chat="tg:2")
    with uow_factory() as uow:
        keys = [m.chat_key for m in uow.outbox.pending()]
    assert keys == ["tg:1"] * len(one.initial_decisions) + ["tg:2"] * len(two.initial_decisions)


def test_an_update_begun_twice_in_a_transaction_is_written_once_and_again_after_a_rollback(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    """``begin`` in a transaction that began the update already (a channel that wrote it as
    it took it, then the turn) says True and writes nothing; after a rollback it writes it
    again, so a unit of work that goes on commits the row."""
    now = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)
    with uow_factory() as uow:
        assert uow.updates.begin("sms:SMtwice", "lane", now)
        assert uow.updates.begin("sms:SMtwice", "lane", now)
        uow.rollback()
        assert uow.updates.begin("sms:SMtwice", "lane", now)
        uow.commit()
    with uow_factory() as uow:
        assert uow.updates.is_processed("sms:SMtwice")
        assert not uow.updates.begin("sms:SMtwice", "lane", now)  # a redelivery
    assert count(engine, InboxRow) == 1
