"""Building a pack from Overpass-shaped elements: station grouping, lines, features."""

from __future__ import annotations

from shapely.geometry import LineString, MultiPolygon, Polygon, box

from hideseek_chat.maps.build import (
    OSM_ATTRIBUTION,
    build_features,
    build_pack,
    build_stations,
    element_geometry,
)
from tests.maps.osm_data import member, node, offset, relation, way

LAT, LON = 47.3769, 8.5417  # Zürich
AREA = box(LON - 0.05, LAT - 0.05, LON + 0.05, LAT + 0.05)


def at(east_m: float, north_m: float = 0.0) -> tuple[float, float]:
    return offset(LAT, LON, east_m, north_m)


def test_members_of_one_stop_area_are_one_station_named_after_it():
    elements = [
        node(1, *at(0), public_transport="platform", tram="yes", name="Central, Gleis 1"),
        node(2, *at(25), public_transport="platform", tram="yes", name="Central, Gleis 2"),
        node(3, *at(12), public_transport="stop_position", tram="yes"),
        relation(
            9,
            [
                member("node", 1, "platform"),
                member("node", 2, "platform"),
                member("node", 3, "stop"),
            ],
            type="public_transport",
            public_transport="stop_area",
            name="Central",
        ),
    ]
    [station] = build_stations(elements, AREA, {"tram"})
    assert (station.id, station.name) == ("r9", "Central")
    lat, lon = at(12.5)  # between the platforms, where people wait
    assert abs(station.lat - lat) < 1e-6 and abs(station.lon - lon) < 1e-6


def test_the_same_name_within_100_m_is_one_station_but_not_300_m_apart():
    elements = [
        node(1, *at(0), highway="bus_stop", name="Bellevue"),
        node(2, *at(60, 30), highway="bus_stop", name="  bellevue "),
        node(3, *at(400), highway="bus_stop", name="Bellevue"),
        node(4, *at(700), highway="bus_stop", name="Bellevue"),
    ]
    stations = build_stations(elements, AREA, {"bus"})
    assert sorted(s.id for s in stations) == ["n1", "n3", "n4"]


def test_a_station_object_gives_the_name_place_and_id():
    elements = [
        node(5, *at(0), railway="station", public_transport="station", name="Zürich HB"),
        node(
            6,
            *at(80),
            railway="platform",
            public_transport="platform",
            train="yes",
            name="Zürich HB",
        ),
    ]
    [station] = build_stations(elements, AREA, {"rail"})
    assert (station.id, station.name, station.lat) == ("n5", "Zürich HB", at(0)[0])


def test_lines_come_from_route_relations_of_the_chosen_modes():
    elements = [
        node(1, *at(0), public_transport="platform", bus="yes", tram="yes", name="Paradeplatz"),
        node(2, *at(10), public_transport="stop_position", tram="yes"),
        relation(
            3,
            [member("node", 1), member("node", 2)],
            type="public_transport",
            public_transport="stop_area",
            name="Paradeplatz",
        ),
        relation(
            10,
            [member("node", 2, "stop")],
            type="route",
            route="tram",
            ref="8",
            name="Tram 8: Hardturm => Klusplatz",
        ),
        relation(11, [member("node", 1, "platform")], type="route", route="tram", ref="2"),
        relation(12, [member("node", 1, "platform")], type="route", route="bus", name="Night"),
        relation(
            13,
            [member("node", 1, "platform")],
            type="route",
            route="bus",
            name="Gone",
            **{"disused:route": "bus"},
        ),
    ]
    [tram] = build_stations(elements, AREA, {"tram"})
    assert tram.routes == ("2", "8")
    [both] = build_stations(elements, AREA, {"tram", "bus"})
    assert both.routes == ("2", "8", "Night")


