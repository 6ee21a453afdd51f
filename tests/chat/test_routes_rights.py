"""Which messages make the channel look up the bot's rights in the group: the one
``routes.wants_rights``, for the commands that start a game or a round and the press that
starts the next round, in a group only."""

from __future__ import annotations

from datetime import UTC, datetime

from hideseek_chat.chat.keyboards import Verb, encode
from hideseek_chat.chat.model import ButtonIn, ChatKind, CommandIn, Sender, TextIn
from hideseek_chat.chat.routes import wants_rights

AT = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)
ALICE = Sender("tg:1", "Alice")


def _command(name: str, kind: ChatKind = ChatKind.GROUP) -> CommandIn:
    return CommandIn("tg:-100", kind, ALICE, AT, name=name)


def _press(data: str) -> ButtonIn:
    return ButtonIn("tg:-100", ChatKind.GROUP, ALICE, AT, data=data)


def test_a_game_or_a_round_about_to_start_in_a_group_wants_the_rights() -> None:
    for name in ("newgame", "begin", "next"):
        assert wants_rights(_command(name)), name
    assert wants_rights(_press(encode(Verb.NEXT_ROUND, 3)))


def test_anything_else_wants_no_rights() -> None:
    assert not wants_rights(_command("begin", ChatKind.PRIVATE))
    assert not wants_rights(_command("status"))
    assert not wants_rights(_press(encode(Verb.CHOOSE_GAME, 3)))
    assert not wants_rights(_press("forged:data:x"))  # unreadable: no rights, no error
    assert not wants_rights(TextIn("tg:-100", ChatKind.GROUP, ALICE, AT, text="begin"))
