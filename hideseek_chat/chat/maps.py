"""Map packs for games: the shipped ones and those a group uploads, indexed once each."""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from dataclasses import replace
from datetime import datetime
from typing import Any

from hideseek_chat import geo
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.geo import MapIndex, MapPack
from hideseek_chat.geo.mappack import BOUNDARY_KIND, PACK_FORMAT, PACK_KEY, STATION_KIND
from hideseek_chat.store import FeatureData, MapPackData, StationData, UnitOfWork

#: Stored maps /map offers as buttons (the newest); the others are chosen by name.
OFFERED_STORED = 12
#: Indexes kept per pack for groups that dropped stations from it (each drop set its own).
MAX_DROP_SETS = 4
#: Packs whose indexes are kept in memory, the least recently used let go first (a
#: country-size index is tens of MB; every refresh or upload is a new pack).
MAX_PACKS = 6
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
    """Finds and indexes map packs by name; an index is built once per process for each
    set of stations a group dropped from it.

    At most ``max_packs`` packs keep their indexes (each its whole index and those of
    ``MAX_DROP_SETS`` drop sets), the least recently used pack's let go first: nothing else
    holds an index, so the memory of a country-size map is freed with it. Safe to use from
    several threads; an index is built outside the lock (a country takes seconds).
    """

    def __init__(self, max_packs: int = MAX_PACKS) -> None:
        self.max_packs = max_packs
        self._lock = threading.Lock()
        self._indexes: dict[tuple[str, frozenset[str]], MapIndex] = {}
        self._ends: dict[str, MapIndex | None] = {}  # ``street_ends`` by pack name
        self._used: OrderedDict[str, None] = OrderedDict()  # pack names, least recent first

    def names(self, uow: UnitOfWork) -> list[str]:
        return sorted(set(geo.builtin_map_packs()) | set(uow.maps.names()))

    def offered(self, uow: UnitOfWork, current: str) -> list[str]:
        """The maps /map offers as buttons: the shipped ones, the one in use and the ones
        stored last (every stored map can still be chosen by name)."""
        newest = uow.maps.newest(OFFERED_STORED)
        return sorted(set(geo.builtin_map_packs()) | {current} | set(newest))

    def exists(self, uow: UnitOfWork, name: str) -> bool:
        return name in geo.builtin_map_packs() or uow.maps.load(name) is not None

    def pack(self, uow: UnitOfWork, name: str) -> MapPack | None:
        """The whole pack ``name`` (every station); None when there is no such pack."""
        whole = self._indexes.get((name, frozenset()))
        if whole is not None:
            return whole.pack
        if name in geo.builtin_map_packs():
            return geo.load_map_pack(name)
        data = uow.maps.load(name)
        return None if data is None else from_data(data)

    @property
    def indexes(self) -> int:
        """How many indexes are kept now."""
        return len(self._indexes)

    def index(
        self, uow: UnitOfWork, name: str, dropped: frozenset[str] = frozenset()
    ) -> MapIndex | None:
        """The index of pack ``name`` without the stations ``dropped`` (their ids); None
        when there is no such pack."""
        key, whole_key = (name, dropped), (name, frozenset[str]())
        with self._lock:
            self._touch(name)
            found = self._indexes.get(key)
        if found is not None:
            return found
        pack = self.pack(uow, name)
        if pack is None:
            return None
        whole = self._indexes.get(whole_key)
        if whole is None:
            whole = MapIndex(pack)
        built = MapIndex(without_stations(pack, dropped)) if dropped else whole
        with self._lock:
            self._touch(name)
            whole = self._indexes.setdefault(whole_key, whole)
            if not dropped:
                return whole
            if key not in self._indexes:
                trimmed = [k for k in self._indexes if k[0] == name and k[1]]
                for old in trimmed[: max(0, len(trimmed) - MAX_DROP_SETS + 1)]:
                    del self._indexes[old]  # the oldest: a group changed its drops since
                self._indexes[key] = built
            return self._indexes[key]

    def street_ends(self, uow: UnitOfWork, name: str) -> MapIndex | None:
        """An index of pack ``name`` whose stations are its street ends (the centres of
        car and on-foot zones, ``MapIndex.street_ends``); None when there is no such pack
        or it has no streets."""
        with self._lock:
            if name in self._ends:
                self._touch(name)
                return self._ends[name]
        whole = self.index(uow, name)
        ends = whole.street_ends() if whole is not None else ()
        built = None
        if whole is not None and ends:
            built = whole.with_stations([end.as_station() for end in ends])
        with self._lock:
            self._touch(name)
            return self._ends.setdefault(name, built)

    def _touch(self, name: str) -> None:
        """Mark ``name`` used now; let the least recently used pack's indexes go (under
        the lock)."""
        self._used[name] = None
        self._used.move_to_end(name)
        while len(self._used) > self.max_packs:
            self._forget(next(iter(self._used)))

    def forget(self, name: str) -> None:
        """Forget every index of pack ``name`` (it was stored anew)."""
        with self._lock:
            self._forget(name)

    def _forget(self, name: str) -> None:
        for key in [k for k in self._indexes if k[0] == name]:
            del self._indexes[key]
        self._ends.pop(name, None)
        self._used.pop(name, None)


