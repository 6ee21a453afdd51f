"""/map stations and station lists: the admin browses the map's stations a page at a time,
searches them by name, leaves one out of the game (no zone, answer or catch uses it) and
puts it back; a CSV, GeoJSON or KML list of stations replaces the map's stations, its
other places kept; a bad list changes nothing and says which row is wrong."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from hideseek_chat.chat import sightings
from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.console.table import Table
from hideseek_chat.maps.stations import StationListError, is_station_list, read_station_list
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.maps_fakes import STILLWATER
from tests.chat.play import HIDER_SPOT, NAMES, STATION, labels, state_of


def setup_game(table: Table) -> None:
    table.send("Alice", "/newgame small metric")
    table.press("Bob", "Join the game")
    table.send("Carol", "/join")


def nearest(uow_factory: UnitOfWorkFactory, table: Table) -> str:
    """The station the game's map index finds nearest the hider's spot."""
    conversation: Conversation = table.conversation
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        index = sightings.map_index(uow, conversation.maps, loaded.id)
        assert index is not None
        return index.nearest_station(*HIDER_SPOT).item.name


def map_name(uow_factory: UnitOfWorkFactory, table: Table) -> str:
    with uow_factory() as uow:
        return uow.chats.prefs(table.group).map_name


def test_paging_searching_dropping_and_restoring(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    setup_game(table)
    table.send("Alice", "/map stations")
    first = table.said()[-1]
    assert first.text.startswith("🚉 “Stillwater, OK (OSU bus network)” has 171 stations.")
    names = labels(first)
    assert names[:8] == [s.name for s in STILLWATER.stations[:8]]
    assert names[8:] == ["1/22", "▶"]
    table.press("Alice", "▶")
    second = table.said()[-1]
    assert second.edit_of == first.id
    assert labels(second)[:8] == [s.name for s in STILLWATER.stations[8:16]]
    assert labels(second)[8:] == ["◀", "2/22", "▶"]

    table.send("Alice", f"/map stations {STATION[:7]}")
    found = table.said()[-1]
    assert "1 station matches “Gallagh”" in found.text
    assert labels(found) == [STATION]
    assert nearest(uow_factory, table) == STATION

    table.press("Alice", STATION)
    screen = table.said()[-1]
    assert screen.text.startswith(f"🚉 {STATION}\nLines:") and "In the game." in screen.text
    table.press("Alice", "Leave it out")
    assert "🚫 Left out of this game." in table.said()[-2].text
    assert f"🚫 {STATION} is left out" in table.said()[-1].text
    assert nearest(uow_factory, table) != STATION
    table.send("Alice", "/map")
    assert "Stations: 170 (1 left out)." in table.said()[-1].text
    table.send("Alice", f"/map stations {STATION}")
    assert labels(table.said()[-1]) == [f"🚫 {STATION}"]

    table.press("Alice", STATION)
    table.press("Alice", "Put it back")
    assert f"{STATION} is back in the game." in table.said()[-1].text
    assert nearest(uow_factory, table) == STATION

    table.send("Alice", "/map stations Atlantis")
    assert "No station of this map is called anything like “Atlantis”." in table.last()
    table.send("Bob", "/map stations")
    assert "admin" in table.last()


def test_a_dropped_station_is_never_the_zone(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    setup_game(table)
    table.send("Alice", f"/map stations {STATION}")
    table.press("Alice", STATION)
    table.press("Alice", "Leave it out")
    table.send("Alice", "/begin")
    hider = next(n for n in NAMES if any("You're hiding" in x.text for x in table.said(n)))
    table.pin(hider, *HIDER_SPOT, private=True)
    table.wait(timedelta(minutes=30))
    current = state_of(uow_factory, table).current_round
    assert current is not None and current.zone is not None
    assert current.zone.station_name not in (None, STATION)


def test_a_station_button_of_another_map_is_refused(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    setup_game(table)
    table.send("Alice", "/map stations")
    line = table.said()[-1]
    table.upload("Alice", "mine.csv", b"name,lat,lon\nNorth,36.13,-97.07\nSouth,36.10,-97.07\n")
    table.press("Alice", STILLWATER.stations[0].name, chat=table.group)
    assert table.lines[-1].toast == "That button no longer works."
    assert line.buttons  # a list keyboard stays: only that press was refused


CSV = b"""name,lat,lon,lines
Library Stop,36.1228,-97.0690,Orange;Blue
Student Union,36.1240,-97.0660,Orange|Gold
Student Union,36.1240,-97.0660,Orange
Boone Pickens Stadium,36.1262,-97.0665,
"""


def test_a_csv_station_list_replaces_the_stations_and_keeps_the_places(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    setup_game(table)
    table.upload("Alice", "stations.csv", CSV)
    said = table.last()
    assert said.startswith("🚉 3 stations from “stations.csv” replace the stations of")
    name = map_name(uow_factory, table)
    assert name.startswith("upload-") and "-stations@" in name
    with uow_factory() as uow:
        data = uow.maps.load(name)
    assert data is not None
    assert [(s.name, s.routes) for s in data.stations] == [
        ("Library Stop", ("Orange", "Blue")),
        ("Student Union", ("Orange", "Gold")),
        ("Boone Pickens Stadium", ()),
    ]
    assert len(data.features) == len(STILLWATER.features) and "park" in data.kinds
    assert nearest(uow_factory, table) == "Boone Pickens Stadium"


def test_a_geojson_of_points_is_a_station_list_and_a_bad_row_changes_nothing(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    setup_game(table)
    points = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {"name": "North", "routes": ["Red"]},
                "geometry": {"type": "Point", "coordinates": [-97.07, 36.13]},
            },
            {
                "type": "Feature",
                "properties": {"name": "A line"},
                "geometry": {"type": "LineString", "coordinates": [[-97, 36], [-97.1, 36.1]]},
            },
        ],
    }
    table.upload("Alice", "export.geojson", json.dumps(points).encode())
    assert "1 station from “export.geojson” replaces" in table.last()
    before = map_name(uow_factory, table)
    table.upload("Alice", "bad.csv", b"name,lat,lon\nA,36.1,-97.0\nB,136.1,-97.0\n")
    assert table.last() == (
        "I could not read “bad.csv” as a station list (row 3: the latitude or longitude is "
        "out of range). Nothing changed."
    )
    table.upload("Alice", "bad.csv", b"name,lat,lon\n,36.1,-97.0\n")
    assert "(row 2: the name is empty)" in table.last()
    table.upload("Alice", "empty.csv", b"name,lat,lon\n")
    assert "(there is no station in it)" in table.last()
    assert map_name(uow_factory, table) == before
    table.send("Alice", "/begin")
    table.upload("Alice", "late.csv", CSV)
    assert table.last() == "That can only be changed before the game begins."


# ----------------------------------------------------------------- reading the lists


def test_csv_without_header_with_semicolons_and_decimal_commas() -> None:
    rows = read_station_list("x.csv", "Nord;47,37;8,54;S2|S8\nSüd;47,36;8,53\n".encode())
    assert [(s.name, s.lat, s.lon, s.routes) for s in rows] == [
        ("Nord", 47.37, 8.54, ("S2", "S8")),
        ("Süd", 47.36, 8.53, ()),
    ]


@pytest.mark.parametrize(
    ("content", "row", "problem"),
    [
        (b"name,lat,lon\nA,nan,1\n", 2, "number"),
        (b"name,lat,lon\nA,x,1\n", 2, "number"),
        (b"name,lat,lon\nA,1,200\n", 2, "range"),
        (b"name,lat,lon\nA,1,2\nB,3\n", 3, "columns"),
        (b"name,latitude\nA,1\n", 1, "columns"),
        (b"name,lat,lon\n  ,1,2\n", 2, "name"),
        (b"\n\n", None, "empty"),
        (b"\xff\xfe\x00", None, "format"),
    ],
)
def test_a_bad_csv_says_which_row(content: bytes, row: int | None, problem: str) -> None:
    with pytest.raises(StationListError) as caught:
        read_station_list("x.csv", content)
    assert (caught.value.row, caught.value.problem) == (row, problem)
    assert caught.value.key == "map.station_list_bad"


KML = b"""<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2"><Document>
<Placemark><name>Harbour</name><Point><coordinates>151.21,-33.86,0</coordinates></Point></Placemark>
<Placemark><name>Route</name><LineString><coordinates>151,-33 152,-34</coordinates></LineString>
</Placemark>
</Document></kml>"""


def test_kml_points_and_what_counts_as_a_station_list() -> None:
    rows = read_station_list("my.kml", KML)
    assert [(s.name, s.lat, s.lon) for s in rows] == [("Harbour", -33.86, 151.21)]
    assert all(math.isfinite(s.lat) for s in rows)
    assert is_station_list("my.kml", KML)
    assert is_station_list("x.csv", b"")
    assert not is_station_list("map.kml", KML.replace(b"<LineString>", b"<Polygon>"))
    pack = (STILLWATER.name, json.dumps({"type": "FeatureCollection", "features": []}))
    assert not is_station_list("pack.geojson", pack[1].encode())
    area = {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": []}}
    point = {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2]}}
    bounded = {**area, "properties": {"kind": "boundary"}}
    both = {"type": "FeatureCollection", "features": [bounded, point]}
    assert not is_station_list("map.geojson", json.dumps(both).encode())
    # An outline drawn around the points (no kind: no map's boundary) leaves a list.
    drawn = {"type": "FeatureCollection", "features": [area, point]}
    assert is_station_list("umap.geojson", json.dumps(drawn).encode())
    assert is_station_list(
        "s.json", json.dumps({"type": "FeatureCollection", "features": [point]}).encode()
    )
    with pytest.raises(StationListError):
        read_station_list("bomb.kml", b"<!DOCTYPE kml [<!ENTITY a 'b'>]><kml/>")


def test_the_maps_cache_keeps_one_index_per_drop_set(uow_factory: UnitOfWorkFactory) -> None:
    from hideseek_chat.chat.maps import MAX_DROP_SETS, Maps

    maps = Maps()
    ids = [s.id for s in STILLWATER.stations]
    with uow_factory() as uow:
        whole = maps.index(uow, "stillwater")
        assert whole is not None and maps.index(uow, "stillwater") is whole
        without = maps.index(uow, "stillwater", frozenset(ids[:1]))
        assert without is not None and len(without.pack.stations) == len(ids) - 1
        assert not without.pack.has_station(ids[0]) and whole.pack.has_station(ids[0])
        for n in range(2, 2 + MAX_DROP_SETS):
            maps.index(uow, "stillwater", frozenset(ids[:n]))
        assert maps.index(uow, "stillwater") is whole  # the whole pack is never trimmed
        assert maps.index(uow, "stillwater", frozenset(ids[:1])) is not without  # trimmed
        maps.forget("stillwater")
        assert maps.index(uow, "stillwater") is not whole


@pytest.mark.parametrize(
    ("feature", "said"),
    [
        ({"geometry": "x"}, "“odd.geojson” replace"),  # not a point: skipped, like a line
        ({"geometry": [1, 2]}, "“odd.geojson” replace"),
        (
            {"geometry": {"type": "Point", "coordinates": [-97.07, 36.12]}, "properties": [1]},
            "Nothing changed",  # no name
        ),
        (
            {
                "geometry": {"type": "Point", "coordinates": [True, 36.12]},
                "properties": {"name": "A"},
            },
            "Nothing changed",  # not a number
        ),
    ],
)
def test_a_geojson_of_odd_shapes_is_read_or_refused_not_a_crash(
    table: Table, uow_factory: UnitOfWorkFactory, feature: dict[str, object], said: str
) -> None:
    setup_game(table)
    good = {
        "geometry": {"type": "Point", "coordinates": [-97.06, 36.13]},
        "properties": {"name": "B"},
    }
    content = json.dumps({"type": "FeatureCollection", "features": [good, feature]}).encode()
    table.upload("Alice", "odd.geojson", content)
    assert said in table.said()[-1].text


def test_points_with_the_game_area_drawn_around_them_are_a_station_list(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    """A uMap or My Maps export: the stations as points and an outline of the area (no
    ``kind``, so it can never be a map's boundary): read as a station list, not refused
    as a map "without a boundary polygon"."""
    setup_game(table)
    ring = [[-97.1, 36.1], [-97.0, 36.1], [-97.0, 36.2], [-97.1, 36.2], [-97.1, 36.1]]
    features = [
        {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [ring]}},
        *(
            {
                "type": "Feature",
                "geometry": {"type": "Point", "coordinates": [-97.05 - i / 100, 36.15]},
                "properties": {"name": name},
            }
            for i, name in enumerate(("North", "South"))
        ),
    ]
    content = json.dumps({"type": "FeatureCollection", "features": features}).encode()
    table.upload("Alice", "umap.geojson", content)
    assert "“umap.geojson” replace the stations" in table.said()[-1].text


def test_the_last_station_cannot_be_left_out(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    setup_game(table)
    table.upload("Alice", "two.csv", b"name,lat,lon\nNorth,36.13,-97.07\nSouth,36.10,-97.07\n")
    name = map_name(uow_factory, table)
    table.send("Alice", "/map stations North")
    table.press("Alice", "North")
    table.press("Alice", "Leave it out")
    table.send("Alice", "/map stations South")
    table.press("Alice", "South")
    table.press("Alice", "Leave it out")
    assert "last station in the game" in table.toasts[-1][1]
    with uow_factory() as uow:
        assert len(uow.map_jobs.dropped(table.group, name)) == 1


def test_the_maps_cache_lets_the_least_recently_used_pack_go(
    uow_factory: UnitOfWorkFactory,
) -> None:
    from hideseek_chat.chat.maps import Maps, to_data

    names = ("one", "two", "three")
    with uow_factory() as uow:
        for name in names:
            uow.maps.save(replace(to_data(STILLWATER), name=name), datetime(2026, 5, 2, tzinfo=UTC))
        uow.commit()
    maps = Maps(max_packs=2)
    with uow_factory() as uow:
        first = maps.index(uow, "one")
        second = maps.index(uow, "two")
        assert maps.index(uow, "one") is first  # used again: now the most recent
        third = maps.index(uow, "three")  # "two" is let go, not "one"
        assert maps.index(uow, "one") is first and maps.index(uow, "three") is third
        again = maps.index(uow, "two")
        assert again is not None and again is not second


def test_a_list_of_one_station_is_counted_in_the_singular(table: Table) -> None:
    setup_game(table)
    table.upload("Alice", "one.csv", b"name,lat,lon\nNorth,36.13,-97.07\n")
    assert table.last().startswith("🚉 1 station from “one.csv” replaces the stations of")
