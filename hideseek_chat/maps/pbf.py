"""Map data from an OpenStreetMap extract (``.osm.pbf``, ``.osm``, ``.osm.bz2``) with pyosmium.

:func:`read_elements` streams the objects a ``keep`` predicate selects, in Overpass JSON's
element shape (``out geom``), so ``build`` reads an extract exactly as it reads Overpass:

- node: ``{"type": "node", "id", "lat", "lon", "tags"}``;
- way: ``{"type": "way", "id", "tags", "bounds", "geometry": [{"lat", "lon"}, ...]}``;
- relation: ``{"type": "relation", "id", "tags", "bounds", "members": [...]}``, each member
  ``{"type", "ref", "role"}`` plus ``"geometry"`` (ways) or ``"lat"``/``"lon"`` (nodes).

Memory stays bounded by what is kept, never by the extract. The file is read four times,
each pass leaving to osmium's C++ what Python need not see: (1) relations, (2) tagged nodes
and ways, asked ``keep`` (kept nodes are yielded at once), (3) the node ids of the ways
wanted (``IdTracker.complete_backward_references``), (4) the wanted nodes into a sparse
location array (16 bytes a node) and the wanted ways, located, to Python. Held meanwhile:
the kept relations, id sets, those locations and the relation member ways' coordinates.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

import osmium
import osmium.filter
import osmium.geom
import osmium.index
from osmium.io import Reader

from hideseek_chat.geo import MapPack
from hideseek_chat.geo.mappack import PACK_KEY, geometry_from_geojson
from hideseek_chat.maps.build import relation_area
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


def _tag_dict(obj: Any) -> dict[str, str]:
    """The object's tags as a dict, three times faster than ``_tag_dict(obj)``.

    pyosmium's own tag iterator is Python code raising StopIteration from C per object;
    counting first and calling its C accessor directly avoids that. Falls back to the
    public way if a pyosmium release changes the accessor.
    """
    try:
        data = obj.tags._pyosmium_data
        position = data.tags_begin()
        found: dict[str, str] = {}
        for _ in range(data.tags_size()):
            key, value = data.tags_next(position)
            found[key] = value
        return found
    except AttributeError:  # pragma: no cover - another pyosmium
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
            tags = _tag_dict(relation)
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
    member_geometry: Keep | None = None,
) -> Iterator[dict[str, Any]]:
    # Pass 1: the relations wanted, and what they reference.
    relations = _read_relations(path, keep_relation, progress)
    wanted = osmium.IdTracker()  # ways to read with geometry, nodes whose location is needed
    member_ways = osmium.index.IdSet()
    for relation in relations:
        with_ways = member_geometry is None or member_geometry(relation.tags)
        for kind, ref, _role in relation.members:
            if kind == "w" and with_ways:
                member_ways.set(ref)
                wanted.add_way(ref)
            elif kind == "n":
                wanted.add_node(ref)

    # Pass 2: only tagged objects reach Python; kept nodes are yielded at once, kept ways
    # are remembered.
    kept_ways = osmium.index.IdSet()
    tagged = osmium.filter.EmptyTagFilter()
    count = 0
    with Reader(path, osmium.osm.NODE | osmium.osm.WAY) as reader:
        for obj in _objects(reader, tagged):
            count += 1
            if count % REPORT_EVERY == 0:
                progress(STAGE_WAYS, count)
            if obj.is_way():
                if keep(_tag_dict(obj)):
                    kept_ways.set(obj.id)
                    wanted.add_way(obj.id)
                continue
            location = obj.location
            if not location.valid():
                continue
            lat, lon = location.lat, location.lon
            if bbox is not None and not (bbox[0] <= lat <= bbox[2] and bbox[1] <= lon <= bbox[3]):
                continue
            tags = _tag_dict(obj)
            if keep(tags):
                yield {"type": "node", "id": obj.id, "lat": lat, "lon": lon, "tags": tags}
    progress(STAGE_WAYS, count)

    # Pass 3 (C++ only): the nodes of the wanted ways.
    progress(STAGE_NODES, 0)
    wanted.complete_backward_references(path, relation_depth=0)
    progress(STAGE_NODES, len(wanted.node_ids()))

    # Pass 4: the wanted nodes' locations go to a sparse array (16 bytes a node, sorted
    # when the first way comes), then only the wanted ways reach Python, located.
    table = osmium.index.create_map("sparse_mem_array")
    only_wanted = wanted.id_filter()
    locate = osmium.NodeLocationsForWays(table)
    locate.ignore_errors()
    only_ways = osmium.filter.EntityFilter(osmium.osm.WAY)
    factory = osmium.geom.GeoJSONFactory()
    member_coords: dict[int, array[float]] = {}
    count = 0
    with Reader(path, osmium.osm.NODE | osmium.osm.WAY) as reader:
        for way in _objects(reader, only_wanted, locate, only_ways):
            count += 1
            if count % REPORT_EVERY == 0:
                progress(STAGE_GEOMETRY, count)
            points = _way_points(way, factory)
            if way.id in member_ways:
                member_coords[way.id] = array("d", chain.from_iterable(points))
            if way.id not in kept_ways or len(points) < 2:
                continue
            lons, lats = zip(*points, strict=True)
            bounds = {
                "minlat": min(lats),
                "minlon": min(lons),
                "maxlat": max(lats),
                "maxlon": max(lons),
            }
            if not _meets(bounds, bbox):
                continue
            yield {
                "type": "way",
                "id": way.id,
                "tags": _tag_dict(way),
                "bounds": bounds,
                "geometry": [{"lat": lat, "lon": lon} for lon, lat in points],
            }
    progress(STAGE_GEOMETRY, count)

    for relation in relations:
        element = _relation_element(relation, member_coords, table)
        if element is not None and ("bounds" not in element or _meets(element["bounds"], bbox)):
            yield element


def _way_points(way: Any, factory: Any) -> list[list[float]]:
    """The way's [lon, lat] points in order; nodes missing from the extract left out."""
    try:
        line = factory.create_linestring(way, use_nodes=osmium.geom.ALL)
    except (osmium.InvalidLocationError, RuntimeError):
        return [[n.lon, n.lat] for n in way.nodes if n.location.valid()]
    points: list[list[float]] = json.loads(line)["coordinates"]
    return points


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
                {"lat": flat[i + 1], "lon": flat[i]} for i in range(0, len(flat), 2)
            ]
            lons.extend(flat[0::2])
            lats.extend(flat[1::2])
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
    member_geometry: Keep | None = None,
) -> Iterator[dict[str, Any]]:
    """Stream the objects of the extract at ``path`` that ``keep`` selects, Overpass-shaped.

    Nodes come first, then ways, then relations (as Overpass returns them). Relation members
    carry their geometry whether or not they are kept themselves; ``member_geometry`` may
    limit way members' geometry to the relations it accepts (see :func:`not_routes`),
    node members always have theirs. With ``bbox`` (south,
    west, north, east) only objects whose bounds meet it are yielded. Lifecycle-prefixed
    objects are yielded if ``keep`` says so: leaving them out is the builder's business.
    Raises ``MapFetchError("map.file_missing")`` or ``("map.file_unreadable")``.
    """
    name = _check_file(path)

    def keep_relation(_id: int, tags: Mapping[str, str]) -> bool:
        return keep(tags)

    elements = _elements(name, keep, keep_relation, bbox, progress or _quiet, member_geometry)
    return _guarded(name, elements)


