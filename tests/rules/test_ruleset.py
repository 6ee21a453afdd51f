"""The shipped ruleset files (metric, US, Stillwater) and the strict ruleset loader."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from hideseek_chat.rules.ruleset import (
    BUILTIN_RULESETS,
    CardKind,
    Category,
    CostKind,
    CurseEffect,
    PowerupEffect,
    Ruleset,
    RulesetError,
    Size,
    ruleset_paths,
)
from hideseek_chat.rules.ruleset_loader import load_ruleset, load_ruleset_file
from hideseek_chat.rules.units import DistanceError, parse_distance

MILE = 1609.344
FOOT = 0.3048

S, M, L = Size.SMALL, Size.MEDIUM, Size.LARGE

POWERUPS = {
    # id: (count, effect, discard, draw)
    "veto": (4, PowerupEffect.VETO, 0, 0),
    "randomize": (4, PowerupEffect.RANDOMIZE, 0, 0),
    "discard-1-draw-2": (4, PowerupEffect.DISCARD_DRAW, 1, 2),
    "discard-2-draw-3": (4, PowerupEffect.DISCARD_DRAW, 2, 3),
    "draw-1-expand-1": (2, PowerupEffect.DRAW_EXPAND, 0, 1),
    "duplicate": (2, PowerupEffect.DUPLICATE, 0, 0),
    "move": (1, PowerupEffect.MOVE, 0, 0),
}

#: The true flags of every curse (all others are false), and its casting cost kind.
CURSES: dict[str, tuple[set[str], CostKind]] = {
    "lemon-phylactery": ({"blocks_questions", "not_in_end_game"}, CostKind.DISCARD),
    "luxury-car": ({"blocks_questions"}, CostKind.CONFIRM),
    "water-weight": ({"blocks_questions"}, CostKind.CONFIRM),
    "spotty-memory": ({"lasts_for_run"}, CostKind.DISCARD),
    "zoologist": ({"blocks_questions"}, CostKind.CONFIRM),
    "mediocre-travel-agent": ({"blocks_questions"}, CostKind.CONFIRM),
    "gamblers-feet": (set(), CostKind.DIE),
    "egg-partner": ({"blocks_questions", "not_in_end_game"}, CostKind.DISCARD),
    "drained-brain": ({"lasts_for_run"}, CostKind.DISCARD_HAND),
    "cairn": ({"blocks_questions"}, CostKind.CONFIRM),
    "endless-tumble": ({"blocks_questions", "penalty_repeatable"}, CostKind.DIE),
    "hidden-hangman": ({"blocks_questions"}, CostKind.DISCARD),
    "unguided-tourist": ({"blocks_questions", "blocks_transit"}, CostKind.CONFIRM),
    "right-turn": (set(), CostKind.DISCARD),
    "bird-guide": ({"blocks_questions"}, CostKind.CONFIRM),
    "u-turn": ({"blocks_transit", "needs_transit"}, CostKind.SEEKERS_AWAY),
    "jammed-door": (set(), CostKind.DISCARD),
    "overflowing-chalice": (set(), CostKind.DISCARD),
    "ransom-note": ({"clears_on_next_question"}, CostKind.CONFIRM),
    "impressionable-consumer": ({"blocks_questions"}, CostKind.NEXT_QUESTION_FREE),
    "labyrinth": ({"blocks_questions"}, CostKind.CONFIRM),
    "urban-explorer": ({"lasts_for_run"}, CostKind.DISCARD),
    "distant-cuisine": ({"blocks_questions"}, CostKind.CONFIRM),
    "bridge-troll": ({"clears_on_next_question"}, CostKind.SEEKERS_BEYOND),
}

BOOL_FLAGS = (
    "blocks_questions",
    "blocks_transit",
    "not_in_end_game",
    "needs_transit",
    "lasts_for_run",
    "clears_on_next_question",
    "penalty_repeatable",
)

MATCHING_SUBJECTS = [
    "airport", "transit-line", "station-name-length", "street", "admin-1", "admin-2",
    "admin-3", "admin-4", "mountain", "landmass", "park", "amusement-park", "zoo", "aquarium",
    "golf-course", "museum", "movie-theater", "hospital", "library", "consulate",
]  # fmt: skip
MEASURING_SUBJECTS = [
    "airport", "high-speed-rail", "rail-station", "international-border", "admin-1-border",
    "admin-2-border", "sea-level", "body-of-water", "coastline", "mountain", "park",
    "amusement-park", "zoo", "aquarium", "golf-course", "museum", "movie-theater", "hospital",
    "library", "consulate",
]  # fmt: skip
PHOTO_ALL = {"any-building-from-station", "widest-street", "tree", "tallest-structure",
             "selfie", "sky"}  # fmt: skip
PHOTO_MEDIUM = {"tallest-building-from-station", "trace-street", "two-buildings",
                "restaurant-interior", "park", "grocery-aisle", "place-of-worship",
                "train-platform"}  # fmt: skip
PHOTO_LARGE = {"streets-traced", "tallest-mountain-from-station", "biggest-water",
               "five-buildings"}  # fmt: skip

PLACEHOLDERS = {"distance", "duration", "penalty", "time_limit"}


def shipped_text(name: str) -> str:
    return ruleset_paths()[name].read_text(encoding="utf-8")


def subjects(ruleset: Ruleset, category: Category, size: Size) -> list[str]:
    return [q.subject for q in ruleset.questions_in(category, size)]


def distances(ruleset: Ruleset, category: Category, size: Size) -> list[float]:
    return sorted(
        q.distance_m for q in ruleset.questions_in(category, size) if q.distance_m is not None
    )


def counts(ruleset: Ruleset, size: Size) -> list[int]:
    return [len(ruleset.questions_in(category, size)) for category in Category]


# ---------------------------------------------------------------------------------------
# The shipped rulesets


@pytest.fixture(params=BUILTIN_RULESETS)
def shipped(request: pytest.FixtureRequest) -> Ruleset:
    return load_ruleset(request.param)


def test_each_shipped_ruleset_loads_under_its_own_name(shipped: Ruleset) -> None:
    assert Path(shipped.path).name == f"{shipped.name}.toml"
    assert shipped.title
    assert shipped.source
    assert shipped.hand_limit == 6
    assert shipped.handover_max_min == 10
    assert shipped.hider_position == "live"
    assert shipped.global_multiplier == 5
    assert shipped.global_hiding_period_min == 1440


def test_units_of_each_ruleset() -> None:
    assert load_ruleset("metric").units == "metric"
    assert load_ruleset("us").units == "imperial"
    assert load_ruleset("stillwater").units == "imperial"


def test_deck_has_100_cards_55_21_24(shipped: Ruleset) -> None:
    assert shipped.deck_size() == 100
    by_kind = {kind: sum(c.count for c in shipped.cards if c.kind == kind) for kind in CardKind}
    assert by_kind == {CardKind.TIME_BONUS: 55, CardKind.POWERUP: 21, CardKind.CURSE: 24}


def test_time_bonuses(shipped: Ruleset) -> None:
    bonuses = {
        c.id: (c.count, c.minutes[S], c.minutes[M], c.minutes[L])
        for c in shipped.cards
        if c.kind == CardKind.TIME_BONUS and c.minutes is not None
    }
    assert bonuses == {
        "time-bonus-2": (25, 2, 3, 5),
        "time-bonus-4": (15, 4, 6, 10),
        "time-bonus-6": (10, 6, 9, 15),
        "time-bonus-8": (3, 8, 12, 20),
        "time-bonus-12": (2, 12, 18, 30),
    }


def test_powerups(shipped: Ruleset) -> None:
    powerups = [c for c in shipped.cards if c.kind == CardKind.POWERUP]
    assert {c.id for c in powerups} == set(POWERUPS)
    for card in powerups:
        assert (card.count, card.powerup, card.discard, card.draw) == POWERUPS[card.id], card.id
        assert card.name and card.text, card.id


def test_curses_ids_flags_and_costs(shipped: Ruleset) -> None:
    curses = [c for c in shipped.cards if c.kind == CardKind.CURSE]
    assert [c.id for c in curses] == list(CURSES)
    for card in curses:
        assert card.count == 1 and card.curse is not None, card.id
        true_flags, cost_kind = CURSES[card.id]
        actual = {flag for flag in BOOL_FLAGS if getattr(card.curse, flag)}
        assert actual == true_flags, card.id
        assert card.curse.cost.kind == cost_kind, card.id
        assert card.name.startswith("Curse of the "), card.id
        assert card.text, card.id


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"{(\w+)}", text))


def test_curse_texts_only_use_placeholders_they_can_fill(shipped: Ruleset) -> None:
    for card in shipped.cards:
        if card.curse is None:
            continue
        curse = card.curse
        used = _placeholders(card.text)
        assert used <= PLACEHOLDERS, card.id
        filled = {
            "distance": curse.distance_m,
            "duration": curse.duration_min,
            "penalty": curse.penalty_min,
            "time_limit": curse.time_limit_min,
        }
        for name in used:
            assert filled[name] is not None, (card.id, name)
        cost_used = _placeholders(curse.cost.text)
        assert cost_used <= {"distance"}, card.id
        if cost_used:
            assert curse.cost.distance_m is not None, card.id
        # the text can be formatted without a KeyError or stray braces
        card.text.format(distance="x", duration="x", penalty="x", time_limit="x")


def test_curse_values_per_size() -> None:
    metric = load_ruleset("metric")
    lemon = metric.card("lemon-phylactery").curse
    assert lemon is not None and lemon.penalty_min is not None
    assert (lemon.penalty_min[S], lemon.penalty_min[M], lemon.penalty_min[L]) == (30, 45, 60)
    assert lemon.cost.count == 1 and lemon.cost.card_kind == CardKind.POWERUP

    water = metric.card("water-weight").curse
    assert water is not None and water.penalty_min is not None
    assert (water.penalty_min[S], water.penalty_min[M], water.penalty_min[L]) == (30, 30, 60)

    spotty = metric.card("spotty-memory").curse
    assert spotty is not None
    assert spotty.effect == CurseEffect.SPOTTY_MEMORY
    assert spotty.cost.card_kind == CardKind.TIME_BONUS

    gamblers = metric.card("gamblers-feet").curse
    assert gamblers is not None and gamblers.cost.no_effect_faces == (2, 4, 6)
    tumble = metric.card("endless-tumble").curse
    assert tumble is not None and tumble.cost.no_effect_faces == (5, 6)

    brain = metric.card("drained-brain").curse
    assert brain is not None
    assert (brain.effect, brain.effect_count) == (CurseEffect.DRAINED_BRAIN, 3)
    chalice = metric.card("overflowing-chalice").curse
    assert chalice is not None
    assert (chalice.effect, chalice.effect_count) == (CurseEffect.OVERFLOWING_CHALICE, 3)
    explorer = metric.card("urban-explorer").curse
    assert explorer is not None and explorer.effect == CurseEffect.URBAN_EXPLORER

    hangman = metric.card("hidden-hangman").curse
    assert hangman is not None and hangman.losses_to_clear is not None
    assert hangman.effect == CurseEffect.HANGMAN
    losses = hangman.losses_to_clear
    assert (losses[S], losses[M], losses[L]) == (1, 2, 3)
    assert hangman.lockout_min == 10

    door = metric.card("jammed-door").curse
    assert door is not None and door.duration_min is not None and door.time_limit_min is not None
    assert (door.duration_min[S], door.duration_min[M], door.duration_min[L]) == (30, 60, 180)
    assert (door.time_limit_min[S], door.time_limit_min[L]) == (5, 15)

    egg = metric.card("egg-partner").curse
    assert egg is not None and egg.cost.count == 2 and egg.cost.card_kind is None


def _curse_rules_without_distances(ruleset: Ruleset) -> dict[str, dict[str, object]]:
    """Every curse's rules with the distances and texts left out (they differ by units)."""
    result = {}
    for card in ruleset.cards:
        if card.curse is None:
            continue
        rules = dataclasses.asdict(card.curse)
        has_distance = rules.pop("distance_m") is not None
        cost = rules.pop("cost")
        has_cost_distance = cost.pop("distance_m") is not None
        cost.pop("text")
        result[card.id] = {
            **rules,
            "count": card.count,
            "has_distance": has_distance,
            "cost": cost,
            "has_cost_distance": has_cost_distance,
        }
    return result


