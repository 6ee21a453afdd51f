"""Areas of the map by nearest feature, for turning answers into regions: the cell of a
place (matching "same nearest <kind>", tentacles), of a street name (matching "street"),
the band within a distance of a kind (measuring), and the division holding a point.

Lon/lat in and out, clipped to the pack's boundary; built on ``geo.voronoi``'s diagrams.
Achieved precision, checked against a geodesic brute force in tests/geo/test_geo_cells.py:
a point at least 1 m from an edge is on the side the brute force says, on a 15 km city and
a 1000 km country alike; cell outlines are exact at their vertices and edges stray less
than ``geo.newton.SAGITTA_M`` (0.1 m), band arcs less than 0.5 m, from the geodesic
curve.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from hideseek_chat.geo.distance import WGS84
from hideseek_chat.geo.mappack import ROAD_KIND, Feature
from hideseek_chat.geo.newton import measure, nearest_on, polygonal
from hideseek_chat.geo.spatial import LocalProjection, MapIndex
from hideseek_chat.geo.voronoi import (
    EARTH_RADIUS_M,
    EXACT_M,
    PARTS,
    UNBENT_M,
    Kept,
    around,
    diagram_for,
    kept,
    kind_diagram,
    near_map,
    projection_shift_m,
    to_map,
)

#: How many distance bands are kept (a band is per index, kind and distance).
BANDS_KEPT = 64
# A buffer's arcs stray at most this from the circle (the contract allows 1 m), with at
# most this many segments per quarter circle (enough for a 100 km band).
_BAND_SAGITTA_M = 0.5
_MAX_QUAD_SEGS = 400
# From this many points a band is drawn from their Voronoi cells (cheaper than a union of
# as many discs); flat cells are grown by this much so neighbours overlap.
_CELLS_FOR_BAND = 50
_FLAT_GROW_M = 0.01
# A disc drawn from the projection's linear part is kept when no sampled vertex is off
# the geodesic circle by more than this (metres).
_DISC_CHECK_M = 0.05

_BANDS = Kept(BANDS_KEPT)


Bounds = tuple[float, float, float, float]


def place_cell(
    index: MapIndex,
    kind: str,
    place: Feature,
    among: Sequence[Feature] | None = None,
    bounds: Bounds | None = None,
) -> BaseGeometry:
    """Return where ``place``'s place is the nearest place of ``kind`` (lon/lat, in the map).

    ``place`` must be one of the index's features of ``kind``. ``among`` limits the rivals
    to these features' places (a tentacle's places within reach); every row of each place
    counts, as ``MapIndex.same_place`` groups them. With ``bounds`` (a lon/lat box) the
    cell is exact only inside the box, and cheaper to draw.
    """
    layer = index._layer(kind)
    places = layer.places
    own = _place_number(layer.items, places, place)
    if among is None:
        return kind_diagram(index, kind).cell(own, bounds)
    wanted = {own} | {_place_number(layer.items, places, f) for f in among}
    by_place = _place_rows(index, kind)
    rows = sorted(n for number in wanted for n in by_place[number])
    key = ("among", kind, frozenset(wanted))
    diagram = diagram_for(
        index,
        key,
        lambda: ([layer.projected[n] for n in rows], [places[id(layer.items[n])] for n in rows]),
    )
    return diagram.cell(own, bounds)


def street_cell(index: MapIndex, name: str, bounds: Bounds | None = None) -> BaseGeometry:
    """Return where the nearest named road is called ``name`` (any case; lon/lat, in the map);
    empty when no road has that name. ``bounds`` as for :func:`place_cell`."""
    layer = index._layer(ROAD_KIND, named_only=True)
    diagram = diagram_for(
        index,
        ("street",),
        lambda: (layer.projected, [_street_key(f.name) for f in layer.items]),
    )
    return diagram.cell(_street_key(name), bounds)


def distance_band(
    index: MapIndex, kind: str, distance_m: float, bounds: Bounds | None = None
) -> BaseGeometry:
    """Return where the nearest feature of ``kind`` is at most ``distance_m`` away (lon/lat,
    in the map): the union of the features' geodesic buffers. Empty when there is none.

    With ``bounds`` (a lon/lat box) the band is exact only inside the box: only the
    features within reach of it are drawn, which is far cheaper late in a game.
    """
    # The box is the key, not the features in reach of it: the band is clipped to the box,
    # so one drawn for a smaller box with the same features in reach lacks what lies outside.
    return kept(
        _BANDS,
        index,
        ("band", kind, float(distance_m), bounds),
        lambda: _band(
            index, kind, distance_m, _within_reach(index, kind, distance_m, bounds), bounds
        ),
    )


def _within_reach(
    index: MapIndex, kind: str, distance: float, bounds: Bounds | None
) -> np.ndarray | None:
    """Which of the kind's features lie within ``distance`` of a lon/lat box (None: all)."""
    if bounds is None:
        return None
    layer = index._layer(kind)
    if not layer.items:
        return None
    west, south, east, north = bounds
    # Short lon/lat edges stay close to their projected image; a 100 m slack covers the rest.
    outline = shapely.segmentize(shapely.box(west, south, east, north), 0.01)
    area = index.projection.geometry(outline)
    projection = index.projection
    # Projected distances overstate geodesic ones by at most ``k``: never too few features.
    k = projection.scale_bound(projection.lat, projection.lon)
    if math.isinf(k):
        return None
    geometries = kept(PARTS, index, ("projected", kind), lambda: _array(layer.projected))
    shapely.prepare(area)  # thousands of features against one outline of hundreds of edges
    near = np.asarray(shapely.dwithin(area, geometries, k * distance * 1.01 + 100.0))
    return None if near.all() else near


