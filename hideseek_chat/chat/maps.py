"""Map packs for games: the shipped ones and those a group uploads, indexed once each."""

from __future__ import annotations

import json
import re
from typing import Any

from hideseek_chat import geo
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.geo import MapIndex, MapPack
from hideseek_chat.geo.mappack import BOUNDARY_KIND, PACK_FORMAT, PACK_KEY, STATION_KIND
from hideseek_chat.store import FeatureData, MapPackData, StationData, UnitOfWork

#: Uploaded files larger than this are refused before download.
MAX_UPLOAD_BYTES = 5 * 1024 * 1024


def to_data(pack: MapPack) -> MapPackData:
    """The pack as the store's plain data (GeoJSON geometries)."""
    collection = geo.pack_to_geojson(pack)
    boundary = ""
    stations: list[StationData] = []
    features: list[FeatureData] = []
    for item in collection["features"]:
        props = item["properties"]
        if props["kind"] == BOUNDARY_KIND:
            boundary = json.dumps(item["geometry"])
        elif props["kind"] == STATION_KIND:
            lon, lat = item["geometry"]["coordinates"]
            stations.append(
                StationData(props["id"], props["name"], lat, lon, tuple(props["routes"]))
            )
        else:
            features.append(FeatureData(props["kind"], props["name"], json.dumps(item["geometry"])))
    return MapPackData(
        pack.name,
        boundary,
        tuple(stations),
        tuple(features),
        pack.kinds,
        pack.routes,
        pack.title,
        pack.attribution,
        pack.country,
    )


def from_data(data: MapPackData) -> MapPack:
    features: list[dict[str, Any]] = [
        {
            "type": "Feature",
            "properties": {"kind": BOUNDARY_KIND, "name": data.title},
            "geometry": json.loads(data.boundary_geojson),
        }
    ]
    for s in data.stations:
        features.append(
            {
                "type": "Feature",
                "properties": {
                    "kind": STATION_KIND,
                    "id": s.ref,
                    "name": s.name,
                    "routes": list(s.routes),
                },
                "geometry": {"type": "Point", "coordinates": [s.lon, s.lat]},
            }
        )
    for f in data.features:
        features.append(
            {
                "type": "Feature",
                "properties": {"kind": f.kind, "name": f.name},
                "geometry": json.loads(f.geometry_geojson),
            }
        )
    collection = {
        "type": "FeatureCollection",
        PACK_KEY: {
            "format": PACK_FORMAT,
            "name": data.name,
            "title": data.title,
            "attribution": data.attribution,
            "country": data.country,
            "kinds": sorted(data.kinds),
            "routes": list(data.routes),
        },
        "features": features,
    }
    return geo.pack_from_geojson(collection)


class Maps:
    """Finds and indexes map packs by name; an index is built once per process."""

    def __init__(self) -> None:
        self._indexes: dict[str, MapIndex] = {}

    def names(self, uow: UnitOfWork) -> list[str]:
        return sorted(set(geo.builtin_map_packs()) | set(uow.maps.names()))

    def exists(self, uow: UnitOfWork, name: str) -> bool:
        return name in geo.builtin_map_packs() or uow.maps.load(name) is not None

    def index(self, uow: UnitOfWork, name: str) -> MapIndex | None:
        """The index of pack ``name``; None when there is no such pack."""
        if name in self._indexes:
            return self._indexes[name]
        if name in geo.builtin_map_packs():
            pack = geo.load_map_pack(name)
        else:
            data = uow.maps.load(name)
            if data is None:
                return None
            pack = from_data(data)
        self._indexes[name] = MapIndex(pack)
        return self._indexes[name]

    def forget(self, name: str) -> None:
        self._indexes.pop(name, None)


def import_upload(filename: str, content: bytes, name: str) -> MapPack:
    """Read an uploaded GeoJSON, GTFS zip or KML file; raise ChatError saying what is wrong."""
    lower = filename.lower()
    try:
        if lower.endswith((".geojson", ".json")):
            return geo.import_geojson(content, name=name, title=filename)
        if lower.endswith(".zip"):
            return geo.import_gtfs(content, name=name, title=filename)
        if lower.endswith(".kml"):
            return geo.import_kml(content, name=name, title=filename)
    except geo.MapImportError as error:
        raise ChatError("chat.map_bad_file", filename=filename, reason=error.reason) from None
    raise ChatError("chat.map_unknown_type", filename=filename)


def upload_name(chat_key: str, filename: str) -> str:
    """A stored pack name for a group's upload: unique per chat and file name."""
    stem = re.sub(r"[^a-z0-9]+", "-", filename.lower().rsplit(".", 1)[0]).strip("-")[:24]
    chat = re.sub(r"[^a-z0-9]+", "", chat_key.lower())[-12:]
    return f"upload-{chat}-{stem or 'map'}"