def test_every_curse_has_the_same_rules_in_all_three_rulesets() -> None:
    metric = _curse_rules_without_distances(load_ruleset("metric"))
    assert len(metric) == 24
    assert _curse_rules_without_distances(load_ruleset("us")) == metric
    assert _curse_rules_without_distances(load_ruleset("stillwater")) == metric


def test_deck_is_the_same_in_all_three_rulesets_apart_from_curses() -> None:
    def plain(ruleset: Ruleset) -> list[tuple[object, ...]]:
        return [
            (c.id, c.kind, c.count, c.minutes, c.powerup, c.discard, c.draw) for c in ruleset.cards
        ]

    metric = plain(load_ruleset("metric"))
    assert plain(load_ruleset("us")) == metric
    assert plain(load_ruleset("stillwater")) == metric


def test_curse_distances_metric_versus_imperial() -> None:
    metric, us = load_ruleset("metric"), load_ruleset("us")

    def curse_distance(ruleset: Ruleset, card_id: str) -> tuple[float, float, float]:
        curse = ruleset.card(card_id).curse
        assert curse is not None and curse.distance_m is not None
        return (curse.distance_m[S], curse.distance_m[M], curse.distance_m[L])

    def cost_distance(ruleset: Ruleset, card_id: str) -> tuple[float, float, float]:
        curse = ruleset.card(card_id).curse
        assert curse is not None and curse.cost.distance_m is not None
        d = curse.cost.distance_m
        return (d[S], d[M], d[L])

    assert curse_distance(metric, "mediocre-travel-agent") == (400, 400, 800)
    assert curse_distance(us, "mediocre-travel-agent") == pytest.approx(
        (MILE / 4, MILE / 4, MILE / 2)
    )
    assert curse_distance(metric, "endless-tumble") == (30, 30, 30)
    assert curse_distance(us, "endless-tumble") == pytest.approx((100 * FOOT,) * 3)
    assert curse_distance(metric, "unguided-tourist") == (150, 150, 150)
    assert curse_distance(us, "unguided-tourist") == pytest.approx((500 * FOOT,) * 3)
    assert curse_distance(metric, "impressionable-consumer") == (30, 30, 30)
    assert cost_distance(metric, "water-weight") == (300, 300, 300)
    assert cost_distance(us, "water-weight") == pytest.approx((1000 * FOOT,) * 3)
    assert cost_distance(metric, "bridge-troll") == (1500, 8000, 50000)
    assert cost_distance(us, "bridge-troll") == pytest.approx((MILE, 5 * MILE, 30 * MILE))
    assert cost_distance(load_ruleset("stillwater"), "bridge-troll") == cost_distance(
        us, "bridge-troll"
    )


