"""Reading ruleset TOML files strictly into :class:`~hideseek_chat.rules.ruleset.Ruleset`.

A ruleset file is read strictly: an unknown key, a missing field or a wrong value raises
:class:`~hideseek_chat.rules.ruleset.RulesetError` naming the file, the field and the
reason, so a typo in a house rule is caught when the file is loaded rather than in the
middle of a game.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Any

from hideseek_chat.rules.ruleset import (
    ADMIN_DIVISIONS,
    ADMIN_LEVEL_RANGE,
    ZONE_PIN_MAX_AGE_LIMIT_MIN,
    ZONE_PIN_MAX_AGE_MIN,
    CardDef,
    CardKind,
    CastingCost,
    Category,
    CategoryRules,
    CostKind,
    CurseEffect,
    CurseRules,
    HiderPosition,
    PowerupEffect,
    QuestionDef,
    Ruleset,
    RulesetError,
    Size,
    SizeRules,
    SizeValues,
    ruleset_paths,
)
from hideseek_chat.rules.units import DistanceError, parse_distance


class _Reader:
    """Strict typed access to one TOML table, with the field path for errors."""

    def __init__(self, file: str, path: str, table: Any) -> None:
        self.file = file
        self.path = path
        if not isinstance(table, dict):
            raise RulesetError(file, path or "(top level)", "expected a table")
        self.table: dict[str, Any] = table
        self.used: set[str] = set()

    def fail(self, key: str, reason: str) -> RulesetError:
        return RulesetError(self.file, self._join(key), reason)

    def _join(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def has(self, key: str) -> bool:
        return key in self.table

    def raw(self, key: str, default: Any = ...) -> Any:
        self.used.add(key)
        if key not in self.table:
            if default is ...:
                raise self.fail(key, "missing")
            return default
        return self.table[key]

    def text(self, key: str, default: Any = ...) -> str:
        value = self.raw(key, default)
        if not isinstance(value, str):
            raise self.fail(key, "expected text")
        return value

    def boolean(self, key: str, default: bool = False) -> bool:
        value = self.raw(key, default)
        if not isinstance(value, bool):
            raise self.fail(key, "expected true or false")
        return value

    def integer(self, key: str, default: Any = ..., minimum: int = 0) -> int:
        value = self.raw(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, "expected a whole number")
        if value < minimum:
            raise self.fail(key, f"must be at least {minimum}")
        return value

    def number(self, key: str, default: Any = ..., positive: bool = True) -> float:
        value = self.raw(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(key, "expected a number")
        if positive and value <= 0:
            raise self.fail(key, "must be more than zero")
        if value < 0:
            raise self.fail(key, "must not be negative")
        return float(value)

    def distance(self, key: str, default: Any = ...) -> float:
        value = self.raw(key, default)
        if value is None:  # only when the caller's default is None (an optional distance)
            return value  # type: ignore[return-value]
        if not isinstance(value, str):
            raise self.fail(key, 'expected a distance with its unit, such as "500 m" or "0.25 mi"')
        try:
            return parse_distance(value)
        except DistanceError as err:
            raise self.fail(key, err.reason) from None

    def choice(self, key: str, enum: type[StrEnum], default: Any = ...) -> Any:
        value = self.raw(key, default)
        if isinstance(value, enum):
            return value
        try:
            return enum(value)
        except ValueError:
            options = ", ".join(member.value for member in enum)
            raise self.fail(key, f"{value!r} is not one of: {options}") from None

    def sub(self, key: str, default: Any = ...) -> _Reader | None:
        value = self.raw(key, default)
        if value is None:
            return None
        return _Reader(self.file, self._join(key), value)

    def items(self, key: str) -> Iterator[_Reader]:
        values = self.raw(key, [])
        if not isinstance(values, list):
            raise self.fail(key, "expected a list of tables ([[...]])")
        for index, value in enumerate(values):
            yield _Reader(self.file, f"{self._join(key)}[{index}]", value)

    def per_size(self, key: str, kind: str = "number") -> SizeValues | None:
        sub = self.sub(key, None)
        if sub is None:
            return None
        read = sub.distance if kind == "distance" else sub.number
        values = SizeValues(read("small"), read("medium"), read("large"))
        sub.done()
        return values

    def done(self) -> None:
        unknown = sorted(set(self.table) - self.used)
        if unknown:
            raise self.fail(unknown[0], "unknown field (a typo?)")


def _read_sizes(top: _Reader) -> dict[Size, SizeRules]:
    sizes_table = top.sub("sizes")
    assert sizes_table is not None
    sizes: dict[Size, SizeRules] = {}
    for size in Size:
        sub = sizes_table.sub(size.value)
        assert sub is not None
        sizes[size] = SizeRules(
            hiding_period_min=sub.number("hiding_period_min"),
            zone_radius_m=sub.distance("zone_radius"),
            answer_window_min=sub.number("answer_window_min"),
            photo_window_min=sub.number("photo_window_min"),
            move_period_min=sub.number("move_period_min"),
        )
        sub.done()
    sizes_table.done()
    return sizes


def _read_categories(top: _Reader) -> dict[Category, CategoryRules]:
    table = top.sub("categories")
    assert table is not None
    categories: dict[Category, CategoryRules] = {}
    for category in Category:
        sub = table.sub(category.value)
        assert sub is not None
        draw = sub.integer("draw", minimum=1)
        keep = sub.integer("keep", minimum=1)
        if keep > draw:
            raise sub.fail("keep", f"cannot keep more cards ({keep}) than are drawn ({draw})")
        categories[category] = CategoryRules(category, draw, keep, sub.text("label"))
        sub.done()
    table.done()
    return categories


_DISTANCE_CATEGORIES = (Category.RADAR, Category.THERMOMETER, Category.TENTACLE)


def _read_question(item: _Reader) -> QuestionDef:
    category = item.choice("category", Category)
    sizes_raw = item.raw("sizes", [s.value for s in Size])
    if not isinstance(sizes_raw, list) or not sizes_raw:
        raise item.fail("sizes", "expected a non-empty list of small, medium, large")
    try:
        sizes = frozenset(Size(s) for s in sizes_raw)
    except ValueError:
        raise item.fail("sizes", "use only small, medium and large") from None
    custom = item.boolean("custom_distance")
    distance = item.distance("distance", None)
    if category in _DISTANCE_CATEGORIES and distance is None and not custom:
        raise item.fail("distance", f"a {category.value} question needs a distance")
    if category not in _DISTANCE_CATEGORIES and (distance is not None or custom):
        raise item.fail("distance", f"a {category.value} question has no distance")
    subject = item.text("subject", "")
    if category in (Category.MATCHING, Category.MEASURING, Category.TENTACLE) and not subject:
        raise item.fail("subject", f"a {category.value} question needs a subject")
    question = QuestionDef(
        id=item.text("id"),
        category=category,
        label=item.text("label"),
        sizes=sizes,
        subject=subject,
        distance_m=distance,
        custom_distance=custom,
        needs_transit=item.boolean("needs_transit"),
        instructions=item.text("instructions", ""),
    )
    item.done()
    return question


def _read_cost(item: _Reader) -> CastingCost:
    sub = item.sub("cost", None)
    if sub is None:
        return CastingCost()
    kind = sub.choice("kind", CostKind)
    card_kind = sub.raw("card_kind", None)
    if card_kind is not None:
        card_kind = sub.choice("card_kind", CardKind)
    faces = sub.raw("no_effect_faces", [])
    if not isinstance(faces, list) or any(
        isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= 6 for f in faces
    ):
        raise sub.fail("no_effect_faces", "expected a list of die faces 1 to 6")
    cost = CastingCost(
        kind=kind,
        count=sub.integer("count", 0),
        card_kind=card_kind,
        distance_m=sub.per_size("distance", "distance"),
        no_effect_faces=tuple(faces),
        text=sub.text("text", ""),
    )
    if kind == CostKind.DISCARD and cost.count < 1:
        raise sub.fail("count", "a discard cost needs a count of at least 1")
    if kind in (CostKind.SEEKERS_WITHIN, CostKind.SEEKERS_BEYOND) and cost.distance_m is None:
        raise sub.fail("distance", "this cost needs a distance per size")
    if kind == CostKind.DIE and not cost.no_effect_faces:
        raise sub.fail("no_effect_faces", "a die cost needs the faces on which it has no effect")
    if kind in (CostKind.CONFIRM, CostKind.SEEKERS_AWAY) and not cost.text:
        raise sub.fail("text", "say what the hider must do")
    sub.done()
    return cost


def _read_card(item: _Reader, kind: CardKind) -> CardDef:
    card_id = item.text("id")
    name = item.text("name")
    count = item.integer("count", minimum=1)
    text = item.text("text", "")
    if kind == CardKind.TIME_BONUS:
        minutes = item.per_size("minutes")
        if minutes is None:
            raise item.fail("minutes", "a time bonus needs minutes per size")
        item.done()
        return CardDef(card_id, kind, name, count, text, minutes=minutes)
    if kind == CardKind.POWERUP:
        effect = item.choice("effect", PowerupEffect)
        discard = item.integer("discard", 0)
        draw = item.integer("draw", 0)
        if effect == PowerupEffect.DISCARD_DRAW and draw < 1:
            raise item.fail("draw", "a discard-and-draw powerup must draw at least one card")
        if effect == PowerupEffect.DRAW_EXPAND and draw < 1:
            raise item.fail("draw", "draw-and-expand must draw at least one card")
        item.done()
        return CardDef(card_id, kind, name, count, text, powerup=effect, discard=discard, draw=draw)
    curse = CurseRules(
        cost=_read_cost(item),
        blocks_questions=item.boolean("blocks_questions"),
        blocks_transit=item.boolean("blocks_transit"),
        not_in_end_game=item.boolean("not_in_end_game"),
        needs_transit=item.boolean("needs_transit"),
        lasts_for_run=item.boolean("lasts_for_run"),
        clears_on_next_question=item.boolean("clears_on_next_question"),
        duration_min=item.per_size("duration_min"),
        penalty_min=item.per_size("penalty_min"),
        penalty_repeatable=item.boolean("penalty_repeatable"),
        effect=item.choice("effect", CurseEffect, CurseEffect.NONE),
        effect_count=item.integer("effect_count", 0),
        losses_to_clear=item.per_size("losses_to_clear"),
        lockout_min=item.number("lockout_min", None) if item.has("lockout_min") else None,
        distance_m=item.per_size("distance", "distance"),
        time_limit_min=item.per_size("time_limit_min"),
    )
    if curse.effect == CurseEffect.HANGMAN and (
        curse.losses_to_clear is None or curse.lockout_min is None
    ):
        raise item.fail("losses_to_clear", "a hangman curse needs losses_to_clear and lockout_min")
    if curse.effect in (CurseEffect.DRAINED_BRAIN, CurseEffect.OVERFLOWING_CHALICE) and (
        curse.effect_count < 1
    ):
        raise item.fail("effect_count", f"{curse.effect.value} needs an effect_count")
    item.done()
    return CardDef(card_id, kind, name, count, text, curse=curse)


def _read_map(top: _Reader) -> dict[str, int]:
    """Read the optional ``[map]`` table: ``admin_levels = { "admin-1" = 4, ... }``."""
    section = top.sub("map", None)
    if section is None:
        return {}
    levels = section.sub("admin_levels", None)
    section.done()
    if levels is None:
        return {}
    out: dict[str, int] = {}
    for division in ADMIN_DIVISIONS:
        if levels.has(division):
            level = levels.integer(division)
            if level not in ADMIN_LEVEL_RANGE:
                raise levels.fail(division, "an OpenStreetMap admin_level from 2 to 11")
            out[division] = level
    levels.done()
    return out


def _read_countries(meta: _Reader) -> tuple[str, ...]:
    """``countries = ["US"]``: ISO 3166-1 alpha-2 codes, upper case, each once."""
    value = meta.raw("countries", [])
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise meta.fail("countries", 'expected a list of country codes like ["US"]')
    for code in value:
        if not re.fullmatch(r"[A-Z]{2}", code):
            raise meta.fail("countries", f"{code!r} is not a two-letter country code like US")
    if len(set(value)) != len(value):
        raise meta.fail("countries", "a country is listed twice")
    return tuple(value)


def parse_ruleset(data: dict[str, Any], file: str = "<ruleset>") -> Ruleset:
    """Build a :class:`Ruleset` from parsed TOML, validating every field."""
    top = _Reader(file, "", data)
    meta = top.sub("ruleset")
    assert meta is not None
    name = meta.text("name")
    title = meta.text("title")
    units = meta.text("units")
    if units not in ("metric", "imperial"):
        raise meta.fail("units", "use metric or imperial")
    source = meta.text("source", "")
    countries = _read_countries(meta)
    meta.done()

    rules = top.sub("rules")
    assert rules is not None
    hand_limit = rules.integer("hand_limit", minimum=1)
    catch_distance = rules.distance("catch_distance")
    handover = rules.number("handover_max_min")
    hider_position = rules.choice("hider_position", HiderPosition, HiderPosition.LIVE)
    max_road = rules.distance("hiding_spot_max_road_distance")
    global_multiplier = rules.number("global_multiplier", 5)
    global_hiding = rules.number("global_hiding_period_min", 1440)
    zone_pin_age = rules.number("zone_pin_max_age_min", ZONE_PIN_MAX_AGE_MIN)
    if zone_pin_age > ZONE_PIN_MAX_AGE_LIMIT_MIN:
        raise rules.fail(
            "zone_pin_max_age_min",
            f"at most {ZONE_PIN_MAX_AGE_LIMIT_MIN:g} minutes: an older pin says nothing of "
            "where the hider is when the hiding period ends",
        )
    rules.done()

    sizes = _read_sizes(top)
    categories = _read_categories(top)

    questions = [_read_question(item) for item in top.items("questions")]
    _check_unique(file, "questions", (q.id for q in questions))
    for category in Category:
        if not any(q.category == category for q in questions):
            raise RulesetError(file, "questions", f"no {category.value} question at all")

    admin_levels = _read_map(top)

    deck = top.sub("deck")
    assert deck is not None
    cards: list[CardDef] = []
    for kind in CardKind:
        cards.extend(_read_card(item, kind) for item in deck.items(kind.value))
    deck.done()
    _check_unique(file, "deck", (c.id for c in cards))
    top.done()

    return Ruleset(
        name=name,
        title=title,
        units=units,
        source=source,
        hand_limit=hand_limit,
        catch_distance_m=catch_distance,
        handover_max_min=handover,
        hider_position=hider_position,
        hiding_spot_max_road_m=max_road,
        global_multiplier=global_multiplier,
        global_hiding_period_min=global_hiding,
        zone_pin_max_age_min=zone_pin_age,
        admin_levels=admin_levels,
        countries=countries,
        sizes=sizes,
        categories=categories,
        questions=tuple(questions),
        cards=tuple(cards),
        path=file,
    )


def _check_unique(file: str, where: str, ids: Iterable[str]) -> None:
    seen: set[str] = set()
    for item_id in ids:
        if item_id in seen:
            raise RulesetError(file, where, f"the id {item_id!r} is used twice")
        seen.add(item_id)


def load_ruleset_file(path: str | Path) -> Ruleset:
    """Read and validate one ruleset file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise RulesetError(str(path), "(syntax)", str(err)) from None
    except (OSError, UnicodeDecodeError) as err:
        raise RulesetError(str(path), "(file)", str(err)) from None
    ruleset = parse_ruleset(data, str(path))
    if ruleset.name != path.stem:
        raise RulesetError(str(path), "ruleset.name", f"must match the file name {path.stem!r}")
    return ruleset


_CACHE: dict[tuple[str, float], Ruleset] = {}


def load_ruleset(name: str, extra_dirs: Iterable[str | Path] = ()) -> Ruleset:
    """Load the ruleset called ``name`` (shipped or from an extra directory)."""
    paths = ruleset_paths(extra_dirs)
    if name not in paths:
        known = ", ".join(sorted(paths))
        raise RulesetError(name, "(name)", f"no ruleset called {name!r}; known: {known}")
    path = paths[name]
    key = (str(path), path.stat().st_mtime)
    if key not in _CACHE:
        _CACHE[key] = load_ruleset_file(path)
    return _CACHE[key]
