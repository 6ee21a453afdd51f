"""Labelled Voronoi diagrams of a map's features, made exact geodesically: the engine
behind ``geo.cells``. Work is in the pack's azimuthal equidistant projection
(``MapIndex.projection``); results go back to lon/lat clipped to the pack's boundary.

- Every feature becomes sample points: a point is itself, a line or a polygon's outline is
  cut into pieces at most :data:`SPACING_M` metres long and sampled at their middles
  (never at a vertex two roads share: see ``_samples``). ``shapely.voronoi_polygons`` of
  the samples, labelled (by place, by street name), gives each label its cells; their
  union is the label's cell. A diagram is built once per (index, kind) and kept
  (bounded caches).
- The projection bends bisectors (its scale reaches ~1.004 at 1000 km from the centre,
  which moves a bisector of points 60 km apart by ~100 m), and samples stand in for whole
  lines. So the outline is then moved onto the exact bisectors (``geo.bisectors``): each
  vertex by Newton steps on "distance to my label minus distance to the nearest other
  label", measured as ``MapIndex.nearest`` measures it, and edges are split until they
  stray less than ``SAGITTA_M`` (``geo.newton``, 0.1 m) from the bisectors.
- On a map small enough that the projection cannot move a bisector by :data:`EXACT_M`
  (a city), distances are taken in the projection, and cells of points skip the step.

So a cell's outline is exact at its vertices and strays less than ``SAGITTA_M`` from
the bisector between them. Ties are left as they fall: where one street ends on another,
the points whose nearest spot on both is that corner are as near to each other; on a
country map, far from any road, streets within 1e-5 of the distance of one another count
as tied (``geo.bisectors``). Known limit: on a country-size map, where ``MapIndex``'s
measure of a line jumps (see ``geo.newton``), an edge next to the jump can stray a few
metres (seen once in ~3,800 checks on generated rivers 100 km long).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from functools import cached_property
from typing import Any, TypeVar

import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry import Polygon, box
from shapely.geometry.base import BaseGeometry

from hideseek_chat.geo.bisectors import refine
from hideseek_chat.geo.newton import polygon_parts, polygonal
from hideseek_chat.geo.spatial import MapIndex

#: Lines and polygon outlines are sampled this often (projected metres).
SPACING_M = 10.0
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


def kept(
    store: Kept,
    index: MapIndex,
    key: tuple[Hashable, ...],
    build: Callable[[], _T],
    *,
    stations: bool = False,
) -> _T:
    """What ``store`` keeps for this index and key, built and kept when missing.

    What is built from the map's features and boundary belongs to ``features_index``: an
    index of the same map with other stations (``MapIndex.with_stations``, a car game's
    street ends) shares it. With ``stations`` the value depends on the index's stations
    too and is the index's own. Entries hold their index, so an index that is gone never
    lends its id to a new one's entries."""
    owner = index if stations else index.features_index
    full_key = (id(owner), *key)
    found = store.get(full_key)
    if isinstance(found, tuple) and found[0] is owner:
        return found[1]  # type: ignore[no-any-return]
    value = build()
    store.put(full_key, (owner, value))
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
        self.samples = xy
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
        # Which features are nearest a point, whatever samples are near it (the exact step).
        self.outline_tree = STRtree(self.outlines)
        self.polygon_tree = STRtree(self.geometries[self.polygonal])
        # The map and a margin, so the exact step can move an edge across the boundary.
        self.near_map = near_map(index, 4 * self.spacing)
        # On a small map the projection is as good as geodesic (see projection_shift_m).
        self.flat = projection_shift_m(index) < EXACT_M
        self._cells = Kept(CELLS_KEPT)

    @cached_property
    def _near_map_outline(self) -> BaseGeometry:
        outline = shapely.boundary(self.near_map)
        shapely.prepare(outline)
        return outline

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
        cuts = [self._near_map_outline]
        if bounds is not None:
            box_in_play = around(self.index, bounds)
            area = area.intersection(box_in_play)
            cuts.append(shapely.boundary(box_in_play))
        if not (self.flat and self.is_point.all()):
            area = refine(self, area, number, cuts)
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

def diagram_for(
    index: MapIndex,
    key: tuple[Hashable, ...],
    rows: Callable[[], tuple[Sequence[BaseGeometry], Sequence[Hashable]]],
) -> Diagram:
    """The diagram kept for this index and key, built from ``rows()`` (projected
    geometries and their labels) when not kept."""
    store = AMONG if key[0] == "among" else DIAGRAMS
    return kept(store, index, key, lambda: Diagram(index.features_index, *rows()))


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
    polygons = polygon_parts(lonlat)
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
    """Sample points of every point or line (x, y), at most ``spacing`` apart along lines,
    and the geometry each belongs to.

    A line is sampled at the middles of its pieces, not at its vertices: a vertex roads
    share (a junction) would be one site credited to one of them. Credited to a street that
    ends there, its cell is a strip about ten metres wide running on from that street's end
    across the other one, out to the next street: only the line down its middle is a tie,
    the rest is the other street's. And a short road between two junctions had no sample.
    """
    if len(outlines) == 0:
        return np.zeros((0, 2)), np.zeros(0, dtype=np.int64)
    lines = shapely.get_type_id(outlines) != 0
    xy, owner = shapely.get_coordinates(outlines[~lines], return_index=True)
    owner = np.nonzero(~lines)[0][owner]
    if lines.any():
        parts, part_owner = shapely.get_parts(outlines[lines], return_index=True)
        parts = shapely.segmentize(parts, spacing)
        coords, part = shapely.get_coordinates(parts, return_index=True)
        piece = part[1:] == part[:-1]  # consecutive vertices of one part
        middles = (coords[1:][piece] + coords[:-1][piece]) / 2
        xy = np.concatenate([xy, middles])
        owner = np.concatenate([owner, np.nonzero(lines)[0][part_owner[part[1:][piece]]]])
        order = np.argsort(owner, kind="stable")
        xy, owner = xy[order], owner[order]
    # Points at one spot (two rows of a place, a line drawn twice) are one Voronoi site.
    _, first = np.unique(np.round(xy, 3), axis=0, return_index=True)
    first.sort()
    return xy[first], owner[first].astype(np.int64)


def projection_shift_m(index: MapIndex) -> float:
    """How far the projection can move a bisector of two points of this map (metres)."""
    reach = index.projection.radius_m
    angle = reach / EARTH_RADIUS_M
    # Scale grows as angle / sin(angle) ~ 1 + angle**2 / 6 across a pair at most 2 * reach
    # apart; the ellipsoid adds a little, hence the factor 2.
    return 2.0 * 2 * reach * angle**2 / 6
