"""``/forgetme``: a person erases what the bot stores about them, from their private chat.

It asks first, with two buttons (Yes, erase / Cancel). While they are still in a game that
has not ended it erases nothing and says how to leave: a running game needs its players
(the hider's answers, the seekers' pins), and erasing one would leave it half-played. The
erasure itself is the store's (``store.privacy``), in the turn's one unit of work.
"""

from __future__ import annotations

from hideseek_chat.chat import keyboards
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.keyboards import Press, Verb
from hideseek_chat.chat.model import ButtonIn, EditButtons, Outbound
from hideseek_chat.chat.turn import Turn
from hideseek_chat.store import erase_person

Args = tuple[str, ...]


def forgetme(turn: Turn, args: Args) -> list[Outbound]:
    """``/forgetme`` (private): say what will be erased and ask to confirm."""
    _refuse_while_playing(turn)
    buttons = (
        (
            keyboards.button(turn.say("chat.forget_yes"), Verb.FORGET_ME, 0, "y"),
            keyboards.button(turn.say("chat.forget_no"), Verb.FORGET_ME, 0, "n"),
        ),
    )
    return [turn.reply(turn.say("chat.forget_confirm"), buttons)]


def press_forget(turn: Turn, press: Press) -> list[Outbound]:
    """Yes: erase the presser (unless an unfinished game needs them by now); Cancel: erase
    nothing. Either way the two buttons go: a second /forgetme asks again."""
    if not turn.is_private:
        raise ChatError("chat.only_private")
    replies: list[Outbound] = []
    msg = turn.msg
    if isinstance(msg, ButtonIn) and msg.message_ref is not None:
        replies.append(EditButtons(msg.chat, message_ref=msg.message_ref))
    if press.arg(0) != "y":
        return [turn.reply(turn.say("chat.forget_kept")), *replies]
    if turn.person_games():  # joined a game since they were asked
        return [turn.reply(turn.say("chat.forget_playing")), *replies]
    done = turn.say("chat.forgotten")  # in their language, which the erasure forgets
    erase_person(turn.uow, turn.by)
    turn.wrote()
    return [turn.reply(done), *replies]


def _refuse_while_playing(turn: Turn) -> None:
    if turn.person_games():
        raise ChatError("chat.forget_playing")
