"""Questions: /ask (typed or from the menu), the hider's answers (buttons or /answer),
answers held when the pins contradict them, Veto and Randomize, a thermometer's seekers
arriving, and the photo that answers a photo question."""

from __future__ import annotations

import math

from hideseek_chat.chat import ask_menu, checking, keyboards, referee, sightings, texts
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.keyboards import Press
from hideseek_chat.chat.model import AnswerButton, ButtonIn, Outbound, PhotoIn, SendText
from hideseek_chat.chat.parsing import parse_ask, shown
from hideseek_chat.chat.turn import Turn
from hideseek_chat.geo import MapIndex
from hideseek_chat.geo.lines import line_key, lines_near, map_lines
from hideseek_chat.rules import apply as engine_apply
from hideseek_chat.rules.errors import NotAllowed
from hideseek_chat.rules.events import (
    CardPlayed,
    QuestionAnswered,
    QuestionAsked,
    ThermometerFinished,
)
from hideseek_chat.rules.pins import is_at_station
from hideseek_chat.rules.questions import QuestionOffer, is_transit_line, offers, pending_for_hider
from hideseek_chat.rules.ruleset import Category, PowerupEffect
from hideseek_chat.rules.state import CardZone, Mode, Question, QuestionStatus
from hideseek_chat.rules.units import MAX_DISTANCE_M
from hideseek_chat.store import Ping
from hideseek_chat.store.checks import CheckVerdict

Args = tuple[str, ...]


# ----------------------------------------------------------------- asking


def ask(turn: Turn, args: Args) -> list[Outbound]:
    """``/ask`` shows the menu of what can be asked now; ``/ask radar 1km`` asks one."""
    state = turn.state
    if not args:
        team_id = _asking_team(turn)
        available = offers(state, turn.ruleset, team_id)
        note = ask_menu.why_not_now(state, turn.ruleset, team_id, turn.fmt)
        screen = ask_menu.categories(turn.game_id, available, turn.fmt, note)
        return [turn.reply(screen.text, screen.buttons)]
    asked = parse_ask(args, turn.ruleset, state.size)
    line = asked.line
    index = _map(turn)
    if is_transit_line(turn.ruleset.question(asked.question_id)):
        known = map_lines(index) if index is not None else {}
        available = offers(state, turn.ruleset, _asking_team(turn)) if known else []
        # Not on offer now (a car game, a curse, between rounds): the rules say why below.
        if line is None and any(o.question.id == asked.question_id for o in available):
            screen = _line_screen(turn, asked.question_id, available, index)
            return [turn.reply(screen.text, screen.buttons)]
        if line is not None and known:
            line = _known_line(turn, line, known, index)
    turn.apply(_asked(turn, asked.question_id, asked.distance_m, index, line))
    return []


def press_ask_menu(turn: Turn, press: Press) -> list[Outbound]:
    """Another screen of the /ask menu, in place of the one whose button was pressed."""
    team_id = _asking_team(turn)
    available = offers(turn.state, turn.ruleset, team_id)
    fmt = turn.fmt
    note = ask_menu.why_not_now(turn.state, turn.ruleset, team_id, fmt)
    if not press.args or not press.args[0]:
        screen = ask_menu.categories(turn.game_id, available, fmt, note)
    else:
        try:
            category = Category(press.args[0])
        except ValueError:
            raise ChatError("chat.button_unknown") from None
        if len(press.args) > 1 and _rides(turn, press.args[1]):
            screen = _line_screen(turn, press.args[1], available, _map(turn))
        elif len(press.args) > 1:
            screen = ask_menu.distances(turn.game_id, press.args[1], available, turn.state, fmt)
        else:
            screen = ask_menu.category(turn.game_id, category, available, fmt, note)
    return [_acknowledge(turn), _in_place(turn, screen.text, screen.buttons)]


