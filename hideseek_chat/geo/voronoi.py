"""Labelled Voronoi diagrams of a map's features, made exact geodesically: the engine
behind ``geo.cells``. Work is in the pack's azimuthal equidistant projection
(``MapIndex.projection``); results go back to lon/lat clipped to the pack's boundary.

- Every feature becomes sample points: a point is itself, a line or a polygon's outline is
  split every :data:`SPACING_M` metres. ``shapely.voronoi_polygons`` of the samples,
  labelled (by place, by street name), gives each label its cells; their union is the
  label's cell. A diagram is built once per (index, kind) and kept (bounded caches).
- The projection bends bisectors (its scale reaches ~1.004 at 1000 km from the centre,
  which moves a bisector of points 60 km apart by ~100 m), and samples stand in for whole
  lines. So each vertex of a cell's outline is moved onto the geodesic bisector by Newton
  steps on "distance to my label minus distance to the rival label", measured as
  ``MapIndex.nearest`` measures it (points exactly; lines and polygons from their nearest
  point, then geodesically). Where three labels meet, the vertex is solved on both
  bisectors at once. Then each edge's midpoint is solved too and, where it lies more than
  :data:`SAGITTA_M` off the chord, kept as a new vertex, until no edge strays that far.
- On a map small enough that the projection cannot move a bisector by :data:`EXACT_M`
  (a city), distances are taken in the projection, and cells of points skip the step.

So a cell's outline is exact at its vertices and strays less than :data:`SAGITTA_M` from
the bisector between them. Ties are left as they fall: where one street ends on another,
the points whose nearest spot on both is that corner are as near to each other. Known
limit: on a country-size map, where ``MapIndex``'s measure of a line jumps (see
``_newton``), an edge next to the jump can stray a few metres (seen once in ~3,800
checks on generated rivers 100 km long).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry import Polygon, box
from shapely.geometry.base import BaseGeometry

from hideseek_chat.geo.distance import WGS84
from hideseek_chat.geo.spatial import LocalProjection, MapIndex

#: Lines and polygon outlines are sampled this often (projected metres).
SPACING_M = 10.0
#: A cell's edge is split until it strays less than this from the bisector (metres).
SAGITTA_M = 0.1
#: Cells of points skip the exact step when the projection moves a bisector less than this.
EXACT_M = 0.05
#: How many (index, kind) diagrams and how many finished cells each diagram keeps.
#: (A diagram of 8,500 points holds ~3 MB; Stillwater's streets, 12,600 samples, ~18 MB.)
DIAGRAMS_KEPT = 12
#: Tentacles' diagrams (a handful of places each) kept apart from whole kinds'.
AMONG_KEPT = 64
CELLS_KEPT = 512
CLIP_MARGIN_M = 2_000.0  # a cell drawn within a box is cut this far (metres) outside it
#: A diagram holds at most about this many samples (long lines are sampled sparser).
MAX_SAMPLES = 40_000

EARTH_RADIUS_M = 6_371_008.8
# Newton halves the error each step where a bisector touches rather than crosses (a line
# ending on another line: the "bisector" is a ray of ties), hence more than the two or
# three steps a crossing needs.
_NEWTON_STEPS = 16
# Cells meeting at a vertex are found within this (projected metres; GEOS output rounding).
_TOUCH_M = 1e-3
# Rounds of splitting edges (each halves them) and the distance difference deemed solved.
_SPLIT_ROUNDS = 8
_CONVERGED_M = 1e-4
# Edges this long or shorter bend less than a centimetre between projection and lon/lat.
UNBENT_M = 1000.0


class Kept:
    """A small thread-safe least-recently-used map (geo may not import chat's LRU)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._lock = threading.Lock()
        self._items: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, key: Hashable) -> Any:
        with self._lock:
            if key not in self._items:
                return None
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.cap:
                self._items.popitem(last=False)


