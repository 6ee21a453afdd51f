"""The bot's place in a Telegram group, through the real python-telegram-bot stack and store:
privacy mode and missing admin rights said where they matter (/newgame, a round's start),
added to a group (an introduction), removed (the game paused, nothing lost) and back, a game
that lives in a forum topic, and the pinned status unpinned when the game ends."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from hideseek_chat.store import UnitOfWorkFactory
from tests.telegram.e2e import USERS, Telegram, telegram
from tests.telegram.factories import GROUP, make_command, make_membership
from tests.telegram.fakes import BOT_USER, PLAIN_MEMBER

LEFT = {"status": "left", "user": BOT_USER}
PRIVACY = "privacy mode is on"


@pytest.fixture
async def tg(uow_factory: UnitOfWorkFactory) -> AsyncIterator[Telegram]:
    async with telegram(uow_factory) as tg:
        yield tg


def calls(tg: Telegram, method: str, since: int = 0) -> list[dict[str, Any]]:
    return [c.params for c in tg.api.calls[since:] if c.method == method]


async def test_newgame_says_when_the_bot_cannot_see_the_groups_locations(tg: Telegram) -> None:
    tg.api.bot_member = dict(PLAIN_MEMBER)  # privacy mode on (getMe) and no admin
    mark = tg.mark()
    await tg.send("Alice", "/newgame small metric")
    assert calls(tg, "getChatMember", mark) == [{"chat_id": GROUP, "user_id": BOT_USER["id"]}]
    said = tg.texts(since=mark)
    assert PRIVACY in said and "/setprivacy" in said and "admin" in said
    assert tg.state().players  # the game was made all the same


async def test_newgame_says_nothing_of_privacy_when_the_bot_is_an_admin(tg: Telegram) -> None:
    mark = tg.mark()
    await tg.send("Alice", "/newgame small metric")
    assert calls(tg, "getChatMember", mark)
    assert PRIVACY not in tg.texts(since=mark)


async def test_a_round_starts_without_rights_and_says_what_will_not_work(tg: Telegram) -> None:
    await tg.new_game()
    tg.api.bot_member = dict(PLAIN_MEMBER)
    mark = tg.mark()
    hider, _ = await tg.begin()
    assert calls(tg, "getChatMember", mark)
    said = tg.texts(since=mark)
    assert "I'm missing rights in this group" in said
    assert "Delete messages" in said and "Pin messages" in said
    assert hider in {"Alice", "Bob", "Carol"}  # the round started


async def test_a_round_with_every_right_says_nothing_of_rights(tg: Telegram) -> None:
    await tg.new_game()
    mark = tg.mark()
    await tg.begin()
    assert calls(tg, "getChatMember", mark)
    assert "missing rights" not in tg.texts(since=mark)


async def test_added_to_a_group_the_bot_introduces_itself_and_lists_its_rights(
    tg: Telegram,
) -> None:
    mark = tg.mark()
    await tg.feed(make_membership(tg.bot, LEFT, PLAIN_MEMBER, user=USERS["Alice"]))
    said = tg.texts(since=mark)
    assert "Hide+Seek referee" in said and "/newgame" in said
    assert "Delete messages" in said and "Pin messages" in said
    assert PRIVACY in said  # privacy mode on and a plain member: locations never reach it


async def test_removed_from_the_group_the_game_is_paused_and_nothing_is_lost(
    tg: Telegram,
) -> None:
    await tg.new_game()
    await tg.begin()
    players = [p.name for p in tg.state().players]
    events = tg.events()
    await tg.feed(
        make_membership(tg.bot, PLAIN_MEMBER, {**LEFT, "status": "kicked", "until_date": 0})
    )
    state = tg.state()
    assert state.is_paused
    assert [p.name for p in state.players] == players and tg.events() == events + 1

    mark = tg.mark()
    await tg.feed(make_membership(tg.bot, LEFT, PLAIN_MEMBER))
    said = tg.texts(since=mark)
    assert "paused while I was away" in said and "/resume" in said
    await tg.send("Alice", "/resume")
    assert not tg.state().is_paused


async def test_removed_from_a_group_without_a_running_game_changes_nothing(
    tg: Telegram,
) -> None:
    await tg.feed(make_membership(tg.bot, PLAIN_MEMBER, LEFT))
    assert tg.events() == 0


async def test_a_game_started_in_a_forum_topic_lives_in_that_topic(tg: Telegram) -> None:
    for name in ("Alice", "Bob", "Carol"):
        await tg.send(name, "/start", private=True)
    mark = tg.mark()
    await tg.feed(in_topic(tg, "Alice", "/newgame small metric", 7))
    group_sends = [c for c in tg.api.calls[mark:] if c.method == "sendMessage"]
    group_sends = [c for c in group_sends if c.params["chat_id"] == GROUP]
    assert group_sends and all(c.params.get("message_thread_id") == 7 for c in group_sends)

    mark = tg.mark()
    await tg.feed(in_topic(tg, "Bob", "/join", 9))  # another topic: a pointer there
    [pointer] = [c.params for c in tg.api.calls[mark:] if c.method == "sendMessage"]
    assert pointer["message_thread_id"] == 9 and "another topic" in pointer["text"]
    assert [p.name for p in tg.state().players] == ["Alice"]

    await tg.send("Bob", "/join")  # the group's main thread is another topic too
    assert [p.name for p in tg.state().players] == ["Alice"]

    mark = tg.mark()
    await tg.feed(in_topic(tg, "Bob", "/help", 9))  # about no game: answered where asked
    [help_text] = [c.params for c in tg.api.calls[mark:] if c.method == "sendMessage"]
    assert help_text["message_thread_id"] == 9 and "/newgame" in help_text["text"]

    await tg.feed(in_topic(tg, "Bob", "/join", 7))
    await tg.feed(in_topic(tg, "Carol", "/join", 7))
    assert [p.name for p in tg.state().players] == ["Alice", "Bob", "Carol"]
    mark = tg.mark()
    await tg.feed(in_topic(tg, "Alice", "/begin", 7))
    group_sends = [
        c.params
        for c in tg.api.calls[mark:]
        if c.method in ("sendMessage", "sendPhoto") and c.params["chat_id"] == GROUP
    ]
    assert group_sends and all(p.get("message_thread_id") == 7 for p in group_sends)


async def test_the_status_is_unpinned_when_the_game_ends(tg: Telegram) -> None:
    await tg.new_game()
    await tg.begin()
    [pinned] = calls(tg, "pinChatMessage")
    await tg.send("Alice", "/abort")
    await tg.press("Alice", "Yes")
    await tg.tick()
    unpinned = calls(tg, "unpinChatMessage")
    assert unpinned and unpinned[0]["message_id"] == pinned["message_id"]
    assert unpinned[0]["chat_id"] == GROUP

    await tg.send("Alice", "/newgame small metric")  # the next game pins a status of its own
    await tg.press("Bob", "Join the game")
    await tg.send("Carol", "/join")
    await tg.begin()
    await tg.tick()
    pins = calls(tg, "pinChatMessage")
    assert len(pins) == 2 and pins[1]["message_id"] != pinned["message_id"]


def in_topic(tg: Telegram, name: str, text: str, topic: int) -> Any:
    """``name`` writes ``text`` in forum topic ``topic`` of the group."""
    return make_command(
        tg.bot, text, user=USERS[name], message_thread_id=topic, is_topic_message=True
    )
