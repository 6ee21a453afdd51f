"""The runner: long polling stores a batch before it is confirmed, the webhook answers once
its update is stored, bad requests are refused, and each stored update is applied once."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.models import EventRow, InboxRow, InboxStatus
from hideseek_chat.telegram import runner
from hideseek_chat.telegram.bot import TelegramApp, build_application, channel_of
from hideseek_chat.web.server import SECRET_HEADER, make_app, telegram_route
from tests.telegram.conftest import GAME_NOW
from tests.telegram.factories import GROUP, TOKEN, make_command, make_text
from tests.telegram.fakes import FixedClock, RecordingRequest, virtual_limiter


class Killed(BaseException):
    """The process dies here (nothing catches it, like kill -9)."""


class PollingApi(RecordingRequest):
    """``getUpdates`` like Telegram: an offset confirms every earlier update; unconfirmed
    ones come again. ``kill_on_confirm`` makes the process die at the confirmation."""

    def __init__(self) -> None:
        super().__init__()
        self.queue: list[dict[str, Any]] = []
        self.confirmed: list[int] = []
        self.kill_on_confirm = False

    def _answer_getUpdates(self, params: dict[str, Any]) -> Any:
        offset = params.get("offset")
        if offset is not None:
            confirmed = [u["update_id"] for u in self.queue if u["update_id"] < int(offset)]
            if confirmed:
                self.queue = [u for u in self.queue if u["update_id"] >= int(offset)]
                self.confirmed.extend(confirmed)
                if self.kill_on_confirm:
                    raise Killed
        return list(self.queue[:100])

    def _answer_deleteWebhook(self, params: dict[str, Any]) -> Any:
        return True


def make_app_on(uow_factory: UnitOfWorkFactory, api: RecordingRequest) -> TelegramApp:
    return build_application(
        TOKEN,
        FixedClock(GAME_NOW),
        lambda name: Conversation(uow_factory, seeds=lambda: 11),
        request=api,
        limiter=virtual_limiter(),
    )


def inbox(uow_factory: UnitOfWorkFactory) -> dict[str, InboxStatus]:
    with uow_factory() as uow:
        rows = uow.session.execute(select(InboxRow.update_id, InboxRow.status)).all()
    return {update_id: status for update_id, status in rows}


def event_count(uow_factory: UnitOfWorkFactory) -> int:
    with uow_factory() as uow:
        return int(uow.session.scalar(select(func.count(EventRow.id))) or 0)


async def test_a_polled_batch_is_stored_before_the_next_poll_confirms_it(
    uow_factory: UnitOfWorkFactory,
) -> None:
    api = PollingApi()
    app = make_app_on(uow_factory, api)
    await app.initialize()
    bot = app.bot
    batch = [
        make_command(bot, "/newgame small metric"),
        make_command(bot, "/help"),
        make_text(bot, "see you all at the station"),
    ]
    api.queue = [u.to_dict() for u in batch]
    ids = [f"tg:{u.update_id}" for u in batch]
    api.kill_on_confirm = True
    channel = channel_of(app)
    stop = runner.asyncio.Event()
    with pytest.raises(Killed):
        await runner.Poller(bot, channel, stop).run()
    # Telegram now counts the batch as delivered: every update of it is in the store.
    assert api.confirmed == [u.update_id for u in batch]
    assert set(inbox(uow_factory)) == set(ids)
    await channel.lanes.join()
    await app.shutdown()

    # A new process applies whatever was stored and not applied, once.
    again = PollingApi()
    restarted = make_app_on(uow_factory, again)
    await restarted.initialize()
    await channel_of(restarted).resume(restarted.bot)
    await channel_of(restarted).lanes.join()
    statuses = inbox(uow_factory)
    assert all(statuses[i] != InboxStatus.PENDING for i in ids), statuses
    events = event_count(uow_factory)
    assert events >= 1  # the game was created
    await channel_of(restarted).resume(restarted.bot)
    await channel_of(restarted).lanes.join()
    assert event_count(uow_factory) == events
    group_messages = [m for m in again.sent("sendMessage") + api.sent("sendMessage")]
    assert sum("set up a new game" in m["text"] for m in group_messages) == 1
    assert sum("referee — commands" in m["text"] for m in group_messages) == 1
    await restarted.shutdown()


async def test_a_batch_polled_again_before_it_was_applied_is_applied_once(
    uow_factory: UnitOfWorkFactory,
) -> None:
    api = PollingApi()
    app = make_app_on(uow_factory, api)
    await app.initialize()
    bot = app.bot
    update = make_command(bot, "/newgame small metric")
    channel = channel_of(app)
    poller = runner.Poller(bot, channel, runner.asyncio.Event())
    raw = [update.to_dict()]
    await poller._store(raw)
    await poller._store(raw)  # a poll that was not confirmed returns it again
    await channel.lanes.join()
    assert inbox(uow_factory) == {f"tg:{update.update_id}": InboxStatus.APPLIED}
    assert poller.offset == update.update_id + 1
    created = [m for m in api.sent("sendMessage") if m["chat_id"] == GROUP]
    assert len(created) == 1
    await app.shutdown()


@pytest.fixture
async def webhook(uow_factory: UnitOfWorkFactory) -> AsyncIterator[tuple[httpx.AsyncClient, Any]]:
    api = RecordingRequest()
    app = make_app_on(uow_factory, api)
    await app.initialize()
    channel = channel_of(app)

    async def receive(update: dict[str, Any]) -> None:
        await channel.receive(update, app.bot)

    server = make_app([telegram_route("hook/tg", "s3cret", receive)])
    transport = httpx.ASGITransport(app=server)
    async with httpx.AsyncClient(transport=transport, base_url="http://bot") as client:
        yield client, (app, api, channel)
    await channel.lanes.join()
    await app.shutdown()


HEADERS = {SECRET_HEADER: "s3cret"}


async def test_the_webhook_answers_once_the_update_is_stored_and_only_once_applied(
    uow_factory: UnitOfWorkFactory, webhook: tuple[httpx.AsyncClient, Any]
) -> None:
    client, (app, api, channel) = webhook
    update = make_command(app.bot, "/newgame small metric").to_dict()
    answer = await client.post("/hook/tg", json=update, headers=HEADERS)
    assert answer.status_code == 200
    assert inbox(uow_factory) == {f"tg:{update['update_id']}": InboxStatus.APPLIED}
    events = event_count(uow_factory)
    again = await client.post("/hook/tg", json=update, headers=HEADERS)  # redelivered
    await channel.lanes.join()
    assert again.status_code == 200 and event_count(uow_factory) == events
    assert len([m for m in api.sent("sendMessage") if m["chat_id"] == GROUP]) == 1


@pytest.mark.parametrize(
    ("body", "headers", "status"),
    [
        (b"not json at all", HEADERS, 400),
        (b"[1, 2, 3]", HEADERS, 400),
        (b'{"update_id": "7"}', HEADERS, 400),
        (b'{"update_id": -4}', HEADERS, 400),
        (b'{"message": {}}', HEADERS, 400),
        (b'{"update_id": 7}', {SECRET_HEADER: "wrong"}, 403),
        (b'{"update_id": 7}', {}, 403),
        (b"{" + b" " * 1_000_001 + b"}", HEADERS, 413),
    ],
)
async def test_bad_webhook_requests_are_refused_and_change_nothing(
    uow_factory: UnitOfWorkFactory,
    webhook: tuple[httpx.AsyncClient, Any],
    body: bytes,
    headers: dict[str, str],
    status: int,
) -> None:
    client, _ = webhook
    answer = await client.post("/hook/tg", content=body, headers=headers)
    assert answer.status_code == status
    assert "update_id" not in answer.text
    assert inbox(uow_factory) == {}


async def test_an_update_the_library_cannot_read_is_kept_once_and_skipped(
    uow_factory: UnitOfWorkFactory,
    webhook: tuple[httpx.AsyncClient, Any],
    caplog: pytest.LogCaptureFixture,
) -> None:
    client, (_app, api, _) = webhook
    broken = {"update_id": 77, "message": {"chat": "not a chat", "date": "yesterday"}}
    with caplog.at_level(logging.WARNING):
        for _ in range(3):  # Telegram would not redeliver after a 200; a forger might
            answer = await client.post("/hook/tg", content=json.dumps(broken), headers=HEADERS)
            assert answer.status_code == 200
    assert inbox(uow_factory) == {"tg:77": InboxStatus.UNREADABLE}
    lines = [r for r in caplog.records if "could not be read" in r.getMessage()]
    assert 1 <= len(lines) <= 3 and "not a chat" not in caplog.text
    assert api.sent("sendMessage") == []


async def test_a_stored_update_the_conversation_does_not_read_does_not_block_its_lane(
    uow_factory: UnitOfWorkFactory,
) -> None:
    api = PollingApi()
    app = make_app_on(uow_factory, api)
    await app.initialize()
    bot = app.bot
    renamed = make_text(bot, "ignored").to_dict()
    del renamed["message"]["text"]
    renamed["message"]["new_chat_title"] = "Hide+Seek finals"  # a service message
    command = make_command(bot, "/newgame small metric").to_dict()
    channel = channel_of(app)
    poller = runner.Poller(bot, channel, runner.asyncio.Event())
    await poller._store([renamed, command])
    await channel.lanes.join()
    await app.shutdown()
    statuses = inbox(uow_factory)
    assert statuses[f"tg:{renamed['update_id']}"] == InboxStatus.APPLIED
    assert statuses[f"tg:{command['update_id']}"] == InboxStatus.APPLIED

    # After a restart, nothing of that lane is left waiting behind it.
    restarted = make_app_on(uow_factory, PollingApi())
    await restarted.initialize()
    await channel_of(restarted).resume(restarted.bot)
    await channel_of(restarted).lanes.join()
    assert InboxStatus.PENDING not in inbox(uow_factory).values()
    await restarted.shutdown()
