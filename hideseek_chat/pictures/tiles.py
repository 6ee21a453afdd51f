"""A slippy-map tile client that keeps to the OpenStreetMap tile usage policy.

``TileClient(url, user_agent=..., cache_dir=...).tile(z, x, y)`` (``url`` a template with
``{z}``, ``{x}``, ``{y}`` and optionally ``{s}``; config.TILE_URL by default) returns the tile as a
decoded Pillow image, or None when it cannot be had; it never raises for a server's fault.

- every request names the app (``user_agent``, the same string Nominatim and Overpass get);
- tiles are kept on disk (``cache_dir``; the last :data:`MEMORY_TILES` decoded ones in
  memory too) for as long as ``Cache-Control: max-age`` or
  ``Expires`` says, and never less than :data:`MIN_CACHE_S` (7 days); an expired tile the
  server cannot refresh is still used;
- one rate cap for all requests of the client (``rate_per_s``, default 2 a second) and at
  most 2 connections, so one client per process (made in app.py) keeps the whole bot polite;
- a 429 stops all requests until its ``Retry-After`` (or :data:`DEFAULT_BACKOFF_S`) has
  passed; a timeout, connection error or 5xx stops them for :data:`DEFAULT_BACKOFF_S`, so a
  picture whose server is down falls back at once instead of timing out tile after tile;
- a body Pillow cannot decode counts as no tile.

``clock`` (monotonic seconds), ``sleep`` and ``now`` (wall-clock seconds, for cache expiry)
can be passed in, so tests check the rate cap and the backoff without waiting.
"""

from __future__ import annotations

import email.utils
import hashlib
import io
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from PIL import Image

log = logging.getLogger(__name__)

#: What the picture says when its basemap came from OpenStreetMap's tiles.
OSM_TILE_ATTRIBUTION = "© OpenStreetMap contributors"
#: The tile usage policy asks clients to keep tiles at least a week.
MIN_CACHE_S = 7 * 24 * 3600.0
#: How long requests stop after a failure with no ``Retry-After``.
DEFAULT_BACKOFF_S = 60.0
#: The longest ``Retry-After`` believed (a server's typo must not switch tiles off for days).
MAX_BACKOFF_S = 3600.0
MAX_ZOOM = 19
#: Decoded tiles kept in memory (some 200 kB each): one 1024-pixel picture needs up to 49,
#: and the next picture of the same game needs the same ones.
MEMORY_TILES = 64
_MAX_AGE = re.compile(r"(?:^|,)\s*max-age\s*=\s*(\d+)", re.IGNORECASE)


