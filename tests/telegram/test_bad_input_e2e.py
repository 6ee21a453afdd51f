"""Bad input through the real python-telegram-bot stack: a clear answer, and nothing changes.

Each case runs through ``Application.process_update`` with the real ``Conversation`` and store
(SQLite and PostgreSQL) and checks the reply the person gets, in the chat where they acted or
as the toast of their button press, and that the game is exactly as it was: the same event
log, the same state, the same map.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta

import pytest
from telegram import Update

from hideseek_chat.rules.state import GameState, Phase
from hideseek_chat.store import UnitOfWorkFactory
from tests.telegram.e2e import USERS, Telegram, telegram, user_id
from tests.telegram.factories import GROUP, make_document

HIDER_SPOT = (36.12622, -97.06401)
SEEKERS_START = (36.14000, -97.08000)


@dataclass(frozen=True)
class Snapshot:
    events: int
    state: GameState
    map_name: str | None


def snapshot(tg: Telegram) -> Snapshot:
    with tg.uow_factory() as uow:
        map_name = uow.chats.prefs(tg.chat).map_name
    return Snapshot(tg.events(), tg.state(), map_name)


@pytest.fixture
async def tg(uow_factory: UnitOfWorkFactory) -> AsyncIterator[Telegram]:
    async with telegram(uow_factory) as tg:
        await tg.new_game()
        yield tg


def reply_to(tg: Telegram, update: Update, *, since: int) -> str:
    """The text the bot sent back to ``update``'s chat, replying to it, since ``since``."""
    assert update.message is not None
    message = update.message
    replies = [
        c.params
        for c in tg.api.calls[since:]
        if c.method == "sendMessage"
        and c.params["chat_id"] == message.chat.id
        and c.params.get("reply_parameters", {}).get("message_id") == message.message_id
    ]
    assert len(replies) == 1, f"expected one reply, got {replies}"
    return str(replies[0]["text"])


async def test_an_unknown_command_points_to_help(tg: Telegram) -> None:
    before, mark = snapshot(tg), tg.mark()
    update = await tg.send("Bob", "/frobnicate now")
    assert (
        reply_to(tg, update, since=mark) == "I don't know /frobnicate. /help lists what I can do."
    )
    assert snapshot(tg) == before


async def test_ask_during_setup_is_refused(tg: Telegram) -> None:
    before, mark = snapshot(tg), tg.mark()
    update = await tg.send("Bob", "/ask radar 1km")
    assert reply_to(tg, update, since=mark) == "That only works while the seekers are seeking."
    assert snapshot(tg) == before
    assert before.state.phase == Phase.SETUP


async def test_a_strangers_begin_is_refused(tg: Telegram) -> None:
    before, mark = snapshot(tg), tg.mark()
    update = await tg.send("Mallory", "/begin")
    assert reply_to(tg, update, since=mark) == (
        "You're not playing in this game. Send /join while it's being set up to take part."
    )
    assert snapshot(tg) == before


async def test_a_players_begin_needs_the_admin(tg: Telegram) -> None:
    before, mark = snapshot(tg), tg.mark()
    update = await tg.send("Bob", "/begin")
    assert reply_to(tg, update, since=mark) == "Only the game's admin can do that."
    assert snapshot(tg) == before


@pytest.mark.parametrize("typed", ["36.1, 500", "lat 95.2 lon -97.06", "36.12,-197.06"])
async def test_garbage_coordinates_typed_in_private_are_refused(tg: Telegram, typed: str) -> None:
    before, mark = snapshot(tg), tg.mark()
    update = await tg.send("Bob", typed, private=True)
    assert reply_to(tg, update, since=mark).startswith("I could not read that as a location.")
    assert snapshot(tg) == before


@pytest.mark.parametrize(
    ("data", "toast"),
    [
        ("ans:999:1:yes", "That button belongs to an earlier game."),  # another game's
        ("join:0", "That button belongs to an earlier game."),
        ("nonsense", "That button no longer works."),
        ("ans:1", "That button no longer works."),  # cut short
        ("play:1:notanumber", "That button no longer works."),
        ("frob:1:2", "That button no longer works."),  # no such verb
        ("ans:1:" + "9" * 60, "That button no longer works."),  # longer than Telegram allows
    ],
)
async def test_a_forged_or_old_button_is_refused(tg: Telegram, data: str, toast: str) -> None:
    [created] = [s for s in tg.said() if "set up a new game" in s.text]
    before, mark = snapshot(tg), tg.mark()
    press = await tg.press_data("Bob", data, created)
    assert tg.answer(press) == toast
    # A button of an earlier game is stale: its keyboard is removed as well.
    stale = ["editMessageReplyMarkup"] if "earlier game" in toast else []
    assert [c.method for c in tg.api.calls[mark:]] == ["answerCallbackQuery", *stale]
    assert snapshot(tg) == before


@pytest.mark.parametrize("filename", ["stations.geojson", "stops.kml", "gtfs.zip"])
async def test_a_document_that_is_not_a_map_is_refused(tg: Telegram, filename: str) -> None:
    content = b"this is my shopping list, not a map"
    tg.api.files["documents/not-a-map"] = content
    before, mark = snapshot(tg), tg.mark()
    update = make_document(
        tg.bot, filename, len(content), file_id="not-a-map", chat_id=GROUP, user=USERS["Alice"]
    )
    await tg.feed(update)
    assert ("download", {"path": "documents/not-a-map"}) in [
        (c.method, c.params) for c in tg.api.calls[mark:]
    ]
    assert reply_to(tg, update, since=mark).startswith(f"I could not use “{filename}” as a map")
    assert snapshot(tg) == before


async def test_only_the_hider_may_press_the_answer_buttons(tg: Telegram) -> None:
    hider, (s1, s2) = await tg.begin()
    await tg.pin(hider, *HIDER_SPOT, private=True)
    await tg.wait(timedelta(minutes=29))
    await tg.pin(hider, *HIDER_SPOT, private=True)
    await tg.wait(timedelta(minutes=2))
    await tg.pin(s1, *SEEKERS_START)
    await tg.send(s1, "/ask radar 1km")
    question = tg.said(hider)[-1]
    [yes] = [data for label, data in question.buttons if label.endswith("Yes")]
    refusals = {
        "Mallory": "You are not playing in a game right now. Join one in its group with /join.",
        s2: "Only the hider can do that.",
    }
    for presser, refusal in refusals.items():
        before, mark = snapshot(tg), tg.mark()
        press = await tg.press_data(presser, yes, question)
        assert tg.answer(press) == refusal
        assert [c.method for c in tg.api.calls[mark:]] == ["answerCallbackQuery"]
        assert snapshot(tg) == before
    # The hider's own press still works afterwards; the pins say No, so the bot asks first.
    assert question.chat_id == user_id(hider)
    press = await tg.press_data(hider, yes, question)
    assert tg.answer(press) == "🛰 The pins disagree: see my message."
    held = tg.said(hider)[-1]
    [anyway] = [data for label, data in held.buttons if "anyway" in label]
    press = await tg.press_data(hider, anyway, held)
    assert tg.answer(press) == "Done."
    assert "✅ Radar 1 km: Yes" in tg.texts()
