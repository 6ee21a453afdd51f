"""Map packs: the game boundary, the stations with their routes, and features by kind.

A :class:`MapPack` is flat plain data so a store can keep it as rows: the boundary, one row
per :class:`Station` (id, name, lat, lon, routes) and one row per :class:`Feature` (kind,
name, geometry). Geometries are shapely objects in WGS84 longitude/latitude; write them as
WKB or GeoJSON text. :func:`pack_to_geojson` and :func:`pack_from_geojson` round-trip a
pack through a GeoJSON FeatureCollection.

Feature kinds use the question subject slugs (``park``, ``museum``, ``restaurant`` ...) plus
``road`` for named streets and paths and ``admin-1`` .. ``admin-4`` for division polygons.
``MapPack.kinds`` lists the kinds the map has data for: a kind listed with no feature means
"there is none inside the boundary" (a null answer), a kind not listed means "the map does
not know" (no automatic answer).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import shapely
from shapely.geometry import MultiPolygon, Polygon, mapping, shape
from shapely.geometry.base import BaseGeometry

#: The GeoJSON property holding the pack's own metadata (name, title, attribution, kinds).
PACK_KEY = "hideseek_map"
PACK_FORMAT = 1

#: Kinds used for the pack's structure rather than as question subjects.
BOUNDARY_KIND = "boundary"
STATION_KIND = "station"
ROAD_KIND = "road"


@dataclass(frozen=True, slots=True)
class Station:
    """A transit station or stop; ``routes`` are the names of the lines that stop here."""

    id: str
    name: str
    lat: float
    lon: float
    routes: tuple[str, ...] = ()

    def serves(self, route: str) -> bool:
        """Say whether a line with this name (any case and spacing) stops here."""
        wanted = line_name_key(route)
        return any(line_name_key(r) == wanted for r in self.routes)


def line_name_key(name: str) -> str:
    """A line's name as lines are compared: any case, spaces collapsed."""
    return " ".join(name.split()).casefold()


@dataclass(frozen=True, slots=True)
class Feature:
    """A point, line or polygon of a kind, with its name ("" when unnamed), in lon/lat."""

    kind: str
    name: str
    geometry: BaseGeometry


@dataclass(frozen=True)
class MapPack:
    """A whole map. Build it with the importers or :func:`pack_from_geojson`."""

    name: str
    boundary: Polygon | MultiPolygon
    stations: tuple[Station, ...]
    features: tuple[Feature, ...] = ()
    kinds: frozenset[str] = frozenset()
    routes: tuple[str, ...] = ()
    title: str = ""
    attribution: str = ""
    #: ISO 3166-1 alpha-2 (``US``, ``CH``), upper case; "" when unknown (then the country
    #: of the boundary's time zone stands in: ``geo.timezones.pack_country``)
    country: str = ""
    _by_kind: dict[str, tuple[Feature, ...]] = field(
        default_factory=dict, repr=False, compare=False
    )
    _stations_by_id: dict[str, Station] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        grouped: dict[str, list[Feature]] = {}
        for feature in self.features:
            grouped.setdefault(feature.kind, []).append(feature)
        self._by_kind.update({kind: tuple(items) for kind, items in grouped.items()})
        self._stations_by_id.update({s.id: s for s in self.stations})
        if not self.routes:
            routes = sorted({r for s in self.stations for r in s.routes})
            object.__setattr__(self, "routes", tuple(routes))
        object.__setattr__(self, "kinds", frozenset(self.kinds) | frozenset(grouped))
        object.__setattr__(self, "country", self.country.strip().upper())

    def features_of(self, kind: str) -> tuple[Feature, ...]:
        """Return the features of one kind (empty when none or unknown)."""
        return self._by_kind.get(kind, ())

    def has_data_for(self, kind: str) -> bool:
        """Say whether the map knows about this kind at all (even with zero features)."""
        return kind in self.kinds

    def station(self, station_id: str) -> Station:
        """Return the station with this id; raises KeyError when there is none."""
        return self._stations_by_id[station_id]

    def has_station(self, station_id: str) -> bool:
        return station_id in self._stations_by_id

    def with_stations(self, stations: Sequence[Station]) -> MapPack:
        """This pack with ``stations`` in place of its own (a new pack with its own lookups:
        ``dataclasses.replace`` would share this one's dicts)."""
        return MapPack(
            name=self.name,
            boundary=self.boundary,
            stations=tuple(stations),
            features=self.features,
            kinds=self.kinds,
            routes=self.routes,
            title=self.title,
            attribution=self.attribution,
            country=self.country,
        )