def test_category_costs_stay_the_book_values(shipped: Ruleset) -> None:
    # The Overflowing Chalice is "+1 draw" on top of these (README), never its own table.
    costs = {c: (r.draw, r.keep) for c, r in shipped.categories.items()}
    assert costs == {
        Category.MATCHING: (3, 1),
        Category.MEASURING: (3, 1),
        Category.RADAR: (2, 1),
        Category.THERMOMETER: (2, 1),
        Category.PHOTO: (1, 1),
        Category.TENTACLE: (4, 2),
    }
    assert all(r.label for r in shipped.categories.values())


# ---------------------------------------------------------------------------------------
# Questions


def test_question_ids_are_category_prefixed_and_every_question_is_labelled(
    shipped: Ruleset,
) -> None:
    for question in shipped.questions:
        assert question.id.startswith(f"{question.category.value}-"), question.id
        assert question.label, question.id
        if question.category in (Category.MATCHING, Category.MEASURING, Category.TENTACLE):
            assert question.subject, question.id
        if question.category == Category.PHOTO:
            assert question.subject and question.instructions, question.id


def test_question_counts_metric_and_us() -> None:
    for name in ("metric", "us"):
        ruleset = load_ruleset(name)
        #                             match meas radar thermo photo tentacle
        assert counts(ruleset, S) == [20, 20, 10, 2, 6, 0], name
        assert counts(ruleset, M) == [20, 20, 10, 3, 14, 4], name
        assert counts(ruleset, L) == [20, 20, 10, 4, 18, 8], name
        assert len(ruleset.questions) == 80, name


