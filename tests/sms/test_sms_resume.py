"""A text stored but not applied (the process died in between) is applied after a restart,
once; one whose stored form cannot be read is settled as unreadable."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from hideseek_chat.sms import reading
from hideseek_chat.sms.channel import SmsIn, lane_of
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.models import InboxRow, InboxStatus
from tests.sms.conftest import sms_bot
from tests.sms.fakes import FakeGateway

BOB = "+41791234562"


async def test_a_stored_text_is_applied_after_a_restart_once(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        conversation = bot.channel.conversation
        now = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)
        left = SmsIn("SMleft", BOB, "NAME Bob")
        conversation.store_updates([("sms:SMleft", lane_of(BOB), left.payload())], now)
        conversation.store_updates([("sms:SMbad", lane_of(BOB), "{not json")], now)
        for stored in conversation.pending_updates():
            bot.channel.dispatch_stored(stored)
            bot.channel.dispatch_stored(stored)  # handed out twice: applied once
        await bot.phones.settle()  # type: ignore[misc]
        [named] = gateway.to(BOB)
        assert named.startswith("Others now see you as Bob,")
        assert conversation.pending_updates() == []
        with uow_factory() as uow:
            bad = uow.session.query(InboxRow).filter_by(update_id="sms:SMbad").one()
            assert bad.status == InboxStatus.UNREADABLE


async def test_a_text_whose_reading_fails_once_is_stored_and_answered_once(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    read = reading.read
    calls: list[str] = []

    def flaky(*args: Any, **kwargs: Any) -> Any:
        calls.append("read")
        if len(calls) == 1:  # the one transaction with the inbox: rolled back whole
            raise RuntimeError("the store went away")
        return read(*args, **kwargs)

    monkeypatch.setattr(reading, "read", flaky)
    async with sms_bot(uow_factory, gateway) as bot:
        await bot.phones.text(BOB, "NAME Bob")  # 200: stored, then read again on its own
        assert calls == ["read", "read"]
        [named] = gateway.to(BOB)
        assert named.startswith("Others now see you as Bob,")
        with uow_factory() as uow:
            row = uow.session.query(InboxRow).one()
            assert row.status == InboxStatus.APPLIED


async def test_a_text_that_cannot_be_read_is_stored_and_kept_as_failed(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(reading, "read", broken)
    async with sms_bot(uow_factory, gateway) as bot:
        await bot.phones.text(BOB, "HELP")  # 200 all the same: the text is kept
        assert gateway.to(BOB) == []
        with uow_factory() as uow:
            row = uow.session.query(InboxRow).one()
            assert row.status == InboxStatus.FAILED


async def test_a_turn_that_fails_after_planning_its_replies_sends_none_and_keeps_the_text(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text's replies are planned in its turn's transaction: when that transaction fails
    at its commit, neither the planned texts nor their numbered choices may go out, and the
    text is kept as failed with its form (for a look and a retry)."""
    from hideseek_chat.chat.turn import Turn

    async with sms_bot(uow_factory, gateway) as bot:
        await bot.phones.text(BOB, "NEW small metric")  # a game, with its code texted
        before = len(gateway.to(BOB))
        assert before >= 1

        def failing(turn: Turn) -> None:
            raise RuntimeError("the commit failed")

        monkeypatch.setattr(Turn, "finish", failing)
        await bot.phones.text(BOB, "STATUS")
        assert len(gateway.to(BOB)) == before  # nothing planned went out
        with uow_factory() as uow:
            row = uow.session.query(InboxRow).order_by(InboxRow.id.desc()).first()
            assert row is not None and row.status == InboxStatus.FAILED
            assert row.payload is not None and '"STATUS"' in row.payload


async def test_a_reply_whose_count_fails_is_sent_and_the_failure_is_logged_not_raised(
    uow_factory: UnitOfWorkFactory,
    gateway: FakeGateway,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A turn's replies go out after its commit: when counting them fails, the turn stays
    applied and the replies sent (nothing could send them again), the failure logged by
    the channel instead of escaping into its lane unseen."""
    import asyncio

    from hideseek_chat.sms.channel import SmsChannel

    real = SmsChannel._write_counts
    failing = [False]

    def flaky(channel: SmsChannel, counted: Any) -> None:
        if failing[0]:
            raise RuntimeError("the count failed")
        real(channel, counted)

    monkeypatch.setattr(SmsChannel, "_write_counts", flaky)
    escaped: list[object] = []
    asyncio.get_running_loop().set_exception_handler(lambda _, context: escaped.append(context))
    async with sms_bot(uow_factory, gateway) as bot:
        await bot.phones.text(BOB, "NEW small metric")
        before = len(gateway.to(BOB))
        failing[0] = True
        await bot.phones.text(BOB, "STATUS")
        assert len(gateway.to(BOB)) == before + 1  # the status went out
        assert "texts sent were not counted (RuntimeError)" in caplog.text
        with uow_factory() as uow:
            row = uow.session.query(InboxRow).order_by(InboxRow.id.desc()).first()
            assert row is not None and row.status == InboxStatus.APPLIED
    assert escaped == []
