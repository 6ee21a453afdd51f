"""Nearest-feature lookups on a map pack: shapely STRtrees in a local metric projection,
refined with geodesic distances so the answers agree with :func:`distance_m`.

Everything is projected once to an azimuthal equidistant projection centred on the map.
In that projection a straight-line distance ``p`` and the geodesic distance ``g`` satisfy
``g <= p <= k * g``, where ``k`` (>= 1) grows with the distance from the centre and is
computed per query. The tree finds the nearest projected distance ``d0``; every feature whose
geodesic distance could be smallest lies within ``k * d0`` and is measured geodesically.
Points are measured exactly; for lines and polygons the nearest point is found in the
projection (edges are straight there) and its geodesic distance is used. A polygon that
contains the query point is at distance 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Generic, TypeVar

import numpy as np
import shapely
from pyproj import Transformer
from shapely import STRtree
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from hideseek_chat.geo.distance import distance_m
from hideseek_chat.geo.mappack import ROAD_KIND, Feature, MapPack, Station
from hideseek_chat.geo.places import cluster
from hideseek_chat.geo.termini import Terminus, normal_name, street_termini

T = TypeVar("T")

_EARTH_RADIUS_M = 6_371_008.8
# Extra slack on the projection bound for the ellipsoid and float rounding.
_SLACK = 1.005
#: A road this near a street terminus meets the street there (for the terminus's label).
TOUCH_M = 10.0


@dataclass(frozen=True, slots=True)
class Hit(Generic[T]):
    """A feature or station and its geodesic distance in metres from the query point."""

    item: T
    distance_m: float


class LocalProjection:
    """Azimuthal equidistant projection (metres) centred on one point."""

    def __init__(self, lat: float, lon: float, radius_m: float) -> None:
        self.lat = lat
        self.lon = lon
        self.radius_m = radius_m  # how far the map extends from the centre
        crs = f"+proj=aeqd +lat_0={lat} +lon_0={lon} +datum=WGS84 +units=m +no_defs"
        self._forward = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
        self._inverse = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)

    def point(self, lat: float, lon: float) -> Point:
        x, y = self._forward.transform(lon, lat)
        return Point(x, y)

    def geometry(self, geometry: BaseGeometry) -> BaseGeometry:
        """Project a lon/lat geometry."""
        return shapely.transform(geometry, self._project_array)

    def _project_array(self, coords: np.ndarray) -> np.ndarray:
        x, y = self._forward.transform(coords[:, 0], coords[:, 1])
        return np.column_stack([x, y])

    def to_lonlat_array(self, coords: np.ndarray) -> np.ndarray:
        """Unproject an (n, 2) array of x, y back to lon, lat (for ``shapely.transform``)."""
        lon, lat = self._inverse.transform(coords[:, 0], coords[:, 1])
        return np.column_stack([lon, lat])

    def to_lonlat(self, x: float, y: float) -> tuple[float, float]:
        lon, lat = self._inverse.transform(x, y)
        return float(lon), float(lat)

    def scale_bound(self, lat: float, lon: float) -> float:
        """Return ``k`` such that projected distances near this query are <= k * geodesic.

        Returns infinity when the query is so far from the map that no bound is useful.
        """
        reach = distance_m(self.lat, self.lon, lat, lon) + self.radius_m
        angle = reach / _EARTH_RADIUS_M
        if angle >= 2.5:
            return math.inf
        if angle < 1e-9:
            return _SLACK
        return angle / math.sin(angle) * _SLACK


def projection_for(pack: MapPack) -> LocalProjection:
    """Return the local projection for a pack, centred on its boundary."""
    minx, miny, maxx, maxy = pack.boundary.bounds
    if maxx - minx > 180:
        # The boundary straddles the antimeridian: average longitudes on the 0..360 circle.
        lons = shapely.get_coordinates(pack.boundary)[:, 0] % 360.0
        lon = (float(lons.min() + lons.max()) / 2 + 180.0) % 360.0 - 180.0
    else:
        lon = (minx + maxx) / 2
    lat = (miny + maxy) / 2
    corners = [(miny, minx), (miny, maxx), (maxy, minx), (maxy, maxx)]
    radius = max(distance_m(lat, lon, a, b) for a, b in corners)
    return LocalProjection(lat, lon, radius)


class _Layer(Generic[T]):
    """One STRtree over projected geometries of items of one kind."""

    def __init__(
        self, items: list[T], lonlat: list[BaseGeometry], projection: LocalProjection
    ) -> None:
        self.items = items
        self.lonlat = lonlat
        self.projection = projection
        self.projected = [projection.geometry(g) for g in lonlat]
        self.tree = STRtree(self.projected)
        self.all_points = all(g.geom_type == "Point" for g in lonlat)

    @cached_property
    def places(self) -> dict[int, int]:
        """Each item's place number, by the item's ``id`` (see ``geo.places.cluster``)."""
        numbers = cluster(self.items, self.projected)  # type: ignore[arg-type]
        return {id(item): number for item, number in zip(self.items, numbers, strict=True)}

    def geodesic(self, index: int, lat: float, lon: float, query: Point) -> float:
        geometry = self.lonlat[index]
        if geometry.geom_type == "Point":
            return distance_m(lat, lon, geometry.y, geometry.x)  # type: ignore[attr-defined]
        projected = self.projected[index]
        if projected.geom_type in ("Polygon", "MultiPolygon") and projected.covers(query):
            return 0.0
        nearest = nearest_points(projected, query)[0]
        near_lon, near_lat = self.projection.to_lonlat(nearest.x, nearest.y)
        return distance_m(lat, lon, near_lat, near_lon)

    def ranked(self, lat: float, lon: float, extra_m: float = 0.0) -> list[Hit[T]]:
        """Return hits sorted by distance: at least every item within nearest + extra_m."""
        if not self.items:
            return []
        query = self.projection.point(lat, lon)
        k = self.projection.scale_bound(lat, lon)
        if math.isinf(k):
            candidates = np.arange(len(self.items))
        else:
            nearest = self.tree.query_nearest(query, return_distance=True, all_matches=True)
            d0 = float(nearest[1][0])
            reach = k * (d0 + extra_m) + 1.0
            candidates = self.tree.query(query, predicate="dwithin", distance=reach)
        hits = [Hit(self.items[i], self.geodesic(int(i), lat, lon, query)) for i in candidates]
        hits.sort(key=lambda hit: hit.distance_m)
        if hits:
            limit = hits[0].distance_m + extra_m
            hits = [hit for hit in hits if hit.distance_m <= limit]
        return hits

    def within(self, lat: float, lon: float, radius_m: float) -> list[Hit[T]]:
        """Return every item whose geodesic distance is at most radius_m, nearest first."""
        if not self.items:
            return []
        query = self.projection.point(lat, lon)
        k = self.projection.scale_bound(lat, lon)
        if math.isinf(k):
            candidates = np.arange(len(self.items))
        else:
            candidates = self.tree.query(query, predicate="dwithin", distance=k * radius_m + 1.0)
        hits = [Hit(self.items[i], self.geodesic(int(i), lat, lon, query)) for i in candidates]
        hits = [hit for hit in hits if hit.distance_m <= radius_m]
        hits.sort(key=lambda hit: hit.distance_m)
        return hits


class MapIndex:
    """Spatial lookups on one pack. Build once per pack and reuse (building costs time)."""

    def __init__(self, pack: MapPack) -> None:
        self.pack = pack
        self.projection = projection_for(pack)
        self._layers: dict[str, _Layer[Feature]] = {}
        #: the index whose feature lookups (and what geo builds from the features alone:
        #: Voronoi diagrams, bands) this one uses: itself, or the one it was made from
        #: by ``with_stations``
        self.features_index: MapIndex = self
        self._boundary = self.projection.geometry(pack.boundary)
        shapely.prepare(self._boundary)

    @cached_property
    def _stations(self) -> _Layer[Station]:
        stations = list(self.pack.stations)
        points: list[BaseGeometry] = [Point(s.lon, s.lat) for s in stations]
        return _Layer(stations, points, self.projection)

    @cached_property
    def _termini(self) -> _Layer[Terminus]:
        """The street termini (``geo.termini``), found on first use and kept."""
        termini = [self._crossed(t) for t in street_termini(self.pack)]
        points: list[BaseGeometry] = [Point(t.lon, t.lat) for t in termini]
        return _Layer(termini, points, self.projection)

    def _crossed(self, terminus: Terminus) -> Terminus:
        """The terminus with every other road that comes within ``TOUCH_M`` of it (maps
        simplify lines: a side street's end need not be a vertex of the street it meets)."""
        near = self._layer(ROAD_KIND).within(terminus.lat, terminus.lon, TOUCH_M)
        named = {normal_name(n): n for n in terminus.crossing}
        for hit in near:
            named.setdefault(normal_name(hit.item.name), " ".join(hit.item.name.split()))
        named.pop(normal_name(terminus.street), None)
        unnamed = terminus.meets_unnamed or (bool(terminus.street) and "" in named)
        named.pop("", None)
        crossing = tuple(sorted(named.values()))
        return replace(terminus, crossing=crossing, meets_unnamed=unnamed)

    @cached_property
    def _termini_by_id(self) -> dict[str, Terminus]:
        return {t.id: t for t in self._termini.items}

    def with_stations(self, stations: Sequence[Station]) -> MapIndex:
        """An index of this pack with ``stations`` in place of its own (a car game's street
        ends). It shares this one's projection, the features' lookups (their projected
        shapes and trees, the street termini) and what geo builds from the features alone
        (``features_index``: Voronoi diagrams, bands): a second copy of a big map's would
        only cost memory and the time to build it again."""
        twin = MapIndex.__new__(MapIndex)
        twin.pack = self.pack.with_stations(stations)
        twin.projection = self.projection
        twin._layers = self._layers
        twin.features_index = self.features_index
        twin._boundary = self._boundary
        twin.__dict__["_termini"] = self._termini
        return twin

    def has_street_termini(self) -> bool:
        """Say whether the map has streets to centre a car or on-foot zone on."""
        return bool(self._termini.items)

    def street_ends(self) -> tuple[Terminus, ...]:
        """Every point a car or on-foot zone can be centred on, once each: where several
        streets end at one point, the terminus ``nearest_terminus`` picks there."""
        found: dict[tuple[float, float], Terminus] = {}
        for terminus in sorted(self._termini.items, key=_terminus_order):
            found.setdefault((terminus.lat, terminus.lon), terminus)
        return tuple(found.values())

    def nearest_terminus(self, lat: float, lon: float) -> Hit[Terminus] | None:
        """Return the nearest street terminus (a named street's first when several streets
        end at one point), or None when the map has no roads."""
        hits = self._termini.ranked(lat, lon)
        if not hits:
            return None
        tied = [hit for hit in hits if hit.distance_m <= hits[0].distance_m + 0.01]
        tied.sort(key=lambda hit: _terminus_order(hit.item))
        return tied[0]

    def terminus(self, terminus_id: str) -> Terminus | None:
        """The street terminus with this id (``Terminus.id``), if the map has it."""
        return self._termini_by_id.get(terminus_id)

    def _layer(self, kind: str, named_only: bool = False) -> _Layer[Feature]:
        key = f"{kind}#named" if named_only else kind
        if key not in self._layers:
            features = list(self.pack.features_of(kind))
            if named_only:
                features = [f for f in features if f.name.strip()]
            self._layers[key] = _Layer(features, [f.geometry for f in features], self.projection)
        return self._layers[key]

    def has_data_for(self, kind: str) -> bool:
        """Say whether the map covers this kind (see ``MapPack.kinds``)."""
        return self.pack.has_data_for(kind)

    def distance_to(self, feature: Feature, lat: float, lon: float) -> float:
        """Return the geodesic distance in metres from a point to one feature."""
        geometry = feature.geometry
        if geometry.geom_type == "Point":
            return distance_m(lat, lon, geometry.y, geometry.x)  # type: ignore[attr-defined]
        layer = _Layer([feature], [geometry], self.projection)
        return layer.geodesic(0, lat, lon, self.projection.point(lat, lon))

    def nearest_named(self, kind: str, lat: float, lon: float) -> Hit[Feature] | None:
        """Return the nearest feature of a kind that has a name."""
        hits = self._layer(kind, named_only=True).ranked(lat, lon)
        return hits[0] if hits else None

    def ranked_named(self, kind: str, lat: float, lon: float, extra_m: float) -> list[Hit[Feature]]:
        """Like :meth:`ranked`, over named features only."""
        return self._layer(kind, named_only=True).ranked(lat, lon, extra_m)

    def is_in_boundary(self, lat: float, lon: float) -> bool:
        """Say whether a point is inside (or on) the game boundary."""
        return bool(self._boundary.covers(self.projection.point(lat, lon)))

    def nearest_station(self, lat: float, lon: float) -> Hit[Station] | None:
        """Return the nearest station, or None when the map has none."""
        hits = self._stations.ranked(lat, lon)
        return hits[0] if hits else None

    def stations_within(self, lat: float, lon: float, radius_m: float) -> list[Hit[Station]]:
        """Return the stations within radius_m, nearest first."""
        return self._stations.within(lat, lon, radius_m)

    def nearest(self, kind: str, lat: float, lon: float) -> Hit[Feature] | None:
        """Return the nearest feature of a kind, or None when there is none."""
        hits = self._layer(kind).ranked(lat, lon)
        return hits[0] if hits else None

    def ranked(self, kind: str, lat: float, lon: float, extra_m: float) -> list[Hit[Feature]]:
        """Return, nearest first, every feature within ``extra_m`` of the nearest one's distance.

        Used to tell whether GPS error could change which feature is nearest.
        """
        return self._layer(kind).ranked(lat, lon, extra_m)

    def same_place(self, kind: str, a: Feature, b: Feature) -> bool:
        """Say whether two features of ``kind`` are one place (two rows of one school)."""
        if a is b:
            return True
        places = self._layer(kind).places
        return id(a) in places and places.get(id(a)) == places.get(id(b))

    def place_names(self, kind: str, feature: Feature) -> tuple[str, ...]:
        """Every name the place of ``feature`` goes by on the map (its own first)."""
        layer = self._layer(kind)
        place = layer.places.get(id(feature))
        names = [feature.name]
        for item in layer.items:
            if place is not None and layer.places[id(item)] == place and item.name not in names:
                names.append(item.name)
        return tuple(name for name in names if name.strip())

    def within(self, kind: str, lat: float, lon: float, radius_m: float) -> list[Hit[Feature]]:
        """Return the features of a kind within radius_m, nearest first."""
        return self._layer(kind).within(lat, lon, radius_m)

    def containing(self, kind: str, lat: float, lon: float) -> tuple[Feature | None, float]:
        """Return the polygon of a kind containing the point and its distance to the edge.

        The distance (metres, projected) says how far the point could move and stay inside;
        ``(None, distance to the nearest polygon)`` when no polygon contains it.
        """
        layer = self._layer(kind)
        query = self.projection.point(lat, lon)
        inside: Feature | None = None
        edge = math.inf
        for index in layer.tree.query(query, predicate="intersects"):
            polygon = layer.projected[int(index)]
            if polygon.geom_type in ("Polygon", "MultiPolygon") and polygon.covers(query):
                inside = layer.items[int(index)]
                edge = float(polygon.boundary.distance(query))
                break
        if inside is None and layer.items:
            index = layer.tree.nearest(query)
            edge = float(layer.projected[int(index)].distance(query))
        return inside, edge


def _terminus_order(terminus: Terminus) -> tuple[bool, str]:
    """Which of the termini at one point centres a zone: a named street's, by name."""
    return (terminus.street == "", terminus.street.casefold())