def test_question_counts_stillwater() -> None:
    stillwater = load_ruleset("stillwater")
    assert counts(stillwater, S) == [22, 20, 10, 3, 6, 0]
    assert sum(counts(stillwater, S)) == 61
    assert counts(stillwater, M) == [22, 20, 10, 4, 14, 4]
    assert counts(stillwater, L) == [22, 20, 10, 5, 18, 8]


def test_matching_and_measuring_subjects() -> None:
    for name in ("metric", "us"):
        ruleset = load_ruleset(name)
        for size in Size:
            assert subjects(ruleset, Category.MATCHING, size) == MATCHING_SUBJECTS
            assert subjects(ruleset, Category.MEASURING, size) == MEASURING_SUBJECTS
    stillwater = load_ruleset("stillwater")
    matching = subjects(stillwater, Category.MATCHING, S)
    assert sorted(matching) == sorted([*MATCHING_SUBJECTS, "restaurant", "school"])
    assert subjects(stillwater, Category.MEASURING, S) == MEASURING_SUBJECTS
    quadrants = stillwater.question("matching-admin-4")
    assert "Husband" in quadrants.label + quadrants.instructions
    assert "McElroy" in quadrants.label + quadrants.instructions


def test_only_the_transit_line_question_needs_transit(shipped: Ruleset) -> None:
    assert [q.id for q in shipped.questions if q.needs_transit] == ["matching-transit-line"]


