"""Voronoi cells, street cells, distance bands and divisions against a brute-force check.

Each check takes points spread over the map plus points 1 to 3 m off the computed edges,
works out geodesically (pyproj's Geod, i.e. geographiclib) which place is nearest, and
requires the computed area to agree wherever the point is at least 1 m from its edge.
Two maps: the shipped Stillwater pack (15 km, where the projection is as good as geodesic)
and a generated one 1000 km across, where the projection would move bisectors by up to
~100 m if nothing corrected it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Mapping

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyproj import Geod
from shapely import STRtree
from shapely.geometry import LineString, Point, box
from shapely.geometry.base import BaseGeometry

from hideseek_chat.geo import Feature, MapIndex, MapPack, load_map_pack
from hideseek_chat.geo.cells import distance_band, division_of, place_cell, street_cell

GEOD = Geod(ellps="WGS84")
#: A point this near an edge of the computed area may fall either way.
EDGE_M = 1.0


@pytest.fixture(scope="module")
def stillwater() -> MapIndex:
    return MapIndex(load_map_pack("stillwater"))


def country_pack(count: int = 300, seed: int = 3) -> MapPack:
    """Museums at random over a box ~1000 km across (central Europe), each its own place."""
    rnd = random.Random(seed)
    lat0, lon0, dlat, dlon = 47.0, 10.0, 4.5, 6.5
    boundary = shapely.segmentize(box(lon0 - dlon, lat0 - dlat, lon0 + dlon, lat0 + dlat), 0.05)
    museums = tuple(
        Feature(
            "museum",
            f"Museum {i}",
            Point(rnd.uniform(lon0 - dlon, lon0 + dlon), rnd.uniform(lat0 - dlat, lat0 + dlat)),
        )
        for i in range(count)
    )
    return MapPack(name="country", boundary=boundary, stations=(), features=museums)


@pytest.fixture(scope="module")
def country() -> MapIndex:
    return MapIndex(country_pack())


# ------------------------------------------------------------------ brute force


def point_distances(features: list[Feature], lat: float, lon: float) -> np.ndarray:
    """Geodesic distances from one point to point features, all at once."""
    lons = np.array([f.geometry.x for f in features])  # type: ignore[attr-defined]
    lats = np.array([f.geometry.y for f in features])  # type: ignore[attr-defined]
    here_lon = np.full(len(features), lon)
    here_lat = np.full(len(features), lat)
    return np.asarray(GEOD.inv(here_lon, here_lat, lons, lats)[2])


def nearest_label(
    distances: np.ndarray, labels: list[Hashable]
) -> tuple[Hashable, float]:
    """The label of the nearest feature and how much nearer it is than any other label's."""
    order = np.argsort(distances)
    best = labels[int(order[0])]
    others = [distances[i] for i in order if labels[int(i)] != best]
    margin = float(others[0] - distances[order[0]]) if others else math.inf
    return best, margin


def sample_points(
    index: MapIndex, areas: Mapping[Hashable, BaseGeometry], spread: int, near: int, seed: int
) -> list[tuple[float, float]]:
    """Points spread over the map and points 1 to 3 m off the areas' edges, in the map."""
    rnd = random.Random(seed)
    projection = index.projection
    minx, miny, maxx, maxy = index.pack.boundary.bounds
    points = [(rnd.uniform(miny, maxy), rnd.uniform(minx, maxx)) for _ in range(spread)]
    edges = [projection.geometry(a).boundary for a in areas.values() if not a.is_empty]
    for _ in range(near):
        edge = rnd.choice(edges)
        on = edge.interpolate(rnd.uniform(0, edge.length))
        angle, offset = rnd.uniform(0, 2 * math.pi), rnd.uniform(1.0, 3.0)
        lon, lat = projection.to_lonlat(
            on.x + offset * math.cos(angle), on.y + offset * math.sin(angle)
        )
        points.append((lat, lon))
    # In the map as the pack draws it (lon/lat edges), as the areas are clipped.
    boundary = index.pack.boundary
    return [(lat, lon) for lat, lon in points if boundary.covers(Point(lon, lat))]


