"""/tracker in the conversation (issue 20): private only, listed in /help, says so when the
bot has no web address; its link and set-up steps, the QR code of OwnTracks' set-up link."""

from __future__ import annotations

import base64
import json
from urllib.parse import unquote

from hideseek_chat.chat import tracker_links
from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.drive import Capabilities
from hideseek_chat.chat.model import SendText
from hideseek_chat.console.table import Table
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.play import START


def test_tracker_is_private_and_listed_in_help(table: Table) -> None:
    table.send("Alice", "/tracker")
    assert "private" in table.last().lower()
    table.send("Alice", "/help", private=True)
    assert "/tracker" in table.last("Alice")


def test_without_a_web_address_the_bot_says_trackers_are_off(table: Table) -> None:
    table.send("Alice", "/tracker", private=True)
    assert "not set up on this bot" in table.last("Alice")


def test_the_link_comes_with_each_apps_steps_and_a_qr_code(
    uow_factory: UnitOfWorkFactory,
) -> None:
    conversation = Conversation(uow_factory, tracker_url="https://bot.example.org/")
    table = Table(conversation, START, capabilities=Capabilities())
    table.person("Alice")
    replies = table.send("Alice", "/tracker", private=True)
    steps, code = replies
    assert isinstance(steps, SendText) and isinstance(code, SendText)
    assert steps.to == code.to == table.people["alice"].ref and steps.private and code.private
    for app in ("OwnTracks", "Traccar Client", "GPSLogger"):
        assert app in steps.text
    assert "https://bot.example.org/trackers/" in steps.text
    assert "%LAT" in steps.text and "%TIMESTAMP" in steps.text
    assert code.image is not None and code.image.startswith(b"\x89PNG")
    # OwnTracks' set-up link: HTTP mode posting to the person's own URL.
    inline = unquote(code.pre.split("inline=", 1)[1])
    config = json.loads(base64.b64decode(inline))
    assert config["_type"] == "configuration" and config["mode"] == 3
    assert config["url"].startswith("https://bot.example.org/trackers/")
    assert config["url"].endswith("/owntracks") and config["url"] in steps.text
    assert config["encryptionKey"] == "", "importing it turns payload encryption off"


def test_the_links_agree_with_the_routes() -> None:
    links = tracker_links.links("http://h:1", "TOKEN")
    assert links.owntracks == "http://h:1/trackers/TOKEN/owntracks"
    assert links.traccar == "http://h:1/trackers/TOKEN/traccar"
    assert links.gpslogger.startswith("http://h:1/trackers/TOKEN/gpslogger?lat=%LAT&lon=%LON")