def test_radar_distances() -> None:
    metric = load_ruleset("metric")
    km = [d / 1000 for d in distances(metric, Category.RADAR, S)]
    assert km == [0.5, 1, 2, 5, 10, 15, 40, 80, 160]
    assert metric.question("radar-160km").distance_m == 160_000

    us = load_ruleset("us")
    miles = distances(us, Category.RADAR, S)
    assert miles == pytest.approx([m * MILE for m in (0.25, 0.5, 1, 3, 5, 10, 25, 50, 100)])
    assert us.question("radar-0.25mi").distance_m == pytest.approx(402.336)

    stillwater = load_ruleset("stillwater")
    miles = distances(stillwater, Category.RADAR, S)
    assert miles == pytest.approx([m * MILE for m in (0.2, 0.5, 1, 3, 5, 10, 25, 50, 100)])
    assert not stillwater.has_question("radar-0.25mi")

    for ruleset in (metric, us, stillwater):
        custom = [q for q in ruleset.questions if q.custom_distance]
        assert [q.id for q in custom] == ["radar-custom"]
        assert custom[0].distance_m is None
        assert len(ruleset.questions_in(Category.RADAR, S)) == 10


def test_thermometer_distances() -> None:
    metric = load_ruleset("metric")
    assert len(metric.questions_in(Category.THERMOMETER, S)) == 2
    assert len(metric.questions_in(Category.THERMOMETER, L)) == 4
    assert distances(metric, Category.THERMOMETER, S) == [1000, 5000]
    assert distances(metric, Category.THERMOMETER, M) == [1000, 5000, 15000]
    assert distances(metric, Category.THERMOMETER, L) == [1000, 5000, 15000, 75000]

    us = load_ruleset("us")
    assert distances(us, Category.THERMOMETER, S) == pytest.approx([0.5 * MILE, 3 * MILE])
    assert distances(us, Category.THERMOMETER, L) == pytest.approx(
        [0.5 * MILE, 3 * MILE, 10 * MILE, 50 * MILE]
    )

    stillwater = load_ruleset("stillwater")
    assert distances(stillwater, Category.THERMOMETER, S) == pytest.approx(
        [0.2 * MILE, 0.5 * MILE, 3 * MILE]
    )
    assert stillwater.question("thermometer-0.2mi").distance_m == pytest.approx(321.8688)