def _array(items: Sequence[BaseGeometry]) -> np.ndarray:
    array = np.empty(len(items), dtype=object)
    array[:] = list(items)
    return array


def division_of(index: MapIndex, subject: str, lat: float, lon: float) -> BaseGeometry | None:
    """Return the division (``admin-1`` .. ``admin-4``, ``landmass``, ``zone``) polygon
    containing the point, clipped to the map (lon/lat), or None when none contains it."""
    feature, _ = index.containing(subject, lat, lon)
    if feature is None:
        return None
    return feature.geometry.intersection(index.pack.boundary)


def _band(
    index: MapIndex, kind: str, distance: float, reach: np.ndarray | None, bounds: Bounds | None
) -> BaseGeometry:
    layer = index._layer(kind)
    if not layer.items or distance < 0 or (reach is not None and not reach.any()):
        return Polygon()
    geometries = np.empty(len(layer.projected), dtype=object)
    geometries[:] = list(layer.projected)
    # Parts far outside the box need not be carried back to lon/lat.
    within = None if bounds is None else around(index, bounds)
    if len(geometries) >= _CELLS_FOR_BAND and layer.all_points:
        return to_map(index, _point_band(index, kind, distance, reach), within)
    if reach is not None:
        geometries = geometries[reach]
    return to_map(
        index, shapely.disjoint_subset_union_all(_buffers(index, geometries, distance)), within
    )


def _buffers(index: MapIndex, geometries: np.ndarray, distance: float) -> np.ndarray:
    """Each projected geometry's geodesic buffer (in the projection)."""
    # Enough segments that an arc's chord strays less than _BAND_SAGITTA_M from the circle.
    step = 2 * math.acos(max(-1.0, 1 - _BAND_SAGITTA_M / max(distance, _BAND_SAGITTA_M)))
    quad_segs = max(4, min(_MAX_QUAD_SEGS, math.ceil(math.pi / 2 / step)))
    buffers = shapely.buffer(geometries, distance, quad_segs=quad_segs)
    if projection_shift_m(index) >= EXACT_M:
        buffers = _geodesic_buffers(index.projection, geometries, buffers, distance)
    return np.asarray(buffers, dtype=object)


