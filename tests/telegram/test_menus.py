"""Languages on Telegram: the command menu in every shipped language (setMyCommands once per
language code), and the app language a person's updates carry."""

from __future__ import annotations

from hideseek_chat.chat.i18n import LANGUAGES
from hideseek_chat.chat.model import CommandIn
from hideseek_chat.chat.routes import menu
from tests.telegram.conftest import Harness
from tests.telegram.factories import ALICE, make_command


async def test_the_menu_is_set_for_every_shipped_language(harness: Harness) -> None:
    assert harness.app.post_init is not None
    await harness.app.post_init(harness.app)
    menus = {s.get("language_code"): s["commands"] for s in harness.api.sent("setMyCommands")}
    assert set(menus) == {None} | {code for code in LANGUAGES if code != "en"}
    names = [name for name, _ in menu()]
    for commands in menus.values():
        assert [c["command"] for c in commands] == names
        assert all(0 < len(c["description"]) <= 256 for c in commands)
    english = {c["command"]: c["description"] for c in menus[None]}
    german = {c["command"]: c["description"] for c in menus["de"]}
    spanish = {c["command"]: c["description"] for c in menus["es"]}
    assert english["join"] == "join the game"
    assert german["join"] == "beim Spiel mitmachen"
    assert spanish["join"] == "unirse a la partida"
    for command in names:  # every description is translated, none left in English
        assert german[command] != english[command], command
        assert spanish[command] != english[command], command


async def test_one_failing_language_does_not_stop_the_others(harness: Harness) -> None:
    harness.api.fail("setMyCommands", 400, "Bad Request: bad command description")
    assert harness.app.post_init is not None
    await harness.app.post_init(harness.app)
    assert len(harness.api.sent("setMyCommands")) == len(LANGUAGES)


async def test_a_senders_app_language_comes_with_their_updates(harness: Harness) -> None:
    austrian = {**ALICE, "language_code": "de-AT"}
    await harness.feed(make_command(harness.app.bot, "/newgame", user=austrian))
    await harness.feed(make_command(harness.app.bot, "/join"))  # no language_code sent
    first, second = harness.conversation.inbound
    assert isinstance(first, CommandIn) and first.sender.language == "de-AT"
    assert second.sender.language is None
