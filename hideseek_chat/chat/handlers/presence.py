"""The bot in a group: added (an introduction and the rights it needs), removed (the game is
paused, nothing lost), back again (the game is paused: how to resume), the rights a round
needs, and the topic a game lives in.

What the bot may do comes from its channel as plain facts (``model.BotRights``) on the
messages that ask for them (``routes.wants_rights``); nothing here asks the channel anything.
"""

from __future__ import annotations

from hideseek_chat.chat.model import (
    BotRights,
    ButtonIn,
    CommandIn,
    LocationIn,
    Membership,
    MembershipIn,
    Outbound,
    SendText,
)
from hideseek_chat.chat.turn import Turn
from hideseek_chat.rules.clock import open_pause
from hideseek_chat.rules.events import GroupLost
from hideseek_chat.rules.state import PauseReason, Phase

#: Commands that start a game or a round: the channel looks up the bot's rights for them
#: (``routes.wants_rights``).
ROUND_COMMANDS = frozenset({"newgame", "begin", "next"})


def membership(turn: Turn, msg: MembershipIn) -> list[Outbound]:
    """The bot was added to the group or removed from it."""
    if msg.change == Membership.REMOVED:
        if _running(turn):
            turn.apply(GroupLost())
        return []
    lines = [turn.say("chat.hello_group"), "", turn.say("chat.rights_wanted")]
    lines += [turn.say("chat.right_delete"), turn.say("chat.right_pin")]
    if msg.bot_rights is not None and not msg.bot_rights.sees_all:
        lines += ["", turn.say("chat.privacy_on")]
    replies: list[Outbound] = [_say(turn, "\n".join(lines))]
    if _running(turn) and open_pause(turn.state, PauseReason.GAME) is not None:
        # where the game lives (its topic), not where the bot was added
        replies.append(SendText(msg.chat, text=turn.say("chat.paused_while_away")))
    return replies


def privacy_notice(turn: Turn) -> list[Outbound]:
    """/newgame in a group where the bot cannot see every message: say so, and the fix."""
    rights = turn.msg.bot_rights
    if rights is None or rights.sees_all:
        return []
    return [turn.reply(turn.say("chat.privacy_on"))]


def rights_notice(turn: Turn) -> list[Outbound]:
    """Before a round: what the bot cannot do in the group, and what will not work."""
    rights = turn.msg.bot_rights
    if rights is None:
        return []
    missing = missing_rights(rights)
    if not missing and rights.sees_all:
        return []
    lines: list[str] = []
    if not rights.sees_all:
        lines.append(turn.say("chat.privacy_on"))
    if missing:
        if lines:
            lines.append("")
        lines.append(turn.say("chat.rights_missing"))
        lines += [turn.say(key) for key in missing]
        lines.append(turn.say("chat.rights_fix"))
    return [turn.to_group("\n".join(lines))]


def missing_rights(rights: BotRights) -> list[str]:
    """The text keys of the rights the bot lacks (each says what will not work)."""
    missing = []
    if not rights.delete_messages:
        missing.append("chat.missing_delete")
    if not rights.pin_messages:
        missing.append("chat.missing_pin")
    return missing


def elsewhere(turn: Turn) -> list[Outbound] | None:
    """A group message from another topic than the one the group's game lives in: a short
    pointer for a command, nothing for chatter; None when the message is the game's.

    Locations and presses go on: a hider's location posted anywhere must be dealt with,
    and buttons sit under the bot's own messages."""
    msg = turn.msg
    if turn.is_private or isinstance(msg, LocationIn | ButtonIn | MembershipIn):
        return None
    chats = turn.uow.chats
    if turn.services.topic_of(msg.chat, lambda: chats.topic(msg.chat)) == msg.topic:
        return None
    if not turn.has_game() or turn.state.phase == Phase.GAME_OVER:
        return None
    if not isinstance(msg, CommandIn):
        return []
    pointer = SendText(
        msg.chat,
        text=turn.say("chat.game_in_topic"),
        reply_to=msg.message_ref,
        topic=msg.topic or "",
    )
    return [pointer]


def _say(turn: Turn, text: str) -> SendText:
    """A message in the group, in its main thread unless the message came from a topic."""
    return SendText(turn.msg.chat, text=text, topic=turn.msg.topic or "")


def _running(turn: Turn) -> bool:
    return turn.has_game() and turn.state.phase not in (Phase.SETUP, Phase.GAME_OVER)

