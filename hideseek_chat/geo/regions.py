"""Regions for the seekers' map: geodesic circles and bisector half-planes, and the rule that
turns each answered question into the area (or the stations) the hider can be in.

Every geometry returned is lon/lat (x = lon). Curves are made of points lying exactly on the
geodesic curve (``Geod.fwd`` for circles, a solved equation for bisectors), close enough that
a straight lon/lat segment between two of them strays well under a metre from the curve.

Discs and distance bands are drawn a little generous (:data:`MARGIN_M`) so that an answer
computed truthfully never loses its position to rounding; bisectors are exact within
:data:`SAG_M`. A point farther than a metre from an edge is always on the right side, and
``seeking`` decides stations nearer than that by recomputing the answer.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import shapely
from pyproj import Transformer
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from hideseek_chat.geo import cells, nearness
from hideseek_chat.geo.answers import (
    DIVISION_SUBJECTS,
    STREET_SUBJECT,
    HiderFix,
    answer_matching,
    answer_measuring,
    answer_tentacle,
)
from hideseek_chat.geo.distance import WGS84, distance_m
from hideseek_chat.geo.mappack import ROAD_KIND, Feature, line_name_key
from hideseek_chat.geo.spatial import MapIndex
from hideseek_chat.geo.stationtable import (
    AtStations,
    NearStations,
    station_table,
)
from hideseek_chat.geo.termini import counted_name
from hideseek_chat.rules.ruleset import NULL_ANSWER, Category, HiderPosition

if TYPE_CHECKING:
    from hideseek_chat.geo.seeking import Clue

#: How much bigger than exact a keep region is drawn (metres), against rounding.
MARGIN_M = 0.25
#: The largest distance a drawn curve may stray from the true one before a margin (metres).
SAG_M = 0.1
#: The longest straight lon/lat segment on a curve (metres): longer ones bend off the
#: geodesic they stand for once unprojected.
MAX_SEGMENT_M = 1000.0


def _segments_for_circle(radius_m: float) -> int:
    """How many chords a circle needs so each strays < SAG_M and is < MAX_SEGMENT_M long."""
    if radius_m <= SAG_M:
        return 8
    half_angle = math.acos(max(-1.0, 1.0 - SAG_M / radius_m))
    by_sag = math.pi / half_angle
    by_length = 2 * math.pi * radius_m / MAX_SEGMENT_M
    return max(16, math.ceil(max(by_sag, by_length)))


def circle_ring(lat: float, lon: float, radius_m: float) -> np.ndarray:
    """Points (lon, lat) exactly on the geodesic circle, clockwise from north, closed.

    They are the circle of an azimuthal equidistant projection centred on the point, where
    a geodesic circle is a true circle; ``Geod.fwd`` finds the same points without building
    the projection.
    """
    count = _segments_for_circle(radius_m)
    azimuths = np.linspace(0.0, 360.0, count, endpoint=False)
    lons, lats, _ = WGS84.fwd(
        np.full(count, lon), np.full(count, lat), azimuths, np.full(count, radius_m)
    )
    lons = np.asarray(lons)
    # Keep longitudes continuous around the centre so a ring near the antimeridian stays one.
    lons = lon + (lons - lon + 180.0) % 360.0 - 180.0
    ring = np.column_stack([lons, np.asarray(lats)])
    return np.vstack([ring, ring[:1]])


def geodesic_disc(lat: float, lon: float, radius_m: float) -> Polygon:
    """The points within ``radius_m`` (geodesic) of a point, as a lon/lat polygon.

    Its chords cut inside the circle by less than ``SAG_M``; pass a radius a little larger
    when every point of the disc must be covered.
    """
    return Polygon(circle_ring(lat, lon, radius_m)[::-1])


class LocalAeqd:
    """An azimuthal equidistant projection (metres) centred on one point; cheap to build."""

    def __init__(self, lat: float, lon: float) -> None:
        self.lat = lat
        self.lon = lon
        self._transformer = Transformer.from_pipeline(
            "+proj=pipeline +step +proj=unitconvert +xy_in=deg +xy_out=rad "
            f"+step +proj=aeqd +lat_0={lat!r} +lon_0={lon!r} +ellps=WGS84"
        )

    def forward(self, lons: np.ndarray, lats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x, y = self._transformer.transform(lons, lats)
        return np.asarray(x), np.asarray(y)

    def inverse(self, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        lons, lats = self._transformer.transform(xs, ys, direction="INVERSE")
        return np.asarray(lons), np.asarray(lats)


def _midpoint(lat1: float, lon1: float, lat2: float, lon2: float) -> tuple[float, float]:
    azimuth, _, length = WGS84.inv(lon1, lat1, lon2, lat2)
    lon, lat, _ = WGS84.fwd(lon1, lat1, azimuth, length / 2)
    return float(lat), float(lon)


@dataclass(frozen=True, slots=True)
class _Bisector:
    """Solves ``d(start, p) - d(end, p) = 0`` along lines across the start-end direction."""

    projection: LocalAeqd
    start: tuple[float, float]  # lat, lon
    end: tuple[float, float]
    across: np.ndarray  # unit vector (projected) along the bisector
    along: np.ndarray  # unit vector from start towards end
    half_gap_m: float

    def gap(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        lons, lats = self.projection.inverse(xs, ys)
        count = len(lons)
        _, _, to_start = WGS84.inv(
            np.full(count, self.start[1]), np.full(count, self.start[0]), lons, lats
        )
        _, _, to_end = WGS84.inv(
            np.full(count, self.end[1]), np.full(count, self.end[0]), lons, lats
        )
        return np.asarray(to_start) - np.asarray(to_end)

    def points(self, ts: np.ndarray) -> np.ndarray:
        """The bisector's points (projected x, y) at offsets ``ts`` along ``across``."""
        base = np.outer(ts, self.across)
        # The gap grows by about 2·h/sqrt(t² + h²) per metre along: a good first slope.
        slope = 2 * self.half_gap_m / np.sqrt(ts**2 + self.half_gap_m**2)
        s = np.zeros(len(ts))
        value = self.gap(base[:, 0], base[:, 1])
        for _ in range(30):
            step = -value / slope
            s_next = s + step
            xy = base + np.outer(s_next, self.along)
            value_next = self.gap(xy[:, 0], xy[:, 1])
            moved = value_next - value
            usable = np.abs(step) > 1e-9
            slope = np.where(
                usable & (np.abs(moved) > 1e-12), moved / np.where(usable, step, 1), slope
            )
            s, value = s_next, value_next
            if float(np.max(np.abs(value))) < 1e-5:
                break
        return base + np.outer(s, self.along)


