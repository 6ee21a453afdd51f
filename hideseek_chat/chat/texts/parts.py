"""Pieces shared by the notice texts: values formatted for one chat.

Nothing here is a sentence of its own except the few words a sentence embeds (a game
size, a card with its minutes); the sentences live in ``notices_game`` and
``notices_play``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.texts.registry import Params
from hideseek_chat.rules.ruleset import CardKind, Size, SizeValues


def lines(*texts: str | None) -> str:
    """Join the given lines, leaving out the empty ones."""
    return "\n".join(text for text in texts if text)


def minutes(f: Formatter, value: float) -> str:
    """A number of minutes as a span of time."""
    return f.duration(60 * value)


def team_label(f: Formatter, team: str, members: list[str] | None) -> str:
    """A team as the scores show it: its name, and its players when the name does not say
    who they are (``Red (Alice, Bob)``; a player on their own is just ``Alice``)."""
    names = [str(m) for m in members or []]
    if not names or names == [team]:
        return team
    return f.t("{team} ({members})", team=team, members=f.names(names))


def size_word(f: Formatter, size: str) -> str:
    if size == "small":
        return f.t("small")
    if size == "medium":
        return f.t("medium")
    if size == "large":
        return f.t("large")
    return size


def game_size(p: Params) -> Size | None:
    """The game's size, when the params say it (the engine's card notices do not yet)."""
    size = p.get("size")
    return Size(size) if size in {s.value for s in Size} else None


def game_minutes(values: SizeValues, p: Params, f: Formatter) -> float | None:
    """A per-size number of minutes for this game (the global variant scales large ones)."""
    size = game_size(p)
    if size is None:
        return None
    if p.get("global_scale") and f.ruleset is not None:
        return values[Size.LARGE] * f.ruleset.global_multiplier
    return values[size]


def card_name(def_id: str, p: Params, f: Formatter) -> str:
    """A card's name; a time bonus also shows its minutes when the game's size is known."""
    name = f.card(def_id)
    if f.ruleset is None:
        return name
    try:
        card = f.ruleset.card(def_id)
    except KeyError:
        return name
    if card.kind == CardKind.TIME_BONUS and card.minutes is not None:
        bonus = game_minutes(card.minutes, p, f)
        if bonus is not None:
            return f.t("{card} (+{duration})", card=name, duration=minutes(f, bonus))
    return name


def card_label(f: Formatter, def_id: str, bonus_minutes: float | None) -> str:
    """A card's name; a time bonus with the minutes it is worth in this game."""
    name = f.card(def_id)
    if bonus_minutes is None:
        return name
    return f.t("{card} (+{duration})", card=name, duration=minutes(f, bonus_minutes))


def numbered(labels: Sequence[str]) -> list[str]:
    """The labels, those that occur more than once numbered ``(1)``, ``(2)``... in order."""
    counts = Counter(labels)
    seen: Counter[str] = Counter()
    result = []
    for label in labels:
        if counts[label] > 1:
            seen[label] += 1
            label = f"{label} ({seen[label]})"
        result.append(label)
    return result


def card_names(p: Params, f: Formatter) -> str:
    return f.names([card_name(c, p, f) for c in p["cards"]])


def question_name(p: Params, f: Formatter, key: str = "question") -> str:
    """The question named by ``p[key]``; ``distance_m`` belongs to the newest question,
    ``line`` (the line the seekers ride) to the one asked."""
    newest = "new_question" if p.get("new_question") else "question"
    name = f.question(p[key], p.get("distance_m") if key == newest else None)
    line = p.get("line") if key == "question" else None
    return f.t("{question} (riding {line})", question=name, line=line) if line else name


def category_of(p: Params, f: Formatter, question_key: str) -> str | None:
    if p.get("category") and question_key == "question":
        return str(p["category"])
    if f.ruleset is not None and f.ruleset.has_question(p[question_key]):
        return f.ruleset.question(p[question_key]).category.value
    return None