def press_ask(turn: Turn, press: Press) -> list[Outbound]:
    """A question pressed in the /ask menu (with the distance chosen for it, if it has
    one); the menu then says what was asked."""
    distance: float | None = None
    line: str | None = None
    index = _map(turn)
    if len(press.args) > 1 and press.args[1].startswith("l"):
        if not _rides(turn, press.arg(0)):
            raise ChatError("chat.button_unknown")  # a line only goes with its question
        line = _line_pressed(index, press.args[1][1:])
    elif len(press.args) > 1:
        try:
            distance = float(press.args[1])
        except ValueError:
            raise ChatError("chat.button_unknown") from None
        if not (math.isfinite(distance) and 0 < distance <= MAX_DISTANCE_M):
            raise ChatError("chat.button_unknown")
    question_id = press.arg(0)
    turn.apply(_asked(turn, question_id, distance, index, line))
    chosen = distance if turn.ruleset.question(question_id).custom_distance else None
    name = texts.question_name(
        {"question": question_id, "distance_m": chosen, "line": line}, turn.fmt
    )
    return [_in_place(turn, texts.asked_from_menu_text(name, turn.fmt))]


# ----------------------------------------------------------------- the line ridden


def _rides(turn: Turn, question_id: str) -> bool:
    """Whether ``question_id`` is the question about the line the seekers ride."""
    ruleset = turn.ruleset
    return ruleset.has_question(question_id) and is_transit_line(ruleset.question(question_id))


def _map(turn: Turn) -> MapIndex | None:
    """The index of the game's map (None: no such map): fetched once a turn, passed down."""
    return sightings.map_index(turn.uow, turn.services.maps, turn.game_id)


def _line_screen(
    turn: Turn, question_id: str, available: list[QuestionOffer], index: MapIndex | None
) -> ask_menu.Screen:
    """The lines to choose for the transit-line question: those stopping near the asker's
    current pin (none without one: then they type it)."""
    known = bool(index is not None and map_lines(index))
    near = _lines_near_asker(turn, index) if known else []
    return ask_menu.lines(turn.game_id, question_id, available, near, known, turn.fmt)


def _lines_near_asker(turn: Turn, index: MapIndex | None) -> list[str]:
    """The lines stopping near the sender's current pin (none without one)."""
    player = turn.player()
    if index is None or player is None:
        return []
    track = sightings.last_pins(turn.uow, turn.game_id, player.id, 1)
    if not track or not referee.is_current(track[0], turn.msg.at):
        return []
    return lines_near(index, track[0].lat, track[0].lon)


def _line_pressed(index: MapIndex | None, key: str) -> str:
    """The line a line button names, as the map spells it."""
    line = map_lines(index).get(key) if index is not None else None
    if line is None:
        raise ChatError("chat.button_unknown")
    return line


def _known_line(turn: Turn, typed: str, known: dict[str, str], index: MapIndex | None) -> str:
    """A typed line as the map spells it; a line the map does not know is refused, with
    the lines near the asker (the hider's answer could not be checked against it)."""
    line = known.get(line_key(typed))
    if line is not None:
        return line
    near = _lines_near_asker(turn, index)
    raise ChatError("chat.ask_unknown_line", line=shown(typed), lines=", ".join(near))


def _asking_team(turn: Turn) -> int:
    """The sender's team, which must be seeking: the menu shows what it may ask."""
    player = turn.player()
    if player is None:
        raise ChatError("chat.not_in_game")
    if turn.state.is_hider(player.id):
        raise NotAllowed("only seekers ask questions", key="error.only_seekers")
    return player.team_id


def _acknowledge(turn: Turn) -> AnswerButton:
    """A silent answer to a press (the new screen says enough)."""
    assert isinstance(turn.msg, ButtonIn)
    return AnswerButton(turn.by, press_ref=turn.msg.press_ref)


def _in_place(turn: Turn, text: str, buttons: keyboards.Rows = ()) -> SendText:
    """``text`` in place of the message whose button was pressed (where the channel can
    edit it; otherwise as a new message)."""
    return SendText(
        turn.msg.chat,
        text=text,
        buttons=buttons,
        private=turn.is_private,
        edit_ref=turn.msg.message_ref,
    )