def test_lifecycle_unnamed_outside_and_other_mode_stops_are_left_out():
    elements = [
        node(1, *at(0), highway="bus_stop", name="Kept"),
        node(2, *at(500), **{"disused:railway": "station", "name": "Old"}),
        node(3, *at(900), railway="proposed", name="Planned", **{"proposed:railway": "station"}),
        node(4, *at(1300), highway="bus_stop"),  # unnamed: a player cannot name it
        node(5, LAT + 1.0, LON, highway="bus_stop", name="Far away"),
        node(6, *at(1700), railway="tram_stop", name="Tram only"),
    ]
    stations = build_stations(elements, AREA, {"bus", "rail"})
    assert [s.name for s in stations] == ["Kept"]


def test_a_multipolygon_is_assembled_from_its_member_ways_with_holes():
    outer = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (0.0, 0.0)]
    inner = [(0.4, 0.4), (0.6, 0.4), (0.6, 0.6), (0.4, 0.6), (0.4, 0.4)]
    rel = relation(
        1,
        [
            member("way", 1, "outer", outer[:3]),
            member("way", 2, "outer", outer[2:]),
            member("way", 3, "inner", inner),
            member("node", 4, "admin_centre"),
        ],
        type="multipolygon",
        leisure="park",
        name="Big Park",
    )
    shape = element_geometry(rel, "area")
    assert isinstance(shape, Polygon) and len(shape.interiors) == 1
    assert abs(shape.area - 0.96) < 1e-9


def test_closed_ways_are_areas_except_for_line_kinds():
    ring = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 0.0)]
    assert isinstance(element_geometry(way(1, ring), "area"), Polygon)
    assert isinstance(element_geometry(way(1, ring), "line"), LineString)


def test_features_are_checked_clipped_and_only_covered_kinds_count():
    west, _, east, north = AREA.bounds
    road = way(1, [(west - 0.1, LAT), (east + 0.1, LAT)], highway="primary", name="Long St")
    by_kind = {
        "road": [road],
        "airport": [node(2, LAT, LON, aeroway="aerodrome", name="No code")],
        "park": [
            node(3, LAT, LON, leisure="park", name="In"),
            node(4, north + 1, LON, leisure="park", name="Out"),
            node(5, LAT, LON, leisure="park", name="Gone", **{"disused:leisure": "park"}),
        ],
        "museum": [node(6, LAT, LON, tourism="museum", name="Not covered")],
    }
    features = build_features(by_kind, AREA, covered={"road", "airport", "park"})
    assert sorted((f.kind, f.name) for f in features) == [("park", "In"), ("road", "Long St")]
    [street] = [f for f in features if f.kind == "road"]
    assert abs(street.geometry.length - (east - west)) < 1e-9  # clipped to the boundary


def test_a_division_straddling_the_boundary_is_clipped_to_it():
    big = [
        (LON - 1, LAT - 1),
        (LON + 1, LAT - 1),
        (LON + 1, LAT + 1),
        (LON - 1, LAT + 1),
        (LON - 1, LAT - 1),
    ]
    canton = relation(
        1,
        [member("way", 7, "outer", big)],
        type="boundary",
        boundary="administrative",
        admin_level="4",
        name="Zürich",
    )
    features = build_features(
        {"admin-1": [canton]},
        AREA,
        covered={"admin-1"},
        levels={"admin-1": 4, "admin-2": 6, "admin-3": 8, "admin-4": 10},
    )
    [division] = features
    assert isinstance(division.geometry, Polygon | MultiPolygon)
    assert abs(division.geometry.area - AREA.area) < 1e-12


def test_build_pack_lists_covered_kinds_even_without_features():
    stations = [node(1, LAT, LON, highway="bus_stop", name="Only")]
    pack = build_pack(
        {"zoo": []},
        stations,
        AREA,
        name="osm-test",
        title="Test",
        modes={"bus"},
        covered={"zoo", "park"},
    )
    assert pack.attribution == OSM_ATTRIBUTION == "© OpenStreetMap contributors, ODbL 1.0"
    assert pack.has_data_for("zoo") and pack.has_data_for("park")
    assert not pack.has_data_for("museum")
    assert [s.name for s in pack.stations] == ["Only"]
