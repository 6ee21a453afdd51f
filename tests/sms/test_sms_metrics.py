"""SMS texts in /metrics: each text handled counted under the kind "sms" with its time,
each text sent by its result (ok, retry when the gateway is down, refused for good)."""

from __future__ import annotations

from hideseek_chat import metrics
from hideseek_chat.store import UnitOfWorkFactory
from tests.sms.conftest import sms_bot
from tests.sms.fakes import FakeGateway

BOB = "+41791234562"


def count(fresh: metrics.Metrics, name: str, **labels: str) -> float:
    return fresh.registry.get_sample_value(name, labels) or 0.0


async def test_texts_and_their_replies_are_counted(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway, fresh_metrics: metrics.Metrics
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        await bot.phones.text(BOB, "HELP")
        await bot.phones.text(BOB, "HELP")
        assert count(fresh_metrics, "hideseek_updates_handled_total", kind="sms") == 2
        assert count(fresh_metrics, "hideseek_update_seconds_count", kind="sms") == 2
        assert count(fresh_metrics, "hideseek_sends_total", result="ok") == 2
        gateway.fail, gateway.fail_status = 1, 503  # down: the reply waits for another try
        await bot.phones.text(BOB, "HELP")
        assert count(fresh_metrics, "hideseek_sends_total", result="retry") == 1
        gateway.fail, gateway.fail_status = 1, 400  # refused for good
        await bot.phones.text(BOB, "HELP")
        assert count(fresh_metrics, "hideseek_sends_total", result="refused") == 1