def _point_band(
    index: MapIndex, kind: str, distance: float, subset: np.ndarray | None
) -> BaseGeometry:
    """The band of many points from their Voronoi cells: a cell well inside its point's
    disc is in the band whole, and only the other points' discs are drawn, each cut to its
    cell grown by what the projection can move a bisector (so neighbours overlap and no
    gap opens where the projected cells are off the geodesic ones).

    ``subset`` keeps only some points' cells: where the nearest point is one of them the
    band is whole, which is everywhere within ``distance`` of the kept ones' area."""
    diagram = kind_diagram(index, kind)
    sites = diagram.point_xy[diagram.owner]
    cells = diagram.cells.copy()
    if subset is not None:
        chosen = subset[diagram.owner]
        sites, cells = sites[chosen], cells[chosen]
    # Cells at the edge reach out to the diagram's frame: only the part in the map counts.
    inside_map = near_map(index)
    out = ~shapely.contains(inside_map, cells)
    cells[out] = shapely.intersection(cells[out], inside_map)
    coords, owner = shapely.get_coordinates(cells, return_index=True)
    reach = np.zeros(len(cells))
    np.maximum.at(reach, owner, np.hypot(*(coords - sites[owner]).T))
    kept = ~shapely.is_empty(cells)
    cells, sites, reach = cells[kept], sites[kept], reach[kept]
    if diagram.flat:
        grow, shrink = _FLAT_GROW_M, 0.0
    else:
        # Scale error of the projection at the farthest cell (see projection_shift_m).
        angle = (float(np.hypot(*sites.T).max()) + float(reach.max())) / EARTH_RADIUS_M
        scale_error = 2 * angle**2 / 6
        grow = 2 * scale_error * float(reach.max()) + 1.0
        shrink = 2 * scale_error * distance
    inside = reach + 3 * grow <= distance - shrink - _BAND_SAGITTA_M
    parts: list[BaseGeometry] = []
    if inside.any():
        parts.append(shapely.coverage_union_all(cells[inside]))
    edge = np.nonzero(~inside)[0]
    if len(edge) == 0:
        return parts[0]
    discs = _point_discs(index, sites[edge], distance)
    # A disc clear of its cell's edges overlaps nothing: it needs no cut and no union.
    room = shapely.distance(shapely.points(sites[edge]), shapely.boundary(cells[edge]))
    alone = room >= distance * (1 + shrink / max(distance, 1.0)) + 2 * grow + 1.0
    if (~alone).any():
        crowded = edge[~alone]
        grown = shapely.buffer(cells[crowded], grow, quad_segs=1, join_style="mitre")
        parts.extend(shapely.intersection(grown, discs[~alone]))
    joined = (
        shapely.get_parts(shapely.disjoint_subset_union_all(parts))
        if parts
        else np.empty(0, dtype=object)
    )
    polygons = np.concatenate([joined, discs[alone]])
    return shapely.multipolygons(polygons[~shapely.is_empty(polygons)])


