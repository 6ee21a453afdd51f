"""The location prompts speak to how the reader plays: Telegram's attachment menu and
buttons for a Telegram player, coordinates or a map link by text for an SMS player."""

from __future__ import annotations

from datetime import timedelta

import pytest

from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.texts import say
from hideseek_chat.store import UnitOfWorkFactory
from tests.sms.conftest import sms_bot
from tests.sms.fakes import FakeGateway
from tests.sms.test_sms_game import start_game

PROMPTS = [
    ("live.share", {"round": 1, "hider": True}),
    ("live.share", {"round": 1}),
    ("chat.live_ended", {}),
    ("chat.live_quiet", {"silent_s": 900}),
    ("chat.hiding_no_pin", {}),
    ("chat.zone_pin_needed", {"street_end": False}),
]
TELEGRAM_ONLY = ("📎", "button", "Share My Live Location", "Schaltfläche", "botón")


@pytest.mark.parametrize(("key", "params"), PROMPTS)
@pytest.mark.parametrize("language", ["en", "de", "es"])
def test_a_location_prompt_by_text_names_no_telegram_button(
    key: str, params: dict[str, object], language: str
) -> None:
    texted = say(key, params, Formatter(language, by_text=True))
    assert not any(word in texted for word in TELEGRAM_ONLY), texted
    assert "47.37690, 8.54170" in texted  # how to send one instead
    shown = say(key, params, Formatter(language))
    assert "📎" in shown or key == "chat.zone_pin_needed", shown


async def test_the_sms_players_get_the_text_prompts(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        await start_game(bot)
        await bot.wait(timedelta(minutes=31))  # the hiding period ends with no pin
    bodies = [s.body for s in gateway.sent]
    assert any("47.37690, 8.54170" in b for b in bodies), "a prompt by text was sent"
    assert not any(word in b for b in bodies for word in TELEGRAM_ONLY)
    assert not any("TRACKER" in b for b in bodies), "no tracker links are handed out here"
