"""Map packs as rows: boundary, stations with their routes, and features (POIs, roads).

Geometries are GeoJSON text in WGS84 lon/lat; every feature also carries its bounding box
(``min_lat`` .. ``max_lon``) so "what is near here" is an indexed range query.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, ForeignKeyConstraint, Index, Text
from sqlalchemy.orm import Mapped, mapped_column

from hideseek_chat.store.models.base import Base

PACK_FK = "map_packs.id"


class MapPackRow(Base):
    __tablename__ = "map_packs"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(unique=True)
    title: Mapped[str]
    attribution: Mapped[str]
    country: Mapped[str]  # ISO 3166-1 alpha-2, "" when unknown
    boundary_geojson: Mapped[str] = mapped_column(Text)
    min_lat: Mapped[float]
    min_lon: Mapped[float]
    max_lat: Mapped[float]
    max_lon: Mapped[float]
    imported_at: Mapped[datetime]


class MapKindRow(Base):
    """A feature kind the pack has data for (listed with no feature: "there is none")."""

    __tablename__ = "map_pack_kinds"

    pack_id: Mapped[int] = mapped_column(ForeignKey(PACK_FK, ondelete="CASCADE"), primary_key=True)
    kind: Mapped[str] = mapped_column(primary_key=True)


class MapRouteRow(Base):
    """A transit line of the pack, in the pack's order."""

    __tablename__ = "map_routes"

    pack_id: Mapped[int] = mapped_column(ForeignKey(PACK_FK, ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str]


class StationRow(Base):
    __tablename__ = "map_stations"
    __table_args__ = (Index("ix_map_stations_pack_id_lat_lon", "pack_id", "lat", "lon"),)

    pack_id: Mapped[int] = mapped_column(ForeignKey(PACK_FK, ondelete="CASCADE"), primary_key=True)
    ref: Mapped[str] = mapped_column(primary_key=True)
    position: Mapped[int]
    name: Mapped[str]
    lat: Mapped[float]
    lon: Mapped[float]


class StationRouteRow(Base):
    """A line that stops at a station."""

    __tablename__ = "map_station_routes"
    __table_args__ = (
        ForeignKeyConstraint(
            ["pack_id", "station_ref"],
            ["map_stations.pack_id", "map_stations.ref"],
            ondelete="CASCADE",
        ),
        Index("ix_map_station_routes_pack_id_route", "pack_id", "route"),
    )

    pack_id: Mapped[int] = mapped_column(primary_key=True)
    station_ref: Mapped[str] = mapped_column(primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    route: Mapped[str]


class FeatureRow(Base):
    """A point of interest, road or area of some ``kind``; ``lat``/``lon`` is a point on it."""

    __tablename__ = "map_features"
    __table_args__ = (
        Index("ix_map_features_pack_id_kind_min_lat", "pack_id", "kind", "min_lat", "max_lat"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    pack_id: Mapped[int] = mapped_column(ForeignKey(PACK_FK, ondelete="CASCADE"))
    position: Mapped[int]
    kind: Mapped[str]
    name: Mapped[str]
    lat: Mapped[float]
    lon: Mapped[float]
    geometry_geojson: Mapped[str] = mapped_column(Text)
    min_lat: Mapped[float]
    min_lon: Mapped[float]
    max_lat: Mapped[float]
    max_lon: Mapped[float]
