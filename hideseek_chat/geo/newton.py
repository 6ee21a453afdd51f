"""Newton steps onto the bisectors between a diagram's features (``geo.bisectors``), and
the distances they run on: from points to features as ``MapIndex.nearest`` measures them
(points exactly; lines and polygons from their nearest point in the projection, then
geodesically; inside a polygon negative), vectorized.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from hideseek_chat.geo.distance import WGS84
from hideseek_chat.geo.spatial import LocalProjection

if TYPE_CHECKING:
    from hideseek_chat.geo.voronoi import Diagram

#: A cell's edge is split until it strays less than this from the bisector (metres).
SAGITTA_M = 0.1
# Newton halves the error each step where a bisector touches rather than crosses (a line
# ending on another line: the "bisector" is a ray of ties), hence more than the two or
# three steps a crossing needs.
_NEWTON_STEPS = 16
# The distance difference deemed solved (metres).
_CONVERGED_M = 1e-4


def newton(
    diagram: Diagram,
    xy: np.ndarray,
    mine: tuple[np.ndarray, np.ndarray],
    rival: tuple[np.ndarray, np.ndarray],
    second: np.ndarray,
    noise: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Move points onto the bisector of their own and rival place (each place's
    distance the smaller of its two given features'), or, where a second rival is
    given, onto the point where all three meet; a difference under ``noise`` times the
    distance counts as none. Say which points got there: those that never saw the
    difference change sign nor reach zero have no bisector near."""
    xy = xy.copy()
    active = np.nonzero((mine[0] >= 0) & (rival[0] >= 0))[0]
    solved = np.zeros(len(xy), dtype=bool)
    # Where the rival's nearest spot jumps between two parts of it (a corner of the
    # cell), Newton bounces across the kink for ever. Once a point has been seen on
    # both sides, it is looked for between the two instead (false position, halving
    # when that stalls). On a country map the measure itself can jump there (the
    # nearest spot is found in the projection: two parts at equal projected distance
    # differ geodesically by up to ~0.04 %), and the point ends on the jump.
    below = np.full_like(xy, np.nan)  # a point where my place is nearer (f < 0)
    above = np.full_like(xy, np.nan)  # and one where the rival is (f > 0)
    f_below = np.full(len(xy), np.nan)
    f_above = np.full(len(xy), np.nan)
    for _ in range(_NEWTON_STEPS):
        if len(active) == 0:
            break
        at = xy[active]
        here = None if diagram.flat else diagram.projection.to_lonlat_array(at)
        d_mine, u_mine, d_rival, u_rival = nearer(
            diagram,
            at,
            (mine[0][active], mine[1][active]),
            (rival[0][active], rival[1][active]),
            here,
        )
        g1 = u_mine - u_rival
        f1 = d_mine - d_rival
        step = line_step(g1, f1)
        triple = second[active] >= 0
        if triple.any():
            d_second, u_second = distances(
                diagram,
                at[triple],
                second[active][triple],
                None if here is None else here[triple],
            )
            g2 = u_mine[triple] - u_second
            f2 = d_mine[triple] - d_second
            step[triple] = _point_step(g1[triple], f1[triple], g2, f2, step[triple])
            f1[triple] = np.maximum(np.abs(f1[triple]), np.abs(f2))
        line = ~triple
        negative = line & (f1 < 0)
        positive = line & (f1 > 0)
        below[active[negative]] = at[negative]
        f_below[active[negative]] = f1[negative]
        above[active[positive]] = at[positive]
        f_above[active[positive]] = f1[positive]
        both = line & ~np.isnan(f_below[active]) & ~np.isnan(f_above[active])
        if both.any():
            rows = active[both]
            share = f_below[rows] / (f_below[rows] - f_above[rows])
            share = np.where((share < 0.1) | (share > 0.9), 0.5, share)
            target = below[rows] + (above[rows] - below[rows]) * share[:, None]
            step[both] = target - at[both]
        # A point already on its bisector stays there (the bracket would move it).
        done = np.abs(f1) <= _CONVERGED_M + noise * np.abs(d_rival)
        step[done] = 0.0
        # A step longer than the distances involved means no crossing near here.
        limit = 0.5 * np.maximum(np.abs(d_mine), np.abs(d_rival)) + diagram.spacing
        length = np.hypot(step[:, 0], step[:, 1])
        step[length > limit] = 0.0
        xy[active] = at + step
        solved[active[done]] = True
        active = active[~done & (length <= limit)]
    # A point left on a jump of the measure (see above) lies between both signs.
    solved |= np.hypot(*(above - below).T) <= SAGITTA_M
    return xy, solved


