"""The /ask menu's screens: the categories, a category's questions, distances to choose.

``/ask`` shows one button per category the team may ask now (``rules.questions.offers``:
only what this game's size and variant play and no curse has banned), each with what an
answer costs. A category shows its questions, several to a row where the labels are short,
those asked before this round marked with how often the hider would draw for them. A
distance of one's choice shows distances between the fixed ones (and the ones already
chosen this round) and how to type any other; once a distance is chosen the question is
named with it. The transit-line question shows the lines stopping near the asking seeker
(``geo.lines.lines_near``) to say which one they ride. Every screen but the first has a
Back button. Building a screen reads nothing: the caller passes the offers, the state and
the lines.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from hideseek_chat.chat import keyboards, texts
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.i18n import METRES_PER_MILE, N_, Formatter
from hideseek_chat.chat.parsing import DISTANCE_TOLERANCE
from hideseek_chat.geo.lines import line_key
from hideseek_chat.rules.questions import (
    ASKED,
    QuestionOffer,
    blocking_curse,
    is_transit_line,
    times_asked,
)
from hideseek_chat.rules.ruleset import Category, Ruleset
from hideseek_chat.rules.state import GameState, Mode

#: Round numbers a chosen distance is rounded to (times a power of ten, in the chat's unit).
NICE = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.5, 10.0)


@dataclass(frozen=True)
class Screen:
    text: str
    buttons: keyboards.Rows


def categories(
    game_id: int, offers: Sequence[QuestionOffer], fmt: Formatter, note: str = ""
) -> Screen:
    """The first screen: one button per category on offer (``note``: why no question can
    be asked just now, shown above them)."""
    grouped = by_category(offers)
    labels = [(category, texts.category_label(group, fmt)) for category, group in grouped.items()]
    text = _noted(texts.ask_menu_text(offers, fmt), note if offers else "")
    return Screen(text, keyboards.ask_categories(game_id, labels))


def category(
    game_id: int, wanted: Category, offers: Sequence[QuestionOffer], fmt: Formatter, note: str = ""
) -> Screen:
    """A category's questions; raise ChatError when none of it can be asked now."""
    group = by_category(offers).get(wanted)
    if not group:
        raise ChatError("chat.ask_category_closed", category=wanted.value)
    labels = [texts.offer_label(offer, fmt) for offer in group]
    buttons = keyboards.ask_questions(game_id, wanted, group, labels, back_label(fmt))
    return Screen(_noted(texts.ask_category_text(group, fmt), note), buttons)


def why_not_now(state: GameState, ruleset: Ruleset, team_id: int, fmt: Formatter) -> str:
    """Why the team can ask nothing just now though the menu lists questions: a question
    still waiting for its answer, a curse to clear first; "" when nothing stands in the way
    (the rules still decide when a question is pressed)."""
    team = None if state.settings.mode == Mode.STANDARD else team_id
    pending = state.pending_question(team)
    if pending is not None:
        params = {"question": pending.question_id, "distance_m": pending.distance_m}
        return "⏳ " + texts.say("error.question_pending", params, fmt)
    curse = blocking_curse(state, ruleset, team_id)
    if curse is not None:
        return "🔮 " + texts.say("error.curse_blocks_questions", {"curse": curse.def_id}, fmt)
    return ""


def _noted(text: str, note: str) -> str:
    return f"{text}\n{note}" if note else text


def distances(
    game_id: int,
    question_id: str,
    offers: Sequence[QuestionOffer],
    state: GameState,
    fmt: Formatter,
) -> Screen:
    """The distances to choose for a question of a distance of one's choice."""
    offer = next((o for o in offers if o.question.id == question_id), None)
    if offer is None or not offer.question.custom_distance:
        raise ChatError("chat.button_unknown")
    kind = offer.question.category
    fixed = [o.question.distance_m for o in offers if o.question.category == kind]
    chosen = chosen_before(state, question_id)
    choices = sorted({*presets([d for d in fixed if d], fmt.units), *chosen})
    rows = [
        (metres, texts.asked_mark(fmt.distance(metres), times_asked(state, question_id, metres)))
        for metres in choices
    ]
    example = f"/ask {kind.value} {'3km' if fmt.units != 'imperial' else '2mi'}"
    text = texts.ask_distance_text(offer, example, bool(chosen), fmt)
    buttons = keyboards.ask_distances(game_id, kind, question_id, rows, back_label(fmt))
    return Screen(text, buttons)


def lines(
    game_id: int,
    question_id: str,
    offers: Sequence[QuestionOffer],
    near: Sequence[str],
    known: bool,
    fmt: Formatter,
) -> Screen:
    """The lines to choose for the transit-line question (``near``: those stopping near
    the asker, nearest first; ``known``: whether the map names any line at all), a button
    to ask without naming one, and Back."""
    offer = next((o for o in offers if o.question.id == question_id), None)
    if offer is None or not is_transit_line(offer.question):
        raise ChatError("chat.button_unknown")
    name = fmt.question(question_id)
    example = f"/ask {question_id} {near[0] if near else 'Red Line'}"
    text = texts.ask_line_text(name, example, known, fmt)
    choices = [
        keyboards.button(line, keyboards.Verb.ASK, game_id, question_id, "l" + line_key(line))
        for line in near
    ]
    without = keyboards.button(
        fmt.t(N_("Ask without naming the line")), keyboards.Verb.ASK, game_id, question_id
    )
    back = keyboards.button(
        back_label(fmt), keyboards.Verb.ASK_MENU, game_id, offer.question.category.value
    )
    return Screen(text, (*keyboards.flow(choices), (without,), (back,)))


def back_label(fmt: Formatter) -> str:
    return fmt.t(N_("⬅️ Back"))


def by_category(offers: Sequence[QuestionOffer]) -> dict[Category, list[QuestionOffer]]:
    """The offers grouped by category, in the rulebook's order of categories."""
    grouped: dict[Category, list[QuestionOffer]] = {c: [] for c in Category}
    for offer in offers:
        grouped[offer.question.category].append(offer)
    return {c: group for c, group in grouped.items() if group}


def chosen_before(state: GameState, question_id: str) -> list[float]:
    """The distances chosen for ``question_id`` this round (asked, vetoed or answered)."""
    return sorted(
        {
            q.distance_m
            for q in state.round_questions()
            if q.question_id == question_id and q.status in ASKED and q.distance_m
        }
    )


def presets(fixed_m: Sequence[float], units: str) -> list[float]:
    """Distances to offer for a distance of one's choice: half the shortest fixed one and
    one between each two neighbours (their geometric mean), each rounded to a round number
    in ``units``; none that is a fixed distance already."""
    fixed = sorted(set(fixed_m))
    if not fixed:
        return []
    unit = METRES_PER_MILE if units == "imperial" else 1.0
    wanted = [fixed[0] / 2] + [math.sqrt(a * b) for a, b in itertools.pairwise(fixed)]
    found: list[float] = []
    for metres in wanted:
        rounded = round_number(metres / unit) * unit
        if not any(_same(rounded, other) for other in [*fixed, *found]):
            found.append(rounded)
    return found


def round_number(value: float) -> float:
    """The round number (see ``NICE``) nearest ``value`` (> 0), on a logarithmic scale."""
    power = 10.0 ** math.floor(math.log10(value))
    best = min(NICE, key=lambda nice: abs(math.log(value / (nice * power))))
    return float(f"{best * power:.6g}")


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= DISTANCE_TOLERANCE * max(a, b)
