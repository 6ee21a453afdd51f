"""What each tracker app sends, read into one ``Fix`` (or refused with ``BadPing``).

- OwnTracks (HTTP mode): a JSON object; ``_type`` "location" carries ``lat``, ``lon``,
  ``tst`` (seconds since 1970), ``acc`` (m), ``vel`` (km/h). Any other
  ``_type`` (status, waypoints, an empty body when a friend is deleted) is ``Ignored``.
- Traccar Client / OsmAnd protocol: query or form parameters ``id`` (or ``deviceid``),
  ``lat``, ``lon``, ``timestamp`` (seconds, milliseconds or ISO 8601), ``accuracy`` (m),
  ``speed`` (knots); or Traccar Client 9's JSON (``location.coords`` with
  ``speed`` in m/s, ``location.timestamp`` ISO, ``device_id``).
- GPSLogger (custom URL, ``chat.tracker_links.GPSLOGGER_QUERY``): ``lat``, ``lon``,
  ``acc`` (m), ``spd`` (m/s), ``time`` (seconds or ISO).

Whatever else an app sends (the battery level ``batt``, ``id``, the altitude) is not read:
nothing shows it, so a value that is not a number never costs a ping.

Absurd values are refused, never clamped: coordinates off the Earth or at exactly 0, 0 (a
GPS without a fix), a time before ``EARLIEST`` or more than ``MAX_AHEAD`` in the future, a
negative or enormous accuracy. A speed the app marks unknown (negative) is None.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

#: Pings from before this are a broken clock (or a replay from another age).
EARLIEST = datetime(2020, 1, 1, tzinfo=UTC)
#: A device's clock may run this far ahead of ours.
MAX_AHEAD = timedelta(minutes=10)
#: No phone's fix is worse than this (metres); beyond, it is garbage.
MAX_ACCURACY_M = 100_000.0
#: Faster than any train or plane a player takes (km/h): garbage.
MAX_SPEED_KMH = 1_200.0
KNOT_KMH = 1.852
MS_KMH = 3.6


class BadPing(ValueError):
    """The request is not a usable ping (answered 400); ``reason`` is a short code."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Ignored(Exception):
    """A well-formed message that is not a location (OwnTracks' other ``_type`` values)."""


class Encrypted(Ignored):
    """An OwnTracks message encrypted with a key set in the app (``_type`` "encrypted"): its
    location cannot be read here, and its sender should be told."""


@dataclass(frozen=True)
class Fix:
    """One position a tracker reported."""

    lat: float
    lon: float
    at: datetime
    accuracy_m: float | None = None
    speed_kmh: float | None = None


def owntracks(body: bytes, now: datetime) -> Fix:
    """An OwnTracks HTTP POST body; raise ``Ignored`` for anything but a location."""
    if not body.strip():
        raise Ignored
    data = _json(body)
    if not isinstance(data, dict):
        raise BadPing("not_an_object")
    if data.get("_type") != "location":
        if data.get("_type") == "encrypted":
            raise Encrypted
        if isinstance(data.get("_type"), str):
            raise Ignored
        raise BadPing("no_type")
    return _fix(
        data.get("lat"),
        data.get("lon"),
        _time(data.get("tst"), now),
        accuracy=data.get("acc"),
        speed_kmh=_number_or_none(data.get("vel")),
    )


def osmand(params: Mapping[str, str], body: bytes, now: datetime) -> Fix:
    """Traccar Client's OsmAnd protocol: ``params`` (query and form), or its JSON ``body``."""
    if "lat" not in params and body.strip().startswith(b"{"):
        return _traccar_json(body, now)
    speed = _number_or_none(params.get("speed"))
    return _fix(
        params.get("lat"),
        params.get("lon"),
        _time(params.get("timestamp"), now),
        accuracy=params.get("accuracy") or params.get("hdop"),
        speed_kmh=None if speed is None else speed * KNOT_KMH,
    )


def gpslogger(params: Mapping[str, str], now: datetime) -> Fix:
    """GPSLogger's custom URL (GET query or POST form)."""
    speed = _number_or_none(params.get("spd"))
    return _fix(
        params.get("lat"),
        params.get("lon"),
        _time(params.get("time") or params.get("timestamp"), now),
        accuracy=params.get("acc"),
        speed_kmh=None if speed is None else speed * MS_KMH,
    )


def _traccar_json(body: bytes, now: datetime) -> Fix:
    data = _json(body)
    location = data.get("location") if isinstance(data, dict) else None
    if not isinstance(location, dict):
        raise BadPing("no_location")
    coords = location.get("coords")
    if not isinstance(coords, dict):
        raise BadPing("no_coords")
    speed = _number_or_none(coords.get("speed"))
    return _fix(
        coords.get("latitude"),
        coords.get("longitude"),
        _time(location.get("timestamp"), now),
        accuracy=coords.get("accuracy"),
        speed_kmh=None if speed is None else speed * MS_KMH,
    )


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise BadPing("not_json") from None


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or value is None:
        raise BadPing(f"bad_{what}")
    if isinstance(value, str):
        value = value.strip()
        if len(value) > 40:
            raise BadPing(f"bad_{what}")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise BadPing(f"bad_{what}") from None
    if not math.isfinite(number):
        raise BadPing(f"bad_{what}")
    return number


def _number_or_none(value: object) -> float | None:
    """An optional number; None when absent, empty, or marked unknown (negative)."""
    if value is None or value == "":
        return None
    number = _number(value, "number")
    return None if number < 0 else number


def _time(value: object, now: datetime) -> datetime:
    """Seconds or milliseconds since 1970, or an ISO 8601 time; within EARLIEST and
    ``now + MAX_AHEAD``."""
    if value is None or value == "":
        raise BadPing("no_time")
    at: datetime
    if isinstance(value, str) and not _is_number_text(value):
        if len(value) > 40:
            raise BadPing("bad_time")
        try:
            at = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise BadPing("bad_time") from None
        if at.tzinfo is None:
            raise BadPing("bad_time")
    else:
        seconds = _number(value, "time")
        if seconds > 1e11:  # milliseconds (a time in seconds that large is year 5138)
            seconds /= 1000
        if not 0 < seconds < 1e11:
            raise BadPing("bad_time")
        at = datetime.fromtimestamp(seconds, UTC)
    at = at.astimezone(UTC)
    if at < EARLIEST or at > now + MAX_AHEAD:
        raise BadPing("absurd_time")
    return at


def _is_number_text(value: str) -> bool:
    text = value.strip()
    return bool(text) and text.replace(".", "", 1).isdigit()


def _fix(
    lat: object,
    lon: object,
    at: datetime,
    *,
    accuracy: object = None,
    speed_kmh: float | None = None,
) -> Fix:
    flat, flon = _number(lat, "lat"), _number(lon, "lon")
    if not (-90 <= flat <= 90 and -180 <= flon <= 180) or (flat == 0 and flon == 0):
        raise BadPing("bad_coordinates")
    acc = None if accuracy is None or accuracy == "" else _number(accuracy, "accuracy")
    if acc is not None and not 0 <= acc <= MAX_ACCURACY_M:
        raise BadPing("bad_accuracy")
    if speed_kmh is not None and speed_kmh > MAX_SPEED_KMH:
        raise BadPing("bad_speed")
    return Fix(flat, flon, at, acc, speed_kmh)
