"""The SMS bot on the real web server, its fake gateway on 127.0.0.1, and phones."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

import pytest

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.drive import Driver
from hideseek_chat.sms.channel import SmsChannel
from hideseek_chat.sms.gateway import Gateway, GatewaySettings
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.web.sms import SmsWebhook, sms_routes
from hideseek_chat.web.trackers import DriverIngest, tracker_routes
from tests.chat.play import START
from tests.sms.fakes import ACCOUNT, BOT_NUMBER, TOKEN, FakeGateway, Phones, free_port, serving


@dataclass
class Clock:
    at: datetime

    def now(self) -> datetime:
        return self.at


@dataclass
class SmsBot:
    phones: Phones
    channel: SmsChannel
    driver: Driver
    clock: Clock
    gateway: FakeGateway
    public_url: str

    async def wait(self, delta: timedelta, step: timedelta = timedelta(seconds=30)) -> None:
        """Let ``delta`` of game time pass, ticking every ``step``."""
        end = self.clock.at + delta
        while self.clock.at < end:
            self.clock.at = min(end, self.clock.at + step)
            await self.driver.on_tick()
        await self.driver.idle()


@pytest.fixture
def gateway() -> Iterator[FakeGateway]:
    fake = FakeGateway()
    fake.start()
    yield fake
    fake.stop()


@asynccontextmanager
async def sms_bot(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway, seed: int = 11, trackers: bool = False
) -> AsyncIterator[SmsBot]:
    """The bot with only the SMS channel, served on 127.0.0.1; with ``trackers``, the same
    server takes tracker apps' pings and ``TRACKER`` hands out links to it (as
    ``app.run_sms_only`` does when a public URL is set)."""
    clock = Clock(START)
    port = free_port()
    public = f"http://127.0.0.1:{port}"
    settings = GatewaySettings(
        ACCOUNT, TOKEN, BOT_NUMBER, status_url=f"{public}/sms/status", base_url=gateway.url
    )
    channel = SmsChannel(uow_factory, Gateway(settings), clock.now, media_base=public)
    threads = ThreadPoolExecutor(2, thread_name_prefix="test-store")
    conversation = Conversation(
        uow_factory, seeds=lambda: seed, tracker_url=public if trackers else None
    )
    driver = channel.attach(conversation, threads=threads)
    routes = sms_routes(
        SmsWebhook(public, TOKEN), channel.receive_form, channel.record_status, channel.media
    )
    if trackers:
        ingest = DriverIngest(lambda: channel.driver)
        routes += tracker_routes(ingest, 120, clock=clock.now, wall=clock.now)

    async def settle() -> None:
        await channel.lanes.join()
        await driver.idle()

    try:
        async with serving(routes, port) as client:
            phones = Phones(client, f"{public}/sms", settle, gateway, clock.now)
            yield SmsBot(phones, channel, driver, clock, gateway, public)
    finally:
        threads.shutdown(wait=True)