def disagreements(
    index: MapIndex,
    areas: Mapping[Hashable, BaseGeometry],
    truth: Callable[[float, float], tuple[Hashable, float]],
    points: list[tuple[float, float]],
    tie_m: float = 0.0,
) -> list[tuple[float, float, Hashable, list[Hashable]]]:
    """Points at least EDGE_M from every edge whose area is not the brute force's answer.

    ``truth`` gives the expected label and the margin to the runner-up; points with a
    margin under ``tie_m`` are ties (two streets meeting at an end) and are left out.
    """
    projection = index.projection
    labels = list(areas)
    projected = [projection.geometry(areas[label]) for label in labels]
    tree = STRtree(projected)
    wrong = []
    for lat, lon in points:
        expected, margin = truth(lat, lon)
        if margin < tie_m:
            continue
        here = projection.point(lat, lon)
        found = [labels[int(i)] for i in tree.query(here, predicate="covered_by")]
        if found == [expected]:
            continue
        near = tree.query(here, predicate="dwithin", distance=EDGE_M)
        if any(projected[int(i)].boundary.distance(here) < EDGE_M for i in near):
            continue
        wrong.append((lat, lon, expected, found))
    return wrong


def all_place_cells(index: MapIndex, kind: str) -> dict[Hashable, BaseGeometry]:
    layer = index._layer(kind)
    first: dict[int, Feature] = {}
    for feature in layer.items:
        first.setdefault(layer.places[id(feature)], feature)
    return {place: place_cell(index, kind, feature) for place, feature in first.items()}


def place_truth(index: MapIndex, kind: str) -> Callable[[float, float], tuple[Hashable, float]]:
    layer = index._layer(kind)
    features = list(layer.items)
    labels: list[Hashable] = [layer.places[id(f)] for f in features]
    return lambda lat, lon: nearest_label(point_distances(features, lat, lon), labels)


# ------------------------------------------------------------------ place_cell


@pytest.mark.parametrize("kind", ["school", "restaurant", "park"])
def test_place_cells_agree_with_geodesic_nearest_on_stillwater(
    stillwater: MapIndex, kind: str
) -> None:
    cells = all_place_cells(stillwater, kind)
    points = sample_points(stillwater, cells, spread=600, near=600, seed=len(kind))
    assert len(points) > 700
    assert disagreements(stillwater, cells, place_truth(stillwater, kind), points) == []


def test_place_cells_agree_with_geodesic_nearest_on_a_country(country: MapIndex) -> None:
    cells = all_place_cells(country, "museum")
    points = sample_points(country, cells, spread=800, near=1500, seed=7)
    assert disagreements(country, cells, place_truth(country, "museum"), points) == []


def test_cells_tile_the_map(country: MapIndex, stillwater: MapIndex) -> None:
    for index, kind in ((country, "museum"), (stillwater, "restaurant")):
        cells = list(all_place_cells(index, kind).values())
        projection = index.projection
        areas = [projection.geometry(c) for c in cells]
        whole = projection.geometry(index.pack.boundary).area
        assert sum(a.area for a in areas) == pytest.approx(whole, rel=1e-5)
        assert shapely.union_all(areas).area == pytest.approx(whole, rel=1e-5)


def test_two_rows_of_one_school_share_one_cell(stillwater: MapIndex) -> None:
    rows = [f for f in stillwater.pack.features_of("school") if f.name == "Stillwater High School"]
    assert len(rows) == 2
    cell = place_cell(stillwater, "school", rows[0])
    assert cell.equals(place_cell(stillwater, "school", rows[1]))
    for row in rows:
        assert cell.contains(row.geometry)