def geometry_from_geojson(data: Mapping[str, Any]) -> BaseGeometry:
    """Build a shapely geometry from a GeoJSON geometry object; raises ValueError if bad."""
    try:
        geometry = shape(data)
    except Exception as err:  # shapely raises several kinds for malformed input
        raise ValueError(f"bad geometry: {err}") from None
    coords = shapely.get_coordinates(geometry)
    if geometry.is_empty or not all(math.isfinite(v) for v in coords.ravel()):
        raise ValueError("empty or non-finite geometry")
    return geometry


def geometry_to_geojson(geometry: BaseGeometry) -> dict[str, Any]:
    """A shapely geometry as a GeoJSON geometry object (plain dicts, ready for ``json``)."""
    return dict(mapping(geometry))


def pack_to_geojson(pack: MapPack) -> dict[str, Any]:
    """Return the pack as a GeoJSON FeatureCollection (plain dicts, ready for ``json``)."""
    features: list[dict[str, Any]] = [
        {
            "type": "Feature",
            "properties": {"kind": BOUNDARY_KIND, "name": pack.title or pack.name},
            "geometry": mapping(pack.boundary),
        }
    ]
    for station in pack.stations:
        features.append(
            {
                "type": "Feature",
                "properties": {
                    "kind": STATION_KIND,
                    "id": station.id,
                    "name": station.name,
                    "routes": list(station.routes),
                },
                "geometry": {"type": "Point", "coordinates": [station.lon, station.lat]},
            }
        )
    for feature in pack.features:
        features.append(
            {
                "type": "Feature",
                "properties": {"kind": feature.kind, "name": feature.name},
                "geometry": mapping(feature.geometry),
            }
        )
    return {
        "type": "FeatureCollection",
        PACK_KEY: {
            "format": PACK_FORMAT,
            "name": pack.name,
            "title": pack.title,
            "attribution": pack.attribution,
            "country": pack.country,
            "kinds": sorted(pack.kinds),
            "routes": list(pack.routes),
        },
        "features": features,
    }


def pack_from_geojson(data: Mapping[str, Any]) -> MapPack:
    """Rebuild a pack written by :func:`pack_to_geojson`; raises ValueError if malformed.

    For GeoJSON from elsewhere use ``hideseek_chat.geo.imports.import_geojson``.
    """
    meta = data.get(PACK_KEY)
    if not isinstance(meta, dict) or meta.get("format") != PACK_FORMAT:
        raise ValueError("not a hideseek map pack (missing or unknown 'hideseek_map')")
    boundary: BaseGeometry | None = None
    stations: list[Station] = []
    features: list[Feature] = []
    for item in data.get("features", []):
        props = item.get("properties") or {}
        kind = props.get("kind")
        geometry = geometry_from_geojson(item["geometry"])
        if kind == BOUNDARY_KIND:
            boundary = geometry
        elif kind == STATION_KIND:
            stations.append(
                Station(
                    id=str(props["id"]),
                    name=str(props.get("name") or ""),
                    lat=geometry.y,  # type: ignore[attr-defined]
                    lon=geometry.x,  # type: ignore[attr-defined]
                    routes=tuple(str(r) for r in props.get("routes") or ()),
                )
            )
        else:
            features.append(Feature(str(kind), str(props.get("name") or ""), geometry))
    if not isinstance(boundary, Polygon | MultiPolygon):
        raise ValueError("map pack without a polygon boundary")
    return MapPack(
        name=str(meta.get("name", "")),
        title=str(meta.get("title", "")),
        attribution=str(meta.get("attribution", "")),
        country=str(meta.get("country") or ""),
        boundary=boundary,
        stations=tuple(stations),
        features=tuple(features),
        kinds=frozenset(str(k) for k in meta.get("kinds", ())),
        routes=tuple(str(r) for r in meta.get("routes", ())),
    )
