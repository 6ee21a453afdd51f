"""Which stations a measuring or matching answer keeps, decided per station without
drawing the band or the cell (an area of thousands of discs or a cell across the country
costs far more than the stations' own answers).

A measuring answer compares the distance ``M`` from the hider to the nearest feature of a
kind with the seeker's (``geo.answers.answer_measuring``); a matching answer compares the
nearest place (or named street) itself. For a station ``M`` is bounded by the projected
distance ``p`` to the nearest projected feature, ``p / k <= M <= p`` (see ``geo.spatial``:
projected distances overstate geodesic ones by at most ``k``), and the nearest feature is
one of those within ``k * p``. So most stations are decided by the projection alone, and
the few it leaves open are answered again, exactly as the hider's answer was computed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable

import numpy as np
import shapely

from hideseek_chat.geo.answers import STREET_SUBJECT, TIE_EPSILON_M
from hideseek_chat.geo.distance import WGS84
from hideseek_chat.geo.mappack import ROAD_KIND
from hideseek_chat.geo.spatial import MapIndex
from hideseek_chat.geo.stationtable import AtStations, NearStations, station_table
from hideseek_chat.geo.voronoi import PARTS, kept

#: Slack on the bounds (metres) for float rounding.
_SLACK_M = 1e-3
#: Slack for answers from anywhere in a zone: a line's measure (to its nearest projected
#: point) may be a hair off the true geodesic distance.
_LIVE_SLACK_M = 1.0
#: ``geo.spatial``'s slack on its scale bound, and the earth's mean radius it uses.
_SCALE_SLACK = 1.005
EARTH_RADIUS_M = 6_371_008.8
#: A station's nearest place not settled by the projection (see :func:`_labels`).
UNSETTLED = -1
_NOT_YET = -2.0


def scale_bound(index: MapIndex) -> float:
    """The projection's scale bound ``k`` for any point of the map (its farthest corner's)."""
    west, south, east, north = index.pack.boundary.bounds
    projection = index.projection
    return max(projection.scale_bound(lat, lon) for lat in (south, north) for lon in (west, east))


def _nearest_projected(
    index: MapIndex, kind: str, points: np.ndarray, named_only: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """For projected points: the nearest projected feature of ``kind`` and its distance."""
    if len(points) == 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0)
    found, distance = index._layer(kind, named_only).tree.query_nearest(
        points, return_distance=True, all_matches=False
    )
    return found[1], np.asarray(distance, dtype=float)


def _bounds(
    index: MapIndex, kind: str, xs: np.ndarray, ys: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of the distance from points to the kind's nearest feature as
    ``MapIndex.nearest`` measures it: exact (both the same) for the map's stations, kept
    per index and kind (they belong to the map alone); from the projection for others."""
    rows = station_table(index).rows_at(xs, ys)
    if rows is None:
        upper = _nearest_projected(index, kind, shapely.points(xs, ys))[1]
        k = scale_bound(index)
        return (np.zeros_like(upper) if math.isinf(k) else upper / k), upper
    measured = _per_station(
        index, ("measured", kind), rows, math.nan, lambda need: _measured(index, kind, need)
    )
    return measured, measured