def test_photo_questions_by_size(shipped: Ruleset) -> None:
    assert set(subjects(shipped, Category.PHOTO, S)) == PHOTO_ALL
    assert set(subjects(shipped, Category.PHOTO, M)) == PHOTO_ALL | PHOTO_MEDIUM
    assert set(subjects(shipped, Category.PHOTO, L)) == PHOTO_ALL | PHOTO_MEDIUM | PHOTO_LARGE


def test_photo_framing_follows_each_source() -> None:
    def instructions(name: str, subject: str) -> str:
        return load_ruleset(name).question(f"photo-{subject}").instructions

    assert "third" in instructions("metric", "any-building-from-station")
    assert "third" in instructions("us", "any-building-from-station")
    assert "half" in instructions("stillwater", "any-building-from-station")
    assert "2 m" in instructions("metric", "park")
    assert "5 ft" in instructions("us", "park")
    assert "1 km" in load_ruleset("metric").question("photo-streets-traced").label
    assert "mile" in load_ruleset("us").question("photo-streets-traced").label


def test_tentacles() -> None:
    for name, near, far in (
        ("metric", 2000, 25000),
        ("us", MILE, 15 * MILE),
        ("stillwater", MILE, 15 * MILE),
    ):
        ruleset = load_ruleset(name)
        assert ruleset.questions_in(Category.TENTACLE, S) == []
        medium = ruleset.questions_in(Category.TENTACLE, M)
        assert {q.subject for q in medium} == {"museum", "library", "movie-theater", "hospital"}
        assert all(q.distance_m == pytest.approx(near) for q in medium)
        large_only = [q for q in ruleset.questions_in(Category.TENTACLE, L) if q not in medium]
        assert {q.subject for q in large_only} == {"metro-line", "zoo", "aquarium",
                                                   "amusement-park"}  # fmt: skip
        assert all(q.distance_m == pytest.approx(far) for q in large_only)


# ---------------------------------------------------------------------------------------
# Rules and sizes


def test_size_rules_metric() -> None:
    sizes = load_ruleset("metric").sizes
    assert sizes[S].zone_radius_m == 500
    assert sizes[M].zone_radius_m == 500
    assert sizes[L].zone_radius_m == 1000
    assert [sizes[s].hiding_period_min for s in Size] == [30, 60, 180]
    assert [sizes[s].answer_window_min for s in Size] == [5, 5, 5]
    assert [sizes[s].photo_window_min for s in Size] == [10, 10, 20]
    assert [sizes[s].move_period_min for s in Size] == [10, 20, 60]


def test_size_rules_imperial() -> None:
    for name in ("us", "stillwater"):
        sizes = load_ruleset(name).sizes
        assert sizes[S].zone_radius_m == pytest.approx(402.336)
        assert sizes[M].zone_radius_m == pytest.approx(402.336)
        assert sizes[L].zone_radius_m == pytest.approx(804.672)
        # README: large is 180 minutes by default, even though the US text says 2 hours
        assert [sizes[s].hiding_period_min for s in Size] == [30, 60, 180]
        assert sizes[L].photo_window_min == 20
        assert [sizes[s].move_period_min for s in Size] == [10, 20, 60]


def test_catch_and_hiding_spot_distances() -> None:
    metric = load_ruleset("metric")
    assert metric.catch_distance_m == 2
    assert metric.hiding_spot_max_road_m == 3
    for name in ("us", "stillwater"):
        ruleset = load_ruleset(name)
        assert ruleset.catch_distance_m == pytest.approx(5 * FOOT)
        assert ruleset.hiding_spot_max_road_m == pytest.approx(10 * FOOT)


# ---------------------------------------------------------------------------------------
# Validation: broken copies of a shipped file


