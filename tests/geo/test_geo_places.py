"""Two rows of one place count as one place: matching and tentacle answers on the real
Stillwater duplicates (two "Stillwater High School", two "Myers Park", "Highland Park
Elementary" beside "Highland Park Elementary School")."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from shapely.geometry import Point, box

from hideseek_chat.geo import (
    Feature,
    HiderFix,
    MapIndex,
    MapPack,
    Pin,
    answer_matching,
    answer_measuring,
    answer_tentacle,
    distance_m,
    load_map_pack,
)
from hideseek_chat.geo.places import SAME_PLACE_M, name_words, names_agree
from hideseek_chat.rules.ruleset import HiderPosition

NOW = datetime(2025, 5, 1, 15, 0, tzinfo=UTC)
SHARED_POI = Path(__file__).resolve().parents[3] / "shared" / "data" / "stillwater" / "poi.geojson"

# The two rows of Stillwater High School in the shipped map (lat, lon), 166 m apart.
HIGH_NORTH = (36.1363607, -97.0630464)
HIGH_SOUTH = (36.135089, -97.062079)
# The two rows of Myers Park, 191 m apart.
MYERS_SOUTH = (36.1104049, -97.0845861)
MYERS_NORTH = (36.1119488, -97.0836408)


@pytest.fixture(scope="module")
def index() -> MapIndex:
    return MapIndex(load_map_pack("stillwater"))


def pin(place: tuple[float, float], accuracy: float = 5.0) -> Pin:
    return Pin(place[0], place[1], NOW, accuracy_m=accuracy)


def hider_at(place: tuple[float, float], accuracy: float = 5.0) -> HiderFix:
    return HiderFix(place[0], place[1], accuracy, HiderPosition.LIVE)


def beyond(a: tuple[float, float], b: tuple[float, float], metres: float) -> tuple[float, float]:
    """A point ``metres`` past ``a`` on the line from ``b`` through ``a`` (flat, fine here)."""
    length = distance_m(a[0], a[1], b[0], b[1])
    share = metres / length
    return (a[0] + (a[0] - b[0]) * share, a[1] + (a[1] - b[1]) * share)


def test_names_agree_on_the_same_words_or_a_longer_name_of_them() -> None:
    assert name_words("Joe’s  Diner!") == ("joes", "diner")
    assert names_agree("Stillwater High School", "STILLWATER HIGH SCHOOL")
    assert names_agree("Highland Park Elementary", "Highland Park Elementary School")
    assert names_agree("Berry Park", "Berry Park Playground")
    assert not names_agree("Park", "Park Avenue Deli")  # one word is too little to go on
    assert not names_agree("Sanborn Lake Trails", "Sanborn Lake Park and Sports Complex")
    assert not names_agree("", "")


def test_the_stillwater_duplicates_are_one_place_each(index: MapIndex) -> None:
    schools = {f.name: f for f in index.pack.features_of("school")}
    rows = [f for f in index.pack.features_of("school") if f.name == "Stillwater High School"]
    assert len(rows) == 2
    assert index.same_place("school", rows[0], rows[1])
    assert index.same_place(
        "school", schools["Highland Park Elementary"], schools["Highland Park Elementary School"]
    )
    assert not index.same_place("school", rows[0], schools["Highland Park Elementary"])
    assert set(index.place_names("school", rows[0])) == {"Stillwater High School"}
    sonics = [f for f in index.pack.features_of("restaurant") if f.name == "Sonic Drive-In"]
    assert len(sonics) == 3  # a chain: three places a kilometre and more apart
    assert not any(
        index.same_place("restaurant", a, b) for a in sonics for b in sonics if a is not b
    )


def test_matching_the_same_school_through_its_two_rows(index: MapIndex) -> None:
    hider = hider_at(beyond(HIGH_NORTH, HIGH_SOUTH, 20))  # nearest row: the northern one
    seeker = pin(beyond(HIGH_SOUTH, HIGH_NORTH, 20))  # nearest row: the southern one
    result = answer_matching(index, "school", seeker, hider)
    assert result.answer == "yes"
    assert not result.too_close_to_call
    assert result.hider_value == result.seeker_value == "Stillwater High School"


def test_matching_the_same_park_through_its_two_rows(index: MapIndex) -> None:
    result = answer_matching(
        index,
        "park",
        pin(beyond(MYERS_NORTH, MYERS_SOUTH, 10)),
        hider_at(beyond(MYERS_SOUTH, MYERS_NORTH, 10)),
    )
    assert (result.answer, result.too_close_to_call) == ("yes", False)


def test_a_second_row_of_the_same_place_is_no_rival(index: MapIndex) -> None:
    # Halfway between the two rows of the school, GPS could make either row the nearest:
    # it is the same school either way, so the answer is sure.
    middle = ((HIGH_NORTH[0] + HIGH_SOUTH[0]) / 2, (HIGH_NORTH[1] + HIGH_SOUTH[1]) / 2)
    result = answer_matching(index, "school", pin(middle, 60.0), hider_at(HIGH_NORTH))
    assert (result.answer, result.too_close_to_call) == ("yes", False)


def test_measuring_with_two_rows_measures_to_the_nearer_row(index: MapIndex) -> None:
    hider = hider_at(beyond(HIGH_SOUTH, HIGH_NORTH, 30))
    result = answer_measuring(index, "school", pin(beyond(HIGH_NORTH, HIGH_SOUTH, 60)), hider)
    assert result.answer == "closer"
    assert result.hider_distance_m == pytest.approx(30, abs=1)
    assert result.seeker_distance_m == pytest.approx(60, abs=1)


def small_map() -> MapPack:
    """Two rows of one museum (an OSM way and its named node), one other museum."""
    hall = box(-97.0610, 36.1200, -97.0600, 36.1210)
    return MapPack(
        "museums",
        box(-97.2, 36.0, -96.9, 36.3),
        (),
        (
            Feature("museum", "Town Museum", hall),
            Feature("museum", "Town Museum of History", Point(-97.0605, 36.1205)),
            Feature("museum", "", Point(-97.0602, 36.1208)),  # an unnamed node inside it
            Feature("museum", "Rail Museum", Point(-97.0560, 36.1205)),
        ),
    )


def test_tentacle_lists_a_place_once_and_accepts_each_of_its_names() -> None:
    index = MapIndex(small_map())
    seeker = pin((36.1205, -97.0580))
    result = answer_tentacle(index, "museum", seeker, hider_at((36.1205, -97.0612), 5.0), 1000)
    assert result.answer in ("Town Museum", "Town Museum of History")
    names = [hit.item.name for hit in result.in_reach]
    assert sorted(names) == sorted(["Rail Museum", result.answer])  # each place once
    assert set(result.names) == {"Town Museum", "Town Museum of History"}
    assert not result.too_close_to_call


def test_an_unnamed_node_apart_from_a_place_stays_apart() -> None:
    index = MapIndex(small_map())
    features = index.pack.features_of("museum")
    assert index.same_place("museum", features[0], features[2])  # inside the way
    assert not index.same_place("museum", features[2], features[3])


def test_the_shared_stillwater_pois_hold_exactly_these_duplicates() -> None:
    if not SHARED_POI.exists():
        pytest.skip(f"the shared Stillwater data is absent ({SHARED_POI})")
    data = json.loads(SHARED_POI.read_text(encoding="utf-8"))
    rows = [
        f
        for f in data["features"]
        if f["properties"]["kind"] != "bus-stop" and (f["properties"]["name"] or "").strip()
    ]
    pairs = set()
    for i, a in enumerate(rows):
        for b in rows[i + 1 :]:
            pa, pb = a["properties"], b["properties"]
            (lon1, lat1), (lon2, lat2) = a["geometry"]["coordinates"], b["geometry"]["coordinates"]
            if (
                pa["kind"] == pb["kind"]
                and names_agree(pa["name"], pb["name"])
                and distance_m(lat1, lon1, lat2, lon2) <= SAME_PLACE_M
            ):
                pairs.add(tuple(sorted((pa["name"], pb["name"]))))
    assert pairs == {
        ("Stillwater High School", "Stillwater High School"),
        ("Myers Park", "Myers Park"),
        ("Highland Park Elementary", "Highland Park Elementary School"),
        ("Berry Park", "Berry Park Playground"),
        ("Strickland Park", "Strickland Park And Sports Complex"),
    }
