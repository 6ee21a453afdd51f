"""Build a ``geo.MapPack`` from OpenStreetMap elements in Overpass JSON's shape.

The input is what Overpass prints with ``out geom`` / ``out center`` / ``out body``,
element by element (an extract reader yields dicts of the same shape):

- node: ``{"type": "node", "id", "lat", "lon", "tags"}``;
- way: ``{"type": "way", "id", "tags", "geometry": [{"lat", "lon"}, ...]}`` (or ``center``);
- relation: ``{"type": "relation", "id", "tags", "members": [{"type", "ref", "role",
  "geometry" | "lat"/"lon"}]}`` (members' geometry only where the kind needs a shape).

Entry point::

    build_pack(elements_by_kind, stations, boundary, *, name, title, modes, covered,
               attribution=OSM_ATTRIBUTION, levels=None) -> MapPack

``elements_by_kind`` maps a feature kind (``tags.SPECS`` / ``tags.specs_for(levels)``) to
the elements its query returned; each element is checked against the kind's tag predicate
(lifecycle objects and IATA-less airports fall out). Only kinds in ``covered`` are built
and listed in ``pack.kinds``: a covered kind without features is a real "none there".
Features are clipped to ``boundary``.

``stations`` holds the stop candidates plus the ``stop_area`` and route relations (``out
body``: members without geometry). :func:`build_stations` keeps the candidates of
``modes`` inside the boundary, joins the members of one stop area, then the same name
within :data:`SAME_NAME_M` metres, names the station after its stop area or station
object, gives it a stable id ("r123" for a stop area, else its station object's or its
lowest member's "n"/"w" id), and the names (``ref``, else ``name``) of the route relations
of ``modes`` that stop at any of its members. Unnamed stations are left out: a player
cannot say or ask about them.
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, MultiLineString, MultiPolygon, Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import polygonize, unary_union

from hideseek_chat.geo.mappack import Feature, MapPack, Station
from hideseek_chat.maps import tags as osm

OSM_ATTRIBUTION = "© OpenStreetMap contributors, ODbL 1.0"

#: Stops with the same name closer than this are one station (opposite platforms).
SAME_NAME_M = 100.0

Element = Mapping[str, Any]
_PREFIX = {"node": "n", "way": "w", "relation": "r"}


def element_key(element: Element) -> str:
    """Return an element's stable id: "n123", "w5", "r9"."""
    return f"{_PREFIX.get(str(element.get('type')), '?')}{element.get('id')}"


def _tags(element: Element) -> Mapping[str, str]:
    tags = element.get("tags")
    return tags if isinstance(tags, Mapping) else {}


# ---------------------------------------------------------------------------- geometry


def _coords(points: Any) -> list[tuple[float, float]]:
    if not isinstance(points, list):
        return []
    return [
        (float(p["lon"]), float(p["lat"]))
        for p in points
        if isinstance(p, Mapping) and p.get("lat") is not None and p.get("lon") is not None
    ]


def _point(element: Element) -> Point | None:
    if element.get("lat") is not None and element.get("lon") is not None:
        return Point(float(element["lon"]), float(element["lat"]))
    center = element.get("center")
    if isinstance(center, Mapping) and center.get("lat") is not None:
        return Point(float(center["lon"]), float(center["lat"]))
    coords = _coords(element.get("geometry"))
    if coords:
        return Point(np.mean(np.array(coords), axis=0))
    return None


def _way_shape(coords: list[tuple[float, float]], shape: str) -> BaseGeometry | None:
    if len(coords) < 2:
        return Point(coords[0]) if coords else None
    closed = len(coords) >= 4 and coords[0] == coords[-1]
    if closed and shape not in ("line", "border"):
        polygon = Polygon(coords)
        return polygon if polygon.is_valid else shapely.make_valid(polygon)
    return LineString(coords)


def _member_lines(element: Element, roles: Collection[str] | None = None) -> list[LineString]:
    lines = []
    for member in element.get("members") or ():
        if member.get("type") != "way" or (roles is not None and member.get("role") not in roles):
            continue
        coords = _coords(member.get("geometry"))
        if len(coords) >= 2:
            lines.append(LineString(coords))
    return lines


def _rings(lines: list[LineString]) -> BaseGeometry:
    faces = list(polygonize(lines))
    if not faces and lines:
        faces = list(polygonize(unary_union(lines)))  # node ways that cross mid-way
    return unary_union(faces) if faces else Polygon()


