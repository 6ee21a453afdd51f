"""Reading an OpenStreetMap extract into Overpass-shaped elements (maps/pbf.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import osmium
import pytest
from osmium.osm.mutable import Node, Relation, Way

from hideseek_chat.geo import MapPack
from hideseek_chat.maps.errors import MapFetchError
from hideseek_chat.maps.pbf import (
    STAGES,
    boundary_from_geojson_file,
    boundary_from_pbf,
    build_from_pbf,
    not_routes,
    read_boundary,
    read_elements,
    relation_area,
)
from tests.maps.osm_extract import NODES, keep, write_extract


@pytest.fixture
def extract(tmp_path: Path) -> Path:
    return write_extract(tmp_path / "testland.osm.pbf")


def _by_id(elements: list[dict[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    return {(e["type"], e["id"]): e for e in elements}


def test_kept_objects_come_in_overpass_shape_nodes_then_ways_then_relations(extract: Path) -> None:
    elements = list(read_elements(extract, keep))
    types = [e["type"] for e in elements]
    assert types == sorted(types, key=["node", "way", "relation"].index)
    found = _by_id(elements)
    assert set(found) == {
        *(("node", i) for i in (1, 2, 3, 4, 5, 6, 8)),
        *(("way", i) for i in (100, 102, 106)),
        *(("relation", i) for i in (200, 201, 202, 203, 204)),
    }
    assert found["node", 1] == {
        "type": "node",
        "id": 1,
        "lat": 35.0,
        "lon": 139.0,
        "tags": {"railway": "station", "public_transport": "station", "name": "Alpha"},
    }
    street = found["way", 100]
    assert set(street) == {"type", "id", "tags", "bounds", "geometry"}
    assert street["geometry"] == [{"lat": NODES[i][0], "lon": NODES[i][1]} for i in (20, 21, 22)]
    assert street["bounds"] == {
        "minlat": 35.001,
        "minlon": 139.0,
        "maxlat": 35.002,
        "maxlon": 139.002,
    }


def test_the_predicate_decides_and_lifecycle_objects_are_left_to_the_builder(extract: Path) -> None:
    found = _by_id(list(read_elements(extract, keep)))
    assert ("node", 7) not in found  # untagged
    assert ("way", 105) not in found  # a building: not kept
    assert ("way", 101) not in found  # untagged, only a member
    assert found["node", 5]["tags"] == {"disused:railway": "station", "name": "Gamma"}
    only_stations = _by_id(list(read_elements(extract, lambda t: t.get("railway") == "station")))
    assert set(only_stations) == {("node", 1), ("node", 4)}


def test_relation_members_carry_their_geometry(extract: Path) -> None:
    found = _by_id(list(read_elements(extract, keep)))
    stop_area = found["relation", 200]
    assert stop_area["tags"]["public_transport"] == "stop_area"
    assert stop_area["members"] == [
        {"type": "node", "ref": 1, "role": "", "lat": 35.0, "lon": 139.0},
        {"type": "node", "ref": 2, "role": "platform", "lat": 35.0002, "lon": 139.0001},
        {"type": "node", "ref": 3, "role": "stop", "lat": 35.0001, "lon": 139.0002},
    ]
    route = found["relation", 201]
    assert [(m["type"], m["ref"], m["role"]) for m in route["members"]] == [
        ("node", 3, "stop"),
        ("way", 102, ""),
        ("node", 4, "stop"),
        ("relation", 200, ""),
    ]
    assert route["members"][1]["geometry"] == [
        {"lat": 35.0001, "lon": 139.0002},
        {"lat": 35.01, "lon": 139.01},
    ]
    assert set(route["members"][3]) == {"type", "ref", "role"}
    park = found["relation", 202]
    assert [(p["lat"], p["lon"]) for p in park["members"][0]["geometry"]] == [
        NODES[i][:2] for i in (10, 11, 12, 13, 10)
    ]
    area = relation_area(park)
    assert area.geom_type == "Polygon"
    assert area.bounds == pytest.approx((139.04, 35.04, 139.05, 35.05))


def test_bbox_keeps_what_meets_it(extract: Path) -> None:
    country = _by_id(list(read_elements(extract, keep, bbox=(34.9, 138.9, 35.1, 139.1))))
    assert ("node", 6) not in country
    assert ("relation", 203) in country
    around_beta = _by_id(
        list(read_elements(extract, keep, bbox=(35.009, 139.009, 35.011, 139.011)))
    )
    # Beta, the track and the route reach it, and so does the country around it.
    assert set(around_beta) == {("node", 4), ("way", 102), ("relation", 201), ("relation", 203)}


def test_an_unsorted_xml_file_reads_the_same(tmp_path: Path, extract: Path) -> None:
    unsorted = write_extract(tmp_path / "testland.osm", node_order=sorted(NODES, reverse=True))
    assert _by_id(list(read_elements(unsorted, keep))) == _by_id(list(read_elements(extract, keep)))


def test_progress_is_reported_stage_by_stage(extract: Path) -> None:
    heard: list[tuple[str, int]] = []
    list(read_elements(extract, keep, progress=lambda stage, count: heard.append((stage, count))))
    assert list(dict.fromkeys(stage for stage, _ in heard)) == list(STAGES)
    assert dict(heard)["relations"] == 5


def test_a_boundary_is_found_by_any_of_its_names(extract: Path) -> None:
    area = boundary_from_pbf(extract, "testland")  # admin_level 2 beats the level-6 namesake
    assert area.geom_type == "Polygon"
    assert area.bounds == pytest.approx((138.9, 34.9, 139.1, 35.1))
    assert boundary_from_pbf(extract, "テストランド").equals(area)
    assert read_boundary(extract, "Testland").equals(area)
    with pytest.raises(MapFetchError) as caught:
        boundary_from_pbf(extract, "Atlantis")
    assert caught.value.key == "map.boundary_not_found"
    assert caught.value.params["name"] == "Atlantis"


def test_a_boundary_is_read_from_a_geojson_file(tmp_path: Path) -> None:
    square = {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]}
    other = {"type": "Polygon", "coordinates": [[[2, 2], [3, 2], [3, 3], [2, 3], [2, 2]]]}
    feature = tmp_path / "one.geojson"
    feature.write_text(json.dumps({"type": "Feature", "properties": {}, "geometry": square}))
    assert boundary_from_geojson_file(feature).area == pytest.approx(1.0)
    collection = tmp_path / "two.geojson"
    collection.write_text(
        json.dumps(
            {
                "type": "FeatureCollection",
                "features": [
                    {"type": "Feature", "properties": {}, "geometry": square},
                    {"type": "Feature", "properties": {}, "geometry": other},
                    {
                        "type": "Feature",
                        "properties": {},
                        "geometry": {"type": "Point", "coordinates": [5, 5]},
                    },
                ],
            }
        )
    )
    assert boundary_from_geojson_file(collection).geom_type == "MultiPolygon"
    assert read_boundary(tmp_path / "nowhere.osm.pbf", str(collection)).area == pytest.approx(2.0)
    points = tmp_path / "points.geojson"
    points.write_text(json.dumps({"type": "Point", "coordinates": [5, 5]}))
    broken = tmp_path / "broken.geojson"
    broken.write_text("{")
    for path in (points, broken):
        with pytest.raises(MapFetchError) as caught:
            boundary_from_geojson_file(path)
        assert caught.value.key == "map.boundary_bad"


def test_a_missing_or_broken_file_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(MapFetchError) as caught:
        read_elements(tmp_path / "nope.osm.pbf", keep)
    assert caught.value.key == "map.file_missing"
    garbage = tmp_path / "garbage.osm.pbf"
    garbage.write_bytes(b"\x00\x00\x00\x0dnot a pbf at all" * 10)
    with pytest.raises(MapFetchError) as caught:
        list(read_elements(garbage, keep))
    assert caught.value.key == "map.file_unreadable"


def test_build_from_pbf_hands_the_elements_in_the_boundary_box_to_the_builder(
    extract: Path,
) -> None:
    seen: dict[str, Any] = {}
    boundary = boundary_from_pbf(extract, "Testland")

    def build(elements: Any, **kwargs: Any) -> MapPack:
        seen["elements"] = _by_id(list(elements))
        seen.update(kwargs)
        return MapPack(name=kwargs["name"], boundary=kwargs["boundary"], stations=())

    pack = build_from_pbf(
        extract, boundary, name="testland", title="Testland", modes=["rail"], keep=keep, build=build
    )
    assert pack.name == "testland"
    assert seen["modes"] == ("rail",) and seen["title"] == "Testland"
    assert seen["boundary"] is boundary
    assert ("node", 6) not in seen["elements"] and ("node", 1) in seen["elements"]


def test_relation_area_joins_rings_and_puts_holes_in_them() -> None:
    def way(*points: tuple[float, float], role: str = "outer") -> dict[str, Any]:
        geometry = [{"lat": lat, "lon": lon} for lat, lon in points]
        return {"type": "way", "ref": 1, "role": role, "geometry": geometry}

    relation = {
        "type": "relation",
        "id": 1,
        "tags": {"type": "multipolygon"},
        "members": [
            way((0, 0), (0, 4)),
            way((4, 4), (0, 4)),  # drawn backwards
            way((4, 4), (4, 0), (0, 0)),
            way((1, 1), (1, 2), (2, 2), (2, 1), (1, 1), role="inner"),
            way((10, 10), (10, 11), (11, 11), (10, 10), role=""),  # an island
            way((20, 20), (20, 21)),  # never closes: left out
            {"type": "node", "ref": 5, "role": "label", "lat": 2.0, "lon": 2.0},
        ],
    }
    area = relation_area(relation)
    assert area.geom_type == "MultiPolygon"
    assert area.area == pytest.approx(16 - 1 + 0.5)
    assert relation_area({"members": [way((20, 20), (20, 21))]}) is None


def test_a_boundary_cut_by_the_extract_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "cut.osm.pbf"
    with osmium.SimpleWriter(str(path)) as writer:
        writer.add_node(Node(id=1, location=(139.0, 35.0)))
        writer.add_node(Node(id=2, location=(139.1, 35.0)))
        writer.add_way(Way(id=1, nodes=[1, 2]))
        tags = {"type": "boundary", "boundary": "administrative", "name": "Cutland"}
        writer.add_relation(
            Relation(id=1, members=[("w", 1, "outer"), ("w", 2, "outer")], tags=tags)
        )
    with pytest.raises(MapFetchError) as caught:
        boundary_from_pbf(path, "Cutland")
    assert caught.value.key == "map.boundary_open"


def test_route_members_can_go_without_way_geometry(extract: Path) -> None:
    found = _by_id(list(read_elements(extract, keep, member_geometry=not_routes)))
    route = found["relation", 201]
    assert route["members"][0] == {
        "type": "node",
        "ref": 3,
        "role": "stop",
        "lat": 35.0001,
        "lon": 139.0002,
    }
    assert route["members"][1] == {"type": "way", "ref": 102, "role": ""}
    assert "geometry" in found["relation", 202]["members"][0]  # the park keeps its ring
    assert found["way", 102]["geometry"]  # the track itself is still kept
