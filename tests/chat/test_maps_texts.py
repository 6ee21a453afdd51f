"""The map jobs' texts (``map.*``) are a family of their own, say their values in words and
never raise, whatever the params."""

from __future__ import annotations

import pytest

from hideseek_chat.chat import texts
from hideseek_chat.chat.i18n import LANGUAGES, Formatter
from tests.chat.test_texts import ODD_PARAMS

MAP_KEYS = {
    "map.places",
    "map.not_found",
    "map.geocoder_failed",
    "map.overpass_failed",
    "map.no_stations",
    "map.gave_up",
    "map.failed",
    "map.progress",
    "map.fetched",
    "map.station_list_bad",
}


def test_the_map_family_stands_apart_from_the_engines_notices() -> None:
    assert MAP_KEYS - {"map.station_list_bad"} <= texts.map_keys()
    assert not texts.map_keys() & texts.notice_keys()


@pytest.mark.parametrize("language", LANGUAGES)
def test_map_texts_never_raise(language: str) -> None:
    fmt = Formatter(language)
    keys = texts.map_keys() | {k for k in texts.chat_keys() if "map" in k or "station" in k}
    for key in sorted(keys):
        for params in ODD_PARAMS:
            assert isinstance(texts.say(key, params, fmt), str), key


def test_progress_and_summary_in_words() -> None:
    fmt = Formatter("en")
    progress = texts.say(
        "map.progress",
        {
            "title": "Zürich",
            "done": 2,
            "total": 5,
            "kinds": [["station", 412, True], ["museum", 0, False]],
        },
        fmt,
    )
    assert progress == ("⏳ Fetching “Zürich” from OpenStreetMap… 2/5\nstations ✓ 412 · museums ✗")
    summary = texts.say(
        "map.fetched",
        {
            "title": "Zürich",
            "name": "osm-r1",
            "stations": 1412,
            "modes": ["rail", "tram"],
            "counts": {"station": 1412, "park": 88, "golf-course": 2},
            "failed": ["museum"],
            "used": False,
        },
        fmt,
    )
    assert summary.splitlines() == [
        "✅ The map of “Zürich” is ready: 1,412 stations (Rail, Light rail / tram).",
        "golf courses ✓ 2 · parks ✓ 88",
        "Not answered automatically (their download failed): museums.",
        "The game has begun and keeps its map; the next game can use “osm-r1”.",
        "© OpenStreetMap contributors, ODbL",
    ]


def test_every_kind_a_fetch_reports_is_named_in_words() -> None:
    from hideseek_chat.chat.texts.maps import KIND_LABELS
    from hideseek_chat.maps import tags

    kinds = ["station", *tags.specs_for(tags.admin_levels("")).keys()]
    assert [k for k in kinds if k not in KIND_LABELS] == []


def test_every_failure_a_map_job_can_meet_has_its_message() -> None:
    """The keys ``maps`` raises, but for those of files on the command line."""
    import re
    from pathlib import Path

    import hideseek_chat.maps as package

    raised: set[str] = set()
    for source in Path(package.__file__).parent.glob("*.py"):
        if source.name != "pbf.py":  # extracts are read by `hideseek-chat map build` only
            raised |= set(re.findall(r'MapFetchError\(\s*"(map\.[a-z_]+)"', source.read_text()))
    assert "map.area_too_large" in raised and "map.overpass_failed" in raised
    fmt = Formatter("en")
    params = {"title": "Japan", "km": 3000, "max_km": 300, "reason": "busy", "query": "x"}
    generic = texts.say("no.such.key", {}, fmt)
    for key in sorted(raised):
        assert key in texts.map_keys(), key
        assert texts.say(key, {**params, "modes": ["rail"]}, fmt) != generic, key
    too_large = texts.say("map.area_too_large", params, fmt)
    assert "Japan" in too_large and "3000 km" in too_large and "map build" in too_large