def _densify(xy: np.ndarray, max_m: float) -> np.ndarray:
    """Insert points so no segment of the projected line is longer than ``max_m``."""
    steps = np.diff(xy, axis=0)
    counts = np.maximum(1, np.ceil(np.hypot(steps[:, 0], steps[:, 1]) / max_m)).astype(int)
    segment = np.repeat(np.arange(len(steps)), counts)
    # The fraction along its segment of each new point: 0, 1/n, ..., (n-1)/n.
    starts = np.cumsum(counts) - counts
    within = np.arange(int(counts.sum())) - np.repeat(starts, counts)
    fraction = within / np.repeat(counts, counts)
    inner = xy[segment] + steps[segment] * fraction[:, None]
    return np.vstack([inner, xy[-1:]])


def bisector_side(
    start: tuple[float, float], end: tuple[float, float], nearer_end: bool, reach_m: float
) -> Polygon:
    """The points nearer ``end`` than ``start`` (``nearer_end``) or the rest, as a lon/lat
    polygon covering at least everything within ``reach_m`` of the pins' midpoint.

    Built in an azimuthal equidistant projection centred on the midpoint; each vertex of the
    dividing curve solves ``d(start, p) = d(end, p)`` on the ellipsoid, and vertices are added
    until the curve between them strays less than ``SAG_M``. ``start`` and ``end`` are
    (lat, lon) and must differ.
    """
    mid_lat, mid_lon = _midpoint(*start, *end)
    projection = LocalAeqd(mid_lat, mid_lon)
    (sx,), (sy,) = projection.forward(np.array([start[1]]), np.array([start[0]]))
    (ex,), (ey,) = projection.forward(np.array([end[1]]), np.array([end[0]]))
    along = np.array([ex - sx, ey - sy])
    along /= float(np.hypot(*along))
    across = np.array([-along[1], along[0]])
    half_gap = max(distance_m(*start, *end) / 2, 1e-3)
    curve = _Bisector(projection, start, end, across, along, half_gap)
    reach = reach_m * 1.1 + 1000.0
    ts = np.linspace(-reach, reach, 65)
    xy = curve.points(ts)
    for _ in range(40):
        mid_ts = (ts[:-1] + ts[1:]) / 2
        mids = curve.points(mid_ts)
        chord_mid = (xy[:-1] + xy[1:]) / 2
        off = np.hypot(*(mids - chord_mid).T)
        bad = off > SAG_M
        if not bad.any():
            break
        every_t = np.concatenate([ts, mid_ts[bad]])
        every_xy = np.vstack([xy, mids[bad]])
        order = np.argsort(every_t, kind="stable")
        ts, xy = every_t[order], every_xy[order]
    line = _densify(xy, MAX_SEGMENT_M)
    side = along if nearer_end else -along
    far_a = xy[-1] + side * 2 * reach
    far_b = xy[0] + side * 2 * reach
    closing = _densify(np.vstack([xy[-1], far_a, far_b, xy[0]]), reach / 16)
    ring = np.vstack([line, closing[1:]])
    lons, lats = projection.inverse(ring[:, 0], ring[:, 1])
    return Polygon(np.column_stack([lons, lats]))


