"""NAME by text: a strict keyword (``NAME <new name>``, ``NOMBRE`` in Spanish), never read
while the person hides in a running round. A hider's text that starts with "name"
(``name of my station is ...``), with a question waiting or not, renames no one and so
never shows the station to the group; a seeker may rename mid-round."""

from __future__ import annotations

from datetime import UTC, datetime

from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.play import STATION
from tests.sms.conftest import sms_bot
from tests.sms.fakes import FakeGateway
from tests.sms.test_sms_game import ALICE, BOB, CAROL, choice, seek, start_game


def _name(uow_factory: UnitOfWorkFactory, number: str) -> str | None:
    with uow_factory() as uow:
        known = uow.sms.number(number, datetime.now(UTC), create=False)
        assert known is not None
        return uow.chats.name_of(known.ref)


async def test_a_hiders_answer_that_starts_with_name_renames_no_one(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        phones = bot.phones
        await start_game(bot)
        await seek(bot)
        await phones.text(BOB, "ask radar 1km")
        question = phones.last(ALICE)
        assert "Radar 1 km" in question
        marks = {n: len(phones.said(n)) for n in (BOB, CAROL)}

        await phones.text(ALICE, f"name of my station is {STATION}")
        assert "Your name stays Alice" in phones.last(ALICE)
        assert _name(uow_factory, ALICE) == "Alice"

        await phones.text(ALICE, choice(question, "No"))
        assert "Keep 1" in phones.last(ALICE)
        await phones.text(ALICE, "1")  # keep the first card
        # No question waits now: still no name while she hides.
        await phones.text(ALICE, f"NAME {STATION}")
        assert "Your name stays Alice" in phones.last(ALICE)
        assert _name(uow_factory, ALICE) == "Alice"
        for seeker in (BOB, CAROL):
            assert STATION not in phones.since(seeker, marks[seeker])

        # A seeker may rename mid-round.
        await phones.text(BOB, "NAME Bobby")
        assert "see you as Bobby" in phones.last(BOB)
        assert _name(uow_factory, BOB) == "Bobby"


async def test_name_is_strict_and_says_what_happened(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        phones = bot.phones
        await phones.text(BOB, "NAME")
        assert "Your name stays Player 1" in phones.last(BOB)
        await phones.text(BOB, "NAME " + "B" * 40)  # too long: refused, not cut short
        assert "at most 32 characters" in phones.last(BOB)
        assert _name(uow_factory, BOB) == "Player 1"
        await phones.text(BOB, "nom Bob")  # no keyword of any language the bot speaks
        assert _name(uow_factory, BOB) == "Player 1"
        await phones.text(BOB, "NAME Bob")
        assert "Others now see you as Bob, in every game you play" in phones.last(BOB)
        await phones.text(CAROL, "nombre Carolina")  # Spanish: answered in Spanish
        assert "Los demás te ven ahora como Carolina" in phones.last(CAROL)
        assert _name(uow_factory, CAROL) == "Carolina"


async def test_a_new_texters_name_is_in_their_language(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        await bot.phones.text(CAROL, "ayuda")
        assert _name(uow_factory, CAROL) == "Jugador 1"
        await bot.phones.text(BOB, "hilfe")
        assert _name(uow_factory, BOB) == "Spieler 2"
