"""A custom station list: CSV ``name,lat,lon[,lines]`` or the points of a KML or GeoJSON
export (Google My Maps, uMap, the web map tools), read into ``geo.Station`` values.

``read_station_list`` refuses a bad file with ``StationListError``, whose ``row`` (1-based,
the header counted; None for the whole file) and ``problem`` code say what is wrong.
``is_station_list`` tells a station list from a whole map: a CSV always is one; a GeoJSON
is one when it has points and no polygon with a ``kind`` (a map's boundary has one), a KML
when it has points and no polygon.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from typing import Any

from hideseek_chat.geo.imports import MapImportError, parse_xml
from hideseek_chat.geo.mappack import PACK_KEY, Station
from hideseek_chat.maps.errors import MapFetchError

#: Most stations one list may hold.
MAX_STATIONS = 20_000
#: What splits a row's lines ("Red;Blue", "Red|Blue").
LINE_SEPARATORS = re.compile(r"[;|]")
_NAME_COLUMNS = ("name", "station", "stop_name", "title")
_LAT_COLUMNS = ("lat", "latitude", "stop_lat", "y")
_LON_COLUMNS = ("lon", "lng", "long", "longitude", "stop_lon", "x")
_LINE_COLUMNS = ("lines", "routes", "line", "route")


class StationListError(MapFetchError):
    """A station list was refused: ``problem`` is a code (columns, name, number, range,
    empty, format, too_many); ``row`` the 1-based row or feature, None for the file."""

    def __init__(self, problem: str, row: int | None = None) -> None:
        super().__init__("map.station_list_bad", problem=problem, row=row)
        self.problem = problem
        self.row = row


def is_station_list(filename: str, content: bytes) -> bool:
    """Whether an upload is a station list rather than a whole map (see the module)."""
    lower = filename.lower()
    if lower.endswith((".csv", ".txt")):
        return True
    if lower.endswith((".geojson", ".json")):
        try:
            data = json.loads(content)
        except (ValueError, UnicodeDecodeError):
            return False
        if not isinstance(data, dict) or PACK_KEY in data:
            return False
        features = _features(data)
        points = any(_mapping(f.get("geometry")).get("type") == "Point" for f in features)
        # A map's polygons carry a ``kind`` (``geo.import_geojson`` reads nothing else); an
        # outline drawn around the stations (uMap, My Maps) does not make a map.
        areas = any(
            _mapping(f.get("geometry")).get("type") in ("Polygon", "MultiPolygon")
            and _mapping(f.get("properties")).get("kind") is not None
            for f in features
        )
        return points and not areas
    if lower.endswith(".kml"):
        return b"<Point" in content and b"<Polygon" not in content
    return False


def read_station_list(filename: str, content: bytes) -> tuple[Station, ...]:
    """The stations of a CSV, GeoJSON or KML station list; raise StationListError."""
    lower = filename.lower()
    if lower.endswith((".geojson", ".json")):
        rows = _geojson_rows(content)
    elif lower.endswith(".kml"):
        rows = _kml_rows(content)
    else:
        rows = _csv_rows(content)
    stations: list[Station] = []
    seen: set[tuple[str, float, float]] = set()
    for row, name, lat_text, lon_text, lines in rows:
        name = " ".join(name.split())
        if not name:
            raise StationListError("name", row)
        lat, lon = _coordinate(lat_text, row), _coordinate(lon_text, row)
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            raise StationListError("range", row)
        key = (name.casefold(), round(lat, 5), round(lon, 5))
        if key in seen:
            continue  # the same station twice (an export's duplicate)
        seen.add(key)
        routes = tuple(dict.fromkeys(r.strip() for r in lines if r.strip()))
        stations.append(Station(f"list-{len(stations) + 1}", name, lat, lon, routes))
        if len(stations) > MAX_STATIONS:
            raise StationListError("too_many")
    if not stations:
        raise StationListError("empty")
    return tuple(stations)


Row = tuple[int, str, Any, Any, list[str]]


def _coordinate(value: Any, row: int) -> float:
    if isinstance(value, bool):  # JSON true is no coordinate (float(True) would be 1.0)
        raise StationListError("number", row)
    try:
        number = float(str(value).strip().replace(",", ".") if isinstance(value, str) else value)
    except (TypeError, ValueError):
        raise StationListError("number", row) from None
    if not math.isfinite(number):
        raise StationListError("number", row)
    return number


def _delimiter(line: str) -> str:
    """The delimiter that splits ``line`` into a name and two coordinates (or a header
    naming them): "," first, then ";" (with decimal commas) and tabs."""
    for delimiter in (",", ";", "\t"):
        cells = [c.strip().lower() for c in line.split(delimiter)]
        if len(cells) < 3:
            continue
        if set(cells) & {*_LAT_COLUMNS, *_NAME_COLUMNS} or all(_is_number(c) for c in cells[1:3]):
            return delimiter
    return ","


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", "."))
    except ValueError:
        return False
    return True


def _column(header: list[str], names: tuple[str, ...]) -> int | None:
    return next((i for i, h in enumerate(header) if h in names), None)


def _csv_rows(content: bytes) -> list[Row]:
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise StationListError("format") from None
    first_line = next((line for line in text.splitlines() if line.strip()), "")
    table = list(csv.reader(io.StringIO(text), delimiter=_delimiter(first_line)))
    if not table:
        raise StationListError("empty")
    header = [h.strip().lower() for h in table[0]]
    name_at, lat_at, lon_at, lines_at = 0, 1, 2, 3
    first = 0
    if _column(header, _LAT_COLUMNS) is not None or _column(header, _NAME_COLUMNS) is not None:
        found = [_column(header, c) for c in (_NAME_COLUMNS, _LAT_COLUMNS, _LON_COLUMNS)]
        if any(i is None for i in found):
            raise StationListError("columns", 1)
        name_at, lat_at, lon_at = (i for i in found if i is not None)
        lines_column = _column(header, _LINE_COLUMNS)
        lines_at = -1 if lines_column is None else lines_column
        first = 1
    rows: list[Row] = []
    for number, cells in enumerate(table[first:], start=first + 1):
        if not any(c.strip() for c in cells):
            continue  # a blank line
        if len(cells) <= max(name_at, lat_at, lon_at):
            raise StationListError("columns", number)
        lines = cells[lines_at] if 0 <= lines_at < len(cells) else ""
        rows.append(
            (number, cells[name_at], cells[lat_at], cells[lon_at], LINE_SEPARATORS.split(lines))
        )
    return rows


def _features(data: dict[str, Any]) -> list[dict[str, Any]]:
    if data.get("type") == "Feature":
        return [data]
    features = data.get("features")
    return [f for f in features if isinstance(f, dict)] if isinstance(features, list) else []


def _mapping(value: Any) -> dict[str, Any]:
    """A GeoJSON member that should be an object: ``{}`` for anything else (a sender's
    odd export must be refused or read, never crash the upload)."""
    return value if isinstance(value, dict) else {}


def _geojson_rows(content: bytes) -> list[Row]:
    try:
        data = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        raise StationListError("format") from None
    if not isinstance(data, dict):
        raise StationListError("format")
    rows: list[Row] = []
    for number, feature in enumerate(_features(data), start=1):
        geometry = _mapping(feature.get("geometry"))
        if geometry.get("type") != "Point":
            continue  # lines and the like: not stations
        props = _mapping(feature.get("properties"))
        coords = geometry.get("coordinates")
        if not isinstance(coords, list) or len(coords) < 2:
            raise StationListError("number", number)
        name = next((str(props[k]) for k in ("name", "Name", "title") if props.get(k)), "")
        lines = props.get("lines") or props.get("routes") or ""
        split = (
            [str(x) for x in lines]
            if isinstance(lines, list)
            else LINE_SEPARATORS.split(str(lines))
        )
        rows.append((number, name, coords[1], coords[0], split))
    return rows


def _kml_rows(content: bytes) -> list[Row]:
    try:
        root = parse_xml(content)  # no DTD or entities: refused unread
    except MapImportError:
        raise StationListError("format") from None
    rows: list[Row] = []
    placemarks = [e for e in root.iter() if _local(e.tag) == "Placemark"]
    for number, placemark in enumerate(placemarks, start=1):
        point = next((e for e in placemark.iter() if _local(e.tag) == "Point"), None)
        if point is None:
            continue
        name = next((e.text or "" for e in placemark if _local(e.tag) == "name"), "")
        coords = next((e.text or "" for e in point.iter() if _local(e.tag) == "coordinates"), "")
        parts = coords.strip().split(",")
        if len(parts) < 2:
            raise StationListError("number", number)
        rows.append((number, name, parts[1], parts[0], []))
    return rows


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]
