"""Finding the game's area by name: Nominatim through geopy, politely.

``Geocoder(url, user_agent).search("Stillwater")`` returns up to ``limit`` :class:`Place`
values, each with its OSM object, a label for a button and, for an area, its boundary
polygon (``polygon_geojson``). A point result (a station, a peak) has no boundary: the
admin picks a radius and :func:`circle` draws it.

Nominatim's usage policy asks for a User-Agent naming the application and at most one
request a second: every :class:`Geocoder` of the process shares one :class:`RateLimiter`
unless a test hands in its own (with an injected clock and sleep).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from geopy.adapters import BaseSyncAdapter, RequestsAdapter
from geopy.exc import (
    GeocoderParseError,
    GeocoderQuotaExceeded,
    GeocoderServiceError,
    GeocoderTimedOut,
    GeocoderUnavailable,
    GeopyError,
)
from geopy.geocoders import Nominatim
from shapely.geometry import MultiPolygon, Polygon

from hideseek_chat.geo.distance import destination
from hideseek_chat.geo.mappack import geometry_from_geojson
from hideseek_chat.maps.errors import MapFetchError

_TYPE_PREFIX = {"relation": "r", "way": "w", "node": "n"}


@dataclass(frozen=True)
class Place:
    """One geocoder match: an OSM object with a name, a label and (for an area) a polygon."""

    osm_type: str  # "relation" | "way" | "node"
    osm_id: int
    name: str
    label: str  # for a button: "Stillwater · city · United States"
    kind: str
    country_code: str  # ISO 3166-1 alpha-2, upper case, or ""
    lat: float
    lon: float
    boundary: Polygon | MultiPolygon | None

    @property
    def key(self) -> str:
        """Return the OSM object as one word: "r123", "w5", "n9"."""
        return f"{_TYPE_PREFIX.get(self.osm_type, '?')}{self.osm_id}"


class RateLimiter:
    """Let at most one call through per ``interval`` seconds (thread-safe)."""

    def __init__(
        self,
        interval: float = 1.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.interval = interval
        self.clock = clock
        self.sleep = sleep
        self._next = float("-inf")
        self._lock = threading.Lock()

    def wait(self) -> None:
        """Block until the next call may go, and book it."""
        with self._lock:
            now = self.clock()
            if now < self._next:
                self.sleep(self._next - now)
                now = self._next
            self._next = now + self.interval


#: The process-wide limiter Nominatim's policy asks for.
NOMINATIM_LIMIT = RateLimiter(1.0)


def circle(lat: float, lon: float, radius_m: float, segments: int = 64) -> Polygon:
    """Return a geodesic circle of ``radius_m`` around a point, as a lon/lat polygon."""
    if radius_m <= 0:
        raise ValueError("radius must be positive")
    ring = []
    for step in range(segments):
        lat2, lon2 = destination(lat, lon, 360.0 * step / segments, radius_m)
        ring.append((lon2, lat2))
    return Polygon(ring)


def _boundary(raw: Mapping[str, Any]) -> Polygon | MultiPolygon | None:
    data = raw.get("geojson")
    if not isinstance(data, Mapping) or data.get("type") not in ("Polygon", "MultiPolygon"):
        return None
    try:
        geometry = geometry_from_geojson(data)
    except ValueError:
        return None
    return geometry if isinstance(geometry, Polygon | MultiPolygon) else None


def place_from_raw(raw: Mapping[str, Any]) -> Place:
    """Build a :class:`Place` from one Nominatim ``jsonv2``/``json`` result."""
    address = raw.get("address") if isinstance(raw.get("address"), Mapping) else {}
    assert isinstance(address, Mapping)
    display = str(raw.get("display_name") or "")
    name = str(raw.get("name") or display.split(",")[0]).strip()
    kind = str(raw.get("addresstype") or raw.get("type") or raw.get("class") or "place")
    kind = kind.replace("_", " ")
    country = str(address.get("country") or "").strip()
    label = " · ".join(part for part in (name, kind, country) if part)
    return Place(
        osm_type=str(raw.get("osm_type") or ""),
        osm_id=int(raw.get("osm_id") or 0),
        name=name,
        label=label,
        kind=kind,
        country_code=str(address.get("country_code") or "").strip().upper(),
        lat=float(raw["lat"]),
        lon=float(raw["lon"]),
        boundary=_boundary(raw),
    )


def _no_retries(**kwargs: Any) -> BaseSyncAdapter:
    # requests' own retries would go around the rate limit; a failure is reported instead.
    return RequestsAdapter(max_retries=0, **kwargs)


class Geocoder:
    """Nominatim search through geopy; ``url`` names the server (a test's fake one)."""

    def __init__(
        self,
        url: str,
        user_agent: str,
        *,
        timeout: float = 10.0,
        limiter: RateLimiter | None = None,
    ) -> None:
        parts = urlsplit(url if "://" in url else f"https://{url}")
        domain = parts.netloc + parts.path.rstrip("/")
        self._nominatim = Nominatim(
            domain=domain,
            scheme=parts.scheme,
            user_agent=user_agent,
            timeout=timeout,
            adapter_factory=_no_retries,
        )
        self.limiter = limiter or NOMINATIM_LIMIT

    def search(self, query: str, *, language: str = "en", limit: int = 5) -> list[Place]:
        """Return up to ``limit`` matches (empty when none). Raises ``map.geocoder_failed``."""
        if not query.strip():
            return []
        self.limiter.wait()
        try:
            found = self._nominatim.geocode(
                query.strip(),
                exactly_one=False,
                limit=limit,
                addressdetails=True,
                language=language,
                geometry="geojson",
            )
        except GeocoderQuotaExceeded:
            raise MapFetchError("map.geocoder_failed", reason="busy (429)") from None
        except GeocoderTimedOut:
            raise MapFetchError("map.geocoder_failed", reason="timed out") from None
        except GeocoderParseError:
            raise MapFetchError("map.geocoder_failed", reason="bad response") from None
        except (GeocoderUnavailable, GeocoderServiceError):
            raise MapFetchError("map.geocoder_failed", reason="server error") from None
        except GeopyError:
            raise MapFetchError("map.geocoder_failed", reason="geocoder error") from None
        places = []
        for location in found or ():
            try:
                places.append(place_from_raw(location.raw))
            except (KeyError, TypeError, ValueError):
                continue  # a malformed row: skip it rather than lose the others
        return places[:limit]
