"""A text stored but not applied (the process died in between) is applied after a restart,
once; one whose stored form cannot be read is settled as unreadable."""

from __future__ import annotations

from datetime import UTC, datetime

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
        assert gateway.to(BOB) == ["Others now see you as Bob."]
        assert conversation.pending_updates() == []
        with uow_factory() as uow:
            bad = uow.session.query(InboxRow).filter_by(update_id="sms:SMbad").one()
            assert bad.status == InboxStatus.UNREADABLE
