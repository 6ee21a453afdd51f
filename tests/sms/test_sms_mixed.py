"""A mixed game: a Telegram group's admin invites a player by text (``/invite +41…``), who
joins by the code and plays by SMS; the Telegram players see their moves in the group, the
SMS player gets the group's announcements by text. One drive loop, one outbox."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

from sqlalchemy import select

from hideseek_chat.sms.channel import SmsChannel
from hideseek_chat.sms.gateway import Gateway, GatewaySettings
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.telegram.bot import channel_of
from tests.sms.fakes import ACCOUNT, BOT_NUMBER, TOKEN, FakeGateway
from tests.telegram.e2e import Telegram, telegram
from tests.telegram.factories import GROUP

DAVE = "+41791234564"


@asynccontextmanager
async def mixed(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> AsyncIterator[tuple[Telegram, SmsChannel]]:
    """The Telegram test bot with the SMS channel beside it, one drive loop for both."""
    async with telegram(uow_factory) as tg:
        shared = channel_of(tg.app)
        settings = GatewaySettings(ACCOUNT, TOKEN, BOT_NUMBER, base_url=gateway.url)
        sms = SmsChannel(
            uow_factory, Gateway(settings), tg.clock.now, driver_of=lambda: shared.driver(tg.bot)
        )
        shared.also = sms
        yield tg, sms


async def test_a_telegram_game_with_a_player_by_text(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with mixed(uow_factory, gateway) as (tg, sms):
        shared = channel_of(tg.app)
        count = 0

        async def text(body: str) -> None:
            nonlocal count
            count += 1
            await sms.receive_form(f"SMmixed{count:04d}", DAVE, body)
            await sms.lanes.join()
            await shared.settle()

        await tg.new_game()
        mark = tg.mark()
        await tg.send("Bob", "/invite +41 79 123 45 64")
        assert "admin" in tg.texts(since=mark).lower(), "only the admin invites"
        assert gateway.to(DAVE) == []
        invite = await tg.send("Alice", "/invite +41 79 123 45 64")
        assert invite.message is not None
        deleted = [int(p["message_id"]) for p in tg.api.sent("deleteMessage")]
        assert invite.message.message_id in deleted, "the command holding the number is gone"
        [invitation] = gateway.to(DAVE)
        found = re.search(r"JOIN ([A-Z0-9]{4})", invitation)
        assert found is not None
        assert "went out" in tg.texts(since=mark)
        assert "123 45 64" not in tg.texts() and "1234564" not in tg.texts()

        await text("NAME Dave")
        await text(f"join {found.group(1)}")
        assert "Dave joined" in tg.texts(), "the Telegram players see the move"
        assert any("Dave joined" in t for t in gateway.to(DAVE))

        # A reply to a Telegram player in the group (a refusal) costs Dave no text.
        texts_before = len(gateway.to(DAVE))
        mark = tg.mark()
        await tg.send("Bob", "/begin")
        assert "admin" in tg.texts(since=mark).lower()
        assert len(gateway.to(DAVE)) == texts_before

        mark = tg.mark()
        await tg.send("Alice", "/begin")
        assert "The game is on!" in tg.texts(since=mark)
        assert any("The game is on!" in t for t in gateway.to(DAVE)), "announcements by SMS"
        assert not any(t.startswith("Status") for t in gateway.to(DAVE)), "no pinned status"

        # Dave's STATUS is answered to Dave alone, not in the group.
        mark = tg.mark()
        await text("status")
        assert "Status" in gateway.to(DAVE)[-1]
        assert tg.texts(since=mark) == ""
        # A typed pin reaches the game privately.
        await text("36.14000, -97.08000")
        assert "Got your location" in gateway.to(DAVE)[-1]
        assert "36.14" not in tg.texts()

        # A text stored and left pending is applied by the Telegram channel's resume, which
        # hands it to the SMS channel instead of reading it as a Telegram update.
        from datetime import UTC, datetime

        from hideseek_chat.sms.channel import SmsIn, lane_of

        left = SmsIn("SMleftover", DAVE, "NAME David")
        rows = [("sms:SMleftover", lane_of(DAVE), left.payload())]
        shared.driver(tg.bot).conversation.store_updates(rows, datetime.now(UTC))
        await shared.resume(tg.bot)
        await shared.lanes.join()
        await sms.lanes.join()
        assert gateway.to(DAVE)[-1].startswith("Others now see you as David,")


async def _dave_joins(tg: Telegram, sms: SmsChannel, gateway: FakeGateway, *then: str) -> None:
    """Alice makes a game and invites Dave's number; Dave joins by the code, then texts
    ``then``."""
    await tg.new_game()
    await tg.send("Alice", "/invite +41 79 123 45 64")
    found = re.search(r"JOIN ([A-Z0-9]{4})", gateway.to(DAVE)[0])
    assert found is not None
    for n, body in enumerate((f"join {found.group(1)}", *then)):
        await sms.receive_form(f"SMdave{n:04d}", DAVE, body)
    await sms.lanes.join()
    await channel_of(tg.app).settle()


async def _begin_while_telegram_fails(tg: Telegram) -> None:
    """Alice begins while Telegram refuses the group's messages three times (502): the
    outbox tries the game's announcement again until Telegram takes it."""
    for _ in range(3):
        tg.api.fail("sendMessage", 502, "Bad Gateway", chat_id=GROUP)
    mark = tg.mark()
    tg.problems.setLevel(logging.ERROR)  # the failures are warnings, as they should be
    await tg.send("Alice", "/begin")
    await tg.wait(timedelta(minutes=3))
    tg.problems.setLevel(logging.WARNING)
    assert "The game is on!" in tg.texts(since=mark), "Telegram got it on a retry"


