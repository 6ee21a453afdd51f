"""Overpass JSON elements for Stillwater, built from the shipped (OSM-derived) pack.

What an Overpass server would print for the town, as faithfully as the pack allows:

- each of the pack's 171 bus stops is a ``highway=bus_stop`` + ``public_transport=platform``
  node; every third one also has a ``stop_position`` node 20 m away (unnamed or named
  alike) and a ``stop_area`` relation holding both;
- one ``route=bus`` relation per line, its members the platforms (or, for stops with a
  stop position, the stop position only, as route relations often do);
- a disused station, a proposed station and a disused bus stop, which must not appear;
- parks, schools and restaurants as nodes (one park as a closed way around its point);
- named streets as ways; the four quadrants as ``boundary=administrative`` relations at
  the US admin-4 level (10), each outline split into two member ways.
"""

from __future__ import annotations

import math
from typing import Any

from shapely.geometry import LineString, Polygon

from hideseek_chat.geo import MapPack, load_map_pack

Element = dict[str, Any]


def shipped() -> MapPack:
    return load_map_pack("stillwater")


def offset(lat: float, lon: float, east_m: float, north_m: float = 0.0) -> tuple[float, float]:
    """Return the point ``east_m``/``north_m`` metres away (flat earth, fine for 20 m)."""
    return (
        lat + north_m / 110_574.0,
        lon + east_m / (111_320.0 * math.cos(math.radians(lat))),
    )


def node(node_id: int, lat: float, lon: float, **tags: str) -> Element:
    return {"type": "node", "id": node_id, "lat": lat, "lon": lon, "tags": dict(tags)}


def way(way_id: int, coords: list[tuple[float, float]], **tags: str) -> Element:
    geometry = [{"lat": lat, "lon": lon} for lon, lat in coords]
    return {"type": "way", "id": way_id, "tags": dict(tags), "geometry": geometry}


def member(
    kind: str,
    ref: int,
    role: str = "",
    coords: list[tuple[float, float]] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"type": kind, "ref": ref, "role": role}
    if coords is not None:
        out["geometry"] = [{"lat": lat, "lon": lon} for lon, lat in coords]
    return out


def relation(rel_id: int, members: list[dict[str, Any]], **tags: str) -> Element:
    return {"type": "relation", "id": rel_id, "tags": dict(tags), "members": members}


def station_elements(pack: MapPack) -> list[Element]:
    """Return the station query's answer: stops, stop areas, routes and lifecycle stops."""
    elements: list[Element] = []
    route_members: dict[str, list[dict[str, Any]]] = {}
    for i, station in enumerate(pack.stations):
        platform = 10_000 + i
        elements.append(
            node(
                platform,
                station.lat,
                station.lon,
                highway="bus_stop",
                public_transport="platform",
                bus="yes",
                name=station.name,
            )
        )
        served_by = member("node", platform, "platform")
        if i % 3 == 0:
            stop = 20_000 + i
            lat, lon = offset(station.lat, station.lon, 20.0)
            named = {"name": station.name} if i % 2 else {}
            elements.append(
                node(stop, lat, lon, public_transport="stop_position", bus="yes", **named)
            )
            elements.append(
                relation(
                    30_000 + i,
                    [member("node", platform, "platform"), member("node", stop, "stop")],
                    type="public_transport",
                    public_transport="stop_area",
                    name=station.name,
                )
            )
            served_by = member("node", stop, "stop")
        for route in station.routes:
            route_members.setdefault(route, []).append(served_by)
    for k, (route, members) in enumerate(sorted(route_members.items())):
        elements.append(
            relation(
                40_000 + k,
                members,
                type="route",
                route="bus",
                name=route,
                network="OSU Cowboy Transit",
            )
        )
    first = pack.stations[0]
    lat, lon = offset(first.lat, first.lon, 400.0, 300.0)
    elements += [
        node(50_001, lat, lon, **{"disused:railway": "station", "name": "Santa Fe Depot"}),
        node(
            50_002,
            *offset(lat, lon, 300.0),
            railway="proposed",
            **{"proposed:railway": "station", "name": "Stillwater Commuter"},
        ),
        node(
            50_003,
            *offset(lat, lon, 0.0, 300.0),
            highway="bus_stop",
            disused="yes",
            name="Old Campus Loop",
        ),
    ]
    return elements


def _square(lat: float, lon: float, half_m: float) -> list[tuple[float, float]]:
    corners = [
        (-half_m, -half_m),
        (half_m, -half_m),
        (half_m, half_m),
        (-half_m, half_m),
        (-half_m, -half_m),
    ]
    out = []
    for east, north in corners:
        a, b = offset(lat, lon, east, north)
        out.append((b, a))
    return out


def feature_elements(pack: MapPack) -> dict[str, list[Element]]:
    """Return each kind query's answer, keyed by kind."""
    by_kind: dict[str, list[Element]] = {}
    next_id = 60_000
    tag_of = {
        "park": ("leisure", "park"),
        "school": ("amenity", "school"),
        "restaurant": ("amenity", "restaurant"),
    }
    for kind, (key, value) in tag_of.items():
        items = by_kind.setdefault(kind, [])
        for j, feature in enumerate(pack.features_of(kind)):
            next_id += 1
            tags = {key: value, **({"name": feature.name} if feature.name else {})}
            point = feature.geometry
            if kind == "park" and j == 0:
                items.append(way(next_id, _square(point.y, point.x, 15.0), **tags))
            else:
                items.append(node(next_id, point.y, point.x, **tags))
    roads = by_kind.setdefault("road", [])
    for feature in pack.features_of("road"):
        next_id += 1
        assert isinstance(feature.geometry, LineString)
        roads.append(
            way(next_id, list(feature.geometry.coords), highway="residential", name=feature.name)
        )
    quadrants = by_kind.setdefault("admin-4", [])
    for feature in pack.features_of("admin-4"):
        assert isinstance(feature.geometry, Polygon)
        ring = list(feature.geometry.exterior.coords)
        half = len(ring) // 2
        members = [
            member("way", next_id + 1, "outer", ring[: half + 1]),
            member("way", next_id + 2, "outer", ring[half:]),
        ]
        next_id += 3
        quadrants.append(
            relation(
                next_id,
                members,
                type="boundary",
                boundary="administrative",
                admin_level="10",
                name=feature.name,
            )
        )
    return by_kind


def stillwater_overpass() -> dict[str, list[Element]]:
    """Return every query's answer for Stillwater, the stations under "station"."""
    pack = shipped()
    return {"station": station_elements(pack), **feature_elements(pack)}


def nominatim_row(
    osm_type: str,
    osm_id: int,
    name: str,
    lat: float,
    lon: float,
    *,
    addresstype: str = "city",
    country: str = "United States",
    country_code: str = "us",
    geojson: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Return one Nominatim ``/search`` result (format json, addressdetails, geojson)."""
    return {
        "place_id": osm_id + 1,
        "licence": "Data © OpenStreetMap contributors, ODbL 1.0.",
        "osm_type": osm_type,
        "osm_id": osm_id,
        "lat": str(lat),
        "lon": str(lon),
        "class": "boundary",
        "type": "administrative",
        "addresstype": addresstype,
        "name": name,
        "display_name": f"{name}, {country}",
        "address": {addresstype: name, "country": country, "country_code": country_code},
        "boundingbox": [str(lat - 0.1), str(lat + 0.1), str(lon - 0.1), str(lon + 0.1)],
        "geojson": geojson or {"type": "Point", "coordinates": [lon, lat]},
    }