def relation_area(element: Element) -> BaseGeometry | None:
    """Return the area of a multipolygon or boundary relation from its member ways' geometry:
    outer rings (role ``outer`` or empty) less inner ones; None when no outer ring closes."""
    outer = _rings(_member_lines(element, ("outer", "")))
    if outer.is_empty:
        return None
    inner = _rings(_member_lines(element, ("inner",)))
    area = outer.difference(inner) if not inner.is_empty else outer
    return area if area.is_valid else shapely.make_valid(area)


_ROUTE_SKIP_ROLES = (
    "stop",
    "platform",
    "stop_entry_only",
    "stop_exit_only",
    "platform_entry_only",
    "platform_exit_only",
)


def element_geometry(element: Element, shape: str = "point") -> BaseGeometry | None:
    """Return the element's geometry for a kind drawn as ``shape`` (see ``tags.KindSpec``)."""
    kind = element.get("type")
    if kind == "node":
        return _point(element)
    if kind == "way":
        coords = _coords(element.get("geometry"))
        return _way_shape(coords, shape) if coords else _point(element)
    if kind != "relation":
        return None
    if shape in ("line", "border"):
        lines = [
            line
            for line, member in _member_ways(element)
            if shape == "border" or member.get("role") not in _ROUTE_SKIP_ROLES
        ]
        return MultiLineString(lines) if lines else None
    return relation_area(element) or _point(element)


def _member_ways(element: Element) -> Iterable[tuple[LineString, Mapping[str, Any]]]:
    for member in element.get("members") or ():
        coords = _coords(member.get("geometry"))
        if member.get("type") == "way" and len(coords) >= 2:
            yield LineString(coords), member


# ---------------------------------------------------------------------------- features


def _clip(rows: list[tuple[str, str, BaseGeometry]], boundary: BaseGeometry) -> list[Feature]:
    if not rows:
        return []
    geoms = np.array([g for _, _, g in rows], dtype=object)
    # The prepared boundary speeds a predicate up only as its first argument.
    shapely.prepare(boundary)
    inside = shapely.contains(boundary, geoms)
    crossing = ~inside & shapely.intersects(boundary, geoms)
    clipped = np.empty(len(rows), dtype=object)
    clipped[inside] = geoms[inside]
    if crossing.any():
        clipped[crossing] = shapely.intersection(geoms[crossing], boundary)
    out = []
    for (kind, name, geom), cut, keep in zip(rows, clipped, inside | crossing, strict=True):
        if not keep:
            continue
        if cut is not geom:
            cut = _same_dimension(cut, shapely.get_dimensions(geom))
            if cut is None:
                continue
        out.append(Feature(kind, name, cut))
    return out


def _same_dimension(geom: BaseGeometry, dimension: int) -> BaseGeometry | None:
    """Drop the lower-dimension leftovers (a shared edge) of a clipped geometry."""
    if geom.is_empty:
        return None
    if geom.geom_type != "GeometryCollection":
        return geom if shapely.get_dimensions(geom) == dimension else None
    parts = [g for g in geom.geoms if shapely.get_dimensions(g) == dimension and not g.is_empty]
    if not parts:
        return None
    return unary_union(parts)


class _FeatureRows:
    """Features collected one element at a time, then clipped together (``clip``)."""

    def __init__(self, specs: Mapping[str, osm.KindSpec]) -> None:
        self.specs = specs
        self.rows: list[tuple[str, str, BaseGeometry]] = []
        # Nodes are most of a big pack: their points are made in one vectorized call.
        self.node_rows: list[tuple[str, str]] = []
        self.node_xy: list[tuple[float, float]] = []
        self.seen: dict[str, set[str]] = {}

    def add(self, kind: str, element: Element) -> None:
        """Add ``element`` as a feature of ``kind`` if its tags make it one, once."""
        spec = self.specs[kind]
        key = element_key(element)
        tags = _tags(element)
        seen = self.seen.setdefault(kind, set())
        if key in seen or osm.is_lifecycle(tags):
            return
        # A border query returns the member ways of the boundary relations; a way's own
        # tags may name another level (a state border that is also the country's).
        border_way = spec.shape == "border" and element.get("type") == "way"
        if not border_way and not spec.matches(tags):
            return
        seen.add(key)
        name = osm.route_name(tags) if kind == "metro-line" else tags.get("name", "")
        if element.get("type") == "node" and element.get("lat") is not None:
            self.node_rows.append((kind, name.strip()))
            self.node_xy.append((float(element["lon"]), float(element["lat"])))
            return
        geometry = element_geometry(element, spec.shape)
        if geometry is not None and not geometry.is_empty:
            self.rows.append((kind, name.strip(), geometry))

    def clip(self, boundary: Polygon | MultiPolygon) -> list[Feature]:
        rows = self.rows
        if self.node_rows:
            points = shapely.points(np.array(self.node_xy, dtype=float))
            rows = rows + [(k, n, p) for (k, n), p in zip(self.node_rows, points, strict=True)]
        return _clip(rows, boundary)


