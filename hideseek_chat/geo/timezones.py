"""Where a map is in time and in the world: its IANA time zone and its country, offline.

The zone comes from tzfpy's polygons of the tz boundary builder (shipped in the wheel, no
network); the country of a zone from the tz database's ``zone.tab`` (the ``tzdata`` package
ships it, so it is there in any pip install; the system's copy is the fallback).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

import tzfpy

from hideseek_chat.geo.mappack import MapPack

#: Where the system keeps the tz database, when the ``tzdata`` package is missing.
SYSTEM_ZONE_TAB = Path("/usr/share/zoneinfo/zone.tab")


def time_zone_at(lat: float, lon: float) -> str | None:
    """The IANA zone at a point (``America/Chicago``); None at sea or off the map."""
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        return None
    name = tzfpy.get_tz(lon, lat)
    # Over the open sea tzfpy answers the nautical zones (Etc/GMT+6): no place's clock.
    return name if name and not name.startswith("Etc/") else None


def pack_time_zone(pack: MapPack) -> str | None:
    """The zone at a point surely inside the pack's boundary (its representative point)."""
    point = pack.boundary.representative_point()
    return time_zone_at(point.y, point.x)


def _zone_tab_text() -> str:
    try:
        return (resources.files("tzdata") / "zoneinfo" / "zone.tab").read_text("utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return SYSTEM_ZONE_TAB.read_text("utf-8") if SYSTEM_ZONE_TAB.is_file() else ""


@lru_cache(maxsize=1)
def _zone_countries() -> dict[str, str]:
    countries: dict[str, str] = {}
    for line in _zone_tab_text().splitlines():
        if not line or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) >= 3:
            countries[parts[2]] = parts[0].upper()
    return countries


def country_of_time_zone(zone: str) -> str:
    """The ISO 3166-1 alpha-2 country of an IANA zone (``Europe/Zurich`` -> ``CH``); "" for
    a zone of no one country (``UTC``, ``Etc/GMT-2``, old links like ``US/Central``)."""
    return _zone_countries().get(zone, "")


def pack_country(pack: MapPack) -> str:
    """The pack's country: its own, else the country of the zone its boundary is in."""
    if pack.country:
        return pack.country
    zone = pack_time_zone(pack)
    return country_of_time_zone(zone) if zone else ""