def test_among_only_the_given_places_compete(country: MapIndex) -> None:
    museums = list(country.pack.features_of("museum"))
    origin = museums[0].geometry
    # A tentacle's reach: the museums within 150 km of the first one.
    within = [
        f for f in museums
        if GEOD.inv(origin.x, origin.y, f.geometry.x, f.geometry.y)[2] <= 150_000  # type: ignore[attr-defined]
    ]
    assert 4 <= len(within) < len(museums)
    cells: dict[Hashable, BaseGeometry] = {
        f.name: place_cell(country, "museum", f, among=within) for f in within
    }
    labels: list[Hashable] = [f.name for f in within]

    def truth(lat: float, lon: float) -> tuple[Hashable, float]:
        return nearest_label(point_distances(within, lat, lon), labels)

    points = sample_points(country, cells, spread=300, near=600, seed=11)
    assert disagreements(country, cells, truth, points) == []
    # With fewer rivals a cell only grows (those at the reach's rim gain the most).
    projection = country.projection
    gained = 0.0
    for feature in within:
        alone = projection.geometry(place_cell(country, "museum", feature))
        among = projection.geometry(cells[feature.name])
        assert among.buffer(EDGE_M).covers(alone)
        gained += among.area - alone.area
    assert gained > 1e9  # m², a good part of the map


def creeks_pack(seed: int) -> MapPack:
    """Creeks (lines), ponds (polygons) and wells (points) of one kind on a 27 km square,
    some creeks running through ponds."""
    rnd = random.Random(seed)
    lat0, lon0, half = 36.12, -97.07, 0.12
    features = []
    for i in range(25):
        x, y = rnd.uniform(lon0 - half, lon0 + half), rnd.uniform(lat0 - half, lat0 + half)
        points = [(x, y)]
        for _ in range(rnd.randint(1, 4)):
            x, y = x + rnd.uniform(-0.02, 0.02), y + rnd.uniform(-0.02, 0.02)
            points.append((x, y))
        features.append(Feature("water", f"Creek {i}", LineString(points)))
    for i in range(8):
        centre = Point(rnd.uniform(lon0 - half, lon0 + half), rnd.uniform(lat0 - half, lat0 + half))
        features.append(Feature("water", f"Pond {i}", centre.buffer(0.004, quad_segs=3)))
    for i in range(10):
        well = Point(rnd.uniform(lon0 - half, lon0 + half), rnd.uniform(lat0 - half, lat0 + half))
        features.append(Feature("water", f"Well {i}", well))
    boundary = shapely.segmentize(
        box(lon0 - half, lat0 - half, lon0 + half, lat0 + half), 0.01
    )
    return MapPack(name="creeks", boundary=boundary, stations=(), features=tuple(features))


@pytest.mark.parametrize("seed", [1, 3])
def test_cells_of_lines_and_polygons_agree_with_the_nearest_feature(seed: int) -> None:
    index = MapIndex(creeks_pack(seed))
    layer = index._layer("water")
    cells = all_place_cells(index, "water")

    def truth(lat: float, lon: float) -> tuple[Hashable, float]:
        # MapIndex's own measure: geodesic from the nearest point, 0 inside a pond.
        hits = index.ranked("water", lat, lon, 5.0)
        best = layer.places[id(hits[0].item)]
        others = [h.distance_m for h in hits if layer.places[id(h.item)] != best]
        return best, (others[0] - hits[0].distance_m) if others else math.inf

    points = sample_points(index, cells, spread=500, near=1200, seed=seed)
    assert disagreements(index, cells, truth, points, tie_m=0.01) == []
    # Inside a pond the pond is nearest (distance 0): no creek's cell reaches in.
    projection = index.projection
    for pond in (f for f in layer.items if f.geometry.geom_type == "Polygon"):
        inside = projection.geometry(pond.geometry).buffer(-EDGE_M)
        own = layer.places[id(pond)]
        for label, cell in cells.items():
            if label != own:
                projected = shapely.make_valid(projection.geometry(cell))
                assert projected.intersection(inside).area < 1.0