def _asked(
    turn: Turn,
    question_id: str,
    distance_m: float | None,
    index: MapIndex | None,
    line: str | None = None,
) -> QuestionAsked:
    """The event of the sender asking, with where their pins put them (riding, a station
    of the map ``index``)."""
    player = turn.player()
    if player is None:
        return QuestionAsked(turn.by, question_id, distance_m, line=line)
    track = sightings.last_pins(turn.uow, turn.game_id, player.id, 10)
    riding = referee.on_transit(track, turn.msg.at)
    station = _station_at(turn, track, index)
    return QuestionAsked(turn.by, question_id, distance_m, riding, station, line)


def _station_at(turn: Turn, track: list[Ping], index: MapIndex | None) -> str | None:
    """The station of the map ``index`` the asker's current pin (``track`` newest first)
    is in, if any."""
    if not track or not referee.is_current(track[0], turn.msg.at):
        return None
    near = index.nearest_station(track[0].lat, track[0].lon) if index else None
    if near is None or not is_at_station(near.distance_m):
        return None
    return near.item.name or near.item.id


# ----------------------------------------------------------------- answering


def answer(turn: Turn, args: Args) -> list[Outbound]:
    """``/answer yes`` or ``/answer named Museum of Art``: the typed way to answer."""
    if not args:
        raise ChatError("chat.answer_usage")
    word = args[0].lower()
    detail = " ".join(args[1:]) or None
    if word != "named" and detail:
        raise ChatError("chat.answer_usage")
    return _answer(turn, None, word, detail)


def press_answer(turn: Turn, press: Press) -> list[Outbound]:
    record_id = press.int_arg(0)
    word = press.arg(1)
    detail = None
    if word == "s":  # the suggested tentacle place
        suggested = turn.uow.checks.suggestion(press.game_id, record_id)
        if suggested is None:
            raise ChatError("chat.button_unknown")
        word, detail = suggested
    return _answer(turn, record_id, word, detail)


def _answer(turn: Turn, record_id: int | None, word: str, detail: str | None) -> list[Outbound]:
    """Send the hider's answer to ``record_id`` (None: the pending one), unless the pins
    contradict it: then hold it and ask the hider to confirm."""
    state = turn.state
    record = _open_record(turn, record_id)
    event = checking.answer_event(state, turn.by, record, word, detail)
    game_id, at = turn.game_id, turn.msg.at
    engine_apply(turn.ruleset, state, event, at)  # refuse now what the rules refuse
    player = turn.player()
    assert player is not None  # the rules accepted the answer
    if record.category == Category.PHOTO:
        turn.uow.checks.computed(game_id, record.id, checking.not_computed("photo", at))
        verdict = CheckVerdict.UNCHECKED
        suggestion = None
    else:
        suggestion = checking.compute(
            turn.uow, turn.services.maps, turn.ruleset, game_id, state, record, at
        )
        verdict = checking.verdict_for(suggestion, word, detail)
    if verdict == CheckVerdict.DISAGREED:
        assert suggestion is not None
        return _hold(turn, record, suggestion, word, detail)
    turn.uow.checks.decide(
        game_id, record.id, verdict, at, answered_by=player.id, sent=(word, detail)
    )
    turn.apply(event)
    return []


def _hold(
    turn: Turn, record: Question, suggestion: referee.Suggestion, word: str, detail: str | None
) -> list[Outbound]:
    """Hold the answer the pins contradict and show the hider the numbers."""
    player = turn.player()
    assert player is not None
    game_id = turn.game_id
    turn.uow.checks.decide(
        game_id,
        record.id,
        CheckVerdict.CONFIRMING,
        turn.msg.at,
        answered_by=player.id,
        proposed=(word, detail),
    )
    turn.wrote()
    own = turn.formatter(turn.by)
    held = texts.held_answer(record, suggestion, word, detail, own)
    buttons = keyboards.held_answer(game_id, record.id, held.anyway, held.suggested)
    replies: list[Outbound] = [turn.to_person(turn.by, held.text, buttons)]
    if isinstance(turn.msg, ButtonIn):
        toast = AnswerButton(turn.by, text=held.toast, press_ref=turn.msg.press_ref)
        replies.insert(0, toast)
    return replies


