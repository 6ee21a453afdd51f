"""Two bot workers on one PostgreSQL, as behind a balancer (``docs/deploy.md``): every text
is posted to both at the same moment. The game must come out as from one worker: each text
applied once, each reply and announcement texted once."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field

import pytest
from sqlalchemy import func, select

from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.models import InboxRow, InboxStatus, SmsMessageRow
from tests.sms.conftest import SmsBot, sms_bot
from tests.sms.fakes import FakeGateway, Phones, inbound_form, signed
from tests.sms.test_sms_game import ALICE, BOB, CAROL, start_game


@dataclass
class BothPhones:
    """``Phones`` with each text posted to both workers at once (the same MessageSid,
    each signed for its worker's URL), then both left to finish."""

    bots: tuple[SmsBot, SmsBot]
    gateway: FakeGateway
    count: int = 0
    answers: list[int] = field(default_factory=list)

    async def text(self, number: str, body: str) -> None:
        self.count += 1
        form = inbound_form(f"SMboth{self.count:028d}", number, body)
        posts = [
            bot.phones.client.post("/sms", data=form, headers=signed(bot.phones.url, form))
            for bot in self.bots
        ]
        self.answers += [response.status_code for response in await asyncio.gather(*posts)]
        for bot in self.bots:
            await bot.phones.settle()  # type: ignore[misc]
        for bot in self.bots:  # news one worker stored while the other was sending
            await bot.phones.settle()  # type: ignore[misc]

    # What the phones were texted: as ``Phones`` reads it (from the gateway alone).
    said = Phones.said
    last = Phones.last
    since = Phones.since


@dataclass
class Both:
    phones: BothPhones


async def test_two_workers_given_every_text_play_the_game_as_one(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway, database_url: str
) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite serves one process: several workers need PostgreSQL")
    async with sms_bot(uow_factory, gateway) as first, sms_bot(uow_factory, gateway) as second:
        phones = BothPhones((first, second), gateway)
        await start_game(Both(phones))  # type: ignore[arg-type]
        for number in (ALICE, BOB, CAROL):
            await phones.text(number, "STATUS")
        assert set(phones.answers) == {200}
        with gateway.lock:
            texted = Counter((text.to, text.body) for text in gateway.sent)
        twice = [sent for sent, times in texted.items() if times > 1]
        assert twice == [], f"texted twice: {twice}"
        for number in (ALICE, BOB, CAROL):
            assert sum("code is" in body for body in gateway.to(number)) == (number == ALICE)
        with uow_factory() as uow:
            rows = uow.session.scalars(select(InboxRow)).all()
            assert len(rows) == phones.count  # each text stored once
            assert {row.status for row in rows} == {InboxStatus.APPLIED}
            counted = uow.session.scalar(select(func.count(SmsMessageRow.id)))
            assert counted == sum(texted.values())  # each text counted once