def test_a_place_alone_in_reach_has_the_whole_map(stillwater: MapIndex) -> None:
    school = stillwater.pack.features_of("school")[0]
    alone = place_cell(stillwater, "school", school, among=[school])
    assert alone.symmetric_difference(stillwater.pack.boundary).area < 1e-12
    assert place_cell(stillwater, "school", school).area < alone.area / 2


def test_a_feature_of_another_map_is_refused(stillwater: MapIndex) -> None:
    with pytest.raises(ValueError):
        place_cell(stillwater, "school", Feature("school", "Nowhere", Point(0, 0)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lat=st.floats(min_value=42.6, max_value=51.4),
    lon=st.floats(min_value=3.6, max_value=16.4),
)
def test_the_nearest_museums_cell_holds_any_point(country: MapIndex, lat: float, lon: float) -> None:
    museums = list(country.pack.features_of("museum"))
    distances = point_distances(museums, lat, lon)
    nearest = museums[int(np.argmin(distances))]
    cell = country.projection.geometry(place_cell(country, "museum", nearest))
    here = country.projection.point(lat, lon)
    assert cell.covers(here) or cell.boundary.distance(here) < EDGE_M


# ------------------------------------------------------------------ street_cell


def test_street_cells_agree_with_the_nearest_named_road(stillwater: MapIndex) -> None:
    # Downtown, where streets are dense: only the cells the points need are built.
    rnd = random.Random(5)
    points = [
        (rnd.uniform(36.105, 36.13), rnd.uniform(-97.08, -97.045)) for _ in range(500)
    ]

    def truth(lat: float, lon: float) -> tuple[Hashable, float]:
        hits = stillwater.ranked_named("road", lat, lon, 5.0)
        best = hits[0].item.name.casefold()
        others = [h.distance_m for h in hits if h.item.name.casefold() != best]
        return best, (others[0] - hits[0].distance_m) if others else math.inf

    # In one order whatever the interpreter's string hashing: the points sampled near the
    # cells' edges follow the cells' order, so a set's order made them differ between runs.
    names = sorted({str(truth(lat, lon)[0]) for lat, lon in points})
    cells: dict[Hashable, BaseGeometry] = {name: street_cell(stillwater, name) for name in names}
    points += sample_points(stillwater, cells, spread=0, near=800, seed=5)
    # A point whose nearest spot on two streets is the corner where one ends on the other
    # is as near to both (to within GPS noise): such ties are left out.
    wrong = disagreements(stillwater, cells, truth, points, tie_m=0.1)
    # Points near the edge of the built cells but nearest to a street without one.
    wrong = [w for w in wrong if w[2] in cells and all(f in cells for f in w[3])]
    assert wrong == []


def geodesic_to_segments(
    lon: np.ndarray, lat: np.ndarray, start: np.ndarray, end: np.ndarray
) -> np.ndarray:
    """Geodesic distance from each point to the nearest point of its lon/lat segment
    (golden-section search along the segment; no projection involved)."""
    golden = (math.sqrt(5) - 1) / 2

    def at(t: np.ndarray) -> np.ndarray:
        spot = start + (end - start) * t[:, None]
        return np.asarray(GEOD.inv(lon, lat, spot[:, 0], spot[:, 1])[2])

    low, high = np.zeros(len(lon)), np.ones(len(lon))
    left, right = np.full(len(lon), 1 - golden), np.full(len(lon), golden)
    f_left, f_right = at(left), at(right)
    for _ in range(32):  # the bracket shrinks to 2e-7 of the segment
        go_left = f_left < f_right
        high, low = np.where(go_left, right, high), np.where(go_left, low, left)
        new = np.where(go_left, high - golden * (high - low), low + golden * (high - low))
        f_new = at(new)
        left, right = np.where(go_left, new, right), np.where(go_left, left, new)
        f_left, f_right = np.where(go_left, f_new, f_right), np.where(go_left, f_left, f_new)
    ends = np.minimum(at(np.zeros(len(lon))), at(np.ones(len(lon))))
    return np.minimum(np.minimum(f_left, f_right), ends)


def nearest_streets(pack: MapPack, points: np.ndarray) -> list[tuple[str | None, float]]:
    """For (lon, lat) points: the nearest named road's name (casefolded) by geodesic
    distance to its segments, and how much nearer it is than any other (metres; streets
    more than ~50 m away are not looked at)."""
    starts, ends, names = [], [], []
    for road in pack.features_of("road"):
        for part in shapely.get_parts(road.geometry):
            coords = np.asarray(part.coords)
            starts.append(coords[:-1])
            ends.append(coords[1:])
            names += [road.name.casefold()] * (len(coords) - 1)
    start, end = np.concatenate(starts), np.concatenate(ends)
    segments = STRtree(shapely.linestrings(np.stack([start, end], axis=1)))
    point, segment = segments.query(shapely.points(points), predicate="dwithin", distance=6e-4)
    measured = geodesic_to_segments(
        points[point, 0], points[point, 1], start[segment], end[segment]
    )
    by_name: list[dict[str, float]] = [{} for _ in points]
    for n, s, metres in zip(point, segment, measured, strict=True):
        if names[s].strip():
            by_name[n][names[s]] = min(metres, by_name[n].get(names[s], math.inf))
    found: list[tuple[str | None, float]] = []
    for near in by_name:
        ranked = sorted(near.items(), key=lambda item: item[1])
        if not ranked:
            found.append((None, 0.0))
            continue
        runner_up = ranked[1][1] if len(ranked) > 1 else 50.0
        found.append((ranked[0][0], runner_up - ranked[0][1]))
    return found


def test_street_cells_are_right_where_streets_meet(stillwater: MapIndex) -> None:
    # Cells were once up to ~10 m off around junctions: a wrong rival street solved
    # against (the one met at an edge's ends, not the one nearest its middle), a junction
    # sample credited to the street ending there. Points within 12 m of every vertex two
    # street names share, measured geodesically against every segment: each one at least
    # 1 m nearer one street must lie in that street's cell.
    pack = stillwater.pack
    shared: dict[tuple[float, float], set[str]] = {}
    for road in pack.features_of("road"):
        if road.name.strip():
            for lon, lat in shapely.get_coordinates(road.geometry):
                shared.setdefault((round(lon, 7), round(lat, 7)), set()).add(road.name.casefold())
    junctions = [spot for spot, names in shared.items() if len(names) >= 2]
    assert len(junctions) > 80
    rnd = random.Random(7)
    points = []
    for lon, lat in junctions:
        for _ in range(40):
            there = GEOD.fwd(lon, lat, rnd.uniform(0, 360), 12.0 * math.sqrt(rnd.random()))
            points.append(there[:2])
    # Reported: 0.9 m nearer West University Avenue, 2.8 m from where the two streets are
    # equally near, once drawn 1 m inside South Washington Street's cell.
    reported = (-97.06941, 36.11968)
    points.append(reported)
    lonlat = np.array(points)
    lonlat = lonlat[shapely.covers(pack.boundary, shapely.points(lonlat))]
    cells: dict[str, BaseGeometry] = {}
    wrong, decided = [], 0
    for (lon, lat), (name, margin) in zip(lonlat, nearest_streets(pack, lonlat), strict=True):
        if name is None or margin < 1.0:
            continue
        decided += 1
        if name not in cells:
            cells[name] = street_cell(stillwater, name)
        if not cells[name].covers(Point(lon, lat)):
            wrong.append((lat, lon, name, round(margin, 2)))
    assert decided > 2500
    assert wrong == []
    (name, margin), = nearest_streets(pack, np.array([reported]))
    assert name == "west university avenue" and 0.5 < margin < 1.0
    assert street_cell(stillwater, name).covers(Point(*reported))
    assert not street_cell(stillwater, "south washington street").covers(Point(*reported))


def test_street_cell_ignores_case_and_is_empty_for_an_unknown_name(stillwater: MapIndex) -> None:
    name = next(f.name for f in stillwater.pack.features_of("road") if f.name.strip())
    assert street_cell(stillwater, name.upper()).equals(street_cell(stillwater, name.lower()))
    assert not street_cell(stillwater, name).is_empty
    assert street_cell(stillwater, "No Such Street").is_empty


# ------------------------------------------------------------------ distance_band


@pytest.mark.parametrize(
    ("place", "kind", "metres"),
    [("stillwater", "school", 500.0), ("stillwater", "restaurant", 2000.0),
     ("stillwater", "road", 50.0), ("country", "museum", 20_000.0),
     ("country", "museum", 2_000.0), ("country", "museum", 60_000.0)],
)
def test_distance_band_holds_what_is_within_the_distance(
    request: pytest.FixtureRequest, place: str, kind: str, metres: float
) -> None:
    index: MapIndex = request.getfixturevalue(place)
    band = distance_band(index, kind, metres)
    areas: dict[Hashable, BaseGeometry] = {
        True: band, False: index.pack.boundary.difference(band)
    }
    features = list(index.pack.features_of(kind))
    all_points = all(f.geometry.geom_type == "Point" for f in features)

    def truth(lat: float, lon: float) -> tuple[Hashable, float]:
        if all_points:
            nearest = float(point_distances(features, lat, lon).min())
        else:
            hit = index.nearest(kind, lat, lon)
            assert hit is not None
            nearest = hit.distance_m
        return nearest <= metres, abs(nearest - metres)

    points = sample_points(index, areas, spread=500, near=700, seed=int(metres))
    assert disagreements(index, areas, truth, points) == []


def test_distance_band_of_nothing_is_empty(stillwater: MapIndex) -> None:
    assert distance_band(stillwater, "museum", 1000.0).is_empty
    assert distance_band(stillwater, "school", 1e6).equals(stillwater.pack.boundary) or (
        distance_band(stillwater, "school", 1e6).symmetric_difference(
            stillwater.pack.boundary
        ).area < 1e-12
    )


def test_a_band_drawn_for_a_small_box_is_not_reused_for_a_larger_one() -> None:
    # Every school is within reach of both boxes, but the band drawn for the small one is
    # clipped near it: asked again for the whole map (another round, another group on the
    # same map, a void answer redrawn from scratch), it must hold the whole band.
    index, fresh = MapIndex(load_map_pack("stillwater")), MapIndex(load_map_pack("stillwater"))
    small = (-97.08, 36.11, -97.06, 36.13)
    whole = index.pack.boundary.bounds
    distance_band(index, "school", 9000.0, small)
    again = distance_band(index, "school", 9000.0, whole)
    truth = distance_band(fresh, "school", 9000.0, whole)
    assert truth.difference(again).area < 1e-12
    assert again.difference(truth).area < 1e-12


# ------------------------------------------------------------------ division_of


def test_division_of_is_the_polygon_holding_the_point(stillwater: MapIndex) -> None:
    divisions = {f.name: f.geometry for f in stillwater.pack.features_of("admin-4")}
    rnd = random.Random(2)
    minx, miny, maxx, maxy = stillwater.pack.boundary.bounds
    checked = 0
    for _ in range(200):
        lat, lon = rnd.uniform(miny, maxy), rnd.uniform(minx, maxx)
        here = Point(lon, lat)
        holding = [name for name, polygon in divisions.items() if polygon.covers(here)]
        found = division_of(stillwater, "admin-4", lat, lon)
        if not holding:
            assert found is None
            continue
        assert found is not None and found.covers(here)
        assert found.equals(divisions[holding[0]].intersection(stillwater.pack.boundary))
        assert stillwater.pack.boundary.buffer(1e-9).covers(found)
        checked += 1
    assert checked > 60
    assert division_of(stillwater, "admin-4", 0.0, 0.0) is None
