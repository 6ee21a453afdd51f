"""Build map packs from uploaded files: GeoJSON, GTFS (zip or folder) and KML.

Every importer refuses bad input with :class:`MapImportError`, whose ``reason`` is one of
``too_large``, ``too_many_features``, ``not_geojson``, ``not_kml``, ``bad_gtfs``,
``bad_geometry``, ``no_boundary`` and whose ``detail`` names the file or field (e.g.
``bad_gtfs`` / ``stops.txt missing``). Features and stations outside the boundary are
dropped (lines and polygons are clipped to it): outside the map they do not exist.

Feature kinds come from a ``kind`` property (GeoJSON), an ExtendedData ``kind`` or the
enclosing Folder's name (KML). ``boundary``/``city-limits`` polygons form the boundary;
``station``/``bus-stop`` points become stations (with ``routes`` from a list or a
comma-separated property).
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from xml.etree import ElementTree

import shapely
from defusedxml import DefusedXmlException
from defusedxml import ElementTree as SafeElementTree
from shapely.geometry import LineString, MultiPoint, MultiPolygon, Point, Polygon
from shapely.geometry.base import BaseGeometry

from hideseek_chat.geo.mappack import (
    PACK_KEY,
    Feature,
    MapPack,
    Station,
    geometry_from_geojson,
    pack_from_geojson,
)
from hideseek_chat.geo.spatial import LocalProjection

#: Largest upload accepted (bytes of the file as sent).
MAX_FILE_BYTES = 20_000_000
#: Largest total size of the files inside a GTFS zip (guards against zip bombs).
MAX_UNZIPPED_BYTES = 300_000_000
#: Most features (or stops) accepted in one import.
MAX_FEATURES = 200_000

BOUNDARY_KINDS = frozenset({"boundary", "city-limits", "game-boundary"})
STATION_KINDS = frozenset({"station", "bus-stop", "stop"})
#: Margin around the stops when a GTFS import is given no boundary.
GTFS_BOUNDARY_MARGIN_M = 1000.0

_KIND = re.compile(r"^[a-z0-9][a-z0-9-]{0,40}$")


class MapImportError(ValueError):
    """A map file was refused: ``reason`` is a code, ``detail`` says where or what."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


def _read_source(source: bytes | str | Path, max_bytes: int) -> bytes:
    """Return the bytes of an upload: ``bytes`` as given, a ``Path`` or ``str`` path read."""
    if isinstance(source, bytes):
        data = source
    else:
        path = Path(source)
        try:
            size = path.stat().st_size
            if size > max_bytes:
                raise MapImportError("too_large", f"{size} bytes, limit {max_bytes}")
            data = path.read_bytes()
        except OSError as err:
            raise MapImportError("unreadable", str(err)) from None
    if len(data) > max_bytes:
        raise MapImportError("too_large", f"{len(data)} bytes, limit {max_bytes}")
    return data


@dataclass
class _Collected:
    boundaries: list[BaseGeometry]
    stations: list[Station]
    features: list[Feature]


def _finish(
    collected: _Collected,
    *,
    name: str,
    title: str,
    attribution: str,
    boundary: Polygon | MultiPolygon | None,
    kinds: Iterable[str] = (),
    routes: tuple[str, ...] = (),
) -> MapPack:
    if boundary is None:
        polygons = [g for g in collected.boundaries if isinstance(g, Polygon | MultiPolygon)]
        if not polygons:
            raise MapImportError("no_boundary", "no boundary or city-limits polygon")
        merged = shapely.union_all(polygons)
        if not isinstance(merged, Polygon | MultiPolygon):
            raise MapImportError("no_boundary", "the boundary is not a polygon")
        boundary = merged
    if not boundary.is_valid:
        boundary = shapely.make_valid(boundary)  # type: ignore[assignment]
    prepared = boundary
    shapely.prepare(prepared)
    stations = tuple(s for s in collected.stations if prepared.covers(Point(s.lon, s.lat)))
    features: list[Feature] = []
    for feature in collected.features:
        geometry = feature.geometry
        if geometry.geom_type == "Point":
            if prepared.covers(geometry):
                features.append(feature)
            continue
        if not prepared.intersects(geometry):
            continue
        if not prepared.covers(geometry):
            geometry = shapely.intersection(geometry, boundary)
            if geometry.is_empty:
                continue
        features.append(Feature(feature.kind, feature.name, geometry))
    present = {f.kind for f in collected.features}
    return MapPack(
        name=name,
        title=title,
        attribution=attribution,
        boundary=boundary,
        stations=stations,
        features=tuple(features),
        kinds=frozenset(present) | frozenset(kinds),
        routes=routes,
    )