def write_copy(tmp_path: Path, text: str, name: str = "metric") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def broken(tmp_path: Path, old: str, new: str, name: str = "metric") -> RulesetError:
    text = shipped_text("metric")
    assert text.count(old) == 1, f"{old!r} must occur exactly once in metric.toml"
    path = write_copy(tmp_path, text.replace(old, new), name)
    with pytest.raises(RulesetError) as caught:
        load_ruleset_file(path)
    assert caught.value.file == str(path)
    assert str(path) in str(caught.value)
    return caught.value


def test_an_unchanged_copy_loads(tmp_path: Path) -> None:
    ruleset = load_ruleset_file(write_copy(tmp_path, shipped_text("metric")))
    assert ruleset.deck_size() == 100


def test_unknown_key_is_reported_as_a_typo(tmp_path: Path) -> None:
    err = broken(
        tmp_path,
        'subject = "transit-line"\nneeds_transit = true',
        'subject = "transit-line"\nneed_transit = true',
    )
    assert re.fullmatch(r"questions\[\d+\]\.need_transit", err.field)
    assert "unknown field" in err.reason


def test_unknown_key_in_a_section(tmp_path: Path) -> None:
    err = broken(tmp_path, "handover_max_min = 10", "handover_max_min = 10\nhand_limits = 7")
    assert err.field == "rules.hand_limits"
    assert "unknown field" in err.reason


def test_misspelt_required_key_is_reported_missing(tmp_path: Path) -> None:
    err = broken(tmp_path, "hand_limit = 6", "hand_limt = 6")
    assert err.field == "rules.hand_limit"
    assert err.reason == "missing"


def test_keep_more_than_draw(tmp_path: Path) -> None:
    err = broken(
        tmp_path,
        "[categories.radar]\ndraw = 2\nkeep = 1",
        "[categories.radar]\ndraw = 2\nkeep = 3",
    )
    assert err.field == "categories.radar.keep"
    assert "cannot keep more" in err.reason


def test_radar_without_distance(tmp_path: Path) -> None:
    err = broken(tmp_path, 'distance = "160 km"\n', "")
    assert re.fullmatch(r"questions\[\d+\]\.distance", err.field)
    assert "radar question needs a distance" in err.reason


def test_bad_unit(tmp_path: Path) -> None:
    err = broken(tmp_path, 'distance = "160 km"', 'distance = "5 parsecs"')
    assert re.fullmatch(r"questions\[\d+\]\.distance", err.field)
    assert "unknown unit" in err.reason and "parsecs" in err.reason


def test_bad_unit_in_a_per_size_table(tmp_path: Path) -> None:
    err = broken(
        tmp_path,
        'distance = { small = "1.5 km", medium = "8 km", large = "50 km" }',
        'distance = { small = "1.5 km", medium = "8 leagues", large = "50 km" }',
    )
    assert re.fullmatch(r"deck\.curse\[\d+\]\.cost\.distance\.medium", err.field)
    assert "leagues" in err.reason


def test_duplicate_id(tmp_path: Path) -> None:
    err = broken(tmp_path, 'id = "radar-1km"', 'id = "radar-500m"')
    assert err.field == "questions"
    assert "'radar-500m'" in err.reason and "twice" in err.reason


def test_duplicate_card_id(tmp_path: Path) -> None:
    err = broken(tmp_path, 'id = "randomize"', 'id = "veto"')
    assert err.field == "deck"
    assert "'veto'" in err.reason


def test_name_must_match_the_file_name(tmp_path: Path) -> None:
    path = write_copy(tmp_path, shipped_text("metric"), name="house")
    with pytest.raises(RulesetError) as caught:
        load_ruleset_file(path)
    assert caught.value.field == "ruleset.name"
    assert "'house'" in caught.value.reason


def test_toml_syntax_error(tmp_path: Path) -> None:
    err = broken(tmp_path, "hand_limit = 6", "hand_limit = = 6")
    assert err.field == "(syntax)"
    assert "line" in err.reason


