"""A small OpenStreetMap extract written with osmium's own writer, for the extract tests.

Around a square country "Testland" (34.9..35.1 N, 138.9..139.1 E): a station "Alpha" with a
platform and a stop position in a stop area, a station "Beta", a disused station "Gamma", a
train route through them, a museum, a park as a multipolygon of one untagged way, a park as
a closed way, a named street, a building nobody wants, and a cafe far outside the country.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import osmium
from osmium.osm.mutable import Node, Relation, Way

#: Keys the placeholder predicate keeps (the real one is ``maps.tags``).
KEYS = ("railway", "public_transport", "amenity", "leisure", "tourism", "boundary", "route")


def keep(tags: Mapping[str, str]) -> bool:
    """Keep transit, POIs, boundaries, bus stops, named streets and lifecycle stations."""
    return (
        any(key in tags for key in KEYS)
        or tags.get("highway") == "bus_stop"
        or ("highway" in tags and "name" in tags)
        or "disused:railway" in tags
    )


NODES: dict[int, tuple[float, float, dict[str, str]]] = {  # id: (lat, lon, tags)
    1: (35.0, 139.0, {"railway": "station", "public_transport": "station", "name": "Alpha"}),
    2: (
        35.0002,
        139.0001,
        {"public_transport": "platform", "railway": "platform", "name": "Alpha"},
    ),
    3: (35.0001, 139.0002, {"public_transport": "stop_position", "train": "yes", "name": "Alpha"}),
    4: (35.01, 139.01, {"railway": "station", "name": "Beta"}),
    5: (35.02, 139.02, {"disused:railway": "station", "name": "Gamma"}),
    6: (40.0, 145.0, {"amenity": "cafe", "name": "Far Away"}),
    7: (35.03, 139.03, {}),
    8: (35.005, 139.005, {"tourism": "museum", "name": "Museum of Tests"}),
    # the big park's ring
    10: (35.04, 139.04, {}),
    11: (35.04, 139.05, {}),
    12: (35.05, 139.05, {}),
    13: (35.05, 139.04, {}),
    # Main Street
    20: (35.001, 139.0, {}),
    21: (35.001, 139.001, {}),
    22: (35.002, 139.002, {}),
    # the country's corners
    30: (34.9, 138.9, {}),
    31: (34.9, 139.1, {}),
    32: (35.1, 139.1, {}),
    33: (35.1, 138.9, {}),
    # the railway between Alpha and Beta
    40: (35.0001, 139.0002, {}),
    41: (35.01, 139.01, {}),
    # a building
    50: (35.06, 139.06, {}),
    51: (35.06, 139.061, {}),
    52: (35.061, 139.061, {}),
    # the small park
    60: (35.07, 139.07, {}),
    61: (35.07, 139.071, {}),
    62: (35.071, 139.071, {}),
}

WAYS: dict[int, tuple[list[int], dict[str, str]]] = {
    100: ([20, 21, 22], {"highway": "residential", "name": "Main Street"}),
    101: ([10, 11, 12, 13, 10], {}),
    102: ([40, 41], {"railway": "rail", "name": "Red Line track"}),
    103: ([30, 31, 32], {}),
    104: ([30, 33, 32], {}),  # the other half, drawn the other way round
    105: ([50, 51, 52, 50], {"building": "yes"}),
    106: ([60, 61, 62, 60], {"leisure": "park", "name": "Small Park"}),
}

RELATIONS: dict[int, tuple[list[tuple[str, int, str]], dict[str, str]]] = {
    200: (
        [("n", 1, ""), ("n", 2, "platform"), ("n", 3, "stop")],
        {"type": "public_transport", "public_transport": "stop_area", "name": "Alpha"},
    ),
    201: (
        [("n", 3, "stop"), ("w", 102, ""), ("n", 4, "stop"), ("r", 200, "")],
        {"type": "route", "route": "train", "name": "Red Line"},
    ),
    202: ([("w", 101, "outer")], {"type": "multipolygon", "leisure": "park", "name": "Big Park"}),
    203: (
        [("w", 103, "outer"), ("w", 104, "outer")],
        {
            "type": "boundary",
            "boundary": "administrative",
            "admin_level": "2",
            "name": "Testland",
            "name:ja": "テストランド",
        },
    ),
    204: (
        [("w", 101, "outer")],
        {"type": "boundary", "boundary": "administrative", "admin_level": "6", "name": "Testland"},
    ),
}


def write_extract(path: Path, *, node_order: list[int] | None = None) -> Path:
    """Write the extract to ``path`` (format from the suffix); nodes in ``node_order``."""
    with osmium.SimpleWriter(str(path)) as writer:
        for node_id in node_order or sorted(NODES):
            lat, lon, tags = NODES[node_id]
            writer.add_node(Node(id=node_id, location=(lon, lat), tags=tags))
        for way_id, (nodes, tags) in sorted(WAYS.items()):
            writer.add_way(Way(id=way_id, nodes=nodes, tags=tags))
        for relation_id, (members, tags) in sorted(RELATIONS.items()):
            writer.add_relation(Relation(id=relation_id, members=members, tags=tags))
    return path
