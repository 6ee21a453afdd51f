"""Reading what players type: command arguments to engine values, or a clear refusal.

Parsers raise :class:`ChatError` with a message key (rendered like the engine's errors),
never a sentence, so every refusal is translatable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from hideseek_chat.chat.errors import ChatError
from hideseek_chat.rules.questions import is_transit_line
from hideseek_chat.rules.ruleset import Category, QuestionDef, Ruleset, Size
from hideseek_chat.rules.units import DistanceError, parse_distance

SIZES = {"small": Size.SMALL, "s": Size.SMALL, "medium": Size.MEDIUM, "m": Size.MEDIUM}
SIZES |= {"large": Size.LARGE, "l": Size.LARGE}

#: How a distance names "the same" preset: within half a percent (0.5 mi is 804.67 m).
DISTANCE_TOLERANCE = 0.005


#: How much of what a person typed a refusal quotes back.
SHOWN_CHARS = 40


def shown(text: str) -> str:
    """``text`` as a refusal quotes it: at most ``SHOWN_CHARS`` characters."""
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


@dataclass(frozen=True)
class NewGameArgs:
    size: Size
    ruleset: str | None


def parse_newgame(args: tuple[str, ...], known_rulesets: tuple[str, ...]) -> NewGameArgs:
    """``/newgame [small|medium|large] [ruleset]`` in either order."""
    size = Size.SMALL
    ruleset: str | None = None
    for arg in args:
        word = arg.lower()
        if word in SIZES:
            size = SIZES[word]
        elif word in known_rulesets:
            ruleset = word
        else:
            raise ChatError(
                "chat.newgame_usage", word=shown(arg), rulesets=", ".join(sorted(known_rulesets))
            )
    return NewGameArgs(size, ruleset)


@dataclass(frozen=True)
class AskArgs:
    question_id: str
    distance_m: float | None  # a custom radar's distance
    line: str | None = None  # the transit-line question: the line typed after it


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _category(word: str) -> Category:
    wanted = _norm(word)
    for category in Category:
        if _norm(category.value) == wanted or (
            len(wanted) >= 3 and category.value.startswith(wanted)
        ):
            return category
    raise ChatError("chat.ask_unknown_category", word=shown(word))


def parse_ask(args: tuple[str, ...], ruleset: Ruleset, size: Size) -> AskArgs:
    """``/ask CATEGORY SUBJECT``: ``radar 1km``, ``radar 3.2km`` (custom), ``matching zoo``;
    the transit-line question may name the line after it (``matching transit line Red``).

    A bare ruleset id (``/ask radar-1km``, ``/ask matching-transit-line Red``) works too.
    Raises ChatError naming what is wrong.
    """
    if not args:
        raise ChatError("chat.ask_usage")
    if ruleset.has_question(args[0].lower()):
        question = ruleset.question(args[0].lower())
        if len(args) == 1:
            return _available(question, size, None)
        if is_transit_line(question):
            return replace(_available(question, size, None), line=" ".join(args[1:]))
    category = _category(args[0])
    subject = " ".join(args[1:]).strip()
    if not subject:
        raise ChatError("chat.ask_needs_subject", category=category.value)
    questions = [q for q in ruleset.questions if q.category == category]
    riding = _with_line(questions, subject.split(), size)
    if riding is not None:
        return riding
    if category in (Category.RADAR, Category.THERMOMETER):
        return _by_distance(questions, subject, size, category)
    if category == Category.TENTACLE:
        # "tentacle museum" or "tentacle 2km museum"
        words = subject.split()
        wanted_distance: float | None = None
        if len(words) > 1:
            try:
                wanted_distance = parse_distance(words[0])
                subject = " ".join(words[1:])
            except DistanceError:
                wanted_distance = None
        matches = [q for q in questions if _matches_subject(q, subject)]
        if wanted_distance is not None:
            matches = [q for q in matches if q.distance_m and _same(q.distance_m, wanted_distance)]
        return _pick(matches, size, subject, category)
    matches = [q for q in questions if _matches_subject(q, subject)]
    return _pick(matches, size, subject, category)


def _with_line(questions: list[QuestionDef], words: list[str], size: Size) -> AskArgs | None:
    """The transit-line question named by the first words and the line by the rest
    (``transit line Red Line``), or None when the words do not start with its name."""
    for cut in range(len(words) - 1, 0, -1):
        head = _norm(" ".join(words[:cut]))
        for question in questions:
            if is_transit_line(question) and head in _names(question):
                return replace(_available(question, size, None), line=" ".join(words[cut:]))
    return None


def _names(question: QuestionDef) -> set[str]:
    return {_norm(question.subject), _norm(question.label), _norm(question.id.split("-", 1)[-1])}


def _matches_subject(question: QuestionDef, subject: str) -> bool:
    wanted = _norm(subject)
    names = _names(question)
    return wanted in names or any(wanted and name.startswith(wanted) for name in names)


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= DISTANCE_TOLERANCE * max(a, b)


def _by_distance(
    questions: list[QuestionDef], subject: str, size: Size, category: Category
) -> AskArgs:
    try:
        wanted = parse_distance(subject)
    except DistanceError as error:
        raise ChatError("chat.ask_bad_distance", text=shown(subject), reason=error.reason) from None
    for question in questions:
        if question.distance_m is not None and _same(question.distance_m, wanted):
            return _available(question, size, None)
    for question in questions:
        if question.custom_distance:
            return _available(question, size, wanted)
    raise ChatError("chat.ask_no_such_distance", category=category.value, distance_m=wanted)


def _pick(matches: list[QuestionDef], size: Size, subject: str, category: Category) -> AskArgs:
    available = [q for q in matches if q.is_available(size)]
    if len(matches) == 0:
        raise ChatError("chat.ask_unknown_subject", category=category.value, subject=shown(subject))
    if not available:
        raise ChatError("chat.ask_not_in_size", question=matches[0].id, size=size.value)
    exact = [q for q in available if _norm(q.subject) == _norm(subject)]
    chosen = (exact or available)[0]
    if len(exact or available) > 1 and not exact:
        raise ChatError(
            "chat.ask_ambiguous",
            category=category.value,
            subject=shown(subject),
            options=[q.id for q in available],
        )
    return AskArgs(chosen.id, None)


def _available(question: QuestionDef, size: Size, distance_m: float | None) -> AskArgs:
    if not question.is_available(size):
        raise ChatError("chat.ask_not_in_size", question=question.id, size=size.value)
    if question.custom_distance and distance_m is None:
        raise ChatError("chat.ask_needs_distance", question=question.id)
    return AskArgs(question.id, distance_m)


#: The longest text read as a phone number (E.164 has at most 15 digits).
MAX_NUMBER_CHARS = 32


@lru_cache(maxsize=4096)
def phone_number(raw: str, region: str | None = None) -> str | None:
    """``raw`` as an E.164 number (``+41791234567``), or None when it is not a valid one;
    without a leading ``+`` it is read as a number of ``region`` (an ISO country code).

    Every inbound text's sender is read with it, the same few numbers over and over:
    the answers are kept (phonenumbers' parse and check take about 0.2 ms)."""
    import phonenumbers  # only the channels that text (SMS) and /invite need it

    text = raw.strip()
    if not text or len(text) > MAX_NUMBER_CHARS:
        return None
    try:
        parsed = phonenumbers.parse(text, region)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_valid_number(parsed):
        return None
    return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)
