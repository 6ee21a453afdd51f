"""Build the Stillwater, OK map pack from its source GeoJSON (OSM roads, city limits, POIs).

The shipped pack (``geo/maps/stillwater/pack.geojson``) is the output of
:func:`build_stillwater_pack`; run ``python -m hideseek_chat.geo.stillwater SRC_DIR`` to
rebuild it from ``base.geojson`` and ``poi.geojson``.

- Stations are the 171 bus stops; their routes are parsed from the stop names
  (``Hester & 4th South (157) (Scarlet)`` -> id ``157``, routes ``("Scarlet",)``). A stop
  number used twice gets ``-2`` appended to its id.
- Restaurant, school and park POIs and the named roads are kept as they are.
- The house rules' 4th administrative divisions are the quadrants NE/NW/SE/SW, split
  east-west by North Husband Street and north-south by McElroy Road; each line is
  extended straight beyond its mapped ends to the city limits.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import LineString, MultiPolygon, Point, Polygon
from shapely.ops import split

from hideseek_chat.geo.imports import import_geojson
from hideseek_chat.geo.mappack import Feature, MapPack, Station, pack_to_geojson

TITLE = "Stillwater, OK (OSU bus network)"
ATTRIBUTION = (
    "Map data: OpenStreetMap contributors (ODbL 1.0), merged with a curated Google My Maps "
    "layer by the public jet_lag_stillwater project."
)
QUADRANT_KIND = "admin-4"
EAST_WEST_DIVIDER = "North Husband Street"
NORTH_SOUTH_DIVIDERS = ("West McElroy Road", "East McElroy Road")

_STOP = re.compile(
    r"^\s*\*?\s*(?P<name>.*?)\s*(?:\((?P<number>\d+)\))?\s*(?:\((?P<routes>[^()]*)\))?\s*$"
)


def parse_stop_name(text: str) -> tuple[str, str, tuple[str, ...]]:
    """Split a Stillwater stop name into (name, stop number or "", routes)."""
    match = _STOP.match(text)
    assert match is not None  # every string matches: all parts are optional
    routes = tuple(r.strip() for r in (match["routes"] or "").split(",") if r.strip())
    return match["name"], match["number"] or "", routes


def build_stillwater_pack(source_dir: str | Path) -> MapPack:
    """Build the pack from ``base.geojson`` and ``poi.geojson`` in ``source_dir``."""
    source = Path(source_dir)
    base = json.loads((source / "base.geojson").read_text(encoding="utf-8"))
    poi = json.loads((source / "poi.geojson").read_text(encoding="utf-8"))
    stations: list[Station] = []
    seen: dict[str, int] = {}
    others = []
    for item in poi["features"]:
        props = item["properties"]
        if props["kind"] != "bus-stop":
            others.append(item)
            continue
        name, number, routes = parse_stop_name(props["name"] or "")
        key = number or name
        seen[key] = seen.get(key, 0) + 1
        station_id = key if seen[key] == 1 else f"{key}-{seen[key]}"
        lon, lat = item["geometry"]["coordinates"]
        stations.append(Station(station_id, name, lat, lon, routes))
    merged = {"type": "FeatureCollection", "features": base["features"] + others}
    imported = import_geojson(merged, name="stillwater", title=TITLE, attribution=ATTRIBUTION)
    roads = imported.features_of("road")
    quadrants = quadrant_divisions(imported.boundary, roads)
    boundary = imported.boundary
    shapely.prepare(boundary)
    inside = tuple(s for s in stations if boundary.covers(Point(s.lon, s.lat)))
    return MapPack(
        name="stillwater",
        title=TITLE,
        attribution=ATTRIBUTION,
        country="US",
        boundary=boundary,
        stations=inside,
        features=imported.features + quadrants,
        kinds=imported.kinds | {QUADRANT_KIND},
    )


def _divider(roads: tuple[Feature, ...], names: tuple[str, ...], axis: int) -> np.ndarray:
    """All vertices of the named roads, sorted along ``axis`` (0 lon, 1 lat)."""
    coords = np.concatenate([shapely.get_coordinates(f.geometry) for f in roads if f.name in names])
    coords = np.unique(coords, axis=0)
    return coords[np.argsort(coords[:, axis], kind="stable")]


def quadrant_divisions(
    boundary: Polygon | MultiPolygon, roads: tuple[Feature, ...]
) -> tuple[Feature, ...]:
    """Split the boundary into NE/NW/SE/SW along Husband Street and McElroy Road."""
    mcelroy = _divider(roads, NORTH_SOUTH_DIVIDERS, 0)
    husband = _divider(roads, (EAST_WEST_DIVIDER,), 1)
    if len(mcelroy) < 2 or len(husband) < 2:
        raise ValueError("the quadrant roads are missing from the map data")
    far = 1.0  # degrees: well beyond the city limits
    ns_line = LineString(
        [
            (mcelroy[0, 0] - far, mcelroy[0, 1]),
            *map(tuple, mcelroy),
            (mcelroy[-1, 0] + far, mcelroy[-1, 1]),
        ]
    )
    ew_line = LineString(
        [
            (husband[0, 0], husband[0, 1] - far),
            *map(tuple, husband),
            (husband[-1, 0], husband[-1, 1] + far),
        ]
    )

    def label(point: Point) -> str:
        north = point.y > np.interp(point.x, mcelroy[:, 0], mcelroy[:, 1])
        east = point.x > np.interp(point.y, husband[:, 1], husband[:, 0])
        return ("N" if north else "S") + ("E" if east else "W")

    pieces: dict[str, list[Polygon]] = {}
    for polygon in getattr(boundary, "geoms", [boundary]):
        for piece in split(polygon, shapely.union(ns_line, ew_line)).geoms:
            pieces.setdefault(label(piece.representative_point()), []).append(piece)
    return tuple(
        Feature(QUADRANT_KIND, name, shapely.union_all(pieces[name]))
        for name in ("NE", "NW", "SE", "SW")
        if name in pieces
    )


def main(argv: list[str]) -> None:
    """Rebuild the shipped pack: ``python -m hideseek_chat.geo.stillwater SRC_DIR``."""
    pack = build_stillwater_pack(argv[0])
    target = Path(__file__).parent / "maps" / "stillwater" / "pack.geojson"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(pack_to_geojson(pack), separators=(",", ":")), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