def _routes_property(value: Any) -> tuple[str, ...]:
    if isinstance(value, list | tuple):
        return tuple(str(v).strip() for v in value if str(v).strip())
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    return ()


def _check_kind(kind: Any, where: str) -> str:
    text = str(kind).strip().lower()
    if not _KIND.match(text):
        raise MapImportError("bad_kind", f"{where}: {kind!r}")
    return text


# ---------------------------------------------------------------- GeoJSON


def import_geojson(
    source: bytes | str | Path | Mapping[str, Any],
    *,
    name: str,
    title: str = "",
    attribution: str = "",
    boundary: Polygon | MultiPolygon | None = None,
    kinds: Iterable[str] = (),
    max_bytes: int = MAX_FILE_BYTES,
) -> MapPack:
    """Import a GeoJSON FeatureCollection (bytes, a path, or already-parsed data).

    Features without a ``kind`` are ignored. ``kinds`` adds kinds the map covers even with
    no feature (so questions about them get the null answer rather than "no map data").
    A pack written by ``pack_to_geojson`` is read back as it was.
    """
    if isinstance(source, Mapping):
        data: Any = source
    else:
        raw = _read_source(source, max_bytes)
        try:
            data = json.loads(raw.decode("utf-8-sig"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
            raise MapImportError("not_geojson", f"not JSON: {err}") from None
    if not isinstance(data, Mapping) or data.get("type") != "FeatureCollection":
        raise MapImportError("not_geojson", "expected a FeatureCollection")
    items = data.get("features")
    if not isinstance(items, list):
        raise MapImportError("not_geojson", "features is not a list")
    if len(items) > MAX_FEATURES:
        raise MapImportError("too_many_features", f"{len(items)}, limit {MAX_FEATURES}")
    if isinstance(data.get(PACK_KEY), Mapping):
        try:
            return pack_from_geojson(data)
        except (ValueError, KeyError, TypeError) as err:
            raise MapImportError("not_geojson", f"broken map pack: {err}") from None
    collected = _Collected([], [], [])
    station_numbers: dict[str, int] = {}
    for number, item in enumerate(items):
        if not isinstance(item, Mapping) or not isinstance(item.get("geometry"), Mapping):
            raise MapImportError("not_geojson", f"feature {number} has no geometry")
        props = item.get("properties") or {}
        if not isinstance(props, Mapping) or props.get("kind") is None:
            continue
        kind = _check_kind(props["kind"], f"feature {number}")
        try:
            geometry = geometry_from_geojson(item["geometry"])
        except ValueError as err:
            raise MapImportError("bad_geometry", f"feature {number}: {err}") from None
        label = str(props.get("name") or "").strip()
        if kind in BOUNDARY_KINDS:
            collected.boundaries.append(geometry)
        elif kind in STATION_KINDS and isinstance(geometry, Point):
            station_id = str(props.get("id") or props.get("ref") or f"s{number}")
            station_numbers[station_id] = station_numbers.get(station_id, 0) + 1
            if station_numbers[station_id] > 1:
                station_id = f"{station_id}-{station_numbers[station_id]}"
            collected.stations.append(
                Station(
                    station_id, label, geometry.y, geometry.x, _routes_property(props.get("routes"))
                )
            )
        else:
            collected.features.append(Feature(kind, label, geometry))
    return _finish(
        collected,
        name=name,
        title=title,
        attribution=attribution,
        boundary=boundary,
        kinds=kinds,
    )


# ---------------------------------------------------------------- GTFS


class _Feed:
    """Text files of a GTFS feed from a zip (bytes or path) or a folder."""

    def __init__(self, source: bytes | str | Path, max_bytes: int, max_unzipped: int) -> None:
        self.folder: Path | None = None
        self.zip: zipfile.ZipFile | None = None
        if not isinstance(source, bytes) and Path(source).is_dir():
            self.folder = Path(source)
            total = sum(p.stat().st_size for p in self.folder.glob("*.txt"))
            if total > max_unzipped:
                raise MapImportError("too_large", f"{total} bytes of GTFS files")
            return
        data = _read_source(source, max_bytes)
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile:
            raise MapImportError("bad_gtfs", "not a zip file") from None
        total = sum(info.file_size for info in self.zip.infolist())
        if total > max_unzipped:
            raise MapImportError("too_large", f"{total} bytes unzipped, limit {max_unzipped}")
        self.names = {Path(info.filename).name: info.filename for info in self.zip.infolist()}

    def rows(self, filename: str, columns: tuple[str, ...]) -> Iterator[list[str]]:
        """Yield the wanted columns ("" when a column is absent) of every row."""
        handle = self._open(filename)
        try:
            reader = csv.reader(handle)
            header = [h.strip() for h in next(reader, [])]
            positions = [header.index(c) if c in header else -1 for c in columns]
            width = len(header)
            for row in reader:
                if len(row) < width:
                    row = row + [""] * (width - len(row))
                yield [row[p] if p >= 0 else "" for p in positions]
        except (csv.Error, UnicodeDecodeError) as err:
            raise MapImportError("bad_gtfs", f"{filename}: {err}") from None
        finally:
            handle.close()

    def header(self, filename: str) -> list[str]:
        handle = self._open(filename)
        try:
            return [h.strip() for h in next(csv.reader(handle), [])]
        except (csv.Error, UnicodeDecodeError) as err:
            raise MapImportError("bad_gtfs", f"{filename}: {err}") from None
        finally:
            handle.close()

    def _open(self, filename: str) -> IO[str]:
        if self.folder is not None:
            path = self.folder / filename
            if not path.is_file():
                raise MapImportError("bad_gtfs", f"{filename} missing")
            return path.open(encoding="utf-8-sig", newline="")
        assert self.zip is not None
        if filename not in self.names:
            raise MapImportError("bad_gtfs", f"{filename} missing")
        return io.TextIOWrapper(
            self.zip.open(self.names[filename]), encoding="utf-8-sig", newline=""
        )


def import_gtfs(
    source: bytes | str | Path,
    *,
    name: str,
    title: str = "",
    attribution: str = "",
    boundary: Polygon | MultiPolygon | None = None,
    max_bytes: int = MAX_FILE_BYTES,
    max_unzipped: int = MAX_UNZIPPED_BYTES,
    max_stops: int = MAX_FEATURES,
) -> MapPack:
    """Import stations and the routes stopping at each from a GTFS feed (zip or folder).

    Reads stops.txt, routes.txt, trips.txt and stop_times.txt. Stops inside a parent
    station are merged into it. Route names are the short name, else the long name, else
    the id. Without ``boundary`` the map boundary is the stops' convex hull plus 1 km.
    """
    feed = _Feed(source, max_bytes, max_unzipped)
    for required in ("stop_id", "stop_lat", "stop_lon"):
        if required not in feed.header("stops.txt"):
            raise MapImportError("bad_gtfs", f"stops.txt has no {required} column")
    parents: dict[str, str] = {}
    stations: dict[str, tuple[str, float, float]] = {}
    columns = ("stop_id", "stop_name", "stop_lat", "stop_lon", "location_type", "parent_station")
    for line, (stop_id, stop_name, lat, lon, location_type, parent) in enumerate(
        feed.rows("stops.txt", columns), start=2
    ):
        if location_type not in ("", "0", "1"):
            continue  # entrances, nodes and boarding areas are not stations
        if parent and location_type != "1":
            parents[stop_id] = parent
            continue
        try:
            point = Station(stop_id, stop_name.strip(), float(lat), float(lon))
        except (ValueError, TypeError):
            raise MapImportError("bad_gtfs", f"stops.txt line {line}: bad coordinates") from None
        if not (-90 <= point.lat <= 90 and -180 <= point.lon <= 180):
            raise MapImportError("bad_gtfs", f"stops.txt line {line}: coordinates out of range")
        stations[stop_id] = (point.name, point.lat, point.lon)
        if len(stations) > max_stops:
            raise MapImportError("too_many_features", f"more than {max_stops} stops")
    if not stations:
        raise MapImportError("bad_gtfs", "stops.txt has no stops")

    route_names: dict[str, str] = {}
    for route_id, short, long_name in feed.rows(
        "routes.txt", ("route_id", "route_short_name", "route_long_name")
    ):
        route_names[route_id] = short.strip() or long_name.strip() or route_id
    trip_routes: dict[str, str] = {}
    for trip_id, route_id in feed.rows("trips.txt", ("trip_id", "route_id")):
        trip_routes[trip_id] = route_names.get(route_id, route_id)
    # Many stop_times rows repeat the same (trip pattern, stop); dedupe on the route.
    served: dict[str, set[str]] = {}
    for trip_id, stop_id in feed.rows("stop_times.txt", ("trip_id", "stop_id")):
        route = trip_routes.get(trip_id)
        if route is None:
            continue
        station_id = parents.get(stop_id, stop_id)
        routes = served.get(station_id)
        if routes is None:
            served[station_id] = {route}
        else:
            routes.add(route)

    collected = _Collected(
        [],
        [
            Station(sid, stop_name, lat, lon, tuple(sorted(served.get(sid, ()))))
            for sid, (stop_name, lat, lon) in stations.items()
        ],
        [],
    )
    if boundary is None:
        boundary = _hull_boundary([(s.lat, s.lon) for s in collected.stations])
    return _finish(
        collected,
        name=name,
        title=title,
        attribution=attribution,
        boundary=boundary,
        routes=tuple(sorted(set(route_names.values()))),
    )


def _hull_boundary(points: list[tuple[float, float]]) -> Polygon:
    lat = sum(p[0] for p in points) / len(points)
    lon = sum(p[1] for p in points) / len(points)
    projection = LocalProjection(lat, lon, 0.0)
    hull = projection.geometry(MultiPoint([(p[1], p[0]) for p in points])).convex_hull
    grown = hull.buffer(GTFS_BOUNDARY_MARGIN_M)
    back = shapely.transform(grown, projection.to_lonlat_array)
    assert isinstance(back, Polygon)
    return back


# ---------------------------------------------------------------- KML


def import_kml(
    source: bytes | str | Path,
    *,
    name: str,
    title: str = "",
    attribution: str = "",
    boundary: Polygon | MultiPolygon | None = None,
    default_kind: str | None = None,
    kinds: Iterable[str] = (),
    max_bytes: int = MAX_FILE_BYTES,
) -> MapPack:
    """Import Placemarks from a KML file (Points, LineStrings, Polygons, MultiGeometry).

    A Placemark's kind is its ExtendedData ``kind``, else its Folder's name when that is a
    kind slug (``museum``, ``bus-stop`` ...), else ``default_kind``; others are ignored.
    """
    root = parse_xml(_read_source(source, max_bytes))
    if _local(root.tag) != "kml":
        raise MapImportError("not_kml", f"root element is {_local(root.tag)!r}")
    collected = _Collected([], [], [])
    count = 0
    for placemark, folder in _placemarks(root, None):
        count += 1
        if count > MAX_FEATURES:
            raise MapImportError("too_many_features", f"more than {MAX_FEATURES} placemarks")
        label = (_child_text(placemark, "name") or "").strip()
        kind_text = _extended(placemark, "kind")
        if kind_text is None and folder and _KIND.match(folder.strip().lower()):
            kind_text = folder
        kind_text = kind_text or default_kind
        if kind_text is None:
            continue
        kind = _check_kind(kind_text, f"placemark {label or count}")
        geometry = _kml_geometry(placemark, label or str(count))
        if geometry is None:
            continue
        if kind in BOUNDARY_KINDS:
            collected.boundaries.append(geometry)
        elif kind in STATION_KINDS and isinstance(geometry, Point):
            station_id = _extended(placemark, "id") or f"s{count}"
            routes = _routes_property(_extended(placemark, "routes") or "")
            collected.stations.append(Station(station_id, label, geometry.y, geometry.x, routes))
        else:
            collected.features.append(Feature(kind, label, geometry))
    return _finish(
        collected,
        name=name,
        title=title,
        attribution=attribution,
        boundary=boundary,
        kinds=kinds,
    )


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def parse_xml(raw: bytes) -> ElementTree.Element:
    """Parse an uploaded XML file safely (defusedxml: no DTD, no entities, no external
    references); raises ``MapImportError("not_kml", reason)``."""
    try:
        return SafeElementTree.fromstring(raw, forbid_dtd=True)
    except DefusedXmlException:
        raise MapImportError("not_kml", "DOCTYPE and entities are not allowed") from None
    except ElementTree.ParseError as err:
        raise MapImportError("not_kml", f"not XML: {err}") from None


def _children(element: ElementTree.Element, name: str) -> list[ElementTree.Element]:
    return [child for child in element if _local(child.tag) == name]


def _child_text(element: ElementTree.Element, name: str) -> str | None:
    found = _children(element, name)
    return found[0].text if found else None


def _placemarks(
    element: ElementTree.Element, folder: str | None
) -> Iterator[tuple[ElementTree.Element, str | None]]:
    for child in element:
        tag = _local(child.tag)
        if tag == "Placemark":
            yield child, folder
        elif tag in ("Folder", "Document", "kml"):
            name = _child_text(child, "name") if tag == "Folder" else folder
            yield from _placemarks(child, name if tag == "Folder" else folder)


def _extended(placemark: ElementTree.Element, key: str) -> str | None:
    for data in placemark.iter():
        tag = _local(data.tag)
        if tag == "Data" and data.get("name") == key:
            value = _child_text(data, "value")
            return value.strip() if value else None
        if tag == "SimpleData" and data.get("name") == key:
            return (data.text or "").strip() or None
    return None


def _coords(text: str | None, where: str) -> list[tuple[float, float]]:
    points: list[tuple[float, float]] = []
    for chunk in (text or "").split():
        parts = chunk.split(",")
        try:
            lon, lat = float(parts[0]), float(parts[1])
        except (ValueError, IndexError):
            raise MapImportError("bad_geometry", f"{where}: bad coordinates {chunk!r}") from None
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            raise MapImportError("bad_geometry", f"{where}: coordinates out of range")
        points.append((lon, lat))
    return points


def _kml_geometry(element: ElementTree.Element, where: str) -> BaseGeometry | None:
    parts: list[BaseGeometry] = []
    for child in element:
        tag = _local(child.tag)
        try:
            if tag == "Point":
                coords = _coords(_child_text(child, "coordinates"), where)
                if len(coords) != 1:
                    raise MapImportError("bad_geometry", f"{where}: a point needs 1 coordinate")
                parts.append(Point(coords[0]))
            elif tag == "LineString":
                parts.append(LineString(_coords(_child_text(child, "coordinates"), where)))
            elif tag == "Polygon":
                parts.append(_kml_polygon(child, where))
            elif tag == "MultiGeometry":
                inner = _kml_geometry(child, where)
                if inner is not None:
                    parts.append(inner)
        except (ValueError, shapely.errors.ShapelyError) as err:
            if isinstance(err, MapImportError):
                raise
            raise MapImportError("bad_geometry", f"{where}: {err}") from None
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    return (
        shapely.union_all(parts)
        if all(isinstance(p, Polygon) for p in parts)
        else shapely.GeometryCollection(parts)
    )


def _kml_polygon(element: ElementTree.Element, where: str) -> Polygon:
    def ring(holder: ElementTree.Element) -> list[tuple[float, float]]:
        for linear in holder.iter():
            if _local(linear.tag) == "coordinates":
                return _coords(linear.text, where)
        raise MapImportError("bad_geometry", f"{where}: polygon ring without coordinates")

    outer = [ring(b) for b in _children(element, "outerBoundaryIs")]
    if len(outer) != 1:
        raise MapImportError("bad_geometry", f"{where}: a polygon needs one outer boundary")
    holes = [ring(b) for b in _children(element, "innerBoundaryIs")]
    return Polygon(outer[0], holes)