def press_confirm(turn: Turn, press: Press) -> list[Outbound]:
    """The hider confirms a held answer (``a``: send it anyway) or takes the pins' (``s``)."""
    record_id, choice = press.int_arg(0), press.arg(1)
    check = turn.uow.checks.get(press.game_id, record_id)
    if check is None or check.verdict != CheckVerdict.CONFIRMING or choice not in ("a", "s"):
        raise ChatError("chat.button_unknown")
    record = _open_record(turn, record_id)
    if choice == "a":
        assert check.proposed_answer is not None
        sent = (check.proposed_answer, check.proposed_detail)
        verdict = CheckVerdict.DISAGREED
    elif check.computation.answer is not None:
        sent = (check.computation.answer, check.computation.detail)
        verdict = CheckVerdict.AGREED
    else:
        raise ChatError("chat.button_unknown")
    turn.apply(checking.answer_event(turn.state, turn.by, record, *sent))
    player = turn.player()
    assert player is not None
    turn.uow.checks.decide(
        press.game_id,
        record_id,
        verdict,
        turn.msg.at,
        answered_by=player.id,
        sent=sent,
        confirmed_anyway=choice == "a",
    )
    return []


def _open_record(turn: Turn, record_id: int | None) -> Question:
    """The question being answered; a button of a question no longer open is refused."""
    if record_id is None:
        return pending_for_hider(turn.state, None)
    try:
        record = turn.state.question_record(record_id)
    except KeyError:
        raise ChatError("chat.button_unknown") from None
    if record.status not in (QuestionStatus.PENDING, QuestionStatus.TRAVELLING):
        raise ChatError("chat.button_unknown")
    return record


# ----------------------------------------------------------------- powerups on a question


def press_veto(turn: Turn, press: Press) -> list[Outbound]:
    return _power(turn, press, PowerupEffect.VETO)


def press_randomize(turn: Turn, press: Press) -> list[Outbound]:
    return _power(turn, press, PowerupEffect.RANDOMIZE)


def _power(turn: Turn, press: Press, effect: PowerupEffect) -> list[Outbound]:
    """Play the hider's Veto or Randomize on the question the button was under."""
    player = turn.player()
    if player is None:
        raise ChatError("chat.not_a_player_button")
    wanted = {c.id for c in turn.ruleset.cards if c.powerup == effect}
    held = [c.id for c in turn.state.cards_in(CardZone.HAND, player.team_id) if c.def_id in wanted]
    if not held:
        raise ChatError("chat.button_unknown")
    standard = turn.state.settings.mode == Mode.STANDARD
    record_id = None if standard else press.int_arg(0)
    turn.apply(CardPlayed(turn.by, held[0], record_id=record_id))
    return []


# ----------------------------------------------------------------- thermometers, photos


def press_arrived(turn: Turn, press: Press) -> list[Outbound]:
    """Seekers say they reached the thermometer's end; the pins tell how far they went."""
    state = turn.state
    wanted = press.int_arg(0) if press.args else None
    record = next((q for q in state.questions if q.id == wanted), None)
    player = turn.player()
    if record is None or player is None or record.status != QuestionStatus.TRAVELLING:
        raise ChatError("chat.button_unknown")
    start = sightings.thermometer_start(
        turn.uow, turn.services.thermometer_starts, press.game_id, record.asked_by, record.asked_at
    )
    latest = sightings.last_pin(turn.uow, press.game_id, player.id)
    travelled = referee.travelled_m(start, latest) if start and latest else 0.0
    turn.apply(ThermometerFinished(turn.by, travelled))
    return []


def photo(turn: Turn, msg: PhotoIn) -> list[Outbound]:
    """A hider's photo in private answers the pending photo question (relayed to the group)."""
    if not turn.is_private:
        return []
    pending = turn.state.pending_question()
    if pending is None or pending.category != Category.PHOTO:
        raise ChatError("chat.photo_not_expected")
    caption = msg.caption.strip() or None  # what the hider wrote reaches the seekers too
    turn.apply(QuestionAnswered(turn.by, "photo", msg.file_ref, caption=caption))
    return []