def covers_lonlat(region: BaseGeometry, lats: np.ndarray, lons: np.ndarray) -> np.ndarray:
    """Which points (as arrays) lie in or on a lon/lat region."""
    if len(lats) == 0:
        return np.zeros(0, dtype=bool)
    shapely.prepare(region)
    return np.asarray(shapely.intersects_xy(region, lons, lats))


# ---------------------------------------------------------------- clues -> regions


@dataclass(frozen=True)
class Region:
    """What one answer says: ``keep`` the lon/lat area the hider was in when answering
    (None: anywhere), ``stations`` the station ids their zone can be on (None: any).

    ``at_stations`` / ``near_stations``, when given, decide exactly which stations stay,
    mirroring how the answer was computed; otherwise ``keep`` decides. ``draw``, when
    given (``keep`` is then None), draws the area on demand, exact within a lon/lat box:
    the stations are decided without it.
    """

    keep: BaseGeometry | None
    stations: frozenset[str] | None = None
    at_stations: AtStations | None = None
    near_stations: NearStations | None = None
    #: ``stations`` as a mask over the pack's stations (:func:`station_table` order)
    station_mask: np.ndarray | None = None
    #: whether a hider at (lat, lon) gets this answer, computed as the answer was: decides
    #: the stations so near an edge of ``keep`` that the drawn edge could misplace them
    answer_at: Callable[[float, float], bool] | None = None
    draw: Callable[[tuple[float, float, float, float]], BaseGeometry] | None = None


def _line_mask(index: MapIndex, line: str) -> np.ndarray:
    table = station_table(index)
    key = line_name_key(line)
    if key not in table.lines:
        table.lines[key] = np.array([s.serves(key) for s in index.pack.stations], dtype=bool)
    return table.lines[key]


def _stations_region(index: MapIndex, mask: np.ndarray) -> Region:
    ids = station_table(index).ids[mask]
    return Region(None, frozenset(ids.tolist()), station_mask=mask)


def _distances(lat: float, lon: float, lats: np.ndarray, lons: np.ndarray) -> np.ndarray:
    """Geodesic distances from one point to many, in the argument order of ``distance_m``."""
    count = len(lats)
    _, _, away = WGS84.inv(np.full(count, lon), np.full(count, lat), lons, lats)
    return np.asarray(away, dtype=float)


