"""What each command, button, pin, photo and file does: parse, check, apply, reply.

Every function takes the ``Conversation`` and the inbound message and returns the direct
replies; engine events go through ``Conversation.apply`` (their announcements reach the
outbox). Refusals are raised (``ChatError``, ``RuleViolation``) and rendered by the caller.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from itertools import combinations
from typing import TYPE_CHECKING

from hideseek_chat.chat import botnet, checks, endgame, referee, review, views
from hideseek_chat.chat.buttons import Press, decode, encode
from hideseek_chat.chat.commands import ChatError, parse_ask, parse_newgame
from hideseek_chat.chat.i18n import LANGUAGES, Formatter, language_name
from hideseek_chat.chat.language import adopt_default, cmd_language
from hideseek_chat.chat.maps import MAX_UPLOAD_BYTES, import_upload, to_data, upload_name
from hideseek_chat.chat.messages import render
from hideseek_chat.chat.model import (
    AnswerButton,
    Button,
    ButtonIn,
    ChatKind,
    CommandIn,
    DeleteMessage,
    FileIn,
    Inbound,
    LocationIn,
    Outbound,
    PhotoIn,
    SendText,
    TextIn,
)
from hideseek_chat.chat.service import reader
from hideseek_chat.chat.views import chat_text
from hideseek_chat.geo import HidingSpot, Pin, PinRejected, parse_pin_text
from hideseek_chat.rules import new_game
from hideseek_chat.rules.curses import is_active, is_clearable, rules_of
from hideseek_chat.rules.deck import hand_limit
from hideseek_chat.rules.errors import CardNotAvailable, NotAllowed, RuleViolation
from hideseek_chat.rules.events import (
    CardDiscarded,
    CardPlayed,
    CardsKept,
    CatchAnswered,
    CatchClaimed,
    CurseCleared,
    Event,
    GameAborted,
    GameBegun,
    GamePaused,
    GameResumed,
    NextRoundStarted,
    PlayerJoined,
    PlayerLeft,
    QuestionAnswered,
    QuestionAsked,
    SettingsChanged,
    ThermometerFinished,
)
from hideseek_chat.rules.questions import offers
from hideseek_chat.rules.ruleset import CardKind, Category, CostKind, CurseEffect, PowerupEffect
from hideseek_chat.rules.state import CardZone, GameState, Mode, Phase, QuestionStatus
from hideseek_chat.store import GameNotFound, UnitOfWork, start_game

if TYPE_CHECKING:
    from hideseek_chat.chat.service import Conversation

Handler = Callable[["Conversation", CommandIn], list[Outbound]]

GROUP_ONLY = {
    "newgame",
    "join",
    "leave",
    "begin",
    "found",
    "endgame",
    "cleared",
    "settings",
    "map",
    "abort",
    "botnet",
}
PRIVATE_ONLY = {"answer", "track", "play"}


# ===================================================================== commands


def command(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    handler = COMMANDS.get(msg.name)
    if handler is None:
        raise ChatError("chat.unknown_command", name=msg.name[:32])
    if msg.name in GROUP_ONLY and msg.kind != ChatKind.GROUP:
        raise ChatError("chat.only_in_group")
    if msg.name in PRIVATE_ONLY and msg.kind != ChatKind.PRIVATE:
        raise ChatError("chat.only_private")
    return handler(conv, msg)


def _by(msg: Inbound) -> str:
    return msg.sender.ref


def _apply(conv: Conversation, msg: Inbound, event: Event) -> list[Outbound]:
    conv.apply(conv.game_chat(msg), event, msg.at, msg.update_id)
    return []


def cmd_newgame(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    args = parse_newgame(msg.args, conv.known_rulesets)
    with conv.uow_factory() as uow:
        loaded = uow.games.for_chat(msg.chat)
        if loaded is not None and loaded.state.phase != Phase.GAME_OVER:
            raise ChatError("chat.game_running")
        uow.chats.met(msg.sender.ref, msg.sender.name, msg.at)
        adopt_default(uow, msg)
        uow.commit()
    name = args.ruleset or "metric"
    ruleset = conv.rulesets(name)
    state, decisions = new_game(
        ruleset, args.size, conv.seeds(), msg.sender.ref, msg.sender.name, msg.at
    )
    conv.maybe_pending = True
    start_game(conv.uow_factory, msg.chat, state, decisions, msg.at, msg.update_id)
    return []


def cmd_join(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    _apply(conv, msg, PlayerJoined(_by(msg), msg.sender.name))
    return _private_nudge(conv, msg)


def _private_nudge(conv: Conversation, msg: Inbound) -> list[Outbound]:
    """Ask the sender to open a private chat when the bot cannot write to them yet."""
    with conv.uow_factory() as uow:
        if uow.chats.can_message(msg.sender.ref):
            return []
        uow.chats.met(msg.sender.ref, msg.sender.name, msg.at)
        uow.commit()
    fmt = conv.formatter_for(msg)
    button = Button(chat_text("chat.open_private_button", {}, fmt), private_link=True)
    text = chat_text("chat.open_private", {"names": msg.sender.name}, fmt)
    return [conv.reply(msg, text, ((button,),))]


def cmd_leave(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    return _apply(conv, msg, PlayerLeft(_by(msg)))


def cmd_begin(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    _apply(conv, msg, GameBegun(_by(msg)))
    with conv.uow_factory() as uow:
        _, state = conv.load(uow, msg.chat)
        missing = [p.name for p in state.players if p.active and not uow.chats.can_message(p.ref)]
        fmt = conv.formatter(uow, msg.chat, state)
    if not missing:
        return []
    button = Button(chat_text("chat.open_private_button", {}, fmt), private_link=True)
    text = chat_text("chat.open_private", {"names": fmt.names(missing)}, fmt)
    return [conv.reply(msg, text, ((button,),))]


def cmd_ask(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    chat = conv.game_chat(msg)
    with conv.uow_factory() as uow:
        game_id, state = conv.load(uow, chat)
        ruleset = conv.ruleset(state)
        fmt = conv.formatter(uow, chat, state, reader(msg))
        player = state.player_by_ref(msg.sender.ref)
        if not msg.args:
            if player is None:
                raise ChatError("chat.not_in_game")
            available = offers(state, ruleset, player.team_id)
            buttons = tuple(
                (Button(views.offer_label(o, fmt), encode("ask", game_id, o.question.id)),)
                for o in available
                if not o.question.custom_distance
            )
            return [conv.reply(msg, views.ask_menu_text(available, fmt), buttons)]
        asked = parse_ask(msg.args, ruleset, state.size)
        riding = False
        if player is not None:
            riding = referee.on_transit(conv.pins_of(uow, game_id, player.id, 10), msg.at)
    event = QuestionAsked(_by(msg), asked.question_id, asked.distance_m, riding)
    return _apply(conv, msg, event)


def cmd_found(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    """A seeker claims the catch; the bot measures it when both have recent pins."""
    chat = msg.chat
    distance: float | None = None
    with conv.uow_factory() as uow:
        game_id, state = conv.load(uow, chat)
        player = state.player_by_ref(msg.sender.ref)
        current = state.current_round
        if player is not None and current is not None:
            mine = conv.pins_of(uow, game_id, player.id, 1)
            spot = uow.chats.hiding_spot(game_id, current.number)
            hider_ping = conv.hider_ping(uow, game_id, state)
            target: HidingSpot | Pin | None = None
            if spot is not None:
                target = HidingSpot(spot.lat, spot.lon, spot.accuracy_m, spot.frozen_at)
            elif hider_ping is not None:
                target = referee.pin_of(hider_ping)
            if mine and target is not None and referee.is_current(mine[0], msg.at):
                catch_m = conv.ruleset(state).catch_distance_m
                check = referee.catch_distance(mine[0], target, catch_m)
                if check.verdict == "not_caught" and check.distance_m > FAR_CLAIM_M:
                    # Only the verdict may reach the seekers, never the distance.
                    raise ChatError("chat.catch_too_far")
                distance = check.distance_m
    return _apply(conv, msg, CatchClaimed(_by(msg), distance))


#: A catch claim the pins put further than this from the hider is refused outright; closer
#: ones go to the hider, who has the last word (GPS indoors can be far off).
FAR_CLAIM_M = 100.0


def cmd_cleared(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    with conv.uow_factory() as uow:
        game_id, state = conv.load(uow, msg.chat)
        fmt = conv.formatter(uow, msg.chat, state)
    ruleset = conv.ruleset(state)
    open_curses = [
        c
        for c in state.round_curses()
        if is_active(c, msg.at) and is_clearable(rules_of(ruleset, c))
    ]
    if msg.args:
        wanted = " ".join(msg.args).lower()
        open_curses = [c for c in open_curses if wanted in (c.def_id, fmt.card(c.def_id).lower())]
    if not open_curses:
        raise ChatError("chat.no_curse_to_clear")
    if len(open_curses) > 1:
        buttons = tuple(
            (Button(fmt.card(c.def_id), encode("clear", game_id, c.id)),) for c in open_curses
        )
        return [conv.reply(msg, chat_text("chat.which_curse", {}, fmt), buttons)]
    return _apply(conv, msg, CurseCleared(_by(msg), open_curses[0].id))


def cmd_pause(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    return _apply(conv, msg, GamePaused(_by(msg)))


def cmd_resume(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    return _apply(conv, msg, GameResumed(_by(msg)))


def cmd_abort(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    return _apply(conv, msg, GameAborted(_by(msg)))


def cmd_next(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    return _apply(conv, msg, NextRoundStarted(_by(msg)))


def cmd_status(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    chat = conv.game_chat(msg)
    with conv.uow_factory() as uow:
        game_id, state = conv.load(uow, chat)
        fmt = conv.formatter(uow, chat, state, reader(msg))
        text = status_for(conv, uow, game_id, state, fmt, msg.at)
    return [conv.reply(msg, text)]


def status_for(
    conv: Conversation,
    uow: UnitOfWork,
    game_id: int,
    state: GameState,
    fmt: Formatter,
    now: datetime,
) -> str:
    seen: dict[str, datetime | None] = {}
    for player in state.players:
        if player.active:
            pings = conv.pins_of(uow, game_id, player.id, 1)
            seen[player.ref] = pings[0].at if pings else None
    return views.status_text(state, fmt, now, seen)


def cmd_score(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    chat = conv.game_chat(msg)
    with conv.uow_factory() as uow:
        _, state = conv.load(uow, chat)
        fmt = conv.formatter(uow, chat, state, reader(msg))
    return [conv.reply(msg, views.score_text(state, fmt))]


def cmd_help(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    return [conv.reply(msg, views.help_text(conv.formatter_for(msg)))]


def cmd_start(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    if msg.kind != ChatKind.PRIVATE:
        return cmd_help(conv, msg)
    with conv.uow_factory() as uow:
        uow.chats.met(msg.sender.ref, msg.sender.name, msg.at, private_ok=True)
        uow.commit()
    fmt = conv.formatter_for(msg)
    welcome = conv.reply(msg, chat_text("chat.welcome", {"name": msg.sender.name}, fmt))
    return [welcome, *botnet.waiting_prompts(conv, msg.sender.ref)]


def cmd_hand(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    chat = conv.game_chat(msg)
    with conv.uow_factory() as uow:
        game_id, state = conv.load(uow, chat)
        fmt = conv.formatter(uow, chat, state, reader(msg))
        own = conv.formatter(uow, chat, state, msg.sender.ref)  # the hand goes to them
    player = state.player_by_ref(msg.sender.ref)
    if player is None:
        raise ChatError("chat.not_in_game")
    text, buttons = hand_view(conv, state, game_id, player.team_id, own)
    private = SendText(msg.sender.ref, text=text, buttons=buttons, private=True)
    if msg.kind == ChatKind.GROUP:
        return [private, conv.reply(msg, chat_text("chat.hand_sent", {}, fmt))]
    return [private]


def hand_view(
    conv: Conversation, state: GameState, game_id: int, team_id: int, fmt: Formatter
) -> tuple[str, tuple[tuple[Button, ...], ...]]:
    ruleset = conv.ruleset(state)
    limit = hand_limit(state, ruleset, team_id)
    rows: list[tuple[Button, ...]] = []
    for card in state.cards_in(CardZone.HAND, team_id):
        definition = ruleset.card(card.def_id)
        row = []
        if definition.kind != CardKind.TIME_BONUS:
            row.append(Button(f"▶️ {fmt.card(card.def_id)}", encode("play", game_id, card.id)))
        row.append(Button(f"🗑 {fmt.card(card.def_id)}", encode("disc", game_id, card.id)))
        rows.append(tuple(row))
    return views.hand_text(state, fmt, team_id, limit), tuple(rows)


def cmd_track(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    from hideseek_chat.geo import distance_m

    chat = conv.game_chat(msg)
    with conv.uow_factory() as uow:
        game_id, state = conv.load(uow, chat)
        fmt = conv.formatter(uow, chat, state, reader(msg))
        player = state.player_by_ref(msg.sender.ref)
        if player is None or not state.is_hider(player.id):
            raise NotAllowed("only the hider tracks the seekers", key="error.only_hider")
        mine = conv.pins_of(uow, game_id, player.id, 1)
        rows: list[tuple[str, float | None, datetime | None]] = []
        for team_id in state.seeker_team_ids():
            for seeker in state.team_players(team_id):
                pings = conv.pins_of(uow, game_id, seeker.id, 1)
                if not pings:
                    rows.append((seeker.name, None, None))
                    continue
                far = (
                    distance_m(mine[0].lat, mine[0].lon, pings[0].lat, pings[0].lon)
                    if mine
                    else None
                )
                rows.append((seeker.name, far, pings[0].at))
    return [conv.reply(msg, views.track_text(state, fmt, msg.at, rows))]


def cmd_answer(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    """``/answer yes`` or ``/answer named Museum of Art``: the typed way to answer."""
    if not msg.args:
        raise ChatError("chat.answer_usage")
    word = msg.args[0].lower()
    detail = " ".join(msg.args[1:]) or None
    if word not in ("named",) and detail:
        raise ChatError("chat.answer_usage")
    chat = conv.game_chat(msg)
    with conv.uow_factory() as uow:
        _, state = conv.load(uow, chat)
    return checks.answer(conv, msg, state, None, word, detail)


def cmd_play(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    """``/play N ban q1 q2 q3``: play card N of /hand with the questions it bans."""
    chat = conv.game_chat(msg)
    with conv.uow_factory() as uow:
        _, state = conv.load(uow, chat)
    player = state.player_by_ref(msg.sender.ref)
    if player is None:
        raise ChatError("chat.not_in_game")
    hand = state.cards_in(CardZone.HAND, player.team_id)
    try:
        number = int(msg.args[0])
    except (IndexError, ValueError):
        raise ChatError("chat.ban_usage", number=1) from None
    if not 1 <= number <= len(hand):
        raise CardNotAvailable("no such card in the hand", key="error.card_not_in_hand")
    card = hand[number - 1]
    banned = tuple(a.lower() for a in msg.args[2:]) if msg.args[1:2] == ("ban",) else ()
    return _apply(conv, msg, CardPlayed(_by(msg), card.id, banned_question_ids=banned))


def cmd_settings(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    from hideseek_chat.rules.lifecycle import settings_summary

    with conv.uow_factory() as uow:
        game_id, state = conv.load(uow, msg.chat)
        fmt = conv.formatter(uow, msg.chat, state)
        automatic = uow.chats.prefs(msg.chat).auto_answer
    _require_admin(state, msg)
    # The settings in the group's words: the lines of the game.settings notice, heading cut.
    summary = render("game.settings", settings_summary(state), fmt).split("\n")[1:]
    text = chat_text("chat.settings_title", {"summary": " ".join(summary)}, fmt)
    g = game_id
    rows = (
        tuple(
            Button(
                fmt.n("{count} round each", "{count} rounds each", n), encode("set", g, "rounds", n)
            )
            for n in (1, 2, 3)
        ),
        tuple(
            Button(label, encode("set", g, "timer", v))
            for label, v in (
                (fmt.t("No time limit"), 0),
                ("4 h", 240),
                ("8 h", 480),
                ("24 h", 1440),
            )
        ),
        (
            Button(fmt.t("No rest periods"), encode("set", g, "rest", "none")),
            Button(fmt.t("Rest 22:00–08:00"), encode("set", g, "rest", "night")),
        ),
        tuple(Button(language_name(c), encode("set", g, "lang", c)) for c in LANGUAGES),
        (
            Button(fmt.t("Metric"), encode("set", g, "units", "metric")),
            Button(fmt.t("Imperial"), encode("set", g, "units", "imperial")),
        ),
        (Button(fmt.t("Choose the map"), encode("set", g, "map", "list")),),
        (
            Button(
                chat_text("chat.auto_turn_off" if automatic else "chat.auto_turn_on", {}, fmt),
                encode("set", g, "auto", "off" if automatic else "on"),
            ),
        ),
    )
    return [conv.reply(msg, text, rows)]


def _require_admin(state: GameState, msg: Inbound) -> None:
    player = state.player_by_ref(msg.sender.ref)
    if player is None or player.id != state.admin_player_id:
        raise ChatError("chat.only_admin")


def cmd_map(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    with conv.uow_factory() as uow:
        game_id, state = conv.load(uow, msg.chat)
        fmt = conv.formatter(uow, msg.chat, state)
        names = conv.maps.names(uow)
        current = uow.chats.prefs(msg.chat).map_name
    if not msg.args:
        buttons = tuple((Button(n, encode("map", game_id, n)),) for n in names)
        return [conv.reply(msg, chat_text("chat.map_list", {"name": current}, fmt), buttons)]
    return [conv.reply(msg, choose_map(conv, msg, state, msg.args[0].lower(), fmt))]


def choose_map(
    conv: Conversation, msg: Inbound, state: GameState, name: str, fmt: Formatter
) -> str:
    _require_admin(state, msg)
    if state.phase != Phase.SETUP:
        raise ChatError("chat.setup_only")
    chat = conv.game_chat(msg)
    with conv.uow_factory() as uow:
        names = conv.maps.names(uow)
        if name not in names:
            raise ChatError("chat.map_unknown", name=name[:40], names=", ".join(names))
        prefs = uow.chats.prefs(chat)
        from dataclasses import replace

        uow.chats.set_prefs(chat, replace(prefs, map_name=name), msg.at)
        uow.commit()
    return chat_text("chat.map_set", {"name": name}, fmt)


COMMANDS: dict[str, Handler] = {
    "newgame": cmd_newgame,
    "join": cmd_join,
    "leave": cmd_leave,
    "begin": cmd_begin,
    "ask": cmd_ask,
    "found": cmd_found,
    "endgame": endgame.cmd_endgame,
    "cleared": cmd_cleared,
    "pause": cmd_pause,
    "resume": cmd_resume,
    "abort": cmd_abort,
    "next": cmd_next,
    "status": cmd_status,
    "score": cmd_score,
    "help": cmd_help,
    "start": cmd_start,
    "hand": cmd_hand,
    "track": cmd_track,
    "answer": cmd_answer,
    "play": cmd_play,
    "settings": cmd_settings,
    "map": cmd_map,
    "language": cmd_language,
    "review": review.cmd_review,
    "botnet": botnet.cmd_botnet,
    "move": botnet.cmd_move,
    "claim": botnet.cmd_claim,
    "resign": botnet.cmd_resign,
}


# ===================================================================== buttons


def button(conv: Conversation, msg: ButtonIn) -> list[Outbound]:
    press = decode(msg.data)
    if press.verb in botnet.BUTTONS:  # a match of its own, not the chat's Hide+Seek game
        return botnet.button(conv, msg, press)
    chat = conv.game_chat(msg)
    with conv.uow_factory() as uow:
        game_id, state = conv.load(uow, chat)
        fmt = conv.formatter(uow, chat, state, reader(msg))
    if press.game_id != game_id:
        raise ChatError("chat.button_old_game")
    handler = BUTTONS.get(press.verb)
    if handler is None:
        raise ChatError("chat.button_unknown")
    replies = handler(conv, msg, press, state, fmt)
    if not any(isinstance(r, AnswerButton) for r in replies):
        replies.insert(
            0,
            AnswerButton(
                msg.sender.ref, text=chat_text("chat.done", {}, fmt), press_ref=msg.press_ref
            ),
        )
    return replies


ButtonHandler = Callable[["Conversation", ButtonIn, Press, GameState, Formatter], list[Outbound]]


def b_join(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    _apply(conv, msg, PlayerJoined(_by(msg), msg.sender.name))
    return _private_nudge(conv, msg)


def b_answer(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    record_id = press.int_arg(0)
    word = press.arg(1)
    detail = None
    if word == "s":
        with conv.uow_factory() as uow:
            suggested = uow.checks.suggestion(press.game_id, record_id)
        if suggested is None:
            raise ChatError("chat.button_unknown")
        word, detail = suggested
    return checks.answer(conv, msg, state, record_id, word, detail)


def _card_in_hand(state: GameState, team_id: int, def_ids: tuple[str, ...]) -> int | None:
    for card in state.cards_in(CardZone.HAND, team_id):
        if card.def_id in def_ids:
            return card.id
    return None


def b_veto(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    return _power_answer(conv, msg, press, state, PowerupEffect.VETO)


def b_randomize(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    return _power_answer(conv, msg, press, state, PowerupEffect.RANDOMIZE)


def _power_answer(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, effect: PowerupEffect
) -> list[Outbound]:
    player = state.player_by_ref(msg.sender.ref)
    if player is None:
        raise ChatError("chat.not_a_player_button")
    ruleset = conv.ruleset(state)
    ids = tuple(c.id for c in ruleset.cards if c.powerup == effect)
    card_id = _card_in_hand(state, player.team_id, ids)
    if card_id is None:
        raise ChatError("chat.button_unknown")
    record_id = press.int_arg(0) if state.settings.mode != Mode.STANDARD else None
    return _apply(conv, msg, CardPlayed(_by(msg), card_id, record_id=record_id))


def b_keep(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    try:
        ids = tuple(int(i) for i in press.arg(1).split(","))
    except ValueError:
        raise ChatError("chat.button_unknown") from None
    return _apply(conv, msg, CardsKept(_by(msg), ids))


def b_discard(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    return _apply(conv, msg, CardDiscarded(_by(msg), press.int_arg(0)))


def b_catch(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    return _apply(conv, msg, CatchAnswered(_by(msg), press.arg(0) == "y"))


def b_clear(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    return _apply(conv, msg, CurseCleared(_by(msg), press.int_arg(0)))


def b_arrive(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    """Seekers say they reached the thermometer's end; the pins tell how far they went."""
    record = state.question_record(press.int_arg(0)) if press.args else None
    player = state.player_by_ref(msg.sender.ref)
    if record is None or player is None or record.status != QuestionStatus.TRAVELLING:
        raise ChatError("chat.button_unknown")
    travelled = 0.0
    with conv.uow_factory() as uow:
        start = conv.thermometer_start(uow, press.game_id, state, record.asked_by, record.asked_at)
        latest = conv.pins_of(uow, press.game_id, player.id, 1)
        if start is not None and latest:
            travelled = referee.travelled_m(start, latest[0])
    return _apply(conv, msg, ThermometerFinished(_by(msg), travelled))