DIAGRAMS = Kept(DIAGRAMS_KEPT)
# A tentacle's diagram is small and seldom asked again: kept apart, so that many of them
# never push out a whole kind's diagram.
AMONG = Kept(AMONG_KEPT)
PARTS = Kept(4 * DIAGRAMS_KEPT)  # per index: the boundary with a margin, places' rows
_T = TypeVar("_T")


def kept(store: Kept, index: MapIndex, key: tuple[Hashable, ...], build: Callable[[], _T]) -> _T:
    """What ``store`` keeps for this index and key, built and kept when missing. Entries
    hold their index, so an index that is gone never lends its id to a new one's entries."""
    full_key = (id(index), *key)
    found = store.get(full_key)
    if isinstance(found, tuple) and found[0] is index:
        return found[1]  # type: ignore[no-any-return]
    value = build()
    store.put(full_key, (index, value))
    return value


class Diagram:
    """The labelled Voronoi diagram of a set of features' samples, in the pack projection."""

    def __init__(
        self, index: MapIndex, projected: Sequence[BaseGeometry], labels: Sequence[Hashable]
    ) -> None:
        self.index = index
        self.projection = index.projection
        self.geometries = np.empty(len(projected), dtype=object)
        self.geometries[:] = list(projected)
        self.label_ids: dict[Hashable, int] = {}
        feature_label = np.array(
            [self.label_ids.setdefault(label, len(self.label_ids)) for label in labels],
            dtype=np.int64,
        )
        self.feature_label = feature_label
        types = shapely.get_type_id(self.geometries)
        self.is_point = types == 0
        self.point_xy = np.full((len(self.geometries), 2), np.nan)
        if self.is_point.any():
            self.point_xy[self.is_point] = shapely.get_coordinates(self.geometries[self.is_point])
        self.is_polygonal = (types == 3) | (types == 6)
        self.polygonal = np.nonzero(self.is_polygonal)[0].tolist()
        self.point_lonlat = np.full_like(self.point_xy, np.nan)
        if self.is_point.any():
            self.point_lonlat[self.is_point] = self.projection.to_lonlat_array(
                self.point_xy[self.is_point]
            )
        # What distances are measured to: a polygon's outline (inside counts as negative).
        self.outlines = self.geometries.copy()
        if self.polygonal:
            self.outlines[self.polygonal] = shapely.boundary(self.geometries[self.polygonal])
        # Long lines (rivers across a country) are sampled more sparsely: the exact step
        # fixes the outline whatever the spacing, which only sets the work done.
        length = float(shapely.length(self.outlines).sum())
        self.spacing = max(SPACING_M, length / MAX_SAMPLES)
        xy, owner = _samples(self.outlines, self.spacing)
        self.owner = owner
        self.sample_label = feature_label[owner] if len(owner) else owner
        minx, miny, maxx, maxy = index._boundary.bounds
        margin = max(maxx - minx, maxy - miny) * 0.25 + 1000.0
        self.frame = box(minx - margin, miny - margin, maxx + margin, maxy + margin)
        if len(xy) >= 2:
            cells = shapely.voronoi_polygons(
                shapely.multipoints(xy), extend_to=self.frame, ordered=True
            )
            self.cells = np.asarray(shapely.get_parts(cells), dtype=object)
        else:
            self.cells = np.array([self.frame] * len(xy), dtype=object)
        self.tree = STRtree(self.cells)
        # The map and a margin, so the exact step can move an edge across the boundary.
        self.near_map = near_map(index, 4 * self.spacing)
        # On a small map the projection is as good as geodesic (see projection_shift_m).
        self.flat = projection_shift_m(index) < EXACT_M
        self._cells = Kept(CELLS_KEPT)

    def has_label(self, label: Hashable) -> bool:
        return label in self.label_ids

    def cell(
        self, label: Hashable, bounds: tuple[float, float, float, float] | None = None
    ) -> BaseGeometry:
        """The label's cell in lon/lat, clipped to the boundary (empty if no such label);
        with ``bounds`` (a lon/lat box) exact only inside the box, and cheaper."""
        key = label if bounds is None else ("within", label, bounds)
        cached = self._cells.get(key)
        if cached is None:
            cached = self._build(label, bounds)
            self._cells.put(key, cached)
        return cached  # type: ignore[no-any-return]

    def _build(
        self, label: Hashable, bounds: tuple[float, float, float, float] | None
    ) -> BaseGeometry:
        number = self.label_ids.get(label)
        if number is None:
            return Polygon()
        mine = np.nonzero(self.sample_label == number)[0]
        # Only the part in the map matters: clip before the costly exact step.
        area = shapely.union_all(self.cells[mine]).intersection(self.near_map)
        if bounds is not None:
            area = area.intersection(around(self.index, bounds))
        if not (self.flat and self.is_point.all()):
            area = self._refine(area, number)
        if self.polygonal:
            area = self._with_polygons(area, number)
        if not area.is_valid:
            area = polygonal(shapely.make_valid(area))
        cell = to_map(self.index, area)
        # Parts carried back one by one can overlap where streets cross: one valid area.
        return cell if cell.is_valid else polygonal(shapely.make_valid(cell))

    def _with_polygons(self, area: BaseGeometry, number: int) -> BaseGeometry:
        """Inside a polygon its place is at distance 0, nearest of all: the label's cell
        takes its own polygons whole and gives up other labels' (a creek through a pond
        belongs to the pond there), except where the two overlap (a tie)."""
        shapes = self.geometries[self.polygonal]
        own = self.feature_label[self.polygonal] == number
        mine = shapely.union_all(shapes[own]) if own.any() else Polygon()
        others = shapes[~own]
        others = others[shapely.intersects(others, area)]
        if len(others):
            area = area.difference(shapely.union_all(others).difference(mine))
        return shapely.union_all([area, mine]) if own.any() else area

    def _refine(self, area: BaseGeometry, number: int) -> BaseGeometry:
        """Move the outline onto the geodesic bisectors (see the module doc)."""
        polygons = []
        for polygon in shapely.get_parts(area):
            if not isinstance(polygon, Polygon) or polygon.is_empty:
                continue
            shell = self._refine_ring(np.asarray(polygon.exterior.coords)[:, :2], number)
            holes = [
                self._refine_ring(np.asarray(ring.coords)[:, :2], number)
                for ring in polygon.interiors
            ]
            moved = Polygon(shell, holes)
            # Moving a vertex a few metres can fold a thin sliver over itself.
            polygons.append(moved if moved.is_valid else polygonal(shapely.make_valid(moved)))
        return shapely.union_all(polygons) if len(polygons) != 1 else polygons[0]

    def _refine_ring(self, ring: np.ndarray, number: int) -> np.ndarray:
        """A closed ring with its vertices on the bisectors, split until each edge strays
        less than :data:`SAGITTA_M` from them."""
        xy = ring[:-1].copy()
        mine, rival, second = self._rivals(xy, number)
        xy = self._newton(xy, (mine, mine), (rival, rival), second)
        check = np.ones(len(xy), dtype=bool)  # edges (by start vertex) not yet known good
        for _ in range(_SPLIT_ROUNDS):
            after = np.roll(np.arange(len(xy)), -1)
            middle = (xy + xy[after]) / 2
            # An edge runs along the bisector with a place both its ends compete with.
            start, end = _common_rival(self.feature_label, (rival, second), after)
            edges = np.nonzero(check & (start >= 0) & (mine >= 0) & (mine[after] >= 0))[0]
            if len(edges) == 0:
                break
            moved = self._newton(
                middle[edges],
                (mine[edges], mine[after][edges]),
                (start[edges], end[edges]),
                np.full(len(edges), -1, dtype=np.int64),
            )
            far = np.hypot(*(moved - middle[edges]).T) > SAGITTA_M
            if not far.any():
                break
            split = edges[far]
            xy = np.insert(xy, split + 1, moved[far], axis=0)
            mine = np.insert(mine, split + 1, mine[split])
            rival = np.insert(rival, split + 1, start[split])
            second = np.insert(second, split + 1, -1)
            # Only the two halves of a split edge need another look.
            check = np.zeros(len(xy), dtype=bool)
            check[split + np.arange(len(split))] = True
            check[split + np.arange(len(split)) + 1] = True
        return np.vstack([xy, xy[:1]])

    def _rivals(
        self, xy: np.ndarray, number: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each vertex: the nearest own feature, the nearest rival feature and the
        nearest feature of a third place, among those whose samples' cells meet it (-1:
        none; a vertex no rival meets is on the map's edge and stays)."""
        count = len(xy)
        none = np.full(count, -1, dtype=np.int64)
        vertex, cell = self.tree.query(shapely.points(xy), predicate="dwithin", distance=_TOUCH_M)
        if len(vertex) == 0:
            return none, none, none
        pairs = np.unique(np.column_stack([vertex, self.owner[cell]]), axis=0)
        vertex, feature = pairs[:, 0], pairs[:, 1]
        label = self.feature_label[feature]
        distance, _ = self._distances(xy[vertex], feature)
        own = label == number
        mine = _nearest_per_vertex(vertex[own], feature[own], distance[own], count)
        rival = _nearest_per_vertex(vertex[~own], feature[~own], distance[~own], count)
        rival_label = np.where(rival >= 0, self.feature_label[np.maximum(rival, 0)], -1)
        third = ~own & (label != rival_label[vertex])
        second = _nearest_per_vertex(vertex[third], feature[third], distance[third], count)
        return mine, rival, second

    def _newton(
        self,
        xy: np.ndarray,
        mine: tuple[np.ndarray, np.ndarray],
        rival: tuple[np.ndarray, np.ndarray],
        second: np.ndarray,
    ) -> np.ndarray:
        """Move points onto the bisector of their own and rival place (each place's
        distance the smaller of its two given features'), or, where a second rival is
        given, onto the point where all three meet."""
        xy = xy.copy()
        active = np.nonzero((mine[0] >= 0) & (rival[0] >= 0))[0]
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
            here = None if self.flat else self.projection.to_lonlat_array(at)
            d_mine, u_mine = self._nearer(at, mine[0][active], mine[1][active], here)
            d_rival, u_rival = self._nearer(at, rival[0][active], rival[1][active], here)
            g1 = u_mine - u_rival
            f1 = d_mine - d_rival
            step = _line_step(g1, f1)
            triple = second[active] >= 0
            if triple.any():
                d_second, u_second = self._distances(
                    at[triple], second[active][triple], None if here is None else here[triple]
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
            # A step longer than the distances involved means no crossing near here.
            limit = 0.5 * np.maximum(np.abs(d_mine), np.abs(d_rival)) + self.spacing
            length = np.hypot(step[:, 0], step[:, 1])
            step[length > limit] = 0.0
            xy[active] = at + step
            active = active[(np.abs(f1) > _CONVERGED_M) & (length <= limit)]
        return xy

    def _nearer(
        self, xy: np.ndarray, first: np.ndarray, other: np.ndarray, here: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        distance, unit = self._distances(xy, first, here)
        differ = first != other
        if differ.any():
            where = None if here is None else here[differ]
            d2, u2 = self._distances(xy[differ], other[differ], where)
            closer = d2 < distance[differ]
            rows = np.nonzero(differ)[0][closer]
            distance[rows] = d2[closer]
            unit[rows] = u2[closer]
        return distance, unit

    def _distances(
        self, xy: np.ndarray, feature: np.ndarray, here: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Distance from each point to its feature as ``MapIndex`` measures it, and the
        projected unit vector from the feature's nearest point towards the point
        (``here``: the points in lon/lat, when known)."""
        near = self.point_xy[feature]
        near_lonlat = None if self.flat else self.point_lonlat[feature]
        lines = ~self.is_point[feature]
        if lines.any():
            near = near.copy()
            near[lines] = nearest_on(self.outlines[feature[lines]], xy[lines])
            if near_lonlat is not None:
                near_lonlat = near_lonlat.copy()
                near_lonlat[lines] = self.projection.to_lonlat_array(near[lines])
        distance, unit = measure(self.projection, self.flat, xy, near, near_lonlat, here)
        if self.polygonal:
            # Inside a polygon the distance is 0 for MapIndex; negative here, so a rival's
            # outline that strayed inside has a slope to leave by.
            rows = np.nonzero(self.is_polygonal[feature])[0]
            inside = shapely.contains_xy(self.geometries[feature[rows]], xy[rows, 0], xy[rows, 1])
            flip = rows[inside]
            distance[flip] *= -1
            unit[flip] *= -1
        return distance, unit


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


def diagram_for(
    index: MapIndex,
    key: tuple[Hashable, ...],
    rows: Callable[[], tuple[Sequence[BaseGeometry], Sequence[Hashable]]],
) -> Diagram:
    """The diagram kept for this index and key, built from ``rows()`` (projected
    geometries and their labels) when not kept."""
    store = AMONG if key[0] == "among" else DIAGRAMS
    return kept(store, index, key, lambda: Diagram(index, *rows()))


def kind_diagram(index: MapIndex, kind: str) -> Diagram:
    layer = index._layer(kind)
    places = layer.places
    return diagram_for(
        index, ("kind", kind), lambda: (layer.projected, [places[id(f)] for f in layer.items])
    )


def around(index: MapIndex, bounds: tuple[float, float, float, float]) -> BaseGeometry:
    """A lon/lat box in the projection grown by :data:`CLIP_MARGIN_M` (prepared)."""
    outline = index.projection.geometry(shapely.segmentize(box(*bounds), 0.01))
    area = shapely.buffer(outline, CLIP_MARGIN_M, quad_segs=2, join_style="mitre")
    shapely.prepare(area)
    return area


def to_map(
    index: MapIndex, area: BaseGeometry, within: BaseGeometry | None = None
) -> BaseGeometry:
    """A projected area in lon/lat, clipped to the pack's boundary as the pack draws it
    (and, when given, to the prepared projected area ``within``)."""
    # Part by part: most parts of a band of many discs lie inside and need no overlay.
    parts = shapely.get_parts(area)
    if len(parts) == 0:
        return Polygon()
    # Cut to the map (and a margin) first: cheaper to split and carry back.
    inside_map = near_map(index) if within is None else within
    out = ~shapely.contains(inside_map, parts)  # prepared: the map is the first argument
    parts[out] = shapely.intersection(parts[out], inside_map)
    # 1 km edges bend less than a centimetre between the projection and lon/lat.
    minx, miny, maxx, maxy = shapely.bounds(parts).T
    long = np.hypot(maxx - minx, maxy - miny) > UNBENT_M
    parts[long] = shapely.segmentize(parts[long], UNBENT_M)
    lonlat = shapely.transform(parts, index.projection.to_lonlat_array)
    boundary = _prepared_boundary(index)
    # A sliver a few micrometres wide can fold over when carried back to lon/lat.
    folded = ~shapely.is_valid(lonlat)
    if folded.any():
        lonlat[folded] = shapely.make_valid(lonlat[folded])
    out = ~shapely.contains(boundary, lonlat)
    lonlat[out] = shapely.intersection(lonlat[out], boundary)
    # Overlays can leave stray lines and points beside the polygons: only polygons stay.
    polygons = shapely.get_parts(shapely.get_parts(lonlat))  # a collection may hold multis
    polygons = polygons[(shapely.get_type_id(polygons) == 3) & ~shapely.is_empty(polygons)]
    if len(polygons) == 1:
        return polygons[0]  # type: ignore[no-any-return]
    return shapely.multipolygons(polygons) if len(polygons) else Polygon()


def _prepared_boundary(index: MapIndex) -> BaseGeometry:
    def build() -> BaseGeometry:
        boundary = shapely.from_wkb(index.pack.boundary.wkb)  # a copy: prepare changes it
        shapely.prepare(boundary)
        return boundary

    return kept(PARTS, index, ("boundary",), build)


def near_map(index: MapIndex, margin: float = 4 * SPACING_M) -> BaseGeometry:
    """The projected boundary with a margin, kept per index."""

    def build() -> BaseGeometry:
        # Projected from short lon/lat edges: a long straight edge of a box (a meridian,
        # a parallel) is curved in the projection, and its chord cuts kilometres off.
        outline = index.projection.geometry(shapely.segmentize(index.pack.boundary, 0.01))
        near = shapely.buffer(outline, margin, quad_segs=2)
        shapely.prepare(near)
        return near

    return kept(PARTS, index, ("near_map", margin), build)


def _samples(outlines: np.ndarray, spacing: float) -> tuple[np.ndarray, np.ndarray]:
    """Sample points of every point or line (x, y), ``spacing`` apart along lines, and the
    geometry each belongs to."""
    if len(outlines) == 0:
        return np.zeros((0, 2)), np.zeros(0, dtype=np.int64)
    outlines = outlines.copy()
    lines = shapely.get_type_id(outlines) != 0
    if lines.any():
        outlines[lines] = shapely.segmentize(outlines[lines], spacing)
    xy, owner = shapely.get_coordinates(outlines, return_index=True)
    # Shared vertices (two roads meeting) would be one Voronoi site: keep the first.
    _, first = np.unique(np.round(xy, 3), axis=0, return_index=True)
    first.sort()
    return xy[first], owner[first].astype(np.int64)


def _nearest_per_vertex(
    vertex: np.ndarray, feature: np.ndarray, distance: np.ndarray, count: int
) -> np.ndarray:
    """For each vertex, the feature of the nearest row (-1 where it has no row)."""
    best = np.full(count, -1, dtype=np.int64)
    if len(vertex):
        order = np.lexsort((distance, vertex))
        vertex, feature = vertex[order], feature[order]
        first = np.ones(len(vertex), dtype=bool)
        first[1:] = vertex[1:] != vertex[:-1]
        best[vertex[first]] = feature[first]
    return best


def _common_rival(
    feature_label: np.ndarray, rivals: tuple[np.ndarray, np.ndarray], after: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For each edge (vertex i to ``after[i]``), a rival feature at each end of one place
    both ends compete with (-1, -1 when none)."""
    start = np.full(len(after), -1, dtype=np.int64)
    end = np.full(len(after), -1, dtype=np.int64)
    for here in rivals:
        for there in rivals:
            ahead = there[after]
            label_here = np.where(here >= 0, feature_label[np.maximum(here, 0)], -1)
            label_there = np.where(ahead >= 0, feature_label[np.maximum(ahead, 0)], -2)
            found = (start < 0) & (label_here == label_there)
            start[found] = here[found]
            end[found] = ahead[found]
    return start, end


def _line_step(g: np.ndarray, f: np.ndarray) -> np.ndarray:
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


def projection_shift_m(index: MapIndex) -> float:
    """How far the projection can move a bisector of two points of this map (metres)."""
    reach = index.projection.radius_m
    angle = reach / EARTH_RADIUS_M
    # Scale grows as angle / sin(angle) ~ 1 + angle**2 / 6 across a pair at most 2 * reach
    # apart; the ellipsoid adds a little, hence the factor 2.
    return 2.0 * 2 * reach * angle**2 / 6


def polygonal(geometry: BaseGeometry) -> BaseGeometry:
    """The polygons of a geometry (an overlay can leave stray lines and points)."""
    if geometry.geom_type in ("Polygon", "MultiPolygon"):
        return geometry
    parts = [g for g in shapely.get_parts(geometry) if g.geom_type in ("Polygon", "MultiPolygon")]
    if not parts:
        return Polygon()
    return shapely.union_all(parts)