def not_routes(tags: Mapping[str, str]) -> bool:
    """Say whether a relation's way members need geometry: all but routes'.

    A country's bus routes run over hundreds of thousands of road ways whose coordinates
    would outweigh everything else kept; a station learns its lines from the route's stop
    members, which keep their positions.
    """
    return tags.get("type") not in ("route", "route_master")


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


def read_boundary(path: str | Path, boundary: str, *, progress: Progress | None = None) -> Any:
    """The boundary ``--boundary`` names: a GeoJSON file if one is there, else the name of
    a boundary relation in the extract at ``path``."""
    candidate = Path(boundary)
    if candidate.suffix.lower() in (".geojson", ".json") or candidate.is_file():
        return boundary_from_geojson_file(candidate)
    return boundary_from_pbf(path, boundary, progress=progress)


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
    member_geometry: Keep | None = None,
) -> MapPack:
    """Build a pack from the extract at ``path`` inside ``boundary`` (a shapely polygon).

    The elements ``keep`` selects within the boundary's bounding box are handed, as one
    iterator read once, to ``build(elements, boundary=, name=, title=, modes=)``
    (``maps.build.build_from_elements``), which clips to the boundary and groups the stations.
    """
    west, south, east, north = boundary.bounds
    elements = read_elements(
        path,
        keep,
        bbox=(south, west, north, east),
        progress=progress,
        member_geometry=member_geometry,
    )
    return build(elements, boundary=boundary, name=name, title=title, modes=tuple(modes))