def map_facts(uow: UnitOfWork, maps: Maps, chat: str) -> dict[str, Any]:
    """What /map says of ``chat``'s map: its name and title, stations (and how many the
    group left out), the kinds of places it knows, and for a map from OpenStreetMap its
    modes and the day it was fetched."""
    name = uow.chats.prefs(chat).map_name
    facts: dict[str, Any] = {"name": name}
    pack = maps.pack(uow, name)
    if pack is None:
        return facts
    dropped = uow.map_jobs.dropped(chat, name)
    facts.update(
        title=pack.title,
        stations=len(pack.stations) - len(dropped & {s.id for s in pack.stations}),
        dropped=len(dropped),
        kinds=sorted(pack.kinds),
        attribution=pack.attribution,
    )
    job = uow.map_jobs.fetched(name)
    imported = uow.maps.imported_at(name)
    if job is not None and job.fetch is not None and imported is not None:
        facts.update(fetched=imported.date().isoformat(), modes=list(job.fetch.modes))
    return facts


def without_stations(pack: MapPack, dropped: frozenset[str]) -> MapPack:
    """``pack`` without the stations whose ids are in ``dropped``."""
    return pack.with_stations([s for s in pack.stations if s.id not in dropped])


def use_map(uow: UnitOfWork, maps: Maps, chat: str, name: str, now: datetime) -> None:
    """Make pack ``name`` the map of ``chat``'s games (every way a map is chosen ends here:
    /map NAME, its button, an upload, a fetch, a station list); what the map means for the
    game's clock and the suggestions follow in ``map_choice``. Does not commit."""
    uow.chats.set_prefs(chat, replace(uow.chats.prefs(chat), map_name=name), now)
    maps.forget(name)


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


def version_name(base: str, now: datetime) -> str:
    """The name a fetched or uploaded pack is stored under: its base name, then when. A
    stored pack then never changes, so a game under way on it and every process's index of
    it stay right when a group fetches or uploads the same map again
    (``MapPacks.newest_version`` finds the newest)."""
    return f"{base}@{now:%Y%m%d%H%M%S}"


def upload_name(chat_key: str, filename: str) -> str:
    """A stored pack name for a group's upload: unique per chat and file name."""
    stem = re.sub(r"[^a-z0-9]+", "-", filename.lower().rsplit(".", 1)[0]).strip("-")[:24]
    chat = re.sub(r"[^a-z0-9]+", "", chat_key.lower())[-12:]
    return f"upload-{chat}-{stem or 'map'}"
