"""The transit lines a map names: every line, keyed for a button, and those stopping near
a point (what the transit-line question offers the asking seeker).

Lines are compared as ``mappack.line_name_key`` compares them: any case, spaces collapsed.
"""

from __future__ import annotations

import hashlib
import weakref

from hideseek_chat.geo.mappack import line_name_key
from hideseek_chat.geo.spatial import MapIndex

#: The lines offered for the transit-line question: of the stations this near the asker...
LINES_WITHIN_M = 2_000.0
#: ... at most this many, nearest first.
MOST_LINES = 10


def line_key(line: str) -> str:
    """A short key for a line's name in a button (any case or spacing gives the same key,
    as lines are compared: ``geo.mappack.line_name_key``)."""
    return hashlib.blake2s(line_name_key(line).encode(), digest_size=5).hexdigest()


_MAP_LINES: weakref.WeakKeyDictionary[MapIndex, dict[str, str]] = weakref.WeakKeyDictionary()


def map_lines(index: MapIndex) -> dict[str, str]:
    """Every line the map names, by ``line_key`` (the first spelling met); worked out once
    per index."""
    found = _MAP_LINES.get(index)
    if found is None:
        found = {}
        for station in index.pack.stations:
            for line in station.routes:
                if line.strip():
                    found.setdefault(line_key(line), line.strip())
        _MAP_LINES[index] = found
    return found


def lines_near(index: MapIndex, lat: float, lon: float) -> list[str]:
    """The lines stopping at the stations within ``LINES_WITHIN_M`` of a point, nearest
    station first (at most ``MOST_LINES``; the nearest station's when none is that near)."""
    hits = index.stations_within(lat, lon, LINES_WITHIN_M)
    if not hits:
        nearest = index.nearest_station(lat, lon)
        hits = [nearest] if nearest is not None else []
    found: dict[str, str] = {}
    for hit in sorted(hits, key=lambda h: h.distance_m):
        for line in hit.item.routes:
            if line.strip():
                found.setdefault(line_name_key(line), line.strip())
    return list(found.values())[:MOST_LINES]