def b_ask(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    question_id = press.arg(0)
    player = state.player_by_ref(msg.sender.ref)
    riding = False
    if player is not None:
        with conv.uow_factory() as uow:
            riding = referee.on_transit(conv.pins_of(uow, press.game_id, player.id, 10), msg.at)
    return _apply(conv, msg, QuestionAsked(_by(msg), question_id, None, riding))


def b_next(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    return _apply(conv, msg, NextRoundStarted(_by(msg)))


def b_hand(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    player = state.player_by_ref(msg.sender.ref)
    if player is None:
        raise ChatError("chat.button_not_yours")
    with conv.uow_factory() as uow:
        own = conv.formatter(uow, conv.game_chat(msg), state, msg.sender.ref)
    text, buttons = hand_view(conv, state, press.game_id, player.team_id, own)
    return [SendText(msg.sender.ref, text=text, buttons=buttons, private=True)]


def b_map(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    return [SendText(conv.game_chat(msg), text=choose_map(conv, msg, state, press.arg(0), fmt))]


def b_set(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    from dataclasses import replace

    _require_admin(state, msg)
    what, value = press.arg(0), press.arg(1)
    chat = conv.game_chat(msg)
    by = _by(msg)
    if what in ("lang", "units"):
        with conv.uow_factory() as uow:
            prefs = uow.chats.prefs(chat)
            if what == "lang" and value in LANGUAGES:
                prefs = replace(prefs, language=value)
            elif what == "units" and value in ("metric", "imperial"):
                prefs = replace(prefs, units=value)
            else:
                raise ChatError("chat.button_unknown")
            uow.chats.set_prefs(chat, prefs, msg.at)
            uow.commit()
        new_fmt = conv.formatter_for(msg)
        if what == "lang":
            return [SendText(chat, text=chat_text("chat.language_set", {}, new_fmt))]
        label = new_fmt.t("metric units") if value == "metric" else new_fmt.t("imperial units")
        return [SendText(chat, text=chat_text("chat.units_set", {"units": label}, new_fmt))]
    if what == "auto" and value in ("on", "off"):
        return checks.set_automatic(conv, msg, value == "on")
    if what == "map":
        with conv.uow_factory() as uow:
            names = conv.maps.names(uow)
            current = uow.chats.prefs(chat).map_name
        buttons = tuple((Button(n, encode("map", press.game_id, n)),) for n in names)
        return [
            SendText(chat, text=chat_text("chat.map_list", {"name": current}, fmt), buttons=buttons)
        ]
    event: SettingsChanged
    if what == "rounds":
        event = SettingsChanged(by, rounds_per_team=press.int_arg(1))
    elif what == "timer":
        minutes = press.int_arg(1)
        event = SettingsChanged(by, end_timer_min=minutes or None, clear_end_timer=minutes == 0)
    elif what == "rest":
        periods = (("22:00", "08:00"),) if value == "night" else ()
        event = SettingsChanged(by, rest_periods=periods)
    else:
        raise ChatError("chat.button_unknown")
    return _apply(conv, msg, event)


def b_play(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    """Play a card from the hand, asking step by step for what the card needs."""
    player = state.player_by_ref(msg.sender.ref)
    if player is None:
        raise ChatError("chat.button_not_yours")
    ruleset = conv.ruleset(state)
    card_id = press.int_arg(0)
    steps = press.args[1:]
    discard_ids: tuple[int, ...] = ()
    target: int | None = None
    confirmed = False
    team: int | None = None
    try:
        for step in steps:
            if step.startswith("d"):
                discard_ids = tuple(int(i) for i in step[1:].split(".") if i)
            elif step.startswith("t"):
                target = int(step[1:])
            elif step == "c":
                confirmed = True
            elif step.startswith("g"):
                team = int(step[1:])
    except ValueError:
        raise ChatError("chat.button_unknown") from None
    hand = state.cards_in(CardZone.HAND, player.team_id)
    mine = {c.id: c for c in hand}
    if card_id not in mine:
        raise ChatError("chat.button_unknown")
    card_def = ruleset.card(mine[card_id].def_id)
    acting = card_def

    def more(key: str, options: list[tuple[str, str]]) -> list[Outbound]:
        rows = tuple(
            (Button(label, encode("play", press.game_id, *press.args, step)),)
            for label, step in options
        )
        text = chat_text(key, {"card": fmt.card(card_def.id)}, fmt)
        return [SendText(msg.sender.ref, text=text, buttons=rows, private=True)]

    if card_def.powerup == PowerupEffect.DUPLICATE:
        if target is None:
            options = [
                (fmt.card(c.def_id), f"t{c.id}")
                for c in hand
                if c.id != card_id
                and ruleset.card(c.def_id).kind != CardKind.TIME_BONUS
                and ruleset.card(c.def_id).powerup != PowerupEffect.DUPLICATE
            ]
            return more("chat.choose_target", options)
        acting = ruleset.card(mine[target].def_id) if target in mine else card_def
    need_discard = 0
    if acting.powerup == PowerupEffect.DISCARD_DRAW:
        need_discard = acting.discard
    elif acting.curse is not None and acting.curse.cost.kind == CostKind.DISCARD:
        need_discard = acting.curse.cost.count
    if need_discard and not discard_ids:
        others = [c for c in hand if c.id not in (card_id, target)]
        options = [
            (
                " + ".join(fmt.card(c.def_id) for c in combo),
                "d" + ".".join(str(c.id) for c in combo),
            )
            for combo in combinations(others, need_discard)
        ][:12]
        return more("chat.choose_discard", options)
    distance: float | None = None
    if acting.curse is not None:
        if acting.curse.effect == CurseEffect.DRAINED_BRAIN:
            number = [c.id for c in hand].index(card_id) + 1
            raise ChatError("chat.ban_usage", number=number)
        if state.settings.mode != Mode.STANDARD and team is None:
            options = [(state.team(t).name, f"g{t}") for t in state.seeker_team_ids()]
            return more("chat.choose_team", options)
        kind = acting.curse.cost.kind
        if kind in (CostKind.SEEKERS_WITHIN, CostKind.SEEKERS_BEYOND):
            with conv.uow_factory() as uow:
                hider = conv.pins_of(uow, press.game_id, player.id, 1)
                seekers = [
                    p
                    for t in state.seeker_team_ids()
                    for s in state.team_players(t)
                    for p in conv.pins_of(uow, press.game_id, s.id, 1)
                ]
            if hider:
                distance = referee.nearest_seeker_m(hider[0], seekers)
        if (
            kind == CostKind.CONFIRM
            or (kind in (CostKind.SEEKERS_WITHIN, CostKind.SEEKERS_BEYOND) and distance is None)
        ) and not confirmed:
            return more("chat.confirm_cost", [(fmt.t("✅ Condition met — cast it"), "c")])
    event = CardPlayed(
        _by(msg),
        card_id,
        discard_ids=discard_ids,
        target_card_id=target,
        confirmed=confirmed,
        seekers_distance_m=distance,
        target_team_id=team,
    )
    return _apply(conv, msg, event)


BUTTONS: dict[str, ButtonHandler] = {
    "join": b_join,
    "ans": b_answer,
    "veto": b_veto,
    "rnd": b_randomize,
    "keep": b_keep,
    "play": b_play,
    "disc": b_discard,
    "catch": b_catch,
    "clear": b_clear,
    "arrive": b_arrive,
    "ask": b_ask,
    "set": b_set,
    "map": b_map,
    "hand": b_hand,
    "next": b_next,
    "chk": checks.b_check,
    "claim": endgame.b_claim,
}


# ===================================================================== pins


def location(conv: Conversation, msg: LocationIn) -> list[Outbound]:
    """Store a pin and act on what it establishes (zone, end game, thermometer)."""
    if msg.live_ended:
        return []
    try:
        chat = conv.game_chat(msg)
    except GameNotFound:
        return [] if msg.kind == ChatKind.GROUP else conv.refuse(msg, "chat.not_in_game", {})
    source = "live" if msg.live else "pin"
    return record_pin(conv, msg, chat, msg.lat, msg.lon, msg.accuracy_m, source, msg.forwarded)


def record_pin(
    conv: Conversation,
    msg: Inbound,
    chat: str,
    lat: float,
    lon: float,
    accuracy: float | None,
    source: str,
    forwarded: bool,
) -> list[Outbound]:
    replies: list[Outbound] = []
    with conv.uow_factory() as uow:
        target = uow.pings.target(chat, msg.sender.ref)
        if target is None:
            return []  # not a player: a location in the group is just chat
        if forwarded:
            return (
                conv.refuse(msg, "chat.forwarded_pin", {})
                if not isinstance(msg, LocationIn) or not msg.edited
                else []
            )
        state = conv.state_at(uow, target.game_id, target.last_event_id)
        is_hider = state.is_hider(target.player_id) and state.phase not in (
            Phase.SETUP,
            Phase.GAME_OVER,
        )
        uow.pings.add(target.game_id, target.player_id, lat, lon, msg.at, accuracy, source, False)
        events = conv.after_pin(uow, target.game_id, state, target.player_id, msg.at, (lat, lon))
        uow.commit()
    if is_hider and msg.kind == ChatKind.GROUP:
        fmt = conv.formatter_for(msg)
        if msg.message_ref:
            replies.append(DeleteMessage(msg.chat, message_ref=msg.message_ref))
        replies.append(SendText(msg.chat, text=chat_text("chat.hider_pin_in_group", {}, fmt)))
    for event in events:
        try:
            conv.apply(chat, event, msg.at, None)
        except RuleViolation:
            continue  # the fact no longer applies (another update got there first)
    if not isinstance(msg, LocationIn) or (not msg.live and msg.kind == ChatKind.PRIVATE):
        fmt = conv.formatter_for(msg)
        replies.append(conv.reply(msg, chat_text("chat.pin_saved", {}, fmt)))
    return replies


def text(conv: Conversation, msg: TextIn) -> list[Outbound]:
    """Coordinates or a map link typed as text count as a pin; other chatter is ignored."""
    try:
        pin = parse_pin_text(msg.text, msg.at)
    except PinRejected as rejected:
        if msg.kind == ChatKind.PRIVATE and rejected.reason != "no_coordinates":
            return conv.refuse(msg, "chat.bad_pin", {})
        return []
    try:
        chat = conv.game_chat(msg)
    except GameNotFound:
        return [] if msg.kind == ChatKind.GROUP else conv.refuse(msg, "chat.not_in_game", {})
    return record_pin(conv, msg, chat, pin.lat, pin.lon, pin.accuracy_m, "text", False)


def photo(conv: Conversation, msg: PhotoIn) -> list[Outbound]:
    """A hider's photo in private answers the pending photo question (relayed to the group)."""
    if msg.kind != ChatKind.PRIVATE:
        return []
    chat = conv.game_chat(msg)
    with conv.uow_factory() as uow:
        _, state = conv.load(uow, chat)
    pending = state.pending_question()
    if pending is None or pending.category != Category.PHOTO:
        raise ChatError("chat.photo_not_expected")
    return _apply(conv, msg, QuestionAnswered(_by(msg), "photo", msg.file_ref))


def document(conv: Conversation, msg: FileIn) -> list[Outbound]:
    """The admin sends a GeoJSON, GTFS zip or KML file to the group during setup: a map."""
    if msg.kind != ChatKind.GROUP:
        return []
    chat = msg.chat
    with conv.uow_factory() as uow:
        _, state = conv.load(uow, chat)
        fmt = conv.formatter(uow, chat, state, reader(msg))
    if not msg.filename.lower().endswith((".geojson", ".json", ".zip", ".kml")):
        return []  # an unrelated file shared in the group
    _require_admin(state, msg)
    if state.phase != Phase.SETUP:
        raise ChatError("chat.setup_only")
    if msg.size > MAX_UPLOAD_BYTES or msg.content is None:
        raise ChatError("chat.map_too_big", limit=MAX_UPLOAD_BYTES)
    name = upload_name(chat, msg.filename)
    pack = import_upload(msg.filename, msg.content, name)
    from dataclasses import replace

    with conv.uow_factory() as uow:
        uow.maps.save(to_data(pack), msg.at)
        uow.chats.set_prefs(chat, replace(uow.chats.prefs(chat), map_name=name), msg.at)
        uow.commit()
    conv.maps.forget(name)
    text_ = chat_text(
        "chat.map_imported",
        {"title": msg.filename, "stations": len(pack.stations), "features": len(pack.features)},
        fmt,
    )
    return [conv.reply(msg, text_)]