def nearer(
    diagram: Diagram,
    xy: np.ndarray,
    mine: tuple[np.ndarray, np.ndarray],
    rival: tuple[np.ndarray, np.ndarray],
    here: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Distance and unit vector to my place and to the rival's, each the nearer of
    its two features (measured in one call: most calls are small)."""
    count = len(xy)
    other_mine = np.nonzero(mine[0] != mine[1])[0]
    other_rival = np.nonzero(rival[0] != rival[1])[0]
    rows = np.concatenate([np.arange(count), np.arange(count), other_mine, other_rival])
    feature = np.concatenate([mine[0], rival[0], mine[1][other_mine], rival[1][other_rival]])
    distance, unit = distances(diagram, xy[rows], feature, None if here is None else here[rows])
    d_mine, u_mine = distance[:count], unit[:count]
    d_rival, u_rival = distance[count : 2 * count], unit[count : 2 * count]
    cut = 2 * count + len(other_mine)
    _take_nearer(d_mine, u_mine, other_mine, distance[2 * count : cut], unit[2 * count : cut])
    _take_nearer(d_rival, u_rival, other_rival, distance[cut:], unit[cut:])
    return d_mine, u_mine, d_rival, u_rival


def distances(
    diagram: Diagram, xy: np.ndarray, feature: np.ndarray, here: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Distance from each point to its feature as ``MapIndex`` measures it, and the
    projected unit vector from the feature's nearest point towards the point (``here``:
    the points in lon/lat, when known)."""
    near = diagram.point_xy[feature]
    near_lonlat = None if diagram.flat else diagram.point_lonlat[feature]
    lines = ~diagram.is_point[feature]
    if lines.any():
        near = near.copy()
        near[lines] = nearest_on(diagram.outlines[feature[lines]], xy[lines])
        if near_lonlat is not None:
            near_lonlat = near_lonlat.copy()
            near_lonlat[lines] = diagram.projection.to_lonlat_array(near[lines])
    distance, unit = measure(diagram.projection, diagram.flat, xy, near, near_lonlat, here)
    if diagram.polygonal:
        # Inside a polygon the distance is 0 for MapIndex; negative here, so a rival's
        # outline that strayed inside has a slope to leave by.
        rows = np.nonzero(diagram.is_polygonal[feature])[0]
        inside = shapely.contains_xy(diagram.geometries[feature[rows]], xy[rows, 0], xy[rows, 1])
        flip = rows[inside]
        distance[flip] *= -1
        unit[flip] *= -1
    return distance, unit


def distances_only(
    diagram: Diagram,
    xy: np.ndarray,
    feature: np.ndarray,
    here: np.ndarray | None = None,
    points: np.ndarray | None = None,
) -> np.ndarray:
    """:func:`distances` without the unit vectors (on a small map, straight from GEOS;
    ``points``: the points as geometries, when made already)."""
    if not diagram.flat:
        return distances(diagram, xy, feature, here)[0]
    points = shapely.points(xy) if points is None else points
    distance = np.asarray(shapely.distance(diagram.outlines[feature], points))
    if diagram.polygonal:
        rows = np.nonzero(diagram.is_polygonal[feature])[0]
        inside = shapely.contains_xy(diagram.geometries[feature[rows]], xy[rows, 0], xy[rows, 1])
        distance[rows[inside]] *= -1
    return distance


def nearest_on(geometries: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """The nearest point of each (projected) geometry to each point."""
    links = shapely.shortest_line(geometries, shapely.points(xy))
    return shapely.get_coordinates(shapely.get_point(links, 0))


def measure(
    projection: LocalProjection,
    flat: bool,
    xy: np.ndarray,
    near: np.ndarray,
    near_lonlat: np.ndarray | None = None,
    here_lonlat: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Distance from each point to its given nearest point (geodesic unless ``flat``), and
    the projected unit vector from the nearest point towards the point. Either point's
    lon/lat may be given when known (it saves a transform)."""
    offset = xy - near
    length = np.hypot(offset[:, 0], offset[:, 1])
    unit = np.divide(
        offset, length[:, None], out=np.zeros_like(offset), where=length[:, None] > 0
    )
    if flat:
        return length, unit
    here = projection.to_lonlat_array(xy) if here_lonlat is None else here_lonlat
    there = projection.to_lonlat_array(near) if near_lonlat is None else near_lonlat
    distance = np.asarray(
        WGS84.inv(here[:, 0], here[:, 1], there[:, 0], there[:, 1])[2], dtype=float
    )
    return distance, unit


def polygon_parts(geometries: np.ndarray | BaseGeometry) -> np.ndarray:
    """The non-empty polygons of geometries, each multi-part or collection taken apart (an
    overlay can leave stray lines and points, and a collection can hold multipolygons)."""
    parts = shapely.get_parts(shapely.get_parts(geometries))
    polygons: np.ndarray = parts[(shapely.get_type_id(parts) == 3) & ~shapely.is_empty(parts)]
    return polygons


def polygonal(geometry: BaseGeometry) -> BaseGeometry:
    """The polygons of a geometry (an overlay can leave stray lines and points)."""
    if geometry.geom_type in ("Polygon", "MultiPolygon"):
        return geometry
    parts = [g for g in shapely.get_parts(geometry) if g.geom_type in ("Polygon", "MultiPolygon")]
    if not parts:
        return Polygon()
    return shapely.union_all(parts)


def _take_nearer(
    distance: np.ndarray, unit: np.ndarray, rows: np.ndarray, d2: np.ndarray, u2: np.ndarray
) -> None:
    """Where the rows' other feature (``d2``, ``u2``) is nearer, take it (in place)."""
    closer = d2 < distance[rows]
    distance[rows[closer]] = d2[closer]
    unit[rows[closer]] = u2[closer]


def line_step(g: np.ndarray, f: np.ndarray) -> np.ndarray:
    """The Newton step onto one bisector: along the gradient, by f / |g|."""
    norm = (g * g).sum(axis=1)
    scale = np.divide(-f, norm, out=np.zeros_like(f), where=norm > 1e-9)
    return g * scale[:, None]


def _point_step(
    g1: np.ndarray, f1: np.ndarray, g2: np.ndarray, f2: np.ndarray, fallback: np.ndarray
) -> np.ndarray:
    """The Newton step onto two bisectors at once (where three places meet)."""
    det = g1[:, 0] * g2[:, 1] - g1[:, 1] * g2[:, 0]
    ok = np.abs(det) > 1e-6
    safe = np.where(ok, det, 1.0)
    dx = (-f1 * g2[:, 1] + f2 * g1[:, 1]) / safe
    dy = (-g1[:, 0] * f2 + g2[:, 0] * f1) / safe
    return np.where(ok[:, None], np.column_stack([dx, dy]), fallback)