def _per_station(
    index: MapIndex,
    key: tuple[Hashable, ...],
    rows: np.ndarray,
    missing: float,
    compute: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    """A per-station value kept per index (it belongs to the map alone), computed for the
    rows asked for the first time (``missing`` marks the others; NaN for floats)."""
    count = len(station_table(index).lats)
    store = kept(PARTS, index, key, lambda: np.full(count, missing), stations=True)
    values = store[rows]
    need = rows[np.isnan(values) if math.isnan(missing) else values == missing]
    if len(need):
        store[need] = compute(need)
        values = store[rows]
    return values  # type: ignore[no-any-return]


def _measured(index: MapIndex, kind: str, rows: np.ndarray) -> np.ndarray:
    """Stations' distances (by row) to the kind's nearest feature, measured as
    ``MapIndex.nearest`` measures them (the same candidates, the same geodesic calls)."""
    table = station_table(index)
    layer = index._layer(kind)
    if not layer.items:
        return np.full(len(rows), math.inf)
    projection = index.projection
    xs, ys, points = table.xs[rows], table.ys[rows], table.points[rows]
    # ``LocalProjection.scale_bound`` at each station: its distance from the centre is its
    # projected distance from the origin (azimuthal equidistant); a hair larger is safe.
    angle = (np.hypot(xs, ys) + projection.radius_m) / EARTH_RADIUS_M
    if float(angle.max()) >= 2.5:
        return np.array(
            [_nearest(index, kind, float(table.lats[n]), float(table.lons[n])) for n in rows]
        )
    safe = np.maximum(angle, 1e-9)
    k = np.where(angle < 1e-9, 1.0, safe / np.sin(safe)) * _SCALE_SLACK * (1 + 1e-9)
    _, nearest = _nearest_projected(index, kind, points)
    station, feature = layer.tree.query(points, predicate="dwithin", distance=k * nearest + 1.0)
    projected = np.empty(len(layer.projected), dtype=object)
    projected[:] = layer.projected
    lonlat = np.empty(len(layer.lonlat), dtype=object)
    lonlat[:] = layer.lonlat
    to = np.empty((len(station), 2))
    point = shapely.get_type_id(lonlat[feature]) == 0
    to[point] = shapely.get_coordinates(lonlat[feature[point]])
    covered = np.zeros(len(station), dtype=bool)
    other = np.nonzero(~point)[0]
    if len(other):
        shapes, where = projected[feature[other]], points[station[other]]
        polygon = np.isin(shapely.get_type_id(shapes), (3, 6))
        covered[other[polygon]] = shapely.covers(shapes[polygon], where[polygon])
        line = shapely.shortest_line(shapes, where)
        to[other] = projection.to_lonlat_array(shapely.get_coordinates(line)[0::2])
    at = rows[station]
    _, _, away = WGS84.inv(table.lons[at], table.lats[at], to[:, 0], to[:, 1])
    distance = np.where(covered, 0.0, np.asarray(away, dtype=float))
    measured = np.full(len(rows), math.inf)
    np.minimum.at(measured, station, distance)
    return measured


def _nearest(index: MapIndex, kind: str, lat: float, lon: float) -> float:
    hit = index.nearest(kind, lat, lon)
    return math.inf if hit is None else hit.distance_m


def measuring_tests(
    index: MapIndex,
    kind: str,
    seeker_m: float,
    closer: bool,
    margin_m: float,
    answer_at: Callable[[float, float], bool],
) -> tuple[AtStations, NearStations]:
    """The station tests of a measuring answer: ``closer`` (strictly nearer the kind than
    the seeker's ``seeker_m``) or further; the drawn band is ``margin_m`` generous.

    ``at`` (answers from the station) is exact: a station within a millimetre of the
    seeker's distance (or one the bounds leave open) is answered by ``answer_at``. ``near``
    (answers from anywhere within ``slack`` of the station) keeps a station unless its
    whole disc is surely on the other side: the distance to the nearest feature changes by
    at most ``slack`` across the disc. Never too strict; "further" keeps a station whose
    disc several features' discs cover together (no single one does).
    """

    def at(lats: np.ndarray, lons: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        lower, upper = _bounds(index, kind, xs, ys)
        nearer = upper + _SLACK_M < seeker_m
        farther = lower - _SLACK_M >= seeker_m
        inside = nearer if closer else farther
        for n in np.nonzero(~nearer & ~farther)[0]:
            inside[n] = answer_at(float(lats[n]), float(lons[n]))
        return inside

    def near(
        lats: np.ndarray, lons: np.ndarray, xs: np.ndarray, ys: np.ndarray, slack: float
    ) -> np.ndarray:
        lower, upper = _bounds(index, kind, xs, ys)
        reach = slack + margin_m + _LIVE_SLACK_M
        if closer:
            return np.asarray(lower - reach <= seeker_m)
        return np.asarray(upper + reach >= seeker_m)

    return at, near


def _numbers(
    index: MapIndex, kind: str, named_only: bool
) -> tuple[np.ndarray, dict[Hashable, int]]:
    """Each feature's label (place, or street name) as a number, and the numbers by label."""

    def build() -> tuple[np.ndarray, dict[Hashable, int]]:
        layer = index._layer(kind, named_only)
        numbers: dict[Hashable, int] = {}
        label = [
            numbers.setdefault(_label(layer, kind, f, named_only), len(numbers))
            for f in layer.items
        ]
        return np.array(label, dtype=np.int64), numbers

    return kept(PARTS, index, ("numbers", kind, named_only), build)


def _labels(index: MapIndex, kind: str, named_only: bool, rows: np.ndarray) -> np.ndarray:
    """Stations' (by row) nearest place of ``kind`` (named streets: the street name) as the
    hider's answer finds it, as a number (:data:`UNSETTLED` where the projection gives no
    bound). Where features of two labels lie within ``k`` times the nearest projected
    distance (only those can be nearest) the station is looked up as
    ``geo.answers.answer_matching`` looks the hider up; elsewhere the projection decides."""
    table = station_table(index)
    layer = index._layer(kind, named_only)
    label, numbers = _numbers(index, kind, named_only)

    def compute(need: np.ndarray) -> np.ndarray:
        k = scale_bound(index)
        if not len(label) or math.isinf(k):
            return np.full(len(need), UNSETTLED)
        points = table.points[need]
        nearest, distance = _nearest_projected(index, kind, points, named_only)
        first = label[nearest]
        station, feature = layer.tree.query(
            points, predicate="dwithin", distance=k * distance + 1.0
        )
        mixed = np.zeros(len(first), dtype=bool)
        mixed[station[label[feature] != first[station]]] = True
        # Near a tie the projection cannot tell: the hider's answer's own lookup does.
        ranked = index.ranked_named if named_only else index.ranked
        for n in np.nonzero(mixed)[0]:
            row = need[n]
            hits = ranked(kind, float(table.lats[row]), float(table.lons[row]), TIE_EPSILON_M)
            first[n] = numbers[_label(layer, kind, hits[0].item, named_only)]
        return first

    return _per_station(index, ("labels", kind, named_only), rows, _NOT_YET, compute)


def _label(layer: object, kind: str, feature: object, named_only: bool) -> Hashable:
    if named_only:
        return feature.name.casefold()  # type: ignore[attr-defined, no-any-return]
    return layer.places[id(feature)]  # type: ignore[attr-defined, no-any-return]


def matching_test(
    index: MapIndex,
    kind: str,
    seeker_label: Hashable,
    same: bool,
    answer_at: Callable[[float, float], bool],
    named_only: bool = False,
) -> AtStations:
    """The exact station test of a matching answer (answers from the station): the
    station's nearest place (street name) is the seeker's (``same``) or not. ``seeker_label``
    is a place number (``MapIndex``'s clustering) or a casefolded street name."""

    def at(lats: np.ndarray, lons: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        rows = station_table(index).rows_at(xs, ys)
        if rows is None:
            open_ = np.ones(len(lats), dtype=bool)
            inside = np.zeros(len(lats), dtype=bool)
        else:
            numbers = _numbers(index, kind, named_only)[1]
            mine = _labels(index, kind, named_only, rows)
            open_ = mine == UNSETTLED
            inside = (mine == numbers.get(seeker_label, UNSETTLED - 1)) == same
        for n in np.nonzero(open_)[0]:
            inside[n] = answer_at(float(lats[n]), float(lons[n]))
        return inside

    return at


def prepare(index: MapIndex, measuring: Iterable[str] = (), matching: Iterable[str] = ()) -> None:
    """Measure and look up every station now for these measuring and matching kinds
    (``street`` for named roads), once per map: answers otherwise do it on first use for
    the stations they test (the first answer of a kind across a country: 20-60 ms more)."""
    table = station_table(index)
    every = np.arange(len(table.lats))
    for kind in measuring:
        if index.has_data_for(kind):
            _bounds(index, kind, table.xs, table.ys)
    for kind in matching:
        named_only = kind == STREET_SUBJECT
        layer_kind = ROAD_KIND if named_only else kind
        if index.has_data_for(layer_kind):
            _labels(index, layer_kind, named_only, every)
