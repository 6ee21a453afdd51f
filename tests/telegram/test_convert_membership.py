"""``my_chat_member`` and forum topics converted: the bot added or removed (a change of rights
alone is the adapter's to remember), its rights as plain facts, and a message's topic."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from telegram import Bot, ChatMember

from hideseek_chat.chat.model import BotRights, CommandIn, Membership, MembershipIn
from hideseek_chat.telegram.convert import rights_of, to_inbound
from tests.telegram.factories import (
    ALICE,
    BOT_USERNAME,
    GROUP,
    TOKEN,
    make_command,
    make_membership,
)
from tests.telegram.fakes import ADMIN_MEMBER, BOT_USER, PLAIN_MEMBER

NOW = datetime(2031, 1, 2, 3, 4, 5, tzinfo=UTC)
LEFT = {"status": "left", "user": BOT_USER}


def bot() -> Bot:
    return Bot(TOKEN)


async def convert(update: Any, reads_all: bool = False) -> Any:
    return await to_inbound(update, bot_username=BOT_USERNAME, now=NOW, reads_all=reads_all)


async def test_added_as_a_plain_member_under_privacy_mode() -> None:
    msg = await convert(make_membership(bot(), LEFT, PLAIN_MEMBER))
    assert isinstance(msg, MembershipIn) and msg.change == Membership.ADDED
    assert msg.chat == f"tg:{GROUP}" and msg.sender.ref == f"tg:{ALICE['id']}"
    assert msg.bot_rights == BotRights(sees_all=False)


async def test_added_as_an_admin_the_bot_sees_everything() -> None:
    msg = await convert(make_membership(bot(), LEFT, ADMIN_MEMBER))
    assert msg.bot_rights == BotRights(
        sees_all=True, admin=True, delete_messages=True, pin_messages=True
    )


async def test_removed_and_kicked_are_removals() -> None:
    kicked = {"status": "kicked", "user": BOT_USER, "until_date": 0}
    for gone in (LEFT, kicked):
        msg = await convert(make_membership(bot(), PLAIN_MEMBER, gone))
        assert isinstance(msg, MembershipIn) and msg.change == Membership.REMOVED
        assert msg.bot_rights is None


async def test_a_promotion_is_no_message_for_the_conversation() -> None:
    assert await convert(make_membership(bot(), PLAIN_MEMBER, ADMIN_MEMBER)) is None


async def test_a_private_chat_blocked_is_no_membership() -> None:
    update = make_membership(bot(), PLAIN_MEMBER, LEFT, chat_id=ALICE["id"])
    assert await convert(update) is None


def test_privacy_mode_off_sees_everything_without_admin() -> None:
    assert rights_of_plain(reads_all=True).sees_all
    assert not rights_of_plain(reads_all=False).sees_all


def rights_of_plain(reads_all: bool) -> BotRights:
    member = ChatMember.de_json(PLAIN_MEMBER, bot())
    assert member is not None
    return rights_of(member, reads_all)


async def test_a_message_in_a_forum_topic_names_it() -> None:
    update = make_command(bot(), "/join", message_thread_id=7, is_topic_message=True)
    msg = await convert(update)
    assert isinstance(msg, CommandIn) and msg.topic == "7"
    # a reply in the main thread also carries a thread id, but is no topic message
    plain = await convert(make_command(bot(), "/join", message_thread_id=12))
    assert plain.topic is None
