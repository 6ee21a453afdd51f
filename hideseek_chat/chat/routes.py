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
from hideseek_chat.chat.focus import GameUnclear
from hideseek_chat.chat.handlers import (
    botnet,
    cards,
    curses,
    endgame,
    games,
    info,
    invite,
    maps,
    pins,
    presence,
    privacy,
    questions,
    seekmap,
    setup,
    trackers,
)
from hideseek_chat.chat.i18n import N_
from hideseek_chat.chat.keyboards import BOTNET_VERBS, Press, Verb, decode
from hideseek_chat.chat.model import (
    AnswerButton,
    ButtonIn,
    ChatKind,
    CommandIn,
    EditButtons,
    FileIn,
    Inbound,
    LocationIn,
    MembershipIn,
    Outbound,
    PhotoIn,
    TextIn,
    TrackerIn,
)
from hideseek_chat.chat.turn import Turn
from hideseek_chat.geo import PinRejected, parse_pin_text

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
    """A command: its name (without the slash), handler, where it works and, for every
    command a player may use, a short description (a msgid) for menus and /help.

    ``listed`` narrows where menus and /help show a command that works anywhere but is
    meant for one kind of chat (a botnet move, typed in a group, is deleted unread).
    ``needs_game`` False: in private it is not about one Hide+Seek game, so someone in
    several is not asked which one (``handlers.games``)."""

    name: str
    handler: CommandHandler
    where: Where = Where.ANYWHERE
    description: str | None = None
    listed: Where | None = None
    needs_game: bool = True

    def is_listed_in(self, kind: Where) -> bool:
        """Whether the menu and /help of a ``kind`` chat (group or private) list it."""
        shown = self.listed or self.where
        return self.description is not None and shown in (kind, Where.ANYWHERE)


def _help(turn: Turn, args: Args) -> list[Outbound]:
    """``/help``: the commands of this kind of chat, and where to find the others."""
    kind = Where.PRIVATE if turn.is_private else Where.GROUP
    other = texts.FROM_PRIVATE_NOTE if turn.is_private else texts.FROM_GROUP_NOTE
    notes = (*texts.HELP_NOTES, other)
    return [turn.reply(texts.help_text(help_sections(kind), turn.fmt, notes))]


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
    Command(
        "team", setup.team, Where.GROUP, N_("make or join a team: /team Red (before the game)")
    ),
    Command("leave", setup.leave, Where.GROUP, N_("leave the game")),
    Command(
        "invite", invite.invite, Where.GROUP, N_("invite a player by text: /invite +41791234567")
    ),
    Command("begin", setup.begin, Where.GROUP, N_("start the game (admin)")),
    Command(
        "next", setup.next_round, Where.ANYWHERE, N_("next hider: start your hiding period now")
    ),
    Command("ask", questions.ask, Where.ANYWHERE, N_("ask the hider a question")),
    Command(
        "answer", questions.answer, Where.PRIVATE, N_("hider: type an answer, like /answer yes")
    ),
    Command("found", endgame.found, Where.GROUP, N_("claim that you found the hider")),
    Command("endgame", endgame.endgame, Where.GROUP, N_("claim that the end game has begun")),
    Command("cleared", cards.cleared, Where.GROUP, N_("report the active curse done")),
    Command("penalty", curses.penalty, Where.GROUP, N_("report that a curse struck (a bonus)")),
    Command("lost", curses.lost, Where.GROUP, N_("report a lost curse game (hangman)")),
    Command("pause", setup.pause, Where.ANYWHERE, N_("pause the game clock")),
    Command("resume", setup.resume, Where.ANYWHERE, N_("resume the game clock")),
    Command("status", info.status, Where.ANYWHERE, N_("show the game's status")),
    Command("score", info.score, Where.ANYWHERE, N_("show the scores")),
    Command("review", info.review, Where.ANYWHERE, N_("review a finished round's answers")),
    Command("hand", cards.hand, Where.ANYWHERE, N_("show your cards (in private)")),
    Command("play", cards.play, Where.PRIVATE, N_("hider: play card N of your hand, like /play 2")),
    Command("track", info.track, Where.PRIVATE, N_("hider: where the seekers were last seen")),
    Command(
        "tracker",
        trackers.tracker_command,
        Where.PRIVATE,
        N_("your link for a GPS tracker app (OwnTracks, Traccar, GPSLogger); off, reset"),
        needs_game=False,
    ),
    # /map find PLACE, /map stations, /map refresh: /map itself shows them.
    Command(
        "map",
        maps.map_command,
        Where.GROUP,
        N_("the game's map: choose one, find any city, drop stations (admin)"),
    ),
    Command(
        "seekmap",
        seekmap.seekmap_command,
        Where.GROUP,
        N_("the seekers' map: where the answers leave the hider (on/off: after each answer)"),
    ),
    Command(
        "stations", seekmap.stations_command, Where.ANYWHERE, N_("the stations still possible")
    ),
    Command("settings", setup.settings, Where.GROUP, N_("change the game's settings (admin)")),
    Command("abort", setup.abort, Where.GROUP, N_("end the game now, without a winner (admin)")),
    Command(
        "game",
        games.game_command,
        Where.PRIVATE,
        N_("in several games at once: choose which one our chat is about"),
        needs_game=False,
    ),
    Command(
        "language",
        setup.language,
        Where.ANYWHERE,
        N_("choose the language I speak"),
        needs_game=False,
    ),
    Command(
        "botnet", botnet.botnet, Where.GROUP, N_("two players: hide && seek on the botnet grid")
    ),
    Command(
        "claim",
        botnet.claim,
        Where.ANYWHERE,
        N_("botnet: claim a device, like /claim e6"),
        listed=Where.GROUP,
        needs_game=False,
    ),
    Command(
        "move",
        botnet.move,
        Where.ANYWHERE,
        N_("botnet: move your proxy, like /move e5"),
        listed=Where.PRIVATE,
        needs_game=False,
    ),
    Command(
        "resign",
        botnet.resign,
        Where.ANYWHERE,
        N_("botnet: give up the match"),
        needs_game=False,
    ),
    Command(
        "forgetme",
        privacy.forgetme,
        Where.PRIVATE,
        N_("erase what I store about you (asks first)"),
        needs_game=False,
    ),
    Command("help", _help, Where.ANYWHERE, N_("how to play with this bot"), needs_game=False),
    # Telegram's own button when a private chat opens; in a group it shows /help.
    Command("start", _start, needs_game=False),
)