def _projected(index: MapIndex, lat: float, lon: float) -> tuple[float, float, float]:
    """A point's x, y in the index's projection and the scale bound ``k`` around it."""
    projection = index.projection
    point = projection.point(lat, lon)
    return float(point.x), float(point.y), projection.scale_bound(lat, lon)


def _within(
    index: MapIndex,
    lat: float,
    lon: float,
    limit: float,
    lats: np.ndarray,
    lons: np.ndarray,
    xs: np.ndarray,
    ys: np.ndarray,
) -> np.ndarray:
    """Which stations are within ``limit`` (geodesic, the edge included) of a point."""
    cx, cy, k = _projected(index, lat, lon)
    p = np.hypot(xs - cx, ys - cy)
    if math.isinf(k):
        return _distances(lat, lon, lats, lons) <= limit
    # Decided by the bounds when clear by a millimetre; measured when near the edge.
    inside = k * p <= limit - 1e-3
    unsure = ~inside & (p / k <= limit + 1e-3)
    inside[unsure] = _distances(lat, lon, lats[unsure], lons[unsure]) <= limit
    return inside


def radar_region(index: MapIndex, lat: float, lon: float, radius_m: float, inside: bool) -> Region:
    """Within ``radius_m`` of the pin (on the edge counts as within), or beyond it."""
    if inside:
        keep: BaseGeometry = geodesic_disc(lat, lon, radius_m + SAG_M + MARGIN_M)

        def near(
            lats: np.ndarray, lons: np.ndarray, xs: np.ndarray, ys: np.ndarray, slack: float
        ) -> np.ndarray:
            # Triangle inequality: a point within ``slack`` of the station is within the
            # circle only if the station is within radius + slack of its centre.
            return _within(index, lat, lon, radius_m + slack, lats, lons, xs, ys)
    else:
        keep = index.pack.boundary
        if radius_m > MARGIN_M:
            keep = keep.difference(geodesic_disc(lat, lon, radius_m - MARGIN_M))

        def near(
            lats: np.ndarray, lons: np.ndarray, xs: np.ndarray, ys: np.ndarray, slack: float
        ) -> np.ndarray:
            if slack >= radius_m:
                return np.ones(len(lats), dtype=bool)
            # Beyond ``radius - slack`` exactly: not within a hair less than that.
            limit = radius_m - slack
            return ~_within(index, lat, lon, limit, lats, lons, xs, ys)

    def at(lats: np.ndarray, lons: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        return near(lats, lons, xs, ys, 0.0)

    return Region(keep, at_stations=at, near_stations=near)


def thermometer_region(
    start: tuple[float, float], end: tuple[float, float], hotter: bool, reach_m: float
) -> Region:
    """Strictly nearer the end pin than the start pin (hotter), or not (colder)."""
    keep = bisector_side(start, end, hotter, reach_m)

    def answer_at(lat: float, lon: float) -> bool:
        # As answer_thermometer measures: start and end pin to the hider.
        nearer = distance_m(*end, lat, lon) < distance_m(*start, lat, lon)
        return nearer == hotter

    return Region(keep, answer_at=answer_at)


def reach_of(bounds: tuple[float, float, float, float], lat: float, lon: float) -> float:
    """The geodesic distance from a point to the farthest corner or edge middle of a lon/lat
    box (``bounds`` as shapely gives them)."""
    west, south, east, north = bounds
    lons = np.array([west, east, west, east, west, east, (west + east) / 2, (west + east) / 2])
    mid = (south + north) / 2
    lats = np.array([south, south, north, north, mid, mid, south, north])
    return float(_distances(lat, lon, lats, lons).max())


# ---------------------------------------------------------------- the rule per category


def clue_region(
    index: MapIndex, clue: Clue, bounds: tuple[float, float, float, float] | None = None
) -> Region | str:
    """The region one clue stands for, or the reason code it cannot become one.

    Regions are exact within ``bounds`` (lon/lat; the boundary's by default): pass the part
    of the map still in play to spare drawing curves across the rest of it.
    """
    if clue.void:
        return clue.void
    if clue.category == Category.PHOTO:
        return "photo"
    if clue.answer is None:
        return "no_answer"
    if clue.seeker is None:
        return "no_seeker_pin"
    boundary = index.pack.boundary
    seeker = (clue.seeker.lat, clue.seeker.lon)
    if clue.category == Category.RADAR:
        if clue.distance_m is None or clue.answer not in ("yes", "no"):
            return "unreadable_answer"
        return radar_region(index, *seeker, clue.distance_m, clue.answer == "yes")
    if clue.category == Category.THERMOMETER:
        if clue.end is None:
            return "no_seeker_pin"
        end = (clue.end.lat, clue.end.lon)
        if clue.answer not in ("hotter", "colder"):
            return "unreadable_answer"
        if distance_m(*seeker, *end) == 0.0:
            return "not_far_enough"
        mid = _midpoint(*seeker, *end)
        reach = reach_of(bounds or boundary.bounds, *mid)
        return thermometer_region(seeker, end, clue.answer == "hotter", reach)
    if clue.answer == NULL_ANSWER:
        # The map has none of the subject in its boundary: true wherever the hider is.
        return Region(None)
    if clue.category == Category.MATCHING:
        region = _matching(index, clue)
    elif clue.category == Category.MEASURING:
        region = _measuring(index, clue)
    elif clue.category == Category.TENTACLE:
        region = _tentacle(index, clue, bounds)
    else:
        return "unsupported_category"
    if isinstance(region, str) or region.keep is None:
        return region
    return replace(region, answer_at=_answer_at(index, clue))


def _answer_at(index: MapIndex, clue: Clue) -> Callable[[float, float], bool]:
    """Whether a hider at a point gets ``clue``'s answer, by the automatic answers' code."""
    seeker = clue.seeker
    assert seeker is not None
    wanted = (clue.detail or "").strip().casefold()

    def check(lat: float, lon: float) -> bool:
        fix = HiderFix(lat, lon, 0.0, HiderPosition.STATION)
        if clue.category == Category.MATCHING:
            return answer_matching(index, clue.subject, seeker, fix).answer == clue.answer
        if clue.category == Category.MEASURING:
            return answer_measuring(index, clue.subject, seeker, fix).answer == clue.answer
        reach = clue.distance_m or 0.0
        result = answer_tentacle(index, clue.subject, seeker, fix, reach)
        if clue.answer == "not_in_reach" or result.answer in (None, "not_in_reach", NULL_ANSWER):
            return result.answer == clue.answer
        names = {n.strip().casefold() for n in (*result.names, result.answer or "")}
        return wanted in names

    return check


def _matching(index: MapIndex, clue: Clue) -> Region | str:
    assert clue.seeker is not None
    same = clue.answer == "yes"
    if clue.answer not in ("yes", "no"):
        return "unreadable_answer"
    pack = index.pack
    if clue.subject == "transit-line":
        line = (clue.detail or "").strip()
        if not line:
            return "needs_line"
        # A station with no lines on the map was answered by hand: it stays either way.
        serves = _line_mask(index, line)
        table = station_table(index)
        return _stations_region(index, table.unrouted | (serves == same))
    if clue.subject == "station-name-length":
        near = index.nearest_station(clue.seeker.lat, clue.seeker.lon)
        if near is None:
            return "no_map_data"
        counted = counted_name(near.item)  # a street end's street, in a car game
        if counted is None:
            return "unnamed_street"
        # The end of an unnamed street has no name to count: it stays either way.
        lengths = station_table(index).lengths
        return _stations_region(index, (lengths < 0) | ((lengths == len(counted)) == same))
    if clue.subject in DIVISION_SUBJECTS:
        if not index.has_data_for(clue.subject):
            return "no_map_data"
        division = cells.division_of(index, clue.subject, clue.seeker.lat, clue.seeker.lon)
        if division is None:
            return "not_in_any_division"
        return Region(_inside_or_not(pack.boundary, division, same))
    if clue.subject == STREET_SUBJECT:
        if not index.has_data_for(ROAD_KIND):
            return "no_map_data"
        road = index.nearest_named(ROAD_KIND, clue.seeker.lat, clue.seeker.lon)
        if road is None:
            return "no_map_data"
        name = road.item.name
        at = nearness.matching_test(
            index, ROAD_KIND, name.casefold(), same, _answer_at(index, clue), named_only=True
        )
        return Region(
            None,
            at_stations=at,
            draw=lambda within: _inside_or_not(
                pack.boundary, cells.street_cell(index, name, within), same
            ),
        )
    if not index.has_data_for(clue.subject):
        return "no_map_data"
    place = index.nearest(clue.subject, clue.seeker.lat, clue.seeker.lon)
    if place is None:
        return "no_feature_in_boundary"
    # With answers from the station the cell is drawn only when the area is read.
    at = nearness.matching_test(
        index,
        clue.subject,
        index._layer(clue.subject).places[id(place.item)],
        same,
        _answer_at(index, clue),
    )
    return Region(
        None,
        at_stations=at,
        draw=lambda within: _inside_or_not(
            pack.boundary, cells.place_cell(index, clue.subject, place.item, bounds=within), same
        ),
    )


def _inside_or_not(boundary: BaseGeometry, area: BaseGeometry, inside: bool) -> BaseGeometry:
    return area if inside else boundary.difference(area)


def _measuring(index: MapIndex, clue: Clue) -> Region | str:
    assert clue.seeker is not None
    if clue.answer not in ("closer", "further"):
        return "unreadable_answer"
    if clue.subject == "sea-level":
        return "no_elevation_data"
    if not index.has_data_for(clue.subject):
        return "no_map_data"
    near = index.nearest(clue.subject, clue.seeker.lat, clue.seeker.lon)
    if near is None:
        return "no_feature_in_boundary"
    # Closer means strictly nearer than the seeker's nearest; further is the rest. The
    # band (thousands of discs for a common kind) is drawn only when the area is read.
    closer, seeker_m = clue.answer == "closer", near.distance_m

    def draw(within: tuple[float, float, float, float]) -> BaseGeometry:
        if closer:
            return cells.distance_band(index, clue.subject, seeker_m + MARGIN_M, within)
        band = cells.distance_band(index, clue.subject, max(seeker_m - MARGIN_M, 0.0), within)
        return index.pack.boundary.difference(band)

    at, near_stations = nearness.measuring_tests(
        index, clue.subject, seeker_m, closer, MARGIN_M, _answer_at(index, clue)
    )
    return Region(None, at_stations=at, near_stations=near_stations, draw=draw)


def _tentacle(
    index: MapIndex, clue: Clue, bounds: tuple[float, float, float, float] | None
) -> Region | str:
    assert clue.seeker is not None
    if clue.distance_m is None:
        return "unreadable_answer"
    if not index.has_data_for(clue.subject):
        return "no_map_data"
    lat, lon, reach = clue.seeker.lat, clue.seeker.lon, clue.distance_m
    rows = index.within(clue.subject, lat, lon, reach)
    if clue.answer == "not_in_reach":
        if not rows:
            # Nothing in reach: "not in reach" would be the answer wherever the hider is.
            return Region(None)
        # Something in reach: the hider must be out of reach themselves.
        return radar_region(index, lat, lon, reach, inside=False)
    if clue.answer != "named":
        return "unreadable_answer"
    wanted = (clue.detail or "").strip().casefold()
    named: list[Feature] = []
    for hit in rows:
        # The answer is the name of the place's row nearest the seeker, which may be
        # unnamed (""): any row's own name or any name of its place matches.
        names = {n.strip().casefold() for n in index.place_names(clue.subject, hit.item)}
        names.add(hit.item.name.strip().casefold())
        if wanted in names and not any(
            index.same_place(clue.subject, hit.item, seen) for seen in named
        ):
            named.append(hit.item)
    if not named:
        return "unknown_place"
    among = [hit.item for hit in rows]
    area = shapely.union_all(
        [cells.place_cell(index, clue.subject, place, among, bounds) for place in named]
    )
    disc = radar_region(index, lat, lon, reach, inside=True)
    assert disc.keep is not None
    return Region(area.intersection(disc.keep))
