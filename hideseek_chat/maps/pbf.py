"""Map data from an OpenStreetMap extract (``.osm.pbf``, ``.osm``, ``.osm.bz2``) with pyosmium.

:func:`read_elements` streams the objects a ``keep`` predicate selects, in Overpass JSON's
element shape (``out geom``), so ``build`` reads an extract exactly as it reads Overpass:

- node: ``{"type": "node", "id", "lat", "lon", "tags"}``;
- way: ``{"type": "way", "id", "tags", "nodes", "bounds", "geometry": [{"lat", "lon"}, ...]}``;
- relation: ``{"type": "relation", "id", "tags", "bounds", "members": [...]}``, each member
  ``{"type", "ref", "role"}`` plus ``"geometry"`` (ways) or ``"lat"``/``"lon"`` (nodes).

Memory stays bounded by what is kept, never by the extract: the file is read four times, each
pass skipping in C++ what it does not need (relations; tagged nodes and all ways; the nodes
whose locations are needed; the ways kept or referenced). Only kept relations, the ids of
what they and the kept ways reference, those nodes' locations (16 bytes each) and the member
ways' coordinates are held; kept nodes and ways are yielded as they are read.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import osmium
import osmium.index
from osmium.io import Reader

from hideseek_chat.geo import MapPack
from hideseek_chat.geo.mappack import PACK_KEY, geometry_from_geojson
from hideseek_chat.maps.errors import MapFetchError

#: Says whether an object with these tags is wanted (``maps.tags`` supplies the real one).
Keep = Callable[[Mapping[str, str]], bool]
#: Hears ``(stage, objects read so far in it)`` now and then, and once at each stage's end.
Progress = Callable[[str, int], None]
#: south, west, north, east (Overpass's order; ``store.maps.BBox`` is the same).
BBox = tuple[float, float, float, float]

#: How many objects pass between two progress reports.
REPORT_EVERY = 1 << 16

STAGE_RELATIONS = "relations"
STAGE_WAYS = "ways"
STAGE_NODES = "nodes"
STAGE_GEOMETRY = "geometry"
STAGES = (STAGE_RELATIONS, STAGE_WAYS, STAGE_NODES, STAGE_GEOMETRY)

_MEMBER_TYPES = {"n": "node", "w": "way", "r": "relation"}
_NAME_KEYS = ("name", "official_name", "int_name", "short_name", "alt_name")


def _tags(obj: Any) -> dict[str, str]:
    return {tag.k: tag.v for tag in obj.tags}


def _objects(reader: Reader, *handlers: Any) -> Iterator[Any]:
    """The reader's objects that pass ``handlers`` (typed loosely: osmium's are a union)."""
    return iter(osmium.OsmFileIterator(reader, *handlers))


def _quiet(_stage: str, _count: int) -> None:
    pass


def _bounds(lats: Iterable[float], lons: Iterable[float]) -> dict[str, float]:
    lat_list, lon_list = list(lats), list(lons)
    return {
        "minlat": min(lat_list),
        "minlon": min(lon_list),
        "maxlat": max(lat_list),
        "maxlon": max(lon_list),
    }


def _meets(bounds: Mapping[str, float], bbox: BBox | None) -> bool:
    if bbox is None:
        return True
    south, west, north, east = bbox
    return not (
        bounds["maxlat"] < south
        or bounds["minlat"] > north
        or bounds["maxlon"] < west
        or bounds["minlon"] > east
    )


@dataclass(frozen=True, slots=True)
class _Relation:
    id: int
    tags: dict[str, str]
    members: tuple[tuple[str, int, str], ...]  # (type, ref, role)


class _Unsorted(Exception):
    """The nodes are not in ascending id order, which a sparse array index needs."""


def _locations(path: str, wanted: osmium.IdTracker, progress: Progress) -> Any:
    """The locations of the wanted nodes: a sorted array (16 bytes a node) or, for an
    unsorted file, a tree map."""
    for storage in ("sparse_mem_array", "sparse_mem_map"):
        table = osmium.index.create_map(storage)
        last = -1
        count = 0
        only_wanted = wanted.id_filter()
        try:
            with Reader(path, osmium.osm.NODE) as reader:
                for node in _objects(reader, only_wanted):
                    if node.id < last and storage == "sparse_mem_array":
                        raise _Unsorted
                    last = node.id
                    if node.id >= 0 and node.location.valid():
                        table.set(node.id, node.location)
                    count += 1
                    if count % REPORT_EVERY == 0:
                        progress(STAGE_NODES, count)
        except _Unsorted:
            continue
        progress(STAGE_NODES, count)
        return table
    raise AssertionError("unreachable")  # pragma: no cover


def _read_relations(
    path: str, keep_relation: Callable[[int, Mapping[str, str]], bool], progress: Progress
) -> list[_Relation]:
    kept: list[_Relation] = []
    count = 0
    # A handler must outlive the iterator (osmium keeps a bare pointer to it).
    tagged = osmium.filter.EmptyTagFilter()
    with Reader(path, osmium.osm.RELATION) as reader:
        for relation in _objects(reader, tagged):
            count += 1
            if count % REPORT_EVERY == 0:
                progress(STAGE_RELATIONS, count)
            tags = _tags(relation)
            if keep_relation(relation.id, tags):
                members = tuple((m.type, m.ref, m.role) for m in relation.members)
                kept.append(_Relation(relation.id, tags, members))
    progress(STAGE_RELATIONS, count)
    return kept


def _elements(
    path: str,
    keep: Keep,
    keep_relation: Callable[[int, Mapping[str, str]], bool],
    bbox: BBox | None,
    progress: Progress,
) -> Iterator[dict[str, Any]]:
    # Pass 1: the relations wanted, and what they reference.
    relations = _read_relations(path, keep_relation, progress)
    wanted = osmium.IdTracker()  # nodes whose location is needed, ways to read again
    member_ways = osmium.index.IdSet()
    for relation in relations:
        for kind, ref, _role in relation.members:
            if kind == "w":
                member_ways.set(ref)
                wanted.add_way(ref)
            elif kind == "n":
                wanted.add_node(ref)

    # Pass 2: tagged nodes are kept or not right away; ways say which nodes they need.
    kept_ways = osmium.index.IdSet()
    tagged_nodes = osmium.filter.EmptyTagFilter()
    tagged_nodes.enable_for(osmium.osm.NODE)
    count = 0
    with Reader(path, osmium.osm.NODE | osmium.osm.WAY) as reader:
        for obj in _objects(reader, tagged_nodes):
            count += 1
            if count % REPORT_EVERY == 0:
                progress(STAGE_WAYS, count)
            if obj.is_node():
                location = obj.location
                if not location.valid():
                    continue
                lat, lon = location.lat, location.lon
                if bbox is not None and not (
                    bbox[0] <= lat <= bbox[2] and bbox[1] <= lon <= bbox[3]
                ):
                    continue
                tags = _tags(obj)
                if keep(tags):
                    yield {"type": "node", "id": obj.id, "lat": lat, "lon": lon, "tags": tags}
                continue
            is_kept = len(obj.tags) > 0 and keep(_tags(obj))
            if is_kept:
                kept_ways.set(obj.id)
            if is_kept or obj.id in member_ways:
                wanted.add_way(obj.id)
                wanted.add_references(obj)
    progress(STAGE_WAYS, count)

    # Pass 3: the locations of the nodes those ways and relations need.
    table = _locations(path, wanted, progress)

    # Pass 4: the kept ways with their geometry; member ways' coordinates for the relations.
    member_coords: dict[int, array[float]] = {}
    locate = osmium.NodeLocationsForWays(table)
    locate.ignore_errors()
    only_wanted = wanted.id_filter()
    count = 0
    with Reader(path, osmium.osm.WAY) as reader:
        for way in _objects(reader, only_wanted, locate):
            count += 1
            if count % REPORT_EVERY == 0:
                progress(STAGE_GEOMETRY, count)
            refs: list[int] = []
            flat = array("d")
            for node in way.nodes:
                if node.location.valid():
                    refs.append(node.ref)
                    flat.append(node.lat)
                    flat.append(node.lon)
            if way.id in member_ways:
                member_coords[way.id] = flat
            if way.id not in kept_ways or len(flat) < 4:
                continue
            bounds = _bounds(flat[0::2], flat[1::2])
            if not _meets(bounds, bbox):
                continue
            yield {
                "type": "way",
                "id": way.id,
                "tags": _tags(way),
                "nodes": refs,
                "bounds": bounds,
                "geometry": [{"lat": flat[i], "lon": flat[i + 1]} for i in range(0, len(flat), 2)],
            }
    progress(STAGE_GEOMETRY, count)

    for relation in relations:
        element = _relation_element(relation, member_coords, table)
        if element is not None and ("bounds" not in element or _meets(element["bounds"], bbox)):
            yield element


def _relation_element(
    relation: _Relation, member_coords: Mapping[int, array[float]], table: Any
) -> dict[str, Any] | None:
    members: list[dict[str, Any]] = []
    lats: list[float] = []
    lons: list[float] = []
    for kind, ref, role in relation.members:
        member: dict[str, Any] = {"type": _MEMBER_TYPES.get(kind, kind), "ref": ref, "role": role}
        if kind == "w" and ref in member_coords:
            flat = member_coords[ref]
            member["geometry"] = [
                {"lat": flat[i], "lon": flat[i + 1]} for i in range(0, len(flat), 2)
            ]
            lats.extend(flat[0::2])
            lons.extend(flat[1::2])
        elif kind == "n":
            try:
                location = table.get(ref)
            except KeyError:
                location = None
            if location is not None:
                member["lat"], member["lon"] = location.lat, location.lon
                lats.append(location.lat)
                lons.append(location.lon)
        members.append(member)
    element: dict[str, Any] = {
        "type": "relation",
        "id": relation.id,
        "tags": relation.tags,
        "members": members,
    }
    if lats:
        element["bounds"] = _bounds(lats, lons)
    return element


def _check_file(path: str | Path) -> str:
    file = Path(path)
    if not file.is_file():
        raise MapFetchError("map.file_missing", path=str(path))
    return str(file)


def read_elements(
    path: str | Path,
    keep: Keep,
    *,
    bbox: BBox | None = None,
    progress: Progress | None = None,
) -> Iterator[dict[str, Any]]:
    """Stream the objects of the extract at ``path`` that ``keep`` selects, Overpass-shaped.

    Nodes come first, then ways, then relations (as Overpass returns them). Relation members
    carry their geometry whether or not they are kept themselves. With ``bbox`` (south,
    west, north, east) only objects whose bounds meet it are yielded. Lifecycle-prefixed
    objects are yielded if ``keep`` says so: leaving them out is the builder's business.
    Raises ``MapFetchError("map.file_missing")`` or ``("map.file_unreadable")``.
    """
    name = _check_file(path)

    def keep_relation(_id: int, tags: Mapping[str, str]) -> bool:
        return keep(tags)

    return _guarded(name, _elements(name, keep, keep_relation, bbox, progress or _quiet))


def _guarded(name: str, elements: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    try:
        yield from elements
    except RuntimeError as err:  # osmium's own errors: not an OSM file, truncated ...
        raise MapFetchError("map.file_unreadable", path=name, reason=str(err)) from None


# --- boundaries ---------------------------------------------------------------------------


def _admin_level(tags: Mapping[str, str]) -> int:
    try:
        return int(tags.get("admin_level", "99"))
    except ValueError:
        return 99


def _is_area_relation(tags: Mapping[str, str]) -> bool:
    return tags.get("type") in ("boundary", "multipolygon") and (
        "boundary" in tags or "place" in tags or tags.get("type") == "boundary"
    )


def _names(tags: Mapping[str, str]) -> set[str]:
    return {
        value.casefold()
        for key, value in tags.items()
        if key in _NAME_KEYS or key.startswith("name:")
    }


def _join_rings(lines: list[list[tuple[float, float]]]) -> list[list[tuple[float, float]]]:
    """Join way segments end to end into closed rings; open leftovers are dropped."""
    rings: list[list[tuple[float, float]]] = []
    pending = [line for line in lines if len(line) >= 2]
    by_end: dict[tuple[float, float], set[int]] = {}
    for i, line in enumerate(pending):
        by_end.setdefault(line[0], set()).add(i)
        by_end.setdefault(line[-1], set()).add(i)
    used: set[int] = set()
    for i, line in enumerate(pending):
        if i in used:
            continue
        used.add(i)
        ring = list(line)
        while ring[0] != ring[-1]:
            candidates = by_end.get(ring[-1], set()) - used
            if not candidates:
                break
            j = min(candidates)
            used.add(j)
            nxt = pending[j]
            ring.extend(nxt[1:] if nxt[0] == ring[-1] else list(reversed(nxt))[1:])
        if ring[0] == ring[-1] and len(ring) >= 4:
            rings.append(ring)
    return rings


def _inside(point: tuple[float, float], ring: list[tuple[float, float]]) -> bool:
    x, y = point
    inside = False
    for (x1, y1), (x2, y2) in pairwise(ring):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def relation_area(element: Mapping[str, Any]) -> Any:
    """The Polygon or MultiPolygon of an Overpass-shaped multipolygon or boundary relation.

    Outer ways (role ``outer`` or empty) and inner ways are joined into rings; each inner
    ring goes into the first outer ring around it. Returns None when no ring closes.
    """
    outers: list[list[tuple[float, float]]] = []
    inners: list[list[tuple[float, float]]] = []
    for member in element.get("members", ()):
        if member.get("type") != "way" or not member.get("geometry"):
            continue
        line = [(p["lon"], p["lat"]) for p in member["geometry"]]
        (inners if member.get("role") == "inner" else outers).append(line)
    outer_rings = _join_rings(outers)
    if not outer_rings:
        return None
    holes: list[list[list[tuple[float, float]]]] = [[] for _ in outer_rings]
    for inner in _join_rings(inners):
        for i, outer in enumerate(outer_rings):
            if _inside(inner[0], outer):
                holes[i].append(inner)
                break
    polygons = [[outer, *holes[i]] for i, outer in enumerate(outer_rings)]
    geometry = geometry_from_geojson({"type": "MultiPolygon", "coordinates": polygons})
    if not geometry.is_valid:
        geometry = geometry.buffer(0)
    if geometry.geom_type == "MultiPolygon" and len(geometry.geoms) == 1:  # type: ignore[attr-defined]
        return geometry.geoms[0]  # type: ignore[attr-defined]
    return geometry


def find_boundary(path: str | Path, name: str) -> int:
    """The id of the boundary relation named ``name`` (any case, any ``name:*`` tag); the
    largest (lowest ``admin_level``) when several match. Raises ``map.boundary_not_found``."""
    file = _check_file(path)
    wanted = name.strip().casefold()
    found: list[tuple[int, int]] = []

    def matches(relation_id: int, tags: Mapping[str, str]) -> bool:
        if _is_area_relation(tags) and wanted in _names(tags):
            found.append((_admin_level(tags), relation_id))
        return False

    try:
        _read_relations(file, matches, _quiet)
    except RuntimeError as err:
        raise MapFetchError("map.file_unreadable", path=file, reason=str(err)) from None
    if not found:
        raise MapFetchError("map.boundary_not_found", name=name, path=file)
    return min(found)[1]


def boundary_from_pbf(path: str | Path, name: str, *, progress: Progress | None = None) -> Any:
    """The Polygon or MultiPolygon of the boundary relation named ``name`` in the extract.

    Raises ``MapFetchError``: ``map.boundary_not_found``, or ``map.boundary_open`` when its
    ways do not close into a ring (the extract cut it).
    """
    relation_id = find_boundary(path, name)

    def only_it(candidate: int, _tags: Mapping[str, str]) -> bool:
        return candidate == relation_id

    elements = _elements(str(path), lambda _tags: False, only_it, None, progress or _quiet)
    for element in elements:
        if element["type"] == "relation":
            area = relation_area(element)
            if area is not None and not area.is_empty:
                return area
    raise MapFetchError("map.boundary_open", name=name)


def _kind(feature: Mapping[str, Any]) -> Any:
    return (feature.get("properties") or {}).get("kind")


def boundary_from_geojson_file(path: str | Path) -> Any:
    """The Polygon or MultiPolygon in a GeoJSON file: a geometry, a feature, a collection
    (all its polygons together) or a map pack (its boundary). Raises ``map.boundary_bad``."""
    file = Path(path)
    if not file.is_file():
        raise MapFetchError("map.file_missing", path=str(path))
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise MapFetchError("map.boundary_bad", path=str(path), reason=str(err)) from None
    geometries: list[Mapping[str, Any]] = []
    if isinstance(data, dict) and data.get("type") == "FeatureCollection":
        features = [f for f in data.get("features", ()) if isinstance(f, dict)]
        if PACK_KEY in data:
            features = [f for f in features if _kind(f) == "boundary"]
        geometries = [f["geometry"] for f in features if isinstance(f.get("geometry"), dict)]
    elif isinstance(data, dict) and data.get("type") == "Feature":
        geometries = [data["geometry"]] if isinstance(data.get("geometry"), dict) else []
    elif isinstance(data, dict):
        geometries = [data]
    polygons: list[Any] = []
    for geometry in geometries:
        if geometry.get("type") not in ("Polygon", "MultiPolygon"):
            continue
        try:
            polygons.append(geometry_from_geojson(geometry))
        except ValueError as err:
            raise MapFetchError("map.boundary_bad", path=str(path), reason=str(err)) from None
    if not polygons:
        raise MapFetchError("map.boundary_bad", path=str(path), reason="no polygon in it")
    area = polygons[0]
    for polygon in polygons[1:]:
        area = area.union(polygon)
    if not area.is_valid:
        area = area.buffer(0)
    return area


def read_boundary(path: str | Path, boundary: str) -> Any:
    """The boundary ``--boundary`` names: a GeoJSON file if one is there, else the name of
    a boundary relation in the extract at ``path``."""
    candidate = Path(boundary)
    if candidate.suffix.lower() in (".geojson", ".json") or candidate.is_file():
        return boundary_from_geojson_file(candidate)
    return boundary_from_pbf(path, boundary)


# --- building ---------------------------------------------------------------------------


def build_from_pbf(
    path: str | Path,
    boundary: Any,
    *,
    name: str,
    title: str,
    modes: Iterable[str],
    keep: Keep,
    build: Callable[..., MapPack],
    progress: Progress | None = None,
) -> MapPack:
    """Build a pack from the extract at ``path`` inside ``boundary`` (a shapely polygon).

    The elements ``keep`` selects within the boundary's bounding box are handed, as one
    iterator read once, to ``build(elements, boundary=, name=, title=, modes=)``
    (``maps.build.build_pack``), which clips to the boundary and groups the stations.
    """
    west, south, east, north = boundary.bounds
    elements = read_elements(path, keep, bbox=(south, west, north, east), progress=progress)
    return build(elements, boundary=boundary, name=name, title=title, modes=tuple(modes))