BY_NAME = {command.name: command for command in COMMANDS}

#: What each button of the Hide+Seek game does (the botnet's verbs go to its handler).
BUTTONS: dict[Verb, ButtonHandler] = {
    Verb.JOIN: setup.press_join,
    Verb.SET: setup.press_setting,
    Verb.CHOOSE_MAP: setup.press_map,
    Verb.MAP_PLACE: maps.press_place,
    Verb.MAP_RADIUS: maps.press_radius,
    Verb.MAP_MODE: maps.press_mode,
    Verb.MAP_FETCH: maps.press_fetch,
    Verb.STATIONS_PAGE: maps.press_stations_page,
    Verb.STATION: maps.press_station,
    Verb.DROP_STATION: maps.press_drop,
    Verb.NEXT_ROUND: setup.press_next_round,
    Verb.ABORT: setup.press_abort,
    Verb.TEAM: setup.press_team,
    Verb.ASK: questions.press_ask,
    Verb.ASK_MENU: questions.press_ask_menu,
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
    Verb.REPORT_PENALTY: curses.press_report_penalty,
    Verb.CONFIRM_PENALTY: curses.press_confirm_penalty,
    Verb.REPORT_LOSS: curses.press_report_loss,
    Verb.CONFIRM_LOSS: curses.press_confirm_loss,
    Verb.ANSWER_CATCH: endgame.press_catch,
    Verb.DECIDE_CLAIM: endgame.press_decide_claim,
    Verb.SPOTTED: endgame.press_spotted,
    Verb.OFF_TRANSIT: endgame.press_off_transit,
    Verb.DECIDE_CATCH: endgame.press_decide_catch,
    Verb.SEEKMAP_STATIONS: seekmap.press_stations,
    Verb.SEEKMAP_GEOJSON: seekmap.press_geojson,
}


#: Buttons whose keyboard is spent once one of them worked: it is removed from its message
#: (an answer given, cards kept, a card played, a catch confirmed). The others stay for
#: the next person or the next choice (joining, a team, settings, the map, the hand). A
#: curse's keyboard stays when it is cleared: its other buttons (it struck, a lost game)
#: may still be needed; a second "done" is refused with a toast.
SPENT_BY_A_PRESS = frozenset(
    {
        Verb.ABORT,
        Verb.NEXT_ROUND,
        Verb.ASK,
        Verb.ANSWER,
        Verb.CONFIRM_ANSWER,
        Verb.VETO,
        Verb.RANDOMIZE,
        Verb.ARRIVED,
        Verb.KEEP_CARDS,
        Verb.PLAY_CARD,
        Verb.DISCARD_CARD,
        Verb.ANSWER_CATCH,
        Verb.DECIDE_CLAIM,
        Verb.MAP_FETCH,
    }
)


#: Keyboards with one purpose (a claim, a confirmation, a decision): once one of their
#: buttons no longer works (settled, another round), none of them does, so a refused press
#: takes the keyboard away (``Conversation``). Other keyboards mix buttons (a question's
#: answers with its Veto), so one dead button does not take them.
ONE_PURPOSE = frozenset(
    {
        Verb.DECIDE_CLAIM,
        Verb.OFF_TRANSIT,
        Verb.CONFIRM_ANSWER,
        Verb.CONFIRM_PENALTY,
        Verb.CONFIRM_LOSS,
        Verb.DECIDE_CATCH,
        Verb.MAP_PLACE,
        Verb.MAP_RADIUS,
        Verb.MAP_MODE,
        Verb.MAP_FETCH,
    }
)

# ----------------------------------------------------------------- derived lists


