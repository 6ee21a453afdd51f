"""Lon/lat geometries as Web Mercator coordinates, for whoever draws a map (``pictures``).

"World units" are the slippy-map tile scheme's: the whole Mercator square is 0..1 on both
axes, x growing east from the antimeridian, y growing south from about 85.05° N. A tile
``(z, x, y)`` covers ``[x, x+1) / 2**z`` by ``[y, y+1) / 2**z``.

Only plain numpy arrays leave this module, so drawing code needs no shapely. A map that
straddles the antimeridian is not handled (its x would jump from 1 to 0).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import shapely
from shapely.geometry import LinearRing, LineString, MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from hideseek_chat.geo.distance import WGS84

#: Web Mercator's latitude limit: the square's top and bottom edges.
MAX_LAT = 85.05112878

#: One ring (exterior or hole) or line: an (n, 2) array of world x, y.
Path = np.ndarray


def to_world(lons: np.ndarray, lats: np.ndarray) -> np.ndarray:
    """Project lon/lat arrays (degrees) to an (n, 2) array of world units."""
    lats = np.clip(np.asarray(lats, dtype=float), -MAX_LAT, MAX_LAT)
    x = (np.asarray(lons, dtype=float) + 180.0) / 360.0
    phi = np.radians(lats)
    y = (1.0 - np.log(np.tan(phi) + 1.0 / np.cos(phi)) / math.pi) / 2.0
    return np.column_stack([x, y])


def point_world(lat: float, lon: float) -> tuple[float, float]:
    """Project one point to world units."""
    x, y = to_world(np.array([lon]), np.array([lat]))[0]
    return float(x), float(y)


def world_to_lonlat(x: float, y: float) -> tuple[float, float]:
    """Return the ``(lon, lat)`` at a point given in world units."""
    lon = x * 360.0 - 180.0
    lat = math.degrees(math.atan(math.sinh(math.pi * (1.0 - 2.0 * y))))
    return lon, lat


def _coords_world(coords: np.ndarray) -> Path:
    return to_world(coords[:, 0], coords[:, 1])


def polygons_world(geometry: BaseGeometry) -> list[list[Path]]:
    """Return the polygons of an area as ``[exterior, *holes]`` in world units, largest first.

    Filling them in this order (exterior on, then its holes off) draws the area right even
    when a smaller polygon lies inside a larger one's hole. Lines and points are left out.
    """
    polygons = [g for g in _parts(geometry) if isinstance(g, Polygon) and not g.is_empty]
    polygons.sort(key=lambda p: -p.area)
    return [
        [_coords_world(shapely.get_coordinates(ring)) for ring in (p.exterior, *p.interiors)]
        for p in polygons
    ]


def lines_world(geometries: Iterable[BaseGeometry]) -> list[Path]:
    """Return every line of the geometries (polygons give their rings) in world units."""
    lines: list[BaseGeometry] = []
    for geometry in geometries:
        for part in _parts(geometry):
            if isinstance(part, Polygon):
                lines.extend([part.exterior, *part.interiors])
            elif isinstance(part, LineString | LinearRing):
                lines.append(part)
    lines = [line for line in lines if len(line.coords) >= 2]
    if not lines:
        return []
    # One projection call for all the lines: a map has thousands of short roads.
    coords, index = shapely.get_coordinates(lines, return_index=True)
    world = _coords_world(coords)
    cuts = np.flatnonzero(np.diff(index)) + 1
    return list(np.split(world, cuts))


def stations_world(points: Sequence[tuple[float, float]]) -> np.ndarray:
    """Project ``(lat, lon)`` pairs to an (n, 2) array of world units."""
    if not points:
        return np.zeros((0, 2))
    array = np.asarray(points, dtype=float)
    return to_world(array[:, 1], array[:, 0])


def geodesic_circle_world(lat: float, lon: float, radius_m: float, steps: int = 256) -> Path:
    """Return the geodesic circle of ``radius_m`` around a point, as a ring in world units."""
    bearings = np.linspace(0.0, 360.0, steps, endpoint=False)
    lons, lats, _ = WGS84.fwd(
        np.full(steps, lon), np.full(steps, lat), bearings, np.full(steps, radius_m)
    )
    ring = to_world(np.asarray(lons), np.asarray(lats))
    return np.vstack([ring, ring[:1]])


def bounds_world(geometry: BaseGeometry) -> tuple[float, float, float, float]:
    """Return ``(min x, min y, max x, max y)`` of a geometry in world units."""
    west, south, east, north = geometry.bounds
    (x0, y1), (x1, y0) = to_world(np.array([west, east]), np.array([south, north]))
    return float(x0), float(y0), float(x1), float(y1)


def metres_per_world_unit(lat: float) -> float:
    """Return how many metres on the ground one world unit east-west spans at ``lat``."""
    return float(2 * math.pi * WGS84.a * math.cos(math.radians(lat)))


def _parts(geometry: BaseGeometry) -> list[BaseGeometry]:
    if geometry.is_empty:
        return []
    if isinstance(geometry, MultiPolygon) or hasattr(geometry, "geoms"):
        return [p for g in geometry.geoms for p in _parts(g)]  # type: ignore[attr-defined]
    return [geometry]