async def test_a_retry_after_telegram_failed_does_not_text_again(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    """An announcement texted to the SMS player, then refused by Telegram for a while
    (502): the outbox tries it again, and the SMS player is not texted a second time."""
    from hideseek_chat.store.models import SmsMessageRow

    async with mixed(uow_factory, gateway) as (tg, sms):
        await _dave_joins(tg, sms, gateway)
        await _begin_while_telegram_fails(tg)
        on = [t for t in gateway.to(DAVE) if "The game is on!" in t]
        assert len(on) == 1, "texted once, not once per try"
        with uow_factory() as uow:
            rows = uow.session.scalars(
                select(SmsMessageRow).where(SmsMessageRow.delivery_id.is_not(None))
            ).all()
            assert rows, "the texts of announcements name their outbox entry"


async def test_a_retried_announcement_is_held_once_for_a_digest(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    """The same retry with the SMS player on a digest: the announcement is held for the
    digest once, not once per try, and the digest (sent ahead of the next prompt with a
    choice) brings it once."""
    async with mixed(uow_factory, gateway) as (tg, sms):
        await _dave_joins(tg, sms, gateway, "DIGEST 10")
        assert "every 10 min" in gateway.to(DAVE)[-1]
        await _begin_while_telegram_fails(tg)
        digests = [t for t in gateway.to(DAVE) if "The game is on!" in t]
        assert len(digests) == 1, digests
        assert digests[0].count("The game is on!") == 1, digests[0]


def _holding(uow_factory: UnitOfWorkFactory, digits: str) -> list[str]:
    """Every text column of every table whose value holds ``digits`` in a row, whatever
    stands between them (``+41 79 123 45 64`` holds ``791234564``)."""
    from sqlalchemy import String

    from hideseek_chat.store.models import Base

    found: list[str] = []
    with uow_factory() as uow:
        for table in Base.metadata.sorted_tables:
            columns = [c for c in table.columns if isinstance(c.type, String)]
            if not columns:
                continue
            for row in uow.session.execute(select(*columns)):
                for column, value in zip(columns, row, strict=True):
                    if isinstance(value, str) and digits in re.sub(r"\D", "", value):
                        found.append(f"{table.name}.{column.name}")
    return found


async def test_erasing_an_invited_number_leaves_it_nowhere_in_the_store(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    """The admin's ``/invite`` holds the number as typed; a copy the inbox keeps (the update
    failed, was refused, or waits) goes with the number, whatever its format."""
    import json
    from datetime import UTC, datetime

    from hideseek_chat.sms.erasure import erase_number
    from hideseek_chat.store.models import InboxRow, InboxStatus
    from tests.telegram.e2e import USERS
    from tests.telegram.factories import make_command

    async with mixed(uow_factory, gateway) as (tg, sms):
        await tg.new_game()
        await tg.send("Bob", "/invite +41 79 123 45 64")  # refused: not the admin
        await tg.send("Alice", "/invite +41 79 123 45 64")
        found = re.search(r"JOIN ([A-Z0-9]{4})", gateway.to(DAVE)[0])
        assert found is not None
        await sms.receive_form("SMerase0001", DAVE, "NAME Dave")
        await sms.receive_form("SMerase0002", DAVE, f"join {found.group(1)}")
        await sms.lanes.join()
        await channel_of(tg.app).settle()
        typed = [
            "/invite +41 (0)79 123-45-64",
            "/invite@hsbot +41.79.123.45.64",
            "/invite 0041 79 123 45 64",
        ]
        statuses = [InboxStatus.FAILED, InboxStatus.REFUSED, InboxStatus.PENDING]
        with uow_factory() as uow:  # updates the inbox keeps with their payload
            for i, (text, status) in enumerate(zip(typed, statuses, strict=True)):
                update = make_command(tg.bot, text, chat_id=GROUP, user=USERS["Alice"])
                uow.session.add(
                    InboxRow(
                        update_id=f"tg:kept{i}",
                        lane="tg-lane",
                        status=status,
                        received_at=datetime.now(UTC),
                        payload=json.dumps(update.to_dict(), default=str),
                    )
                )
            other = make_command(tg.bot, "/invite +41 79 123 45 99", chat_id=GROUP)
            uow.session.add(
                InboxRow(
                    update_id="tg:other",
                    lane="tg-lane",
                    status=InboxStatus.FAILED,
                    received_at=datetime.now(UTC),
                    payload=json.dumps(other.to_dict(), default=str),
                )
            )
            uow.commit()
        assert "inbox.payload" in _holding(uow_factory, "791234564")

    assert erase_number(uow_factory, "+41 79 123 45 64") is not None
    assert _holding(uow_factory, "791234564") == []
    assert _holding(uow_factory, "791234599") == ["inbox.payload"], "another number stays"
