"""The round trips a text saves (commit 78be8c2), on SQLite and PostgreSQL: a number's
pending choices come with its row and stay true while the unit of work changes them; a
lone count is its own transaction on PostgreSQL (``UnitOfWork.alone``), and the pooled
connection leaves autocommit when it goes back, also after a statement joined it; the
turn's reply reuses the sender's number read with the text, opted out or not, and its last
word after an erasure is counted; replies a rolled-back turn planned are never sent."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.exc import DBAPIError

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.turn import Turn
from hideseek_chat.store import UnitOfWorkFactory, unit_of_work_factory
from hideseek_chat.store.config import make_engine
from hideseek_chat.store.models import SmsChoiceRow, SmsMessageRow
from hideseek_chat.store.rawrow import first_row, lend
from hideseek_chat.store.session import Lent
from hideseek_chat.store.sms import Choice, SentText
from hideseek_chat.store.uow import UnitOfWork
from tests.chat.play import START
from tests.sms.conftest import sms_bot
from tests.sms.fakes import FakeGateway
from tests.sms.test_sms_game import BOB, choice, start_game
from tests.sms.test_sms_one_transaction import bob_asks_status
from tests.store.helpers import statements

A, B, C = "+41791234561", "+41791234562", "+41791234567"
GROUP = "sms:@K7QX"


def _stored_choices(uow: UnitOfWork, number_id: int) -> list[Choice]:
    """The number's choices as its rows say now, in ``uow``'s transaction."""
    rows = uow.session.scalars(
        select(SmsChoiceRow)
        .where(SmsChoiceRow.number_id == number_id)
        .order_by(SmsChoiceRow.position)
    )
    return [Choice(r.position, r.chat, r.label, r.data, r.message_ref) for r in rows]


def _add_choices(uow: UnitOfWork, number_id: int, positions: list[int], chat: str) -> None:
    """Choice rows written directly, in the order given (not their positions')."""
    for position in positions:
        uow.session.add(
            SmsChoiceRow(
                number_id=number_id,
                position=position,
                chat=chat,
                label=f"Label {position}",
                data=f"d{position}",
                message_ref=f"m{position % 2}",
                made_at=START,
            )
        )
        uow.session.flush()  # one INSERT each, in this order


def _numbers_with_choices(uow_factory: UnitOfWorkFactory, positions: list[int]) -> int:
    """A with a person's row and ``positions`` pending; B with choices of its own. A's id."""
    with uow_factory() as uow:
        a, b = uow.sms.number(A, START), uow.sms.number(B, START)
        assert a is not None and b is not None
        uow.chats.met(a.ref, "Ana", START, private_ok=True)
        _add_choices(uow, a.id, positions, GROUP)
        _add_choices(uow, b.id, [1, 2], b.ref)
        uow.commit()
    return a.id


# ----------------------------------------------------------- choices with the number


@pytest.mark.parametrize("positions", [[], [1], [3, 1, 4, 2]], ids=["none", "one", "several"])
def test_a_numbers_choices_come_with_it_in_position_order(
    engine: Engine, uow_factory: UnitOfWorkFactory, positions: list[int]
) -> None:
    number_id = _numbers_with_choices(uow_factory, positions)
    with engine.begin() as connection:  # with statistics, PostgreSQL scans these small
        connection.exec_driver_sql("ANALYZE")  # tables in the order the rows were written
    with uow_factory() as uow:  # what choices() alone reads
        alone = uow.sms.choices(number_id)
    assert [c.position for c in alone] == sorted(positions)
    with uow_factory() as uow:
        known = uow.sms.number(A, START, create=False)
        assert known is not None and known.id == number_id and known.number == A
        person = uow.sms.person(number_id)
        assert person is not None and person.name == "Ana"  # one row per choice: same person
        assert uow.sms.choices(number_id) == alone == _stored_choices(uow, number_id)
        assert uow.sms.choices(number_id) is not uow.sms.choices(number_id)  # copies


def test_a_new_numbers_choices_are_none(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        made = uow.sms.number(A, START)
        assert made is not None
        assert uow.sms.choices(made.id) == []


def test_choices_after_number_run_no_statement(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    number_id = _numbers_with_choices(uow_factory, [2, 1, 3])
    with uow_factory() as uow, statements(engine) as seen:
        uow.session.connection()  # SQLite's BEGIN IMMEDIATE, before counting
        seen.clear()
        assert uow.sms.number(A, START) is not None
        assert len(seen) == 1, seen  # the number, its person and its choices: one statement
        seen.clear()
        assert [c.position for c in uow.sms.choices(number_id)] == [1, 2, 3]
        assert seen == []


def _offer(uow: UnitOfWork, number_id: int) -> None:
    uow.sms.offer(number_id, GROUP, [("Arrived", "a")], "m9", START)


def _withdraw(uow: UnitOfWork, number_id: int) -> None:
    uow.sms.withdraw(number_id, "m1")


def _clear(uow: UnitOfWork, number_id: int) -> None:
    uow.sms.clear_choices(number_id)


def _play_in(uow: UnitOfWork, number_id: int) -> None:
    uow.sms.play_in(number_id, "sms:@OTHR", START)


def _forget(uow: UnitOfWork, number_id: int) -> None:
    assert uow.sms.forget(number_id)


@pytest.mark.parametrize(
    "change",
    [_offer, _withdraw, _clear, _play_in, _forget],
    ids=["offer", "withdraw", "clear_choices", "play_in", "forget"],
)
def test_choices_read_with_the_number_follow_the_unit_of_works_changes(
    uow_factory: UnitOfWorkFactory, change: Callable[[UnitOfWork, int], None]
) -> None:
    number_id = _numbers_with_choices(uow_factory, [1, 2, 3])
    with uow_factory() as uow:
        assert uow.sms.number(A, START) is not None
        before = uow.sms.choices(number_id)
        assert len(before) == 3
        change(uow, number_id)
        after = _stored_choices(uow, number_id)
        assert after != before  # each change changes the rows
        assert uow.sms.choices(number_id) == after


def test_choices_read_before_a_rollback_are_read_again(
    uow_factory: UnitOfWorkFactory,
) -> None:
    number_id = _numbers_with_choices(uow_factory, [1, 2])
    with uow_factory() as uow:
        assert uow.sms.number(A, START) is not None
        assert len(uow.sms.choices(number_id)) == 2
        uow.rollback()
        with uow_factory() as other:  # meanwhile another unit of work spends them
            other.sms.clear_choices(number_id)
            other.commit()
        assert uow.sms.choices(number_id) == []


# ----------------------------------------------------------- alone: its own transaction


def _sent(sid: str) -> list[SentText]:
    return [SentText(None, GROUP, 1, sid, "sent")]


def _sids(engine: Engine) -> list[str | None]:
    """The texts counted, as another connection sees them."""
    with engine.connect() as connection:
        return list(connection.scalars(select(SmsMessageRow.sid).order_by(SmsMessageRow.id)))


def _postgres_only(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("alone() lends only on PostgreSQL")


def _autocommit(engine: Engine) -> tuple[bool, int]:
    """The pool's next connection: whether its driver is in autocommit, and its backend."""
    with engine.connect() as connection:
        driver = connection.connection.dbapi_connection
        assert driver is not None
        pid = connection.exec_driver_sql("select pg_backend_pid()").scalar_one()
        return bool(driver.autocommit), int(pid)


@contextmanager
def one_connection(engine: Engine) -> Iterator[tuple[Engine, UnitOfWorkFactory]]:
    """An engine on the same database whose pool holds one connection, and its units."""
    url = engine.url.render_as_string(hide_password=False)
    single = make_engine(url, pool_size=1, max_overflow=0)
    try:
        yield single, unit_of_work_factory(single)
    finally:
        single.dispose()


def test_alone_a_lone_count_is_committed_as_it_runs(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    _postgres_only(engine)
    with uow_factory() as uow:
        assert uow.alone()
        uow.sms.sent_all(_sent("SM1"), START)
        assert _sids(engine) == ["SM1"], "seen by another connection before the commit"
        uow.commit()
    assert _sids(engine) == ["SM1"]
    assert int(engine.pool.checkedout()) == 0  # type: ignore[attr-defined]


@pytest.mark.parametrize("ending", ["commit", "rollback", "nothing"])
def test_the_connection_goes_back_to_the_pool_out_of_autocommit(
    engine: Engine, ending: str
) -> None:
    _postgres_only(engine)
    with one_connection(engine) as (single, factory):
        with factory() as uow:
            assert uow.alone()
            lent = lend(uow.session)
            assert isinstance(lent, Lent) and lent.driver.autocommit
            row = first_row(lent, select(func.pg_backend_pid()), {})
            assert row is not None
            pid = int(row[0])
            if ending != "nothing":
                uow.sms.sent_all(_sent("SM1"), START)
                if ending == "commit":
                    uow.commit()
                else:
                    uow.rollback()  # too late: a statement alone commits as it runs
        assert _autocommit(single) == (False, pid), "the same connection, transactional again"
        with factory() as uow:  # so a unit of work left without a commit leaves nothing
            uow.sms.sent_all(_sent("SM2"), START)
            assert _sids(engine) == (["SM1"] if ending != "nothing" else [])
        assert _sids(engine) == (["SM1"] if ending != "nothing" else [])


def test_the_connection_leaves_autocommit_after_a_statement_joined_it(engine: Engine) -> None:
    """Alone, then a statement through the session (which joins the lent connection): the
    connection still goes back to the pool transactional."""
    _postgres_only(engine)
    with one_connection(engine) as (single, factory):
        with factory() as uow:
            assert uow.alone()
            _run_orm(uow)
            uow.commit()
        autocommit, _ = _autocommit(single)
        assert autocommit is False


def _run_orm(uow: UnitOfWork) -> None:
    uow.session.execute(select(SmsMessageRow.id)).all()


def _run_lent(uow: UnitOfWork) -> None:
    assert uow.sms.counts(GROUP) == (0, 0)  # a prebuilt statement on the lent connection


@pytest.mark.parametrize("begin", [_run_orm, _run_lent], ids=["orm", "lent"])
def test_alone_is_refused_once_the_unit_of_work_ran_a_statement(
    engine: Engine, uow_factory: UnitOfWorkFactory, begin: Callable[[UnitOfWork], None]
) -> None:
    _postgres_only(engine)
    with uow_factory() as uow:
        begin(uow)
        assert not uow.alone()
        uow.sms.sent_all(_sent("SM1"), START)
        assert _sids(engine) == [], "in the unit's transaction: not before the commit"
        uow.commit()
    assert _sids(engine) == ["SM1"]
    assert _autocommit(engine)[0] is False


def test_alone_is_refused_while_statements_are_counted(
    engine: Engine, uow_factory: UnitOfWorkFactory
) -> None:
    _postgres_only(engine)
    with statements(engine) as seen, uow_factory() as uow:
        assert not uow.alone()
        uow.sms.sent_all(_sent("SM1"), START)
        assert _sids(engine) == []
        uow.commit()
    assert any("sms_messages" in statement for statement in seen)
    assert _sids(engine) == ["SM1"]


def test_alone_is_refused_on_sqlite(engine: Engine, uow_factory: UnitOfWorkFactory) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite's case")
    with uow_factory() as uow:
        assert not uow.alone()
        uow.sms.sent_all(_sent("SM1"), START)
        assert uow.sms.counts(GROUP) == (1, 1)
    assert _sids(engine) == []  # left without a commit: rolled back, as always
    with uow_factory() as uow:
        assert not uow.alone()
        uow.sms.sent_all(_sent("SM1"), START)
        uow.commit()
    assert _sids(engine) == ["SM1"]


def test_a_failing_statement_alone_leaves_the_connection_usable(engine: Engine) -> None:
    _postgres_only(engine)
    with one_connection(engine) as (single, factory):
        with factory() as uow:
            uow.sms.sent_all(_sent("SM1"), START)
            uow.commit()
        with pytest.raises(DBAPIError), factory() as uow:
            assert uow.alone()
            uow.sms.sent_all(_sent("SM1"), START)  # the same sid again: unique
        assert int(single.pool.checkedout()) == 0  # type: ignore[attr-defined]
        assert _autocommit(single)[0] is False
        with factory() as uow:  # usable, and transactional: this one is rolled back
            uow.sms.sent_all(_sent("SM2"), START)
            assert uow.sms.counts(GROUP) == (2, 2)
        assert _sids(engine) == ["SM1"]
        with factory() as uow:
            assert uow.alone()
            uow.sms.sent_all(_sent("SM3"), START)
            uow.commit()
        assert _sids(engine) == ["SM1", "SM3"]


# ----------------------------------------------------------- the reply's recipient


async def test_status_from_a_number_that_opted_out_gets_no_reply(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        phones = bot.phones
        await phones.text(A, "NAME Ana")
        await phones.text(A, "STATUS")
        answered = phones.last(A)
        assert "not playing in a game" in answered, "STATUS is answered when opted in"
        await phones.text(A, "STOP")
        assert "no more texts" in phones.last(A)
        quiet = len(phones.said(A))
        await phones.text(A, "STATUS")
        await phones.text(A, "status")
        assert len(phones.said(A)) == quiet, "opted out: STATUS gets no answer"
        await phones.text(A, "START")
        await phones.text(A, "STATUS")
        assert phones.last(A) == answered


async def test_the_turns_reply_does_not_read_its_senders_number_again(
    engine: Engine, uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    """A STATUS in a game: its turn shares the unit of work that read the number with the
    text, so the reply's recipient is not read again."""
    async with sms_bot(uow_factory, gateway) as bot:
        await start_game(bot)
        with statements(engine) as seen:
            await bob_asks_status(bot)
    numbers = [s for s in seen if "FROM sms_numbers" in s]
    assert len(numbers) == 1, numbers  # read once, with the text
    assert "WHERE sms_numbers.number =" in numbers[0]


async def test_the_last_word_to_an_erased_number_is_counted_without_it(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway, caplog: pytest.LogCaptureFixture
) -> None:
    """FORGETME, then yes: the turn erases the number and its last reply still goes there,
    counted for nobody (no number left to tie it to), with nothing logged as uncounted."""
    async with sms_bot(uow_factory, gateway) as bot:
        phones = bot.phones
        await phones.text(C, "NAME Cleo")
        await phones.text(C, "FORGETME")
        asked = phones.last(C)
        with uow_factory() as uow:
            before = uow.session.scalar(select(func.count(SmsMessageRow.id)))
        told = len(phones.said(C))
        await phones.text(C, choice(asked, "Yes, erase"))
        assert len(phones.said(C)) == told + 1
        with uow_factory() as uow:
            rows = uow.session.execute(select(SmsMessageRow.number_id)).all()
    assert len(rows) == (before or 0) + 1 and rows[-1][0] is None
    assert not [r for r in caplog.records if "not counted" in r.getMessage()]


async def test_replies_of_a_turn_rolled_back_are_not_sent(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shared transaction planned the replies, then its commit failed; meanwhile
    another worker applied the text: this one sends nothing (the other one answered)."""
    async with sms_bot(uow_factory, gateway) as bot:
        await start_game(bot)
        phones = bot.phones
        told = len(phones.said(BOB))
        finish, handle = Turn.finish, Conversation.handle
        failed: list[str] = []

        def failing_finish(turn: Turn) -> None:
            if not failed and turn.msg.update_id is not None:
                failed.append(turn.msg.update_id)
                raise RuntimeError("the commit failed")  # after planning, before commit
            finish(turn)

        def elsewhere(conversation: Conversation, msg: Any, *args: Any, **kwargs: Any) -> Any:
            if kwargs.get("within") is None and failed and msg.update_id == failed[0]:
                with uow_factory() as uow:  # another worker applies it meanwhile
                    assert uow.updates.begin(msg.update_id, msg.chat, msg.at)
                    uow.commit()
            return handle(conversation, msg, *args, **kwargs)

        monkeypatch.setattr(Turn, "finish", failing_finish)
        monkeypatch.setattr(Conversation, "handle", elsewhere)
        await phones.text(BOB, "STATUS")
        assert failed, "the shared transaction's commit was made to fail"
        assert len(phones.said(BOB)) == told
