"""The seekers' map as geometry: each answered question becomes a region, and what is left.

Only what the seekers know goes in: their own pins, the answers they were given and the
map. The hider's position never does, so the same answers give the same map wherever the
hider really is.

Every geometry here is in lon/lat (WGS84, x = lon), densified so that a straight segment
strays less than a metre from the geodesic curve it stands for.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry import LineString, MultiPolygon, Polygon, mapping
from shapely.geometry.base import BaseGeometry

from hideseek_chat.geo.answers import DIVISION_SUBJECTS
from hideseek_chat.geo.mappack import Station
from hideseek_chat.geo.newton import polygon_parts
from hideseek_chat.geo.pins import Pin
from hideseek_chat.geo.regions import Region, clue_region, covers_lonlat
from hideseek_chat.geo.spatial import MapIndex
from hideseek_chat.geo.stationtable import StationTable, station_table
from hideseek_chat.rules.ruleset import Category, HiderPosition


@dataclass(frozen=True, slots=True)
class Clue:
    """One answered question, as the seekers know it.

    ``category`` is a ``rules.ruleset.Category`` value; ``subject`` the question's subject
    slug (matching, measuring, tentacle; "" for radar and thermometer); ``answer`` the word
    the hider gave (``yes``/``no``, ``hotter``/``colder``, ``closer``/``further``,
    ``named``/``not_in_reach`` for tentacles, ``null``, a photo's ``photo``/
    ``cannot_answer``); ``detail`` the tentacle's named place or the matching transit line;
    ``distance_m`` the radar radius, thermometer distance or tentacle reach; ``seeker`` the
    asking seeker's pin when they asked (a thermometer's start) and ``end`` a thermometer's
    end pin. ``void`` says why the answer no longer says anything about where the hider is
    (``moved``: the hider moved zone since; ``vetoed``; ...), or is "".
    """

    ref: int  # the question record's id: clues apply in this order
    category: str
    subject: str = ""
    answer: str | None = None
    detail: str | None = None
    distance_m: float | None = None
    seeker: Pin | None = None
    end: Pin | None = None
    void: str = ""


class Drawing:
    """An area drawn on first use, exact within a lon/lat box (a band of thousands of
    discs costs seconds; the stations it keeps are decided without it)."""

    def __init__(self, draw: Callable[[Bounds], BaseGeometry], within: Bounds) -> None:
        self._draw = draw
        self.within = within
        self._area: BaseGeometry | None = None
        self._lock = threading.Lock()

    def area(self, within: Bounds | None = None) -> BaseGeometry:
        """The area, exact within ``within`` (default: the box given at creation); the
        default one is kept."""
        if within is not None and within != self.within:
            return self._draw(within)
        with self._lock:
            if self._area is None:
                self._area = self._draw(self.within)
            return self._area


@dataclass(frozen=True)
class Applied:
    """A clue that became a region: where the hider can be by this clue alone.

    ``keep`` is an area (lon/lat) for clues about the hider's position, or None for clues
    about their station only (a transit line, a station name's length), which keep the
    station ids in ``stations`` instead. A clue that rules nothing out (a ``null`` answer)
    keeps the whole boundary. Curves are exact within the part of the map still in play
    when the clue was applied. A pending band or cell (see :class:`SeekerMap`) is drawn
    when ``keep`` is first read.
    """

    ref: int
    drawn: BaseGeometry | Drawing | None
    stations: frozenset[str] | None = None

    @property
    def keep(self) -> BaseGeometry | None:
        return self.drawn.area() if isinstance(self.drawn, Drawing) else self.drawn


@dataclass(frozen=True, slots=True)
class NotApplied:
    """A clue that could not become a region, and why (a reason code: ``photo``,
    ``no_map_data``, ``no_seeker_pin``, ``moved``, ``vetoed``, ``unsupported_subject``...)."""

    ref: int
    reason: str


Bounds = tuple[float, float, float, float]


@dataclass(frozen=True)
class SeekerMap:
    """Where the hider can still be.

    ``remaining`` is the boundary minus everything eliminated (lon/lat); ``candidates`` the
    stations, in the pack's order, whose zone disc (``zone_radius_m``) still meets it.
    ``remaining`` is ``drawn`` cut by the ``pending`` areas (measuring bands, and cells of
    matching answers given from the station), which are drawn when it is first read: the
    candidates never wait for them (``geo.nearness`` decides them).

    With ``basis`` STATION the answers were about the station point: candidates are the
    stations inside ``remaining`` (and on every station list). With LIVE the hider may have
    moved inside their zone between answers: a station stays when its disc meets each
    clue's region on its own, so a candidate's disc need not meet ``remaining`` (where the
    hider is if they never moved). See docs/geo.md, "Seekers' map".
    """

    boundary: BaseGeometry
    drawn: BaseGeometry
    candidates: tuple[Station, ...]
    applied: tuple[Applied, ...]
    not_applied: tuple[NotApplied, ...]
    zone_radius_m: float
    basis: HiderPosition
    #: the candidates' rows in ``MapIndex.pack.stations`` (None: found from ``candidates``)
    rows: np.ndarray | None = field(default=None, compare=False, repr=False)
    #: areas still to cut ``drawn`` by, and the box (lon/lat) that holds what is in play
    pending: tuple[Drawing, ...] = field(default=(), compare=False, repr=False)
    in_play: Bounds | None = field(default=None, compare=False, repr=False)
    #: the map one clue before, and that clue's area: once the earlier map's
    #: ``remaining`` was read, this one is that area cut by one more
    previous: SeekerMap | None = field(default=None, compare=False, repr=False)
    step: BaseGeometry | Drawing | None = field(default=None, compare=False, repr=False)
    _cut: list[BaseGeometry] = field(default_factory=list, init=False, compare=False, repr=False)

    @property
    def remaining(self) -> BaseGeometry:
        """The boundary minus everything eliminated (lon/lat); drawn on first read."""
        if not self.pending:
            return self.drawn
        if not self._cut:
            area = self._remaining()
            if not self._cut:  # another thread may have cut it meanwhile: the same area
                self._cut.append(area)
            # Cut: the earlier maps (and their areas) need not be kept alive by this one.
            object.__setattr__(self, "previous", None)
        return self._cut[0]

    def _remaining(self) -> BaseGeometry:
        before = self.previous
        if before is not None and (before._cut or not before.pending):
            # Only shrinks: the area read before, cut by this clue's.
            area = before.remaining
            if area.is_empty or self.step is None:
                return area
            step = self.step
            if isinstance(step, Drawing):
                # Only what the area left matters: drawn within its box, often far
                # smaller than the box in play (which holds every candidate's zone).
                step = step.area(_narrowed(step.within, area.bounds))
            return _cut(area, step)
        area = self.drawn
        for drawing in self.pending:
            if area.is_empty:
                break
            # Drawn within the box the area still covers, the smallest yet: cheaper.
            within = _narrowed(self.in_play or drawing.within, area.bounds)
            area = _cut(area, drawing.area(within))
        return area


def seeker_map(
    index: MapIndex,
    clues: Sequence[Clue],
    zone_radius_m: float,
    basis: HiderPosition = HiderPosition.LIVE,
) -> SeekerMap:
    """Work out the seekers' map from scratch.

    Clues whose regions are cheap to draw are applied first, so that bands and cells are
    drawn only across what they leave in play; the candidates and the remaining area do
    not depend on that order, and ``applied`` / ``not_applied`` are listed in ``ref`` order.
    """
    view = SeekerMap(
        boundary=index.pack.boundary,
        drawn=index.pack.boundary,
        candidates=tuple(index.pack.stations),
        applied=(),
        not_applied=(),
        zone_radius_m=zone_radius_m,
        basis=basis,
        rows=np.arange(len(index.pack.stations)),
    )
    for clue in sorted(clues, key=lambda c: (_costly(c), c.ref)):
        view = with_clue(index, view, clue)
    return replace(
        view,
        applied=tuple(sorted(view.applied, key=lambda a: a.ref)),
        not_applied=tuple(sorted(view.not_applied, key=lambda n: n.ref)),
    )


#: Matching subjects whose regions are station lists or ready polygons.
_CHEAP_MATCHING = frozenset({"transit-line", "station-name-length"}) | DIVISION_SUBJECTS


def _costly(clue: Clue) -> bool:
    """Whether a clue's region is a band or a Voronoi cell (drawn across what is in play)."""
    if clue.category in (Category.RADAR, Category.THERMOMETER, Category.PHOTO):
        return False
    return not (clue.category == Category.MATCHING and clue.subject in _CHEAP_MATCHING)


def with_clue(index: MapIndex, previous: SeekerMap, clue: Clue) -> SeekerMap:
    """Return ``previous`` narrowed by one more clue (cheaper than from scratch)."""
    table = station_table(index)
    in_play = _in_play(previous, table)
    region = clue_region(index, clue, in_play)
    if isinstance(region, str):
        return replace(previous, not_applied=(*previous.not_applied, NotApplied(clue.ref, region)))
    station = previous.basis == HiderPosition.STATION
    decides = region.at_stations if station else region.near_stations
    if region.draw is not None and decides is None:
        # The stations need the area itself: draw it now.
        region = replace(region, keep=region.draw(in_play), draw=None)
    drawn, pending = previous.drawn, previous.pending
    step: BaseGeometry | Drawing | None = region.keep
    if region.keep is not None:
        drawn = _cut(drawn, region.keep)
    kept = _kept(index, previous, region)
    rows = _rows(previous, table.row)[kept]
    if region.draw is not None:
        step = Drawing(region.draw, in_play)
        pending = (*pending, step)
        applied = Applied(clue.ref, step)
    else:
        applied = Applied(
            clue.ref,
            region.keep
            if region.keep is not None or region.stations is not None
            else previous.boundary,
            region.stations,
        )
    view = replace(
        previous,
        drawn=drawn,
        candidates=tuple(table.stations[rows].tolist()),
        applied=(*previous.applied, applied),
        rows=rows,
        pending=pending,
        previous=previous if pending else None,
        step=step,
    )
    return replace(view, in_play=_in_play(view, table)) if pending else view


def _kept(index: MapIndex, view: SeekerMap, region: Region) -> np.ndarray:
    """Which of ``view``'s candidates the region keeps.

    With answers from the zone's station, the region constrains the station point itself.
    With answers from a live pin, the hider was somewhere in the zone's disc at each answer
    and may have moved inside it since: a station stays when its disc meets this region,
    each clue on its own (see docs/geo.md, "Seekers' map").
    """
    table = station_table(index)
    rows = _rows(view, table.row)
    kept = np.ones(len(rows), dtype=bool)
    if region.station_mask is not None:
        kept &= region.station_mask[rows]
    if (region.keep is None and region.draw is None) or not kept.any():
        return kept
    rows = rows[kept]
    lats, lons, xs, ys = table.lats[rows], table.lons[rows], table.xs[rows], table.ys[rows]
    if view.basis == HiderPosition.STATION:
        if region.at_stations is not None:
            inside = region.at_stations(lats, lons, xs, ys)
        else:
            inside = covers_lonlat(region.keep, lats, lons)
            if region.answer_at is not None:
                _settle_near_edges(
                    region.keep, region.answer_at, lats, lons, inside, (table.lonlat_tree(), rows)
                )
    elif region.near_stations is not None:
        inside = region.near_stations(lats, lons, xs, ys, view.zone_radius_m)
    else:
        projection = index.projection
        # Only the part in play can meet a candidate's disc (the box holds every one).
        keep = _clipped(region.keep, _in_play(view, table))
        # From short lon/lat edges: a long straight edge (a box map's side) is a curve in
        # the projection, and its chord would cut off stations near it.
        area = projection.geometry(_densified(keep, 0.01))
        if not shapely.is_valid(area):
            # Two edges a hair apart in lon/lat may cross once projected (a band's ring
            # beside the boundary's): an invalid polygon answers "covers" wrongly.
            area = _polygonal(shapely.make_valid(area))
        shapely.prepare(area)
        # Projected distances overstate geodesic ones by at most ``k``: never too strict.
        k = projection.scale_bound(projection.lat, projection.lon)
        reach = k * view.zone_radius_m + 1.0
        points = table.points[rows]
        # Inside first (cheap); the distance only for the stations outside.
        inside = np.asarray(shapely.intersects(area, points))
        inside[~inside] = shapely.dwithin(area, points[~inside], reach)
    kept[kept] = inside
    return kept


#: Stations nearer than this to a drawn edge are decided by recomputing the answer (metres).
EDGE_CHECK_M = 5.0


def _settle_near_edges(
    keep: BaseGeometry,
    answer_at: Callable[[float, float], bool],
    lats: np.ndarray,
    lons: np.ndarray,
    inside: np.ndarray,
    among: tuple[STRtree, np.ndarray] | None = None,
) -> None:
    """Decide ``inside`` again, by the answer itself, for stations near an edge of ``keep``.

    ``among``: a tree of every station's lon/lat point and the rows of that tree that
    ``lats``/``lons`` are (cheaper than a tree of the edges when there are many)."""
    if not len(lats):
        return
    # Degrees for EDGE_CHECK_M at the highest latitude here (a degree of latitude >= 110 km).
    widest = min(float(np.abs(lats).max()), 89.0)
    degrees = EDGE_CHECK_M / 110_000.0 / float(np.cos(np.radians(widest)))
    # One small box per edge segment: a tree of them finds the few stations near any edge.
    pieces = []
    for ring in shapely.get_parts(keep.boundary):
        coords = shapely.get_coordinates(ring)
        pieces.append(np.stack([coords[:-1], coords[1:]], axis=1))
    if not pieces:
        return
    segments = shapely.linestrings(np.concatenate(pieces))
    if among is None:
        near, _ = STRtree(segments).query(
            shapely.points(lons, lats), predicate="dwithin", distance=degrees
        )
    else:
        tree, rows = among
        _, hit = tree.query(segments, predicate="dwithin", distance=degrees)
        near = np.nonzero(np.isin(rows, hit))[0]
    for n in np.unique(near):
        inside[n] = answer_at(float(lats[n]), float(lons[n]))


def _in_play(view: SeekerMap, table: StationTable) -> tuple[float, float, float, float]:
    """A lon/lat box holding the remaining area and every candidate's zone: no later
    answer can matter outside it."""
    rows = _rows(view, table.row)
    # Before the pending cuts: a larger box, in which every later region is exact too.
    boxes = [view.drawn.bounds] if not view.drawn.is_empty else []
    if len(rows):
        lats, lons = table.lats[rows], table.lons[rows]
        # A degree of latitude is >= 110 km; of longitude, cos(lat) times that.
        pad_lat = view.zone_radius_m / 110_000.0
        widest = float(np.abs(lats).max()) + pad_lat
        pad_lon = min(180.0, pad_lat / max(np.cos(np.radians(min(widest, 89.0))), 1e-6))
        boxes.append(
            (
                float(lons.min()) - pad_lon,
                float(lats.min()) - pad_lat,
                float(lons.max()) + pad_lon,
                float(lats.max()) + pad_lat,
            )
        )
    if not boxes:
        return view.boundary.bounds
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


#: From this many parts on, an area is cut part by part.
_PARTS_APART = 16


def _cut(area: BaseGeometry, keep: BaseGeometry) -> BaseGeometry:
    """``area`` ∩ ``keep``, polygons only.

    An area of many parts (what a band of thousands of discs leaves) is cut part by part:
    a part whose box lies within ``keep`` stays as it is, one whose box misses it goes, and
    only the others are overlaid, so an answer whose edge crosses a few parts costs a few
    parts' overlay, not the whole area's. The parts of a valid area touch at points at
    most, and so do pieces of them: the result is valid too.
    """
    if keep.is_empty or area.is_empty:
        return MultiPolygon()
    size, other = shapely.get_num_coordinates(area), shapely.get_num_coordinates(keep)
    if other > size * _PARTS_APART:
        area, keep = keep, area  # the same intersection: cut the larger one's parts
        size, other = other, size
    parts = polygon_parts(area)
    # Each crossing part is overlaid with the whole of ``keep``: worth it only when
    # ``keep`` is small beside the area.
    if len(parts) < _PARTS_APART or other * _PARTS_APART > size:
        return _polygonal(shapely.intersection(area, keep))
    # Prepared for the many boxes: a copy, as ``keep`` may be a kept region other threads
    # read (preparing changes a geometry in place and keeps its index alive with it).
    prepared = shapely.from_wkb(shapely.to_wkb(keep))
    shapely.prepare(prepared)
    boxes = shapely.box(*shapely.bounds(parts).T)
    inside = shapely.contains(prepared, boxes)
    crossing = ~inside & shapely.intersects(prepared, boxes)
    pieces = polygon_parts(shapely.intersection(parts[crossing], keep))
    polygons = np.concatenate([parts[inside], pieces])
    return shapely.multipolygons(polygons) if len(polygons) else MultiPolygon()


def _narrowed(box: Bounds, inner: Bounds) -> Bounds:
    """``box`` cut to ``inner`` (a drawing is exact within the box it is drawn in; an area
    within ``inner`` needs no more); ``box`` itself when that cuts nothing."""
    narrowed = (
        max(box[0], inner[0]),
        max(box[1], inner[1]),
        min(box[2], inner[2]),
        min(box[3], inner[3]),
    )
    if narrowed == box or narrowed[0] > narrowed[2] or narrowed[1] > narrowed[3]:
        return box
    return narrowed


def _clipped(area: BaseGeometry, box: Bounds) -> BaseGeometry:
    """``area`` within a lon/lat box: GEOS's fast rectangle clip, or the overlay where that
    clip gives up (it cannot close a ring of three points)."""
    try:
        return shapely.clip_by_rect(area, *box)
    except shapely.errors.GEOSException:
        return _polygonal(shapely.intersection(area, shapely.box(*box)))


def _rows(view: SeekerMap, row: dict[str, int]) -> np.ndarray:
    """The candidates' rows in the pack's station table."""
    if view.rows is not None:
        return view.rows
    return np.fromiter((row[s.id] for s in view.candidates), np.intp, len(view.candidates))


def _densified(area: BaseGeometry, step: float) -> BaseGeometry:
    """``area`` with vertices at most ``step`` apart along every ring.

    Ring by ring, and never repaired: GEOS densifies a polygon and then mends any
    self-touch with a zero buffer, which can drop whole parts of a thin area (a band's
    ring beside the boundary's).
    """
    polygons = []
    for part in shapely.get_parts(area):
        if not isinstance(part, Polygon):
            continue
        shell = shapely.segmentize(LineString(part.exterior.coords), step)
        holes = [shapely.segmentize(LineString(r.coords), step).coords for r in part.interiors]
        polygons.append(Polygon(shell.coords, holes))
    return MultiPolygon(polygons) if polygons else MultiPolygon()


def _polygonal(geometry: BaseGeometry) -> BaseGeometry:
    """Only the areas of an overlay's result (its stray lines and points mean nothing)."""
    if isinstance(geometry, Polygon | MultiPolygon):
        return geometry
    parts = [g for g in getattr(geometry, "geoms", ()) if isinstance(g, Polygon | MultiPolygon)]
    if not parts:
        return MultiPolygon()
    return shapely.union_all(parts)


def to_geojson(view: SeekerMap) -> dict[str, object]:
    """A GeoJSON FeatureCollection of the remaining area and the candidate stations.

    The collection also says how many stations are left, the basis, the zone radius and
    which clues were not applied and why (``not_applied``: ``[{"ref", "reason"}]``).
    """
    features: list[dict[str, object]] = [
        {
            "type": "Feature",
            "properties": {"kind": "remaining"},
            "geometry": mapping(view.remaining),
        }
    ]
    features.extend(
        {
            "type": "Feature",
            "properties": {
                "kind": "candidate",
                "id": station.id,
                "name": station.name,
                "lines": list(station.routes),
            },
            "geometry": {"type": "Point", "coordinates": [station.lon, station.lat]},
        }
        for station in view.candidates
    )
    return {
        "type": "FeatureCollection",
        "features": features,
        "candidates": len(view.candidates),
        "basis": str(view.basis),
        "zone_radius_m": view.zone_radius_m,
        "not_applied": [{"ref": n.ref, "reason": n.reason} for n in view.not_applied],
    }