def build_features(
    elements_by_kind: Mapping[str, Iterable[Element]],
    boundary: Polygon | MultiPolygon,
    *,
    covered: Collection[str],
    levels: Mapping[str, int] | None = None,
) -> list[Feature]:
    """Return the features of the covered kinds, checked against the tag table, clipped."""
    specs = osm.specs_for(levels or osm.DEFAULT_ADMIN_LEVELS)
    rows = _FeatureRows(specs)
    for kind, elements in elements_by_kind.items():
        if kind in specs and kind in covered:
            for element in elements:
                rows.add(kind, element)
    return rows.clip(boundary)


# ---------------------------------------------------------------------------- stations


def normalize_name(name: str) -> str:
    """Return a station name's comparison form (case, width and spacing folded)."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


class _Groups:
    """Union-find over candidate numbers."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def find(self, item: int) -> int:
        while self.parent[item] != item:
            self.parent[item] = self.parent[self.parent[item]]
            item = self.parent[item]
        return item

    def join(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _sort_key(key: str) -> tuple[str, int]:
    return key[0], int(key[1:]) if key[1:].lstrip("-").isdigit() else 0


def _join_same_names(names: list[str], xy: np.ndarray, groups: _Groups, within_m: float) -> None:
    """Join candidates with the same normalized name within ``within_m`` (grid buckets)."""
    cells: dict[tuple[str, int, int], list[int]] = {}
    for i, name in enumerate(names):
        if not name:
            continue
        cx, cy = math.floor(xy[i, 0] / within_m), math.floor(xy[i, 1] / within_m)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for j in cells.get((name, cx + dx, cy + dy), ()):
                    if math.hypot(*(xy[i] - xy[j])) <= within_m:
                        groups.join(i, j)
        cells.setdefault((name, cx, cy), []).append(i)


def _local_xy(points: np.ndarray) -> np.ndarray:
    """Project lon/lat to metres around the points' mean latitude (enough for 100 m)."""
    lat0 = math.radians(float(points[:, 1].mean())) if len(points) else 0.0
    return np.column_stack((points[:, 0] * 111_320.0 * math.cos(lat0), points[:, 1] * 110_574.0))


def build_stations(
    elements: Iterable[Element],
    boundary: Polygon | MultiPolygon,
    modes: Collection[str],
    *,
    same_name_m: float = SAME_NAME_M,
) -> tuple[Station, ...]:
    """Return the grouped, named stations of ``modes`` inside ``boundary`` (see module doc)."""
    candidates: list[Element] = []
    positions: list[tuple[float, float]] = []
    areas: list[Element] = []
    routes: list[Element] = []
    seen: set[str] = set()
    for element in elements:
        key = element_key(element)
        if key in seen:
            continue
        seen.add(key)
        tags = _tags(element)
        if element.get("type") == "relation" and osm.is_stop_area(tags):
            areas.append(element)
        elif element.get("type") == "relation" and osm.route_mode(tags) in modes:
            routes.append(element)
        elif osm.is_station_candidate(tags, modes):
            point = _point(element)
            if point is not None:
                candidates.append(element)
                positions.append((point.x, point.y))
    if not candidates:
        return ()
    lonlat = np.array(positions, dtype=float)
    shapely.prepare(boundary)
    inside = shapely.contains_xy(boundary, lonlat[:, 0], lonlat[:, 1])
    candidates = [c for c, ok in zip(candidates, inside, strict=True) if ok]
    lonlat = lonlat[inside]
    if not candidates:
        return ()
    number = {element_key(c): i for i, c in enumerate(candidates)}
    groups = _Groups(len(candidates))
    # Which candidate stands for each stop-area member, candidate or not (routes use it).
    member_of: dict[str, int] = dict(number)
    area_of: dict[int, list[Element]] = {}
    for area in sorted(areas, key=lambda a: int(a.get("id", 0))):
        keys = [f"{_PREFIX.get(m.get('type'), '?')}{m.get('ref')}" for m in area["members"]]
        inside_members = [number[k] for k in keys if k in number]
        if not inside_members:
            continue
        first = inside_members[0]
        for other in inside_members[1:]:
            groups.join(first, other)
        for key in keys:
            member_of.setdefault(key, first)
        area_of.setdefault(first, []).append(area)
    names = [normalize_name(_tags(c).get("name", "")) for c in candidates]
    _join_same_names(names, _local_xy(lonlat), groups, same_name_m)

    members: dict[int, list[int]] = {}
    for i in range(len(candidates)):
        members.setdefault(groups.find(i), []).append(i)
    lines: dict[int, set[str]] = {}
    for route in routes:
        line = osm.route_name(_tags(route))
        if not line:
            continue
        for member in route.get("members") or ():
            index = member_of.get(f"{_PREFIX.get(member.get('type'), '?')}{member.get('ref')}")
            if index is not None:
                lines.setdefault(groups.find(index), set()).add(line)
    stations = []
    for root, items in members.items():
        own_areas = sorted(
            (a for i in items for a in area_of.get(i, ())), key=lambda a: int(a["id"])
        )
        station = _station(candidates, lonlat, items, own_areas, sorted(lines.get(root, ())))
        if station is not None:
            stations.append(station)
    stations.sort(key=lambda s: (normalize_name(s.name), _sort_key(s.id)))
    return tuple(stations)


def _station(
    candidates: list[Element],
    lonlat: np.ndarray,
    items: list[int],
    areas: list[Element],
    routes: list[str],
) -> Station | None:
    objects = sorted(
        (i for i in items if osm.is_station_object(_tags(candidates[i]))),
        key=lambda i: _sort_key(element_key(candidates[i])),
    )
    named = [str(_tags(a).get("name", "")).strip() for a in areas]
    named += [_tags(candidates[i]).get("name", "").strip() for i in objects]
    counts = Counter(_tags(candidates[i]).get("name", "").strip() for i in items)
    named += [n for n, _ in sorted(counts.items(), key=lambda nc: (-nc[1], nc[0]))]
    name = next((n for n in named if n), "")
    if not name:
        return None
    if areas:
        key = element_key(areas[0])
    else:
        key = min((element_key(candidates[i]) for i in objects or items), key=_sort_key)
    # Where people wait: the station object, else the platforms, else every member.
    platforms = [i for i in items if osm.is_platform(_tags(candidates[i]))]
    lon, lat = lonlat[objects[0]] if objects else lonlat[platforms or items].mean(axis=0)
    return Station(key, name, float(lat), float(lon), tuple(routes))


# ---------------------------------------------------------------------------- the pack


def build_pack(
    elements_by_kind: Mapping[str, Iterable[Element]],
    stations: Iterable[Element],
    boundary: Polygon | MultiPolygon,
    *,
    name: str,
    title: str,
    modes: Collection[str],
    covered: Collection[str],
    attribution: str = OSM_ATTRIBUTION,
    levels: Mapping[str, int] | None = None,
) -> MapPack:
    """Return the whole pack: grouped stations, covered kinds' features, clipped."""
    built = build_stations(stations, boundary, modes)
    features = build_features(elements_by_kind, boundary, covered=covered, levels=levels)
    return MapPack(
        name=name,
        title=title,
        attribution=attribution,
        boundary=boundary,
        stations=built,
        features=tuple(features),
        kinds=frozenset(covered),
    )


def build_from_elements(
    elements: Iterable[Element],
    *,
    boundary: Polygon | MultiPolygon,
    name: str,
    title: str,
    modes: Collection[str],
    country_code: str = "",
    admin_levels: Mapping[str, int] | None = None,
    attribution: str = OSM_ATTRIBUTION,
) -> MapPack:
    """Return the pack of one stream of elements holding every kind (an extract's, read once).

    Each element goes to the stations and to every kind its tags make it; since the stream
    holds the whole area, every kind of the table is covered ("none there" is true).
    """
    levels = osm.admin_levels(country_code, admin_levels)
    specs = osm.specs_for(levels)
    stations: list[Element] = []
    rows = _FeatureRows(specs)
    # Each element becomes its features at once: a country's elements (their coordinate
    # lists above all) are never all held together.
    for element in elements:
        found = _tags(element)
        if (
            osm.is_stop_area(found)
            or osm.route_mode(found) in modes
            or osm.is_station_candidate(found, modes)
        ):
            stations.append(element)
        if not found or osm.is_lifecycle(found):
            continue
        for kind, spec in specs.items():
            if spec.matches(found):
                rows.add(kind, element)
    return MapPack(
        name=name,
        title=title,
        attribution=attribution,
        boundary=boundary,
        stations=build_stations(stations, boundary, modes),
        features=tuple(rows.clip(boundary)),
        kinds=frozenset(specs),
        country=country_code,
    )
