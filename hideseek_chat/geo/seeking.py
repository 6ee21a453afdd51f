"""The seekers' map as geometry: each answered question becomes a region, and what is left.

Only what the seekers know goes in: their own pins, the answers they were given and the
map. The hider's position never does, so the same answers give the same map wherever the
hider really is.

Every geometry here is in lon/lat (WGS84, x = lon), densified so that a straight segment
strays less than a metre from the geodesic curve it stands for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry import LineString, MultiPolygon, Polygon, mapping
from shapely.geometry.base import BaseGeometry

from hideseek_chat.geo.answers import DIVISION_SUBJECTS
from hideseek_chat.geo.mappack import Station
from hideseek_chat.geo.pins import Pin
from hideseek_chat.geo.regions import (
    Region,
    StationTable,
    clue_region,
    covers_lonlat,
    station_table,
)
from hideseek_chat.geo.spatial import MapIndex
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


@dataclass(frozen=True, slots=True)
class Applied:
    """A clue that became a region: where the hider can be by this clue alone.

    ``keep`` is an area (lon/lat) for clues about the hider's position, or None for clues
    about their station only (a transit line, a station name's length), which keep the
    station ids in ``stations`` instead. A clue that rules nothing out (a ``null`` answer)
    keeps the whole boundary. Curves are exact within the part of the map still in play
    when the clue was applied.
    """

    ref: int
    keep: BaseGeometry | None
    stations: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class NotApplied:
    """A clue that could not become a region, and why (a reason code: ``photo``,
    ``no_map_data``, ``no_seeker_pin``, ``moved``, ``vetoed``, ``unsupported_subject``...)."""

    ref: int
    reason: str


@dataclass(frozen=True)
class SeekerMap:
    """Where the hider can still be.

    ``remaining`` is the boundary minus everything eliminated (lon/lat); ``candidates`` the
    stations, in the pack's order, whose zone disc (``zone_radius_m``) still meets it.

    With ``basis`` STATION the answers were about the station point: candidates are the
    stations inside ``remaining`` (and on every station list). With LIVE the hider may have
    moved inside their zone between answers: a station stays when its disc meets each
    clue's region on its own, so a candidate's disc need not meet ``remaining`` (where the
    hider is if they never moved). See docs/geo.md, "Seekers' map".
    """

    boundary: BaseGeometry
    remaining: BaseGeometry
    candidates: tuple[Station, ...]
    applied: tuple[Applied, ...]
    not_applied: tuple[NotApplied, ...]
    zone_radius_m: float
    basis: HiderPosition
    #: the candidates' rows in ``MapIndex.pack.stations`` (None: found from ``candidates``)
    rows: np.ndarray | None = field(default=None, compare=False, repr=False)


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
        remaining=index.pack.boundary,
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
    region = clue_region(index, clue, _in_play(previous, table))
    if isinstance(region, str):
        return replace(previous, not_applied=(*previous.not_applied, NotApplied(clue.ref, region)))
    remaining = previous.remaining
    if region.keep is not None:
        remaining = _polygonal(shapely.intersection(remaining, region.keep))
    kept = _kept(index, previous, region)
    rows = _rows(previous, table.row)[kept]
    applied = Applied(
        clue.ref, region.keep if region.keep is not None or region.stations is not None
        else previous.boundary, region.stations,
    )
    return replace(
        previous,
        remaining=remaining,
        candidates=tuple(table.stations[rows].tolist()),
        applied=(*previous.applied, applied),
        rows=rows,
    )


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
    if region.keep is None or not kept.any():
        return kept
    rows = rows[kept]
    lats, lons, xs, ys = table.lats[rows], table.lons[rows], table.xs[rows], table.ys[rows]
    if view.basis == HiderPosition.STATION:
        if region.at_stations is not None:
            inside = region.at_stations(lats, lons, xs, ys)
        else:
            inside = covers_lonlat(region.keep, lats, lons)
            if region.answer_at is not None:
                _settle_near_edges(region.keep, region.answer_at, lats, lons, inside)
    elif region.near_stations is not None:
        inside = region.near_stations(lats, lons, xs, ys, view.zone_radius_m)
    else:
        projection = index.projection
        # From short lon/lat edges: a long straight edge (a box map's side) is a curve in
        # the projection, and its chord would cut off stations near it.
        area = projection.geometry(_densified(region.keep, 0.01))
        if not shapely.is_valid(area):
            # Two edges a hair apart in lon/lat may cross once projected (a band's ring
            # beside the boundary's): an invalid polygon answers "covers" wrongly.
            area = _polygonal(shapely.make_valid(area))
        shapely.prepare(area)
        # Projected distances overstate geodesic ones by at most ``k``: never too strict.
        k = projection.scale_bound(projection.lat, projection.lon)
        reach = k * view.zone_radius_m + 1.0
        inside = np.asarray(shapely.dwithin(area, table.points[rows], reach))
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
) -> None:
    """Decide ``inside`` again, by the answer itself, for stations near an edge of ``keep``."""
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
    near, _ = STRtree(segments).query(
        shapely.points(lons, lats), predicate="dwithin", distance=degrees
    )
    for n in np.unique(near):
        inside[n] = answer_at(float(lats[n]), float(lons[n]))


def _in_play(view: SeekerMap, table: StationTable) -> tuple[float, float, float, float]:
    """A lon/lat box holding the remaining area and every candidate's zone: no later
    answer can matter outside it."""
    rows = _rows(view, table.row)
    boxes = [view.remaining.bounds] if not view.remaining.is_empty else []
    if len(rows):
        lats, lons = table.lats[rows], table.lons[rows]
        # A degree of latitude is >= 110 km; of longitude, cos(lat) times that.
        pad_lat = view.zone_radius_m / 110_000.0
        widest = float(np.abs(lats).max()) + pad_lat
        pad_lon = min(180.0, pad_lat / max(np.cos(np.radians(min(widest, 89.0))), 1e-6))
        boxes.append((float(lons.min()) - pad_lon, float(lats.min()) - pad_lat,
                      float(lons.max()) + pad_lon, float(lats.max()) + pad_lat))
    if not boxes:
        return view.boundary.bounds
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


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