def menu(where: Where) -> list[tuple[str, str]]:
    """The commands a ``where`` chat (group or private) lists in its menu and /help, as
    ``(name, description msgid)``: every command a player can use there."""
    return [(c.name, c.description) for c in COMMANDS if c.description and c.is_listed_in(where)]


def help_sections(where: Where) -> list[texts.HelpSection]:
    """/help's section for a ``where`` chat: its commands, under the heading of its kind."""
    heading = texts.IN_PRIVATE if where == Where.PRIVATE else texts.IN_GROUP
    return [(heading, menu(where))]


# ----------------------------------------------------------------- dispatch


def dispatch(turn: Turn) -> list[Outbound]:
    """Send the message's turn to its handler; return the direct replies.

    A private message about a game, from someone in several, goes to the game ``focus``
    settles on; when none, they are asked which game they mean (``games.which_game``)
    before anything is written."""
    try:
        return _dispatch(turn)
    except GameUnclear as unclear:
        return games.which_game(turn, unclear)


def wants_rights(msg: Inbound) -> bool:
    """Whether the channel should tell the bot's rights in the group with ``msg``
    (``Inbound.bot_rights``): a game or a round is about to start (a command of
    ``presence.ROUND_COMMANDS``, or the press that starts the next round)."""
    if msg.kind != ChatKind.GROUP:
        return False
    if isinstance(msg, CommandIn):
        return msg.name in presence.ROUND_COMMANDS
    if isinstance(msg, ButtonIn):
        try:
            return decode(msg.data).verb == Verb.NEXT_ROUND
        except ChatError:
            return False
    return False


def _dispatch(turn: Turn) -> list[Outbound]:
    msg = turn.msg
    if isinstance(msg, MembershipIn):
        return presence.membership(turn, msg)
    away = None if _beside_the_game(msg) else presence.elsewhere(turn)
    if away is not None:  # another topic than the game's
        return away
    if isinstance(msg, CommandIn):
        return _command(turn, msg)
    if isinstance(msg, ButtonIn):
        return _button(turn, msg)
    if isinstance(msg, TrackerIn):
        return pins.tracker(turn, msg)
    if isinstance(msg, LocationIn):
        # In private, the handler settles the game before it writes: with the ping itself
        # when the sender plays in one game (``Pings.record_alone``).
        return pins.location(turn, msg)
    if isinstance(msg, TextIn):
        if turn.is_private and _reads_as_pin(msg):  # other chatter concerns no game
            turn.settle_game()
        return pins.text(turn, msg)
    if isinstance(msg, PhotoIn):
        if turn.is_private:
            turn.settle_game()
        return questions.photo(turn, msg)
    if isinstance(msg, FileIn):
        return maps.upload(turn, msg)
    return []


def _beside_the_game(msg: Inbound) -> bool:
    """Whether ``msg`` is a command about no Hide+Seek game (/help, /language, the botnet's
    moves): it works in any topic of a group."""
    if not isinstance(msg, CommandIn):
        return False
    command = BY_NAME.get(msg.name)
    return command is not None and not command.needs_game


def _reads_as_pin(msg: TextIn) -> bool:
    try:
        parse_pin_text(msg.text, msg.at)
    except PinRejected:
        return False
    return True


def _command(turn: Turn, msg: CommandIn) -> list[Outbound]:
    command = BY_NAME.get(msg.name)
    if command is None:
        raise ChatError("chat.unknown_command", name=msg.name[:32])
    if command.where == Where.GROUP and turn.is_private:
        raise ChatError("chat.only_in_group")
    if command.where == Where.PRIVATE and not turn.is_private:
        raise ChatError("chat.only_private")
    if command.needs_game and turn.is_private:
        turn.settle_game()
    return command.handler(turn, msg.args)


def _button(turn: Turn, msg: ButtonIn) -> list[Outbound]:
    """A press: run its handler, and acknowledge it with a toast unless a reply does."""
    press = decode(msg.data)
    if press.verb in BOTNET_VERBS:  # a match of its own, not the chat's Hide+Seek game
        replies = botnet.press(turn, press)
        toast = ""
    elif press.verb == Verb.CHOOSE_GAME:  # names the game to choose, not the one to act in
        replies = games.press_choose(turn, press)
        toast = turn.say("chat.done")
    elif press.verb == Verb.FORGET_ME:  # about the presser, not a game
        replies = privacy.press_forget(turn, press)
        toast = turn.say("chat.done")
    elif press.verb == Verb.TRACKER:  # the person's own link, whatever their game
        replies = trackers.press(turn, press)
        toast = ""
    else:
        if turn.is_private:  # the game the button names, when the presser plays in it
            turn.follow(press.game_id)
        if press.game_id != turn.game_id:
            raise ChatError("chat.button_old_game")
        replies = BUTTONS[press.verb](turn, press)
        toast = turn.say("chat.done")
        if press.verb in SPENT_BY_A_PRESS and msg.message_ref is not None:
            replies.append(EditButtons(msg.chat, message_ref=msg.message_ref))
    if not any(isinstance(r, AnswerButton) for r in replies):
        replies.insert(0, AnswerButton(msg.sender.ref, text=toast, press_ref=msg.press_ref))
    return replies
