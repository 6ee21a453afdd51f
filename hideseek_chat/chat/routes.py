"""The routing table: every command and every button, and which handler serves it.

This table is the one list of what the bot understands. The command menus a channel shows
(``menu``), the /help text (``help_sections``) and any channel's keyword list are read from
it, so a new command is one row here and one handler. ``dispatch`` sends a message's turn
to its handler.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from hideseek_chat.chat import texts
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.handlers import botnet, cards, endgame, info, pins, questions, setup
from hideseek_chat.chat.i18n import N_
from hideseek_chat.chat.keyboards import BOTNET_VERBS, Press, Verb, decode
from hideseek_chat.chat.model import (
    AnswerButton,
    ButtonIn,
    CommandIn,
    FileIn,
    LocationIn,
    Outbound,
    PhotoIn,
    TextIn,
)
from hideseek_chat.chat.turn import Turn

Args = tuple[str, ...]
CommandHandler = Callable[[Turn, Args], list[Outbound]]
ButtonHandler = Callable[[Turn, Press], list[Outbound]]


class Where(StrEnum):
    """Where a command may be sent."""

    GROUP = "group"  # the game's group chat
    PRIVATE = "private"  # the person's private chat with the bot
    ANYWHERE = "anywhere"


@dataclass(frozen=True)
class Command:
    """A command: its name (without the slash), handler, where it works and, for the
    commands players look for, a short description (a msgid) for menus and /help."""

    name: str
    handler: CommandHandler
    where: Where = Where.ANYWHERE
    description: str | None = None
    #: also listed under "In our private chat" in /help (works anywhere, answers privately)
    private_first: bool = False


def _help(turn: Turn, args: Args) -> list[Outbound]:
    return [turn.reply(texts.help_text(help_sections(), turn.fmt))]


def _start(turn: Turn, args: Args) -> list[Outbound]:
    """``/start``: in private, the bot may now write to the person; in a group, /help."""
    if not turn.is_private:
        return _help(turn, args)
    sender = turn.msg.sender
    turn.uow.chats.met(sender.ref, sender.name, turn.msg.at, private_ok=True)
    turn.wrote()
    welcome = turn.reply(turn.say("chat.welcome", name=sender.name))
    return [welcome, *botnet.waiting_prompts(turn)]


#: Every command, in the order menus and /help show them.
COMMANDS: tuple[Command, ...] = (
    Command("newgame", setup.newgame, Where.GROUP, N_("start a new game in this group")),
    Command("join", setup.join, Where.GROUP, N_("join the game")),
    Command("leave", setup.leave, Where.GROUP, N_("leave the game")),
    Command("begin", setup.begin, Where.GROUP, N_("start the game (admin)")),
    Command("ask", questions.ask, Where.ANYWHERE, N_("ask the hider a question")),
    Command("found", endgame.found, Where.GROUP, N_("claim that you found the hider")),
    Command("endgame", endgame.endgame, Where.GROUP, N_("claim that the end game has begun")),
    Command("cleared", cards.cleared, Where.GROUP, N_("report the active curse done")),
    Command("pause", setup.pause, Where.ANYWHERE, N_("pause the game clock")),
    Command("resume", setup.resume, Where.ANYWHERE, N_("resume the game clock")),
    Command("status", info.status, Where.ANYWHERE, N_("show the game's status")),
    Command("score", info.score, Where.ANYWHERE, N_("show the scores")),
    Command("review", info.review, Where.ANYWHERE, N_("review a finished round's answers")),
    Command("hand", cards.hand, Where.ANYWHERE, N_("show your cards (in private)"), True),
    Command("track", info.track, Where.PRIVATE, N_("hider: where the seekers were last seen")),
    Command("map", setup.choose_map, Where.GROUP, N_("choose the game's map (admin)")),
    Command("settings", setup.settings, Where.GROUP, N_("change the game's settings (admin)")),
    Command("language", setup.language, Where.ANYWHERE, N_("choose the language I speak")),
    Command(
        "botnet", botnet.botnet, Where.GROUP, N_("two players: hide && seek on the botnet grid")
    ),
    Command("claim", botnet.claim, Where.ANYWHERE, N_("botnet: claim a device, like /claim e6")),
    Command("resign", botnet.resign, Where.ANYWHERE, N_("botnet: give up the match")),
    Command("help", _help, Where.ANYWHERE, N_("how to play with this bot")),
    # Reached through buttons and replies more than typed, so not in the menus:
    Command("start", _start),
    Command("answer", questions.answer, Where.PRIVATE),
    Command("play", cards.play, Where.PRIVATE),
    Command("move", botnet.move),
    Command("next", setup.next_round),
    Command("abort", setup.abort, Where.GROUP),
)

BY_NAME = {command.name: command for command in COMMANDS}

#: What each button of the Hide+Seek game does (the botnet's verbs go to its handler).
BUTTONS: dict[Verb, ButtonHandler] = {
    Verb.JOIN: setup.press_join,
    Verb.SET: setup.press_setting,
    Verb.CHOOSE_MAP: setup.press_map,
    Verb.NEXT_ROUND: setup.press_next_round,
    Verb.ASK: questions.press_ask,
    Verb.ANSWER: questions.press_answer,
    Verb.CONFIRM_ANSWER: questions.press_confirm,
    Verb.VETO: questions.press_veto,
    Verb.RANDOMIZE: questions.press_randomize,
    Verb.ARRIVED: questions.press_arrived,
    Verb.SHOW_HAND: cards.press_hand,
    Verb.KEEP_CARDS: cards.press_keep,
    Verb.PLAY_CARD: cards.press_play,
    Verb.DISCARD_CARD: cards.press_discard,
    Verb.CLEAR_CURSE: cards.press_clear,
    Verb.ANSWER_CATCH: endgame.press_catch,
    Verb.DECIDE_CLAIM: endgame.press_decide_claim,
    Verb.SPOTTED: endgame.press_spotted,
    Verb.OFF_TRANSIT: endgame.press_off_transit,
    Verb.DECIDE_CATCH: endgame.press_decide_catch,
}


# ----------------------------------------------------------------- derived lists


def menu(where: Where | None = None) -> list[tuple[str, str]]:
    """The commands a menu shows, as ``(name, description msgid)``; with ``where``, only
    those that work there."""
    return [
        (c.name, c.description)
        for c in COMMANDS
        if c.description is not None and (where is None or c.where in (where, Where.ANYWHERE))
    ]


def help_sections() -> list[texts.HelpSection]:
    """/help's sections: the group's commands, the private chat's (with those that answer
    privately), and those that work anywhere."""
    sections: dict[str, list[tuple[str, str]]] = {
        texts.IN_GROUP: [],
        texts.IN_PRIVATE: [],
        texts.ANYWHERE: [],
    }
    for c in COMMANDS:
        if c.description is None:
            continue
        if c.where == Where.GROUP:
            heading = texts.IN_GROUP
        elif c.where == Where.PRIVATE or c.private_first:
            heading = texts.IN_PRIVATE
        else:
            heading = texts.ANYWHERE
        sections[heading].append((c.name, c.description))
    return list(sections.items())


# ----------------------------------------------------------------- dispatch


def dispatch(turn: Turn) -> list[Outbound]:
    """Send the message's turn to its handler; return the direct replies."""
    msg = turn.msg
    if isinstance(msg, CommandIn):
        return _command(turn, msg)
    if isinstance(msg, ButtonIn):
        return _button(turn, msg)
    if isinstance(msg, LocationIn):
        return pins.location(turn, msg)
    if isinstance(msg, TextIn):
        return pins.text(turn, msg)
    if isinstance(msg, PhotoIn):
        return questions.photo(turn, msg)
    if isinstance(msg, FileIn):
        return setup.upload(turn, msg)
    return []


def _command(turn: Turn, msg: CommandIn) -> list[Outbound]:
    command = BY_NAME.get(msg.name)
    if command is None:
        raise ChatError("chat.unknown_command", name=msg.name[:32])
    if command.where == Where.GROUP and turn.is_private:
        raise ChatError("chat.only_in_group")
    if command.where == Where.PRIVATE and not turn.is_private:
        raise ChatError("chat.only_private")
    return command.handler(turn, msg.args)


def _button(turn: Turn, msg: ButtonIn) -> list[Outbound]:
    """A press: run its handler, and acknowledge it with a toast unless a reply does."""
    press = decode(msg.data)
    if press.verb in BOTNET_VERBS:  # a match of its own, not the chat's Hide+Seek game
        replies = botnet.press(turn, press)
        toast = ""
    else:
        if press.game_id != turn.game_id:
            raise ChatError("chat.button_old_game")
        replies = BUTTONS[press.verb](turn, press)
        toast = turn.say("chat.done")
    if not any(isinstance(r, AnswerButton) for r in replies):
        replies.insert(0, AnswerButton(msg.sender.ref, text=toast, press_ref=msg.press_ref))
    return replies
