"""The tag table, the modes and the admin levels, with plain tag dicts."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from hideseek_chat.maps import tags as osm
from hideseek_chat.maps.modes import MODES, default_modes, modes_slug
from hideseek_chat.rules.ruleset import RulesetError
from hideseek_chat.rules.ruleset_loader import load_ruleset, parse_ruleset

RULESETS = Path(__file__).resolve().parents[2] / "hideseek_chat" / "rules" / "rulesets"


def test_modes_defaults_by_size_and_a_stable_slug():
    assert default_modes("small") == frozenset(MODES)
    assert default_modes("medium") == {"rail", "subway", "tram", "ferry"}
    assert default_modes("Large") == {"rail", "ferry"}
    assert modes_slug(["rail", "bus", "rail"]) == "bus+rail"
    with pytest.raises(ValueError):
        modes_slug(["hovercraft"])
    with pytest.raises(ValueError):
        default_modes("huge")


@pytest.mark.parametrize(
    "tags",
    [
        {"disused:railway": "station", "name": "Old Depot"},
        {"railway": "disused", "name": "Old Depot"},
        {"railway": "station", "abandoned:railway": "station"},
        {"railway": "proposed", "proposed:railway": "station"},
        {"railway": "construction", "construction:railway": "station"},
        {"razed:railway": "station"},
        {"highway": "bus_stop", "disused": "yes"},
        {"public_transport": "platform", "construction": "yes", "bus": "yes"},
    ],
)
def test_lifecycle_objects_are_never_stations(tags):
    assert osm.is_lifecycle(tags)
    assert not osm.is_station_candidate(tags, MODES)
    assert osm.kinds_of(tags) == ()


def test_a_lifecycle_prefix_on_a_minor_key_is_not_lifecycle():
    assert not osm.is_lifecycle({"railway": "station", "proposed:name": "New Central"})


@pytest.mark.parametrize(
    ("tags", "modes"),
    [
        ({"railway": "station"}, {"rail"}),
        ({"railway": "station", "station": "subway"}, {"subway"}),
        ({"railway": "station", "station": "light_rail"}, {"tram"}),
        ({"railway": "halt", "train": "yes"}, {"rail"}),
        ({"railway": "tram_stop"}, {"tram"}),
        ({"highway": "bus_stop"}, {"bus"}),
        ({"public_transport": "platform", "bus": "yes", "tram": "yes"}, {"bus", "tram"}),
        ({"public_transport": "stop_position", "light_rail": "yes"}, {"tram"}),
        ({"amenity": "ferry_terminal"}, {"ferry"}),
        ({"public_transport": "station", "subway": "yes", "train": "yes"}, {"subway", "rail"}),
        ({"public_transport": "platform"}, set()),
        ({"railway": "subway_entrance", "name": "Exit A"}, set()),
        ({"amenity": "restaurant"}, set()),
    ],
)
def test_station_modes(tags, modes):
    assert osm.station_modes(tags) == modes


def test_candidates_follow_the_chosen_modes():
    bus_stop = {"highway": "bus_stop", "name": "Main St"}
    assert osm.is_station_candidate(bus_stop, {"bus"})
    assert not osm.is_station_candidate(bus_stop, {"rail", "subway"})


def test_route_modes_and_names():
    assert osm.route_mode({"type": "route", "route": "light_rail"}) == "tram"
    assert osm.route_mode({"type": "route", "route": "train"}) == "rail"
    assert osm.route_mode({"type": "route", "route": "trolleybus"}) == "bus"
    assert osm.route_mode({"type": "route", "route": "hiking"}) is None
    assert osm.route_mode({"type": "route", "route": "bus", "disused:route": "bus"}) is None
    assert osm.route_name({"ref": "U2", "name": "U2: Pankow => Ruhleben"}) == "U2"
    assert osm.route_name({"name": "Blue"}) == "Blue"


def test_airports_need_an_iata_code():
    assert osm.kinds_of({"aeroway": "aerodrome", "iata": "ZRH", "name": "Zürich"}) == ("airport",)
    assert osm.kinds_of({"aeroway": "aerodrome", "name": "Stillwater Regional"}) == ()
    assert osm.kinds_of({"aeroway": "aerodrome", "iata": " "}) == ()


@pytest.mark.parametrize(
    ("tags", "kind"),
    [
        ({"leisure": "park"}, "park"),
        ({"tourism": "zoo"}, "zoo"),
        ({"tourism": "zoo", "zoo": "aquarium"}, "aquarium"),
        ({"tourism": "aquarium"}, "aquarium"),
        ({"tourism": "theme_park"}, "amusement-park"),
        ({"leisure": "golf_course"}, "golf-course"),
        ({"tourism": "museum"}, "museum"),
        ({"amenity": "cinema"}, "movie-theater"),
        ({"amenity": "hospital"}, "hospital"),
        ({"amenity": "library"}, "library"),
        ({"office": "diplomatic", "diplomatic": "consulate"}, "consulate"),
        ({"natural": "peak", "ele": "4478", "name": "Matterhorn"}, "mountain"),
        ({"amenity": "restaurant"}, "restaurant"),
        ({"amenity": "school"}, "school"),
        ({"amenity": "place_of_worship"}, "place-of-worship"),
        ({"natural": "water", "name": "Lake Carl Blackwell"}, "body-of-water"),
        ({"natural": "coastline"}, "coastline"),
        ({"railway": "rail", "highspeed": "yes"}, "high-speed-rail"),
        ({"type": "route", "route": "subway", "ref": "U2"}, "metro-line"),
        ({"highway": "residential", "name": "Main Street"}, "road"),
    ],
)
def test_each_subject_has_its_tags(tags, kind):
    assert osm.kind_of(tags) == kind


def test_unnamed_water_and_streets_and_subway_stations_are_left_out():
    assert osm.kinds_of({"natural": "water"}) == ()
    assert osm.kinds_of({"natural": "peak", "ele": "512"}) == ()
    assert osm.kinds_of({"highway": "residential"}) == ()
    assert osm.kinds_of({"railway": "station", "station": "subway", "name": "X"}) == ()
    assert osm.kinds_of({"railway": "station", "name": "Zürich HB"}) == ("rail-station",)


def test_every_map_answerable_subject_of_the_shipped_rulesets_is_in_the_table():
    subjects = set()
    for path in RULESETS.glob("*.toml"):
        subjects |= set(re.findall(r'^subject = "([^"]+)"', path.read_text(), re.M))
    table = osm.specs_for(osm.admin_levels("US"))
    # Photos, elevation, the game's own zone, and what the stations themselves answer.
    not_from_osm_tags = {
        "any-building-from-station",
        "biggest-water",
        "five-buildings",
        "grocery-aisle",
        "restaurant-interior",
        "selfie",
        "sky",
        "streets-traced",
        "tallest-building-from-station",
        "tallest-mountain-from-station",
        "tallest-structure",
        "trace-street",
        "train-platform",
        "tree",
        "two-buildings",
        "widest-street",
        "sea-level",
        "landmass",
        "station-name-length",
        "transit-line",
        "street",
    }
    assert subjects - not_from_osm_tags <= set(table)
    assert "road" in table  # "street" matches the nearest named road


def test_admin_levels_by_country_with_an_override():
    assert osm.admin_levels("us") == {"admin-1": 4, "admin-2": 6, "admin-3": 8, "admin-4": 10}
    assert osm.admin_levels("JP")["admin-2"] == 7
    assert osm.admin_levels("") == osm.DEFAULT_ADMIN_LEVELS
    assert osm.admin_levels("ZZ")["admin-4"] == 10
    for code in ("US", "GB", "DE", "CH", "FR", "JP", "CA", "AU", "NL", "ES", "IT", "AT"):
        assert code in osm.ADMIN_LEVELS
    assert osm.admin_levels("DE", {"admin-3": 7})["admin-3"] == 7
    with pytest.raises(ValueError):
        osm.admin_levels("DE", {"admin-9": 7})


def test_admin_kinds_follow_the_levels():
    quadrant = {"boundary": "administrative", "admin_level": "10", "name": "NE"}
    assert osm.kinds_of(quadrant, levels=osm.admin_levels("US")) == ("admin-4",)
    state = {"boundary": "administrative", "admin_level": "4", "name": "Oklahoma"}
    assert osm.kinds_of(state, levels=osm.admin_levels("US")) == ("admin-1", "admin-1-border")
    country = {"boundary": "administrative", "admin_level": "2", "name": "Schweiz"}
    assert osm.kinds_of(country, levels=osm.admin_levels("CH")) == ("international-border",)
    assert osm.kinds_of(quadrant) == ()  # without levels, no admin kinds


def ruleset_with(map_table: object) -> dict:
    data = tomllib.loads((RULESETS / "metric.toml").read_text(encoding="utf-8"))
    data["map"] = map_table
    return data


def test_a_ruleset_may_override_the_admin_levels():
    ruleset = parse_ruleset(ruleset_with({"admin_levels": {"admin-1": 5, "admin-3": 7}}))
    assert ruleset.admin_levels == {"admin-1": 5, "admin-3": 7}
    assert osm.admin_levels("US", ruleset.admin_levels) == {
        "admin-1": 5,
        "admin-2": 6,
        "admin-3": 7,
        "admin-4": 10,
    }
    assert load_ruleset("metric").admin_levels == {}


@pytest.mark.parametrize(
    ("table", "where"),
    [
        ({"admin_levels": {"admin-5": 9}}, "map.admin_levels.admin-5"),
        ({"admin_levels": {"admin-1": 14}}, "map.admin_levels.admin-1"),
        ({"admin_levels": {"admin-1": "4"}}, "map.admin_levels.admin-1"),
        ({"admin_levels": {"admin-1": True}}, "map.admin_levels.admin-1"),
        ({"admin_level": {"admin-1": 4}}, "map.admin_level"),
        ({"admin_levels": [4, 6]}, "map.admin_levels"),
    ],
)
def test_a_bad_admin_levels_table_is_refused_with_its_place(table, where):
    with pytest.raises(RulesetError) as caught:
        parse_ruleset(ruleset_with(table))
    assert where in str(caught.value)


def test_a_past_use_under_a_current_one_is_not_lifecycle():
    restaurant = {"amenity": "restaurant", "was:amenity": "cinema", "name": "Old Roxy"}
    assert not osm.is_lifecycle(restaurant)
    assert osm.kinds_of(restaurant) == ("restaurant",)
    assert osm.is_lifecycle({"amenity": "cinema", "disused:amenity": "cinema"})