def _point_discs(index: MapIndex, sites: np.ndarray, distance: float) -> np.ndarray:
    """Geodesic discs around projected points, drawn in the projection.

    Each disc is the circle mapped through the projection's local linear part at its
    centre (found by central differences), which is off by a second-order term only; a
    sample of vertices is measured geodesically and, should that term exceed
    :data:`_DISC_CHECK_M` (large distances far from the centre), every vertex is moved
    onto the geodesic circle.
    """
    projection = index.projection
    count = len(sites)
    lonlat = projection.to_lonlat_array(sites)
    step = 200.0
    lon, lat = np.repeat(lonlat[:, 0], 4), np.repeat(lonlat[:, 1], 4)
    azimuth = np.tile([90.0, 270.0, 0.0, 180.0], count)
    lon2, lat2, _ = WGS84.fwd(lon, lat, azimuth, np.full(len(lon), step))
    moved = projection._project_array(np.column_stack([lon2, lat2])).reshape(count, 4, 2)
    east = (moved[:, 0] - moved[:, 1]) / (2 * step)
    north = (moved[:, 2] - moved[:, 3]) / (2 * step)
    arc = 2 * math.acos(max(-1.0, 1 - _BAND_SAGITTA_M / max(distance, _BAND_SAGITTA_M)))
    corners = 4 * max(4, min(_MAX_QUAD_SEGS, math.ceil(math.pi / 2 / arc)))
    angle = np.linspace(0.0, 2 * math.pi, corners + 1)
    # (count, corners + 1, 2): centre + east * D cos + north * D sin; the last closes.
    ring = (
        sites[:, None, :]
        + east[:, None, :] * (distance * np.cos(angle))[None, :, None]
        + north[:, None, :] * (distance * np.sin(angle))[None, :, None]
    )
    discs = shapely.polygons(ring)
    sample = np.arange(0, count, max(1, count // 50))
    # The error term varies smoothly around a circle: 32 vertices per disc show its peak.
    stride = max(1, corners // 32)
    check_xy = ring[sample, :-1:stride].reshape(-1, 2)
    centres = np.repeat(lonlat[sample], len(range(0, corners, stride)), axis=0)
    there = projection.to_lonlat_array(check_xy)
    measured = np.asarray(WGS84.inv(centres[:, 0], centres[:, 1], there[:, 0], there[:, 1])[2])
    if float(np.abs(measured - distance).max()) > _DISC_CHECK_M:
        discs = _geodesic_buffers(projection, shapely.points(sites), discs, distance)
    return np.asarray(discs, dtype=object)


def _geodesic_buffers(
    projection: LocalProjection, geometries: np.ndarray, buffers: np.ndarray, distance: float
) -> np.ndarray:
    """Buffers drawn in the projection, each vertex moved along its ray from the feature's
    nearest point until its geodesic distance is ``distance`` (the projection's scale is
    off by up to ~0.4 % at 1000 km; a second pass leaves well under a centimetre)."""
    # Split long edges first: along a 50 km side the projection's scale changes too.
    buffers = shapely.segmentize(buffers, UNBENT_M)
    xy, owner = shapely.get_coordinates(buffers, return_index=True)
    points = shapely.get_type_id(geometries) == 0
    centre = np.full((len(geometries), 2), np.nan)
    centre[points] = shapely.get_coordinates(geometries[points])
    centre_lonlat = np.full_like(centre, np.nan)
    if points.any():
        centre_lonlat[points] = projection.to_lonlat_array(centre[points])
    on_point = points[owner]
    for _ in range(2):
        near = centre[owner]
        near_lonlat = centre_lonlat[owner]
        if not on_point.all():
            lines = ~on_point
            near[lines] = nearest_on(geometries[owner[lines]], xy[lines])
            near_lonlat[lines] = projection.to_lonlat_array(near[lines])
        measured, unit = measure(projection, False, xy, near, near_lonlat)
        length = np.hypot(*(xy - near).T)
        scale = np.divide(length, measured, out=np.ones_like(length), where=measured > 0)
        xy = near + unit * (distance * scale)[:, None]
    moved = shapely.set_coordinates(buffers.copy(), xy)
    fixed = [g if g.is_valid else polygonal(shapely.make_valid(g)) for g in moved]
    return np.array(fixed, dtype=object)


def _place_rows(index: MapIndex, kind: str) -> dict[int, list[int]]:
    """The layer's row numbers of each place of a kind, kept per index."""

    def build() -> dict[int, list[int]]:
        layer = index._layer(kind)
        rows: dict[int, list[int]] = {}
        for n, feature in enumerate(layer.items):
            rows.setdefault(layer.places[id(feature)], []).append(n)
        return rows

    return kept(PARTS, index, ("rows", kind), build)


def _street_key(name: str) -> str:
    return name.casefold()


def _place_number(items: Sequence[Feature], places: dict[int, int], feature: Feature) -> int:
    number = places.get(id(feature))
    if number is not None:
        return number
    for item in items:  # an equal feature from another copy of the pack
        if item == feature:
            return places[id(item)]
    raise ValueError(f"not a feature of this map: {feature.name!r}")
