"""Someone in several games at once: which game their private messages are about.

``which_game`` asks "which game is this about?" when a private command, pin or photo could
mean several (``focus`` decides when it can: the game waiting for them, else their choice);
a live location asks again at most every ``focus.ASK_AGAIN_AFTER``, its updates in between
are not stored. ``press_choose`` records the game a button names, ``game_command`` (/game)
lists their games and offers the choice. Buttons under the bot's messages always name their
own game and need none of this.
"""

from __future__ import annotations

from collections.abc import Sequence

from hideseek_chat.chat import focus, keyboards, texts
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.focus import GameUnclear
from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.keyboards import Press
from hideseek_chat.chat.model import ButtonIn, EditButtons, LocationIn, Outbound
from hideseek_chat.chat.turn import Turn
from hideseek_chat.rules.state import GameState
from hideseek_chat.store import GameNotFound
from hideseek_chat.store.chats import PersonGame

Args = tuple[str, ...]


def which_game(turn: Turn, unclear: GameUnclear) -> list[Outbound]:
    """Ask the sender which of their games their private message is about."""
    msg = turn.msg
    chats = turn.uow.chats
    if isinstance(msg, LocationIn) and msg.edited:  # the next update of a live location
        asked = chats.focus(turn.by).asked_at
        if asked is not None and msg.at - asked < focus.ASK_AGAIN_AFTER:
            return []
    chats.asked_which_game(turn.by, msg.at)
    turn.wrote()
    buttons = _keyboard(unclear.games, unclear.states, turn.fmt, None)
    return [turn.reply(turn.say("chat.which_game"), buttons)]


def game_command(turn: Turn, args: Args) -> list[Outbound]:
    """``/game``: the sender's games, which one their private messages are about, and a
    button for each to choose it."""
    games = turn.person_games()
    if not games:
        raise GameNotFound(turn.by)
    states = turn.person_states()
    try:
        current: PersonGame | None = turn.private_game()
    except GameUnclear:
        current = None
    fmt = turn.fmt
    labels = _labels(games, states, fmt)
    lines = [
        texts.GameLine(label, state.phase, focus.is_waiting_for(state, turn.by))
        for label, state in zip(labels, states, strict=True)
    ]
    shown = None if current is None else lines[games.index(current)]
    text = texts.games_text(lines, shown, fmt)
    if len(games) == 1:
        return [turn.reply(text)]
    current_id = None if current is None else current.game_id
    return [turn.reply(text, _keyboard(games, states, fmt, current_id))]


def press_choose(turn: Turn, press: Press) -> list[Outbound]:
    """A game chosen for the presser's private messages: remember it until that game ends
    or they choose again, and ask them to send their message again."""
    if not turn.is_private:
        raise ChatError("chat.only_private")
    games = turn.person_games()
    chosen = next((g for g in games if g.game_id == press.game_id), None)
    if chosen is None:
        raise ChatError("chat.game_choice_gone")
    turn.uow.chats.choose_game(turn.by, chosen.game_id)
    turn.wrote()
    states = turn.person_states()
    fmt = turn.fmt
    label = _labels(games, states, fmt)[games.index(chosen)]
    replies: list[Outbound] = [turn.reply(turn.say("chat.game_chosen", game=label))]
    msg = turn.msg
    if isinstance(msg, ButtonIn) and msg.message_ref is not None:
        buttons = _keyboard(games, states, fmt, chosen.game_id)
        replies.append(EditButtons(msg.chat, message_ref=msg.message_ref, buttons=buttons))
    return replies


def _keyboard(
    games: Sequence[PersonGame],
    states: Sequence[GameState],
    fmt: Formatter,
    current: int | None,
) -> keyboards.Rows:
    labels = _labels(games, states, fmt)
    return keyboards.choose_game(
        [(label, g.game_id) for label, g in zip(labels, games, strict=True)], current
    )


def _labels(
    games: Sequence[PersonGame],
    states: Sequence[GameState],
    fmt: Formatter,
) -> list[str]:
    """What to call each game: its group's name, else its admin's game; the game's number
    after a name two of them share."""
    labels = [_label(g, s, fmt) for g, s in zip(games, states, strict=True)]
    return [
        f"{label} #{g.game_id}" if labels.count(label) > 1 else label
        for label, g in zip(labels, games, strict=True)
    ]


def _label(game: PersonGame, state: GameState, fmt: Formatter) -> str:
    if game.title:
        return game.title
    admin = next((p for p in state.players if p.id == state.admin_player_id), None)
    name = admin.name if admin is not None else "?"
    return texts.say("chat.game_of", {"name": name}, fmt)
