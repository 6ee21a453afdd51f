"""``/invite +41…``: a game's admin invites a player without Telegram, who plays by text.

The number gets the game's join code by SMS (the group's code, made on first use); the
admin's command, which holds the number, is deleted where the bot may delete, and the bot's
own answer never repeats it. A number that texted STOP
gets nothing (the SMS channel leaves out opted-out numbers).
"""

from __future__ import annotations

from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.handlers.setup import require_admin
from hideseek_chat.chat.model import DeleteMessage, Outbound, SendText
from hideseek_chat.chat.parsing import phone_number
from hideseek_chat.chat.turn import Turn


def invite(turn: Turn, args: tuple[str, ...]) -> list[Outbound]:
    """``/invite NUMBER`` (admin, in the game's group)."""
    require_admin(turn)
    number = phone_number(" ".join(args)[:64]) if args else None
    if number is None:
        raise ChatError("sms.invite_usage")
    uow, now = turn.uow, turn.msg.at
    invited = uow.sms.number(number, now)
    assert invited is not None
    code = uow.sms.code_of_chat(turn.game_chat(), now)
    turn.wrote()
    text = turn.say("sms.invited", code=code)
    sent: list[Outbound] = [SendText(invited.ref, text=text, private=True)]
    if turn.msg.message_ref:  # the number stays in the group no longer than it must
        sent.append(DeleteMessage(turn.msg.chat, message_ref=turn.msg.message_ref))
        sent.append(turn.to_group(turn.say("sms.invite_sent")))
    else:
        sent.append(turn.reply(turn.say("sms.invite_sent")))
    return sent
