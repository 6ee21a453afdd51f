"""What a refused message gets: one clear sentence where the person acted (a toast for a
button press), and a keyboard that belongs to a moment that has passed taken away."""

from __future__ import annotations

from hideseek_chat.chat import routes
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.keyboards import Verb, decode
from hideseek_chat.chat.model import AnswerButton, ButtonIn, EditButtons, Outbound
from hideseek_chat.chat.texts import say
from hideseek_chat.chat.turn import Turn
from hideseek_chat.rules.errors import RuleViolation, WrongPhase
from hideseek_chat.store import GameNotFound

#: Refusals that mean a pressed button belongs to an earlier game, the setup, or a game
#: that has ended.
STALE_KEYS = frozenset({"chat.button_old_game", "chat.setup_only", "chat.abort_nothing"})

#: Refusals that mean a one-purpose keyboard is spent.
SPENT_KEYS = frozenset({"chat.button_unknown", "chat.penalty_already", "chat.loss_already"})


def _is_stale(refusal: Exception, data: str = "", own_chat: bool = False) -> bool:
    """Whether a press was refused because its keyboard is out of date: an earlier game, the
    setup once the game has begun, another phase of the game that is over (WrongPhase), no
    game left for the presser in their own private chat (an aborted or finished game's
    keyboard), or a one-purpose keyboard (``data``'s verb) already settled."""
    if isinstance(refusal, WrongPhase) or (isinstance(refusal, GameNotFound) and own_chat):
        return True
    if not isinstance(refusal, ChatError):
        return False
    if refusal.key in SPENT_KEYS and _verb(data) in routes.ONE_PURPOSE:
        return True
    return refusal.key in STALE_KEYS


def refuse(turn: Turn, refusal: Exception) -> list[Outbound]:
    """One clear sentence where the person acted (a toast for a button press)."""
    msg = turn.msg
    if isinstance(refusal, GameNotFound):
        key, params = ("chat.not_in_game" if turn.is_private else "chat.no_game"), {}
    else:
        assert isinstance(refusal, RuleViolation | ChatError)
        key, params = refusal.key, dict(refusal.params)
    text = say(key, params, turn.fmt)
    if isinstance(msg, ButtonIn):
        toast: list[Outbound] = [AnswerButton(msg.sender.ref, text=text, press_ref=msg.press_ref)]
        own = msg.chat == msg.sender.ref  # the presser's private chat
        if msg.message_ref is not None and _is_stale(refusal, msg.data, own):
            # The keyboard belongs to a moment that has passed: the toast says why,
            # and the buttons go so that nobody presses them again.
            toast.append(EditButtons(msg.chat, message_ref=msg.message_ref))
        return toast
    return [turn.reply(text)]


def _verb(data: str) -> Verb | None:
    """The verb of button ``data``, None when it is malformed."""
    try:
        return decode(data).verb
    except ChatError:
        return None
