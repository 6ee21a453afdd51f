"""An SMS player's right to erasure: FORGETME (in their language) asks with numbered choices,
then erases the person and their number; ``hideseek-chat erase +41…`` does the same from the
command line. On SQLite and PostgreSQL, through the web server and a fake gateway."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from hideseek_chat.cli import main
from hideseek_chat.sms.channel import SmsIn
from hideseek_chat.store import UnitOfWorkFactory, make_engine, migrate, unit_of_work_factory
from hideseek_chat.store.models import InboxRow, InboxStatus, PersonRow, SmsNumberRow
from tests.sms.conftest import START, sms_bot
from tests.sms.fakes import FakeGateway
from tests.sms.test_sms_game import ALICE, BOB, choice, start_game

DAVE = "+41791234564"


def _numbers(uow_factory: UnitOfWorkFactory) -> list[str]:
    with uow_factory() as uow:
        return list(uow.session.scalars(select(SmsNumberRow.number)))


def _payloads_naming(uow_factory: UnitOfWorkFactory, number: str) -> int:
    with uow_factory() as uow:
        payloads = uow.session.scalars(select(InboxRow.payload)).all()
    return sum(1 for p in payloads if p is not None and number in p)


async def test_forgetme_by_text_asks_then_erases_the_number(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        phones = bot.phones
        await phones.text(DAVE, "NAME Dave")
        await phones.text(DAVE, "vergissmich")  # German: asked in German
        asked = phones.last(DAVE)
        assert "Ja, löschen" in asked
        await phones.text(DAVE, choice(asked, "Abbrechen"))
        assert "nichts gelöscht" in phones.last(DAVE)
        assert DAVE in _numbers(uow_factory)

        await phones.text(DAVE, "FORGETME")
        asked = phones.last(DAVE)
        await phones.text(DAVE, choice(asked, "Ja, löschen"))
        assert "gelöscht" in phones.last(DAVE)  # the last word reaches the erased number
        told = len(phones.said(DAVE))
        assert DAVE not in _numbers(uow_factory)
        assert _payloads_naming(uow_factory, DAVE) == 0
        with uow_factory() as uow:
            assert uow.session.scalars(select(PersonRow.name)).all().count("Dave") == 0
            assert uow.sms.choices(1) == []
        # Texting again starts afresh: a stranger's name, no language kept.
        await phones.text(DAVE, "help")
        assert len(phones.said(DAVE)) == told + 1
        assert "Dave" not in phones.last(DAVE)


async def test_forgetme_by_text_erases_nothing_during_a_game(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        await start_game(bot)
        await bot.phones.text(BOB, "forgetme")
        assert "still in a game" in bot.phones.last(BOB)
        assert BOB in _numbers(uow_factory)


async def test_erase_on_the_command_line_takes_a_phone_number(
    gateway: FakeGateway,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    migrate.upgrade(database_url)
    engine = make_engine(database_url)
    uow_factory = unit_of_work_factory(engine)
    async with sms_bot(uow_factory, gateway) as bot:
        await bot.phones.text(DAVE, "NAME Dave")
        await bot.phones.text(ALICE, "NAME Alice")
    with uow_factory() as uow:  # a picture of each, kept
        dave_photo, _ = uow.sms.add_media("image/jpeg", b"d", START, number_id=1)
        alice_photo, _ = uow.sms.add_media("image/jpeg", b"a", START, number_id=2)
        uow.commit()
    with uow_factory() as uow:  # a text of each that failed: kept with its form
        for sid, number in (("SMf1", DAVE), ("SMf2", ALICE)):
            payload = SmsIn(sid, number, "hello").payload()
            uow.session.add(
                InboxRow(
                    update_id=f"sms:{sid}",
                    lane="l",
                    status=InboxStatus.FAILED,
                    received_at=START,
                    payload=payload,
                )
            )
        uow.commit()
    monkeypatch.setenv("DATABASE_URL", database_url)
    assert main(["erase", "+41 79 123 45 64"]) == 0
    out = capsys.readouterr().out
    assert "1 phone number(s) deleted" in out and DAVE not in out and "1234564" not in out
    assert _numbers(uow_factory) == [ALICE]
    with uow_factory() as uow:
        assert uow.sms.media(dave_photo) is None, "the pictures Dave sent went with him"
        assert uow.sms.media(alice_photo) is not None
    assert _payloads_naming(uow_factory, DAVE) == 0 and _payloads_naming(uow_factory, ALICE) > 0
    assert main(["erase", "+41 79 123 45 64"]) == 0
    assert "nothing is stored" in capsys.readouterr().out
    assert main(["erase", "+41 12"]) != 0  # not a number: refused
    engine.dispose()
