"""Rulesets: every number of the game, as data a group can copy and change.

The dataclasses and enums a ruleset is made of, :class:`RulesetError`, and where the
ruleset files are (:func:`ruleset_paths`). Reading and validating a file is in
:mod:`hideseek_chat.rules.ruleset_loader`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import resources
from pathlib import Path


class Size(StrEnum):
    SMALL = "small"
    MEDIUM = "medium"
    LARGE = "large"

    @classmethod
    def parse(cls, text: str) -> Size:
        """Read a size from ``small``/``s``/``medium``/``m``/``large``/``l`` (any case)."""
        key = text.strip().lower()
        for size in cls:
            if key in (size.value, size.value[0]):
                return size
        raise ValueError(f"unknown game size {text!r}; use small, medium or large")


class Category(StrEnum):
    MATCHING = "matching"
    MEASURING = "measuring"
    RADAR = "radar"
    THERMOMETER = "thermometer"
    PHOTO = "photo"
    TENTACLE = "tentacle"


#: The answers a hider may give, per category. Tentacle answers are a feature name or
#: ``not_in_reach``; photo answers are a photo or ``cannot_answer``.
CATEGORY_ANSWERS: dict[Category, tuple[str, ...]] = {
    Category.MATCHING: ("yes", "no"),
    Category.MEASURING: ("closer", "further"),
    Category.RADAR: ("yes", "no"),
    Category.THERMOMETER: ("hotter", "colder"),
    Category.PHOTO: ("photo", "cannot_answer"),
    Category.TENTACLE: ("named", "not_in_reach"),
}

#: Every category may also be answered with the null answer when the subject does not
#: exist inside the game boundary (it counts and pays).
NULL_ANSWER = "null"
#: The categories about a kind of place, where that is likely: the hider is offered it.
PLACE_CATEGORIES = frozenset({Category.MATCHING, Category.MEASURING, Category.TENTACLE})


class CardKind(StrEnum):
    TIME_BONUS = "time_bonus"
    POWERUP = "powerup"
    CURSE = "curse"


class PowerupEffect(StrEnum):
    VETO = "veto"
    RANDOMIZE = "randomize"
    DISCARD_DRAW = "discard_draw"
    DRAW_EXPAND = "draw_expand"
    DUPLICATE = "duplicate"
    MOVE = "move"


class CurseEffect(StrEnum):
    """Curses whose effect the engine enforces beyond blocking, expiring and penalties."""

    NONE = "none"
    SPOTTY_MEMORY = "spotty_memory"
    DRAINED_BRAIN = "drained_brain"
    OVERFLOWING_CHALICE = "overflowing_chalice"
    URBAN_EXPLORER = "urban_explorer"
    HANGMAN = "hangman"


class CostKind(StrEnum):
    NONE = "none"
    DISCARD = "discard"
    DISCARD_HAND = "discard_hand"
    SEEKERS_WITHIN = "seekers_within"
    SEEKERS_BEYOND = "seekers_beyond"
    SEEKERS_AWAY = "seekers_away"  # the seekers travel away from the hider (U-Turn)
    CONFIRM = "confirm"
    DIE = "die"
    NEXT_QUESTION_FREE = "next_question_free"


class HiderPosition(StrEnum):
    """Which hider position automatic answers use."""

    LIVE = "live"
    STATION = "station"


@dataclass(frozen=True)
class SizeValues:
    """One number per game size (minutes, metres, counts)."""

    small: float
    medium: float
    large: float

    def __getitem__(self, size: Size) -> float:
        return float(getattr(self, size.value))


@dataclass(frozen=True)
class SizeRules:
    hiding_period_min: float
    zone_radius_m: float
    answer_window_min: float
    photo_window_min: float
    move_period_min: float


@dataclass(frozen=True)
class CategoryRules:
    category: Category
    draw: int
    keep: int
    label: str


@dataclass(frozen=True)
class QuestionDef:
    id: str
    category: Category
    label: str
    sizes: frozenset[Size]
    subject: str = ""
    distance_m: float | None = None
    custom_distance: bool = False
    needs_transit: bool = False
    instructions: str = ""

    def is_available(self, size: Size) -> bool:
        return size in self.sizes


@dataclass(frozen=True)
class CastingCost:
    kind: CostKind = CostKind.NONE
    count: int = 0
    card_kind: CardKind | None = None
    distance_m: SizeValues | None = None
    no_effect_faces: tuple[int, ...] = ()
    text: str = ""


@dataclass(frozen=True)
class CurseRules:
    cost: CastingCost
    blocks_questions: bool = False
    blocks_transit: bool = False
    not_in_end_game: bool = False
    needs_transit: bool = False
    lasts_for_run: bool = False
    clears_on_next_question: bool = False
    duration_min: SizeValues | None = None
    penalty_min: SizeValues | None = None
    penalty_repeatable: bool = False
    effect: CurseEffect = CurseEffect.NONE
    effect_count: int = 0
    losses_to_clear: SizeValues | None = None
    lockout_min: float | None = None
    distance_m: SizeValues | None = None
    time_limit_min: SizeValues | None = None


@dataclass(frozen=True)
class CardDef:
    id: str
    kind: CardKind
    name: str
    count: int
    text: str = ""
    minutes: SizeValues | None = None
    powerup: PowerupEffect | None = None
    discard: int = 0
    draw: int = 0
    curse: CurseRules | None = None


#: Default for ``Ruleset.zone_pin_max_age_min``: a hider's pin this old still fixes the zone
#: at the end of the hiding period (a live location sends no edit while its phone is still;
#: a one-off pin counts for ``rules.pins.MAX_PIN_AGE`` at most).
ZONE_PIN_MAX_AGE_MIN = 60.0
#: The admin divisions a ruleset's ``[map] admin_levels`` may place, and the OSM levels.
ADMIN_DIVISIONS = ("admin-1", "admin-2", "admin-3", "admin-4")
ADMIN_LEVEL_RANGE = range(2, 12)
#: The longest ``zone_pin_max_age_min`` a ruleset may set: as long as a live location counts.
ZONE_PIN_MAX_AGE_LIMIT_MIN = 120.0


@dataclass(frozen=True)
class Ruleset:
    name: str
    title: str
    units: str
    source: str
    hand_limit: int
    catch_distance_m: float
    handover_max_min: float
    hider_position: HiderPosition
    hiding_spot_max_road_m: float
    global_multiplier: float
    global_hiding_period_min: float
    sizes: Mapping[Size, SizeRules]
    categories: Mapping[Category, CategoryRules]
    questions: tuple[QuestionDef, ...]
    cards: tuple[CardDef, ...]
    path: str = ""
    #: the hider's pin that fixes the zone when the hiding period ends may be this old
    zone_pin_max_age_min: float = ZONE_PIN_MAX_AGE_MIN
    #: ``[map] admin_levels``: OSM ``admin_level`` of ``admin-1`` .. ``admin-4`` where the
    #: country's default does not fit the house rules (only the divisions named are changed)
    admin_levels: Mapping[str, int] = field(default_factory=dict)
    #: the countries (ISO 3166-1 alpha-2) the ruleset suits: a map there suggests it
    countries: tuple[str, ...] = ()
    _questions_by_id: dict[str, QuestionDef] = field(
        default_factory=dict, repr=False, compare=False
    )
    _cards_by_id: dict[str, CardDef] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._questions_by_id.update({q.id: q for q in self.questions})
        self._cards_by_id.update({c.id: c for c in self.cards})

    def question(self, question_id: str) -> QuestionDef:
        return self._questions_by_id[question_id]

    def has_question(self, question_id: str) -> bool:
        return question_id in self._questions_by_id

    def card(self, card_id: str) -> CardDef:
        return self._cards_by_id[card_id]

    def suits(self, country: str) -> bool:
        """Say whether the ruleset declares that it suits maps in ``country``."""
        return bool(country) and country.upper() in self.countries

    def deck_size(self) -> int:
        return sum(card.count for card in self.cards)

    def questions_in(self, category: Category, size: Size) -> list[QuestionDef]:
        return [q for q in self.questions if q.category == category and q.is_available(size)]


class RulesetError(ValueError):
    """A ruleset file is wrong: ``file``, ``field`` and ``reason`` say where and why."""

    def __init__(self, file: str, field_path: str, reason: str) -> None:
        super().__init__(f"{file}: {field_path}: {reason}")
        self.file = file
        self.field = field_path
        self.reason = reason


BUILTIN_RULESETS = ("metric", "us", "stillwater")


def ruleset_paths(extra_dirs: Iterable[str | Path] = ()) -> dict[str, Path]:
    """Map each ruleset name to its file: the shipped ones, then each extra directory's."""
    found: dict[str, Path] = {}
    shipped = resources.files("hideseek_chat.rules") / "rulesets"
    for name in BUILTIN_RULESETS:
        found[name] = Path(str(shipped / f"{name}.toml"))
    for directory in extra_dirs:
        for path in sorted(Path(directory).glob("*.toml")):
            found[path.stem] = path
    return found
