"""Map packs from plain data: boundary and geometries as GeoJSON text, points as floats.

The geo package turns its ``MapPack`` into a ``MapPackData`` (and back); this module never
parses geometry beyond walking GeoJSON coordinates for bounding boxes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from hideseek_chat.store.models import (
    FeatureRow,
    MapKindRow,
    MapPackRow,
    MapRouteRow,
    StationRouteRow,
    StationRow,
)

BBox = tuple[float, float, float, float]  # min_lat, min_lon, max_lat, max_lon


@dataclass(frozen=True)
class StationData:
    ref: str
    name: str
    lat: float
    lon: float
    routes: tuple[str, ...] = ()


@dataclass(frozen=True)
class FeatureData:
    """A POI, road or area; ``lat``/``lon`` default to the middle of its bounding box."""

    kind: str
    name: str
    geometry_geojson: str
    lat: float | None = None
    lon: float | None = None


@dataclass(frozen=True)
class MapPackData:
    name: str
    boundary_geojson: str
    stations: tuple[StationData, ...] = ()
    features: tuple[FeatureData, ...] = ()
    kinds: frozenset[str] = frozenset()
    routes: tuple[str, ...] = ()
    title: str = ""
    attribution: str = ""
    country: str = ""  # ISO 3166-1 alpha-2, upper case; "" when unknown


@dataclass(frozen=True)
class PackSummary:
    """A stored pack in one line: how much it holds and when it was stored."""

    name: str
    title: str
    stations: int
    features: int
    imported_at: datetime


def _positions(coordinates: Any) -> Iterator[tuple[float, float]]:
    if coordinates and isinstance(coordinates[0], int | float):
        yield float(coordinates[0]), float(coordinates[1])
        return
    for item in coordinates:
        yield from _positions(item)


def geojson_bbox(text: str) -> BBox:
    """The bounding box of a GeoJSON geometry, feature or collection (lon/lat order in)."""
    data = json.loads(text)
    found: list[tuple[float, float]] = []

    def visit(node: Any) -> None:
        if node.get("type") == "FeatureCollection":
            for feature in node["features"]:
                visit(feature)
        elif node.get("type") == "Feature":
            visit(node["geometry"])
        elif node.get("type") == "GeometryCollection":
            for geometry in node["geometries"]:
                visit(geometry)
        else:
            found.extend(_positions(node["coordinates"]))

    visit(data)
    if not found:
        raise ValueError("a geometry without coordinates")
    lons, lats = zip(*found, strict=True)
    return min(lats), min(lons), max(lats), max(lons)


class MapPacks:
    def __init__(self, session: Session) -> None:
        self.session = session

    def save(self, pack: MapPackData, now: datetime) -> int:
        """Store ``pack``, replacing a stored pack of the same name; return its row id."""
        self.session.execute(delete(MapPackRow).where(MapPackRow.name == pack.name))
        min_lat, min_lon, max_lat, max_lon = geojson_bbox(pack.boundary_geojson)
        row = MapPackRow(
            name=pack.name,
            title=pack.title,
            attribution=pack.attribution,
            country=pack.country,
            boundary_geojson=pack.boundary_geojson,
            min_lat=min_lat,
            min_lon=min_lon,
            max_lat=max_lat,
            max_lon=max_lon,
            imported_at=now,
        )
        self.session.add(row)
        self.session.flush()
        pack_id = row.id
        self.session.add_all(MapKindRow(pack_id=pack_id, kind=k) for k in sorted(pack.kinds))
        self.session.add_all(
            MapRouteRow(pack_id=pack_id, position=i, name=r) for i, r in enumerate(pack.routes)
        )
        for i, station in enumerate(pack.stations):
            self.session.add(
                StationRow(
                    pack_id=pack_id,
                    ref=station.ref,
                    position=i,
                    name=station.name,
                    lat=station.lat,
                    lon=station.lon,
                )
            )
        self.session.flush()
        for station in pack.stations:
            self.session.add_all(
                StationRouteRow(pack_id=pack_id, station_ref=station.ref, position=j, route=r)
                for j, r in enumerate(station.routes)
            )
        for i, feature in enumerate(pack.features):
            box = geojson_bbox(feature.geometry_geojson)
            self.session.add(
                FeatureRow(
                    pack_id=pack_id,
                    position=i,
                    kind=feature.kind,
                    name=feature.name,
                    lat=feature.lat if feature.lat is not None else (box[0] + box[2]) / 2,
                    lon=feature.lon if feature.lon is not None else (box[1] + box[3]) / 2,
                    geometry_geojson=feature.geometry_geojson,
                    min_lat=box[0],
                    min_lon=box[1],
                    max_lat=box[2],
                    max_lon=box[3],
                )
            )
        self.session.flush()
        return pack_id

    def imported_at(self, name: str) -> datetime | None:
        """When the stored pack ``name`` was saved; None when there is none."""
        return self.session.scalar(select(MapPackRow.imported_at).where(MapPackRow.name == name))

    def newest_version(self, base: str) -> tuple[str, datetime] | None:
        """The newest stored version of ``base`` (named ``base`` or ``base@…``) with the time
        it was saved; None when there is none."""
        escaped = base.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        row = self.session.execute(
            select(MapPackRow.name, MapPackRow.imported_at)
            .where((MapPackRow.name == base) | MapPackRow.name.like(f"{escaped}@%", escape="\\"))
            .order_by(MapPackRow.imported_at.desc(), MapPackRow.id.desc())
            .limit(1)
        ).first()
        return None if row is None else (row[0], row[1])

    def newest(self, limit: int) -> list[str]:
        """The names of the ``limit`` packs stored last, newest first."""
        query = select(MapPackRow.name).order_by(
            MapPackRow.imported_at.desc(), MapPackRow.id.desc()
        )
        return list(self.session.scalars(query.limit(limit)))

    def names(self) -> list[str]:
        return list(self.session.scalars(select(MapPackRow.name).order_by(MapPackRow.name)))

    def summaries(self) -> list[PackSummary]:
        """Every stored pack with its station and feature counts, by name."""
        stations: dict[int, int] = {
            pack_id: count
            for pack_id, count in self.session.execute(
                select(StationRow.pack_id, func.count()).group_by(StationRow.pack_id)
            )
        }
        features: dict[int, int] = {
            pack_id: count
            for pack_id, count in self.session.execute(
                select(FeatureRow.pack_id, func.count()).group_by(FeatureRow.pack_id)
            )
        }
        return [
            PackSummary(
                row.name,
                row.title,
                stations.get(row.id, 0),
                features.get(row.id, 0),
                row.imported_at,
            )
            for row in self.session.scalars(select(MapPackRow).order_by(MapPackRow.name))
        ]

    def load(self, name: str) -> MapPackData | None:
        """The stored pack ``name`` as plain data (feature lat/lon as stored)."""
        pack = self.session.scalar(select(MapPackRow).where(MapPackRow.name == name))
        if pack is None:
            return None
        routes_of: dict[str, list[str]] = {}
        for link in self.session.scalars(
            select(StationRouteRow)
            .where(StationRouteRow.pack_id == pack.id)
            .order_by(StationRouteRow.station_ref, StationRouteRow.position)
        ):
            routes_of.setdefault(link.station_ref, []).append(link.route)
        stations = tuple(
            StationData(s.ref, s.name, s.lat, s.lon, tuple(routes_of.get(s.ref, ())))
            for s in self.session.scalars(
                select(StationRow)
                .where(StationRow.pack_id == pack.id)
                .order_by(StationRow.position)
            )
        )
        features = tuple(
            FeatureData(f.kind, f.name, f.geometry_geojson, f.lat, f.lon)
            for f in self.session.scalars(
                select(FeatureRow)
                .where(FeatureRow.pack_id == pack.id)
                .order_by(FeatureRow.position)
            )
        )
        kinds = frozenset(
            self.session.scalars(select(MapKindRow.kind).where(MapKindRow.pack_id == pack.id))
        )
        routes = tuple(
            self.session.scalars(
                select(MapRouteRow.name)
                .where(MapRouteRow.pack_id == pack.id)
                .order_by(MapRouteRow.position)
            )
        )
        return MapPackData(
            pack.name,
            pack.boundary_geojson,
            stations,
            features,
            kinds,
            routes,
            pack.title,
            pack.attribution,
            pack.country,
        )

    def _pack_id(self, name: str) -> int:
        pack_id = self.session.scalar(select(MapPackRow.id).where(MapPackRow.name == name))
        if pack_id is None:
            raise LookupError(f"no map pack {name!r}")
        return pack_id

    def stations_in(self, name: str, box: BBox) -> list[StationData]:
        """Stations of pack ``name`` inside ``box`` (an indexed range query)."""
        pack_id = self._pack_id(name)
        min_lat, min_lon, max_lat, max_lon = box
        rows = self.session.scalars(
            select(StationRow)
            .where(
                StationRow.pack_id == pack_id,
                StationRow.lat.between(min_lat, max_lat),
                StationRow.lon.between(min_lon, max_lon),
            )
            .order_by(StationRow.position)
        ).all()
        routes_of: dict[str, list[str]] = {}
        refs = [r.ref for r in rows]
        for link in self.session.scalars(
            select(StationRouteRow)
            .where(StationRouteRow.pack_id == pack_id, StationRouteRow.station_ref.in_(refs))
            .order_by(StationRouteRow.position)
        ):
            routes_of.setdefault(link.station_ref, []).append(link.route)
        return [
            StationData(r.ref, r.name, r.lat, r.lon, tuple(routes_of.get(r.ref, ()))) for r in rows
        ]

    def features_in(self, name: str, kind: str, box: BBox | None = None) -> list[FeatureData]:
        """Features of ``kind`` whose bounding box meets ``box`` (all of the kind if None)."""
        query = select(FeatureRow).where(
            FeatureRow.pack_id == self._pack_id(name), FeatureRow.kind == kind
        )
        if box is not None:
            min_lat, min_lon, max_lat, max_lon = box
            query = query.where(
                FeatureRow.max_lat >= min_lat,
                FeatureRow.min_lat <= max_lat,
                FeatureRow.max_lon >= min_lon,
                FeatureRow.min_lon <= max_lon,
            )
        return [
            FeatureData(f.kind, f.name, f.geometry_geojson, f.lat, f.lon)
            for f in self.session.scalars(query.order_by(FeatureRow.position))
        ]