class RateCap:
    """At most ``per_second`` starts a second, shared by every thread that asks."""

    def __init__(
        self,
        per_second: float,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if per_second <= 0:
            raise ValueError("per_second must be positive")
        self.interval = 1.0 / per_second
        self._clock = clock
        self._sleep = sleep
        self._next = -float("inf")
        self._lock = threading.Lock()

    def wait(self) -> None:
        """Block until this caller may start a request (the slots are handed out in turn)."""
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            self._sleep(start - now)


def cache_seconds(headers: Mapping[str, str], now: float) -> float:
    """Return how long a tile may be kept: the server's word, but at least a week."""
    control = headers.get("cache-control", "")
    found = _MAX_AGE.search(control)
    server: float | None = float(found.group(1)) if found else None
    if server is None and headers.get("expires"):
        try:
            expires = email.utils.parsedate_to_datetime(headers["expires"])
            server = expires.timestamp() - now
        except (TypeError, ValueError, OverflowError):
            server = None
    return max(MIN_CACHE_S, server or 0.0)


def retry_after_s(value: str | None, now: float) -> float:
    """Return a ``Retry-After`` (seconds or an HTTP date) as a wait, within bounds."""
    if value:
        try:
            return min(MAX_BACKOFF_S, max(0.0, float(value.strip())))
        except ValueError:
            pass
        try:
            when = email.utils.parsedate_to_datetime(value)
            return min(MAX_BACKOFF_S, max(0.0, when.timestamp() - now))
        except (TypeError, ValueError, OverflowError):
            pass
    return DEFAULT_BACKOFF_S


class TileClient:
    """Fetches, caches and decodes tiles of one tile server (see the module doc)."""

    def __init__(
        self,
        url_template: str,
        *,
        user_agent: str,
        cache_dir: Path | None = None,
        rate_per_s: float = 2.0,
        timeout_s: float = 10.0,
        attribution: str = OSM_TILE_ATTRIBUTION,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        now: Callable[[], float] = time.time,
    ) -> None:
        for key in ("{z}", "{x}", "{y}"):
            if key not in url_template:
                raise ValueError(f"tile URL template without {key}: {url_template!r}")
        self.url_template = url_template
        self.attribution = attribution
        self.cache_dir = cache_dir
        self._clock = clock
        self._now = now
        self._cap = RateCap(rate_per_s, clock, sleep)
        self._blocked_until = -float("inf")
        self._lock = threading.Lock()
        self._memory: OrderedDict[tuple[int, int, int], tuple[Image.Image, float]] = OrderedDict()
        # Tiles of different servers must not mix in one cache folder.
        self._cache_key = hashlib.sha1(url_template.encode()).hexdigest()[:12]
        self._http = httpx.Client(
            headers={"User-Agent": user_agent},
            timeout=httpx.Timeout(timeout_s),
            limits=httpx.Limits(max_connections=2, max_keepalive_connections=2),
            follow_redirects=True,
        )
        self.requests = 0  # how many requests went out (for logs and tests)

    def close(self) -> None:
        """Close the connections (app.py does it at shutdown)."""
        self._http.close()

    def __enter__(self) -> TileClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def tile(self, z: int, x: int, y: int) -> Image.Image | None:
        """Return tile ``(z, x, y)`` as an RGB image, or None when it cannot be had."""
        if not (0 <= z <= MAX_ZOOM and 0 <= x < 2**z and 0 <= y < 2**z):
            return None
        cached, fresh = self._cached(z, x, y)
        if cached is not None and fresh:
            return cached
        fetched = self._fetch(z, x, y)
        return fetched if fetched is not None else cached

    def _path(self, z: int, x: int, y: int) -> Path | None:
        if self.cache_dir is None:
            return None
        return self.cache_dir / self._cache_key / str(z) / str(x) / f"{y}.tile"

    def _cached(self, z: int, x: int, y: int) -> tuple[Image.Image | None, bool]:
        with self._lock:
            kept = self._memory.get((z, x, y))
            if kept is not None:
                self._memory.move_to_end((z, x, y))
        if kept is not None and self._now() < kept[1]:
            return kept[0], True
        path = self._path(z, x, y)
        if path is None:
            return None, False
        try:
            body = path.read_bytes()
            expires = float(path.with_suffix(".expires").read_text(encoding="ascii"))
        except (OSError, ValueError):
            return None, False
        image = _decode(body)
        if image is None:
            return None, False
        self._remember(z, x, y, image, expires)
        return image, self._now() < expires

    def _remember(self, z: int, x: int, y: int, image: Image.Image, expires: float) -> None:
        with self._lock:
            self._memory[z, x, y] = (image, expires)
            self._memory.move_to_end((z, x, y))
            while len(self._memory) > MEMORY_TILES:
                self._memory.popitem(last=False)

    def _store(self, z: int, x: int, y: int, body: bytes, keep_s: float) -> None:
        path = self._path(z, x, y)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Written aside and renamed, so a reader never sees half a tile.
            part = path.with_suffix(f".part{threading.get_ident()}")
            part.write_bytes(body)
            part.replace(path)
            path.with_suffix(".expires").write_text(f"{self._now() + keep_s:.0f}", "ascii")
        except OSError as err:
            log.warning("tile cache not written (%s)", err.__class__.__name__)

    def _fetch(self, z: int, x: int, y: int) -> Image.Image | None:
        with self._lock:
            if self._clock() < self._blocked_until:
                return None
        self._cap.wait()
        url = self.url_template.format(z=z, x=x, y=y, s="abc"[(x + y) % 3])
        with self._lock:
            self.requests += 1
        try:
            response = self._http.get(url)
        except httpx.HTTPError as err:
            self._back_off(DEFAULT_BACKOFF_S, url, err.__class__.__name__)
            return None
        if response.status_code == 429:
            wait = retry_after_s(response.headers.get("retry-after"), self._now())
            self._back_off(wait, url, "busy (429)")
            return None
        if response.status_code >= 500:
            self._back_off(DEFAULT_BACKOFF_S, url, f"server error ({response.status_code})")
            return None
        if response.status_code != 200:
            # Never the tile's z/x/y: a zone picture's tiles say where the hider is.
            log.info("a tile from %s: status %s", urlsplit(url).hostname, response.status_code)
            return None
        image = _decode(response.content)
        if image is None:
            log.info("a tile from %s: not an image", urlsplit(url).hostname)
            return None
        keep_s = cache_seconds(response.headers, self._now())
        self._store(z, x, y, response.content, keep_s)
        if self.cache_dir is not None:
            self._remember(z, x, y, image, self._now() + keep_s)
        return image

    def _back_off(self, seconds: float, url: str, reason: str) -> None:
        with self._lock:
            self._blocked_until = max(self._blocked_until, self._clock() + seconds)
        log.warning("tiles from %s stop for %.0f s: %s", urlsplit(url).hostname, seconds, reason)


def _decode(body: bytes) -> Image.Image | None:
    try:
        with Image.open(io.BytesIO(body)) as image:
            if image.width > 1024 or image.height > 1024:
                return None
            image.load()
            return image.convert("RGB")
    except Exception:  # Pillow raises many kinds (and bomb warnings) for a bad body
        return None
