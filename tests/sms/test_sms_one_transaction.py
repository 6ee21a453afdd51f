"""A text and its turn in one transaction (``SmsChannel._whole``, ``Conversation.handle``'s
``within``), on SQLite and PostgreSQL: a STATUS in a game is stored, applied and planned
with one commit; a turn that does not apply so (refused, failed) leaves nothing of that
transaction, and the text is stored again and settled alone, once."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import Engine, event, select

from hideseek_chat.chat import routes
from hideseek_chat.sms.reading import SmsIn, lane_of
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.models import InboxRow, InboxStatus, SmsNumberRow
from hideseek_chat.store.sms import update_id_of
from tests.chat.play import START
from tests.sms.conftest import SmsBot, sms_bot
from tests.sms.fakes import FakeGateway
from tests.sms.test_sms_game import ALICE, BOB, start_game
from tests.store.helpers import statements

STRANGER = "+41791234569"


@contextmanager
def commits(engine: Engine) -> Iterator[list[str]]:
    """The transactions committed on ``engine`` meanwhile, each as the first statement it
    ran. A listener on statements keeps the store from lending driver connections, so
    every commit goes through SQLAlchemy's connection events."""
    seen: list[str] = []
    first: dict[int, str] = {}

    def statement(conn: Any, cursor: Any, sql: str, *args: Any) -> None:
        if not sql.lstrip().upper().startswith("BEGIN"):  # SQLite's BEGIN IMMEDIATE
            first.setdefault(id(conn.connection.dbapi_connection), sql)

    def commit(conn: Any) -> None:
        seen.append(first.pop(id(conn.connection.dbapi_connection), "(nothing)"))

    event.listen(engine, "before_cursor_execute", statement)
    event.listen(engine, "commit", commit)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", statement)
        event.remove(engine, "commit", commit)


def _inbox(uow_factory: UnitOfWorkFactory) -> list[tuple[str, InboxStatus, str | None]]:
    with uow_factory() as uow:
        rows = uow.session.scalars(select(InboxRow).order_by(InboxRow.id)).all()
        return [(row.update_id, row.status, row.payload) for row in rows]


async def bob_asks_status(bot: SmsBot) -> None:
    """Bob texts STATUS in the game ``start_game`` made, and is answered once."""
    phones = bot.phones
    before = len(phones.said(BOB))
    await phones.text(BOB, "STATUS")
    assert len(phones.said(BOB)) == before + 1 and "Hiding" in phones.last(BOB)


async def test_a_status_in_a_game_is_stored_answered_and_planned_in_one_commit(
    engine: Engine, uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        await start_game(bot)
        with commits(engine) as seen:
            await bob_asks_status(bot)
    texts = [sql for sql in seen if "sms_messages" not in sql]  # the reply's count
    assert len(texts) == 1, seen  # the text's inbox row, its reading and its turn
    assert texts[0].lstrip().upper().startswith("INSERT INTO INBOX")
    *_, status, payload = _inbox(uow_factory)[-1]
    assert status == InboxStatus.APPLIED and payload is None  # written applied, at once


async def test_a_status_in_a_game_writes_its_inbox_row_once(
    engine: Engine, uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    """Written as applied when the text is taken; the turn that shares its transaction
    finds it begun and writes it no more (``Inbox.begin``)."""
    async with sms_bot(uow_factory, gateway) as bot:
        await start_game(bot)
        with statements(engine) as seen:
            await bob_asks_status(bot)
    assert len([sql for sql in seen if "inbox" in sql.lower()]) == 1, seen


async def test_a_redelivered_text_a_dead_process_left_pending_is_applied_once(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    """A worker stored the text and died before its turn; the gateway posts it again: the
    webhook takes the pending row over and applies it, and the resume finds nothing."""
    async with sms_bot(uow_factory, gateway) as bot:
        await start_game(bot)
        phones = bot.phones
        conversation = bot.channel.conversation
        sid = f"SMin{phones.count + 1:030d}"  # what the next text is posted as
        left = SmsIn(sid, BOB, "STATUS")
        conversation.store_updates([(update_id_of(sid), lane_of(BOB), left.payload())], START)
        before = len(phones.said(BOB))
        await phones.text(BOB, "STATUS")
        assert len(phones.said(BOB)) == before + 1 and "Hiding" in phones.last(BOB)
        assert conversation.pending_updates() == []
        for stored in conversation.pending_updates():  # nothing left to resume
            bot.channel.dispatch_stored(stored)
        await phones.settle()  # type: ignore[misc]
        assert len(phones.said(BOB)) == before + 1
    rows = [row for row in _inbox(uow_factory) if row[0] == update_id_of(sid)]
    assert [status for _, status, _ in rows] == [InboxStatus.APPLIED]


async def test_a_refused_text_is_stored_again_and_refused_once(
    engine: Engine, uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    """STATUS from a number in no game is refused by the turn: the shared transaction rolls
    back (the new number's row with it), then the text is stored and refused alone."""
    async with sms_bot(uow_factory, gateway) as bot:
        phones = bot.phones
        with commits(engine) as seen:
            await phones.text(STRANGER, "STATUS")
        assert phones.said(STRANGER) == [phones.last(STRANGER)]
        assert "not playing in a game" in phones.last(STRANGER)
    inbox = _inbox(uow_factory)
    assert [status for _, status, _ in inbox] == [InboxStatus.REFUSED]
    with uow_factory() as uow:
        numbers = uow.session.scalars(select(SmsNumberRow.number)).all()
    assert list(numbers) == [STRANGER]
    assert len([sql for sql in seen if "sms_messages" not in sql]) == 2  # stored, refused


async def test_a_turn_that_fails_keeps_the_text_as_failed_with_its_form_once(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        await start_game(bot)
        phones = bot.phones
        before = len(phones.said(BOB))
        dispatch = routes.dispatch
        calls: list[str] = []

        def failing(turn: Any) -> Any:
            if turn.msg.sender.ref and getattr(turn.msg, "name", "") == "status":
                calls.append(turn.msg.update_id)
                raise RuntimeError("a handler's bug")
            return dispatch(turn)

        monkeypatch.setattr(routes, "dispatch", failing)
        await phones.text(BOB, "STATUS")
        assert len(phones.said(BOB)) == before, "a failed turn answers nothing"
        assert len(calls) == 2 and len(set(calls)) == 1  # in the shared transaction, then alone
        monkeypatch.setattr(routes, "dispatch", dispatch)
        await phones.text(ALICE, "STATUS")  # the game goes on
        assert "Hiding" in phones.last(ALICE)
    failed = [row for row in _inbox(uow_factory) if row[0] == calls[0]]
    assert len(failed) == 1
    _, status, payload = failed[0]
    assert status == InboxStatus.FAILED and payload is not None and "STATUS" in payload