def test_missing_size_section(tmp_path: Path) -> None:
    text = shipped_text("metric")
    without_large = re.sub(r"\[sizes\.large\]\n(?:[^\[].*\n|\n)*", "", text)
    assert "[sizes.large]" not in without_large and "[sizes.medium]" in without_large
    path = write_copy(tmp_path, without_large)
    with pytest.raises(RulesetError) as caught:
        load_ruleset_file(path)
    assert caught.value.field == "sizes.large"
    assert caught.value.reason == "missing"


def test_wrong_choice_lists_the_options(tmp_path: Path) -> None:
    err = broken(tmp_path, 'effect = "duplicate"', 'effect = "triplicate"')
    assert re.fullmatch(r"deck\.powerup\[\d+\]\.effect", err.field)
    assert "'triplicate'" in err.reason and "duplicate" in err.reason


def test_wrong_units_value(tmp_path: Path) -> None:
    err = broken(tmp_path, 'units = "metric"', 'units = "furlongs"')
    assert err.field == "ruleset.units"


def test_unknown_size_in_a_question(tmp_path: Path) -> None:
    err = broken(
        tmp_path, 'sizes = ["large"]\ndistance = "75 km"', 'sizes = ["huge"]\ndistance = "75 km"'
    )
    assert re.fullmatch(r"questions\[\d+\]\.sizes", err.field)


# ---------------------------------------------------------------------------------------
# Extra ruleset directories


def test_house_ruleset_in_an_extra_directory(tmp_path: Path) -> None:
    text = shipped_text("metric")
    text = text.replace('name = "metric"', 'name = "house"', 1)
    text = text.replace("hand_limit = 6", "hand_limit = 7", 1)
    write_copy(tmp_path, text, name="house")

    paths = ruleset_paths([tmp_path])
    assert paths["house"] == tmp_path / "house.toml"
    assert set(BUILTIN_RULESETS) <= set(paths)

    house = load_ruleset("house", [tmp_path])
    assert house.name == "house"
    assert house.hand_limit == 7
    assert house.deck_size() == 100
    assert load_ruleset("metric", [tmp_path]).hand_limit == 6


def test_extra_directory_can_replace_a_shipped_ruleset(tmp_path: Path) -> None:
    text = shipped_text("stillwater").replace("hand_limit = 6", "hand_limit = 5", 1)
    write_copy(tmp_path, text, name="stillwater")
    assert load_ruleset("stillwater", [tmp_path]).hand_limit == 5
    assert load_ruleset("stillwater").hand_limit == 6


def test_unknown_ruleset_name_lists_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(RulesetError) as caught:
        load_ruleset("nonesuch", [tmp_path])
    assert caught.value.field == "(name)"
    assert "metric" in caught.value.reason and "stillwater" in caught.value.reason


# ---------------------------------------------------------------------------------------
# Distances


@pytest.mark.parametrize(
    ("text", "metres"),
    [
        ("500m", 500),
        ("500 m", 500),
        ("1.5 km", 1500),
        ("1,5 km", 1500),
        ("0.25 mi", 402.336),
        ("1/4 mi", 402.336),
        ("1/2 mile", 804.672),
        ("1000 ft", 304.8),
        ("10 yd", 9.144),
        ("3 metres", 3),
    ],
)
def test_parse_distance(text: str, metres: float) -> None:
    assert parse_distance(text) == pytest.approx(metres)


@pytest.mark.parametrize(
    ("text", "reason_part"),
    [
        ("", "expected a number and a unit"),
        ("abc", "expected a number and a unit"),
        ("-5 km", "expected a number and a unit"),
        ("5", "expected a number and a unit"),
        ("0 m", "more than zero"),
        ("5 parsecs", "unknown unit 'parsecs'"),
        ("30000 km", "that far apart"),
        ("1/0 mi", "more than zero"),  # was a ZeroDivisionError (issue 18)
        ("0/0 km", "more than zero"),
        ("1" * 400 + " m", "that far apart"),  # more digits than a float holds
    ],
)
def test_parse_distance_rejects(text: str, reason_part: str) -> None:
    with pytest.raises(DistanceError) as caught:
        parse_distance(text)
    assert reason_part in caught.value.reason
    assert caught.value.text == text
