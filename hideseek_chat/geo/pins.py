"""Location pins: from chat locations (plain values) and from text, links and ``geo:`` URIs.

A :class:`Pin` is always valid (finite, in range, with an aware UTC time); anything else is
refused with :class:`PinRejected`, whose ``reason`` is a machine-readable code the chat
layer translates:

``empty``, ``too_long``, ``garbage``, ``out_of_range``, ``not_a_number``,
``no_coordinates_in_link``, ``ambiguous``, ``bad_accuracy``, ``naive_time``
(when reading a pin) and ``forwarded``, ``stale_pin``, ``future_pin`` (when a pin is
refused as a player's own current position by :func:`check_own_position`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from urllib.parse import parse_qs, unquote, urlsplit

#: Texts longer than this are refused before parsing (a pin is never that long).
MAX_TEXT_LENGTH = 2000


class PinRejected(ValueError):
    """A pin could not be read or used; ``reason`` is a code, ``detail`` a developer note."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class PinSource(StrEnum):
    LIVE = "live"  # a live location that keeps updating
    PIN = "pin"  # a one-off location sent from the phone
    TEXT = "text"  # coordinates or a map link typed or pasted as text
    TRACKER = "tracker"  # a GPS tracker app (OwnTracks, Traccar, GPSLogger) keeps reporting


@dataclass(frozen=True, slots=True)
class Pin:
    """One reported position. ``accuracy_m`` is None when unknown (text pins).

    ``at`` is the moment the position was true (for live locations, the last edit).
    Construction validates every field and raises :class:`PinRejected`.
    """

    lat: float
    lon: float
    at: datetime
    accuracy_m: float | None = None
    source: PinSource = PinSource.PIN
    forwarded: bool = False
    live_period: int | None = None
    heading: int | None = None
    #: the speed the device itself measured (a tracker app's GPS), km/h; None: unknown
    speed_kmh: float | None = None

    def __post_init__(self) -> None:
        lat, lon = _check_coordinates(self.lat, self.lon)
        object.__setattr__(self, "lat", lat)
        object.__setattr__(self, "lon", lon)
        if self.accuracy_m is not None:
            try:
                accuracy = float(self.accuracy_m)
            except (TypeError, ValueError):
                raise PinRejected("bad_accuracy", repr(self.accuracy_m)) from None
            if not math.isfinite(accuracy) or accuracy < 0:
                raise PinRejected("bad_accuracy", repr(self.accuracy_m))
            object.__setattr__(self, "accuracy_m", accuracy)
        if not isinstance(self.at, datetime) or self.at.utcoffset() is None:
            raise PinRejected("naive_time", "pin times must be timezone-aware")
        object.__setattr__(self, "at", self.at.astimezone(UTC))
        object.__setattr__(self, "source", PinSource(self.source))

    @property
    def accuracy_or_zero(self) -> float:
        """The accuracy radius in metres, 0 when unknown."""
        return self.accuracy_m or 0.0


def _check_coordinates(lat: object, lon: object) -> tuple[float, float]:
    try:
        flat = float(lat)  # type: ignore[arg-type]
        flon = float(lon)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise PinRejected("garbage", f"not numbers: {lat!r}, {lon!r}") from None
    if math.isnan(flat) or math.isnan(flon):
        raise PinRejected("not_a_number", "NaN coordinate")
    if not (-90.0 <= flat <= 90.0 and -180.0 <= flon <= 180.0):
        raise PinRejected("out_of_range", f"lat {flat}, lon {flon}")
    return flat, flon


def pin_from_location(
    latitude: float,
    longitude: float,
    *,
    date: datetime,
    edit_date: datetime | None = None,
    horizontal_accuracy: float | None = None,
    live_period: int | None = None,
    heading: int | None = None,
    forwarded: bool = False,
) -> Pin:
    """Build a pin from the plain fields of a chat location message.

    A location with a ``live_period`` is a live location; its time is ``edit_date`` when it
    has been updated, else ``date``.
    """
    return Pin(
        lat=latitude,
        lon=longitude,
        at=edit_date or date,
        accuracy_m=horizontal_accuracy,
        source=PinSource.LIVE if live_period else PinSource.PIN,
        forwarded=forwarded,
        live_period=live_period,
        heading=heading,
    )


def pin_age(pin: Pin, now: datetime) -> timedelta:
    """Return how old the pin is at ``now`` (negative if it claims to be from the future)."""
    return now - pin.at


def is_stale(pin: Pin, now: datetime, max_age: timedelta) -> bool:
    """Say whether the pin is older than ``max_age`` at ``now``."""
    return now - pin.at > max_age


#: Clock skew tolerated between the chat server's timestamps and the bot's ``now``.
FUTURE_TOLERANCE = timedelta(minutes=2)


def check_own_position(pin: Pin, now: datetime, max_age: timedelta) -> Pin:
    """Return ``pin`` if it may stand for the sender's current position, else raise.

    Raises :class:`PinRejected` with ``forwarded`` (a forwarded pin may be someone else's or
    an old one), ``stale_pin`` (older than ``max_age``) or ``future_pin``.
    """
    if pin.forwarded:
        raise PinRejected("forwarded", "a forwarded pin is not the sender's own position")
    age = now - pin.at
    if age > max_age:
        raise PinRejected("stale_pin", f"pin is {age} old, limit {max_age}")
    if age < -FUTURE_TOLERANCE:
        raise PinRejected("future_pin", f"pin is dated {-age} after now")
    return pin


# ---------------------------------------------------------------- text parsing

_URL = re.compile(r"(?:https?://|geo:)[^\s<>]+|(?:www\.|maps\.)[^\s<>]+", re.IGNORECASE)
_PAIR = re.compile(r"^\s*([-+]?\d{1,3}(?:\.\d+)?)\s*,\s*([-+]?\d{1,3}(?:\.\d+)?)")
_AT_PAIR = re.compile(r"@([-+]?\d{1,3}(?:\.\d+)?),([-+]?\d{1,3}(?:\.\d+)?)")
_GOOGLE_DATA = re.compile(r"!3d([-+]?\d{1,3}(?:\.\d+)?)!4d([-+]?\d{1,3}(?:\.\d+)?)")
_OSM_MAP = re.compile(r"map=\d+(?:\.\d+)?/([-+]?\d{1,3}(?:\.\d+)?)/([-+]?\d{1,3}(?:\.\d+)?)")
_GEO_COORDS = re.compile(r"\s*([-+]?\d+(?:\.\d+)?),([-+]?\d+(?:\.\d+)?)(?:,[-+]?\d+(?:\.\d+)?)?")
_UNCERTAINTY = re.compile(r";u=(\d+(?:\.\d+)?)", re.IGNORECASE)

_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?)|([-+])|([°'\"])|([NSEWnsew])|([,;]))")
_NORMALISE = str.maketrans(
    {"−": "-", "–": "-", "º": "°", "˚": "°", "′": "'", "’": "'", "‘": "'", "″": '"', "”": '"',
     "“": '"'}
)


def parse_pin_text(text: str, at: datetime, *, accuracy_m: float | None = None) -> Pin:
    """Read a pin from text: coordinates, a ``geo:`` URI or a map link.

    Accepts decimal degrees (``36.1156, -97.0584``; ``36.1156 N 97.0584 W``; ``N 36.1 W
    97.0``), degrees-minutes(-seconds) (``36°06'56"N 97°03'30"W``), ``geo:`` URIs (their
    ``u=`` uncertainty becomes the accuracy), and Google Maps (``?q=``, ``@lat,lon``,
    ``!3d..!4d..``), Apple Maps (``ll=``, ``q=``) and OpenStreetMap (``mlat``/``mlon``,
    ``#map=``) links. Raises :class:`PinRejected` and nothing else.
    """
    if not isinstance(text, str) or not text.strip():
        raise PinRejected("empty")
    if len(text) > MAX_TEXT_LENGTH:
        raise PinRejected("too_long", f"{len(text)} characters")
    url = _URL.search(text)
    if url:
        lat, lon, uncertainty = _parse_link(url.group(0))
        accuracy = uncertainty if uncertainty is not None else accuracy_m
    else:
        lat, lon = _parse_coordinates(text)
        accuracy = accuracy_m
    return Pin(lat=lat, lon=lon, at=at, accuracy_m=accuracy, source=PinSource.TEXT)


def _number_pair(match: re.Match[str] | None) -> tuple[float, float] | None:
    if match is None:
        return None
    return _check_coordinates(match.group(1), match.group(2))


def _parse_link(url: str) -> tuple[float, float, float | None]:
    url = url.rstrip(".,;)]>'\"")
    if url.lower().startswith("geo:"):
        return _parse_geo_uri(url)
    if not url.lower().startswith("http"):
        url = "https://" + url
    try:
        parts = urlsplit(url)
    except ValueError:
        raise PinRejected("garbage", "unreadable link") from None
    query = parse_qs(parts.query)
    if "mlat" in query and "mlon" in query:
        return (*_check_coordinates(query["mlat"][0], query["mlon"][0]), None)
    decoded = unquote(url)
    found = _number_pair(_GOOGLE_DATA.search(decoded))
    if found:
        return (*found, None)
    for key in ("q", "query", "ll", "sll", "daddr", "destination", "center"):
        for value in query.get(key, ()):
            found = _number_pair(_PAIR.match(value))
            if found:
                return (*found, None)
    found = _number_pair(_AT_PAIR.search(unquote(parts.path))) or _number_pair(
        _OSM_MAP.search(parts.fragment) or _OSM_MAP.search(parts.query)
    )
    if found:
        return (*found, None)
    raise PinRejected("no_coordinates_in_link", parts.netloc)


def _parse_geo_uri(url: str) -> tuple[float, float, float | None]:
    body = unquote(url[4:])
    path, _, query = body.partition("?")
    coords = path.split(";", 1)[0]
    match = _GEO_COORDS.fullmatch(coords)
    if not match:
        raise PinRejected("garbage", "geo: URI without coordinates")
    lat, lon = _check_coordinates(match.group(1), match.group(2))
    if lat == 0 and lon == 0 and query:
        # Android's "geo:0,0?q=lat,lon(label)" puts the place in the query.
        found = _number_pair(_PAIR.match(parse_qs(query).get("q", [""])[0]))
        if found:
            lat, lon = found
    uncertainty = _UNCERTAINTY.search(path)
    return lat, lon, float(uncertainty.group(1)) if uncertainty else None


def _parse_coordinates(text: str) -> tuple[float, float]:
    tokens = _tokenise(text.translate(_NORMALISE))
    hemispheres = [value for kind, value in tokens if kind == "hemi"]
    if hemispheres:
        return _with_hemispheres(tokens, hemispheres)
    groups = _split_signed(tokens)
    if len(groups) != 2:
        raise PinRejected("garbage", "expected two coordinates")
    lat, lon = (_dms(group) for group in groups)
    return _check_coordinates(lat, lon)


def _tokenise(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise PinRejected("garbage", f"unexpected {text[pos:pos + 10]!r}")
        pos = match.end()
        number, sign, mark, hemi, sep = match.groups()
        if number is not None:
            tokens.append(("num", number))
        elif sign is not None:
            tokens.append(("sign", sign))
        elif mark is not None:
            tokens.append(("mark", mark))
        elif hemi is not None:
            tokens.append(("hemi", hemi.upper()))
        elif sep is not None:
            tokens.append(("sep", sep))
    return tokens


# A group is a list of (number text, mark or "", sign) for one coordinate.
_Group = list[tuple[str, str]]


def _split_signed(tokens: list[tuple[str, str]]) -> list[tuple[int, _Group]]:
    """Group sign-and-number tokens (no N/S/E/W letters) into coordinates.

    Without degree marks every number is one decimal coordinate; with marks a coordinate
    starts at each number marked with a degree sign.
    """
    items: list[tuple[str | None, str, str]] = []  # (sign, number, mark)
    sign: str | None = None
    for kind, value in tokens:
        if kind == "sign":
            if sign is not None:
                raise PinRejected("garbage", "two signs in a row")
            sign = value
        elif kind == "num":
            items.append((sign, value, ""))
            sign = None
        elif kind == "mark":
            if not items or items[-1][2] or sign is not None:
                raise PinRejected("garbage", "misplaced degree/minute/second mark")
            items[-1] = (items[-1][0], items[-1][1], value)
        elif sign is not None:
            raise PinRejected("garbage", "sign before a separator")
    if sign is not None:
        raise PinRejected("garbage", "dangling sign")
    dms = any(mark == "°" for _, _, mark in items)
    groups: list[tuple[int, _Group]] = []
    for item_sign, number, mark in items:
        if not dms or mark == "°":
            groups.append((-1 if item_sign == "-" else 1, [(number, mark)]))
        elif item_sign is not None or not groups:
            raise PinRejected("garbage", "minutes or seconds without degrees")
        else:
            groups[-1][1].append((number, mark))
    return groups


def _dms(signed_group: tuple[int, _Group]) -> float:
    sign, group = signed_group
    if not 1 <= len(group) <= 3:
        raise PinRejected("garbage", "a coordinate has 1 to 3 numbers")
    order = {"°": 0, "'": 1, '"': 2}
    value = 0.0
    for position, (number, mark) in enumerate(group):
        if mark and order[mark] != position:
            raise PinRejected("garbage", "degrees, minutes and seconds out of order")
        part = float(number)
        if position > 0 and part >= 60:
            raise PinRejected("out_of_range", "minutes and seconds must be below 60")
        if position > 0 and "." in group[position - 1][0]:
            raise PinRejected("garbage", "only the last part may have decimals")
        value += part / (60.0**position)
    if not math.isfinite(value):
        raise PinRejected("out_of_range", "number too large")
    return sign * value


def _with_hemispheres(tokens: list[tuple[str, str]], hemispheres: list[str]) -> tuple[float, float]:
    if len(hemispheres) != 2:
        raise PinRejected("ambiguous", "expected one N/S and one E/W letter")
    if any(kind == "sign" for kind, _ in tokens):
        raise PinRejected("ambiguous", "a sign together with N/S/E/W letters")
    prefix = tokens[0][0] == "hemi"
    parts: list[tuple[str, _Group]] = []
    current: _Group = []
    letter = ""
    for kind, value in tokens:
        if kind == "hemi":
            if prefix:
                if letter:
                    parts.append((letter, current))
                letter, current = value, []
            else:
                parts.append((value, current))
                current = []
        elif kind == "num":
            current.append((value, ""))
        elif kind == "mark":
            if not current or current[-1][1]:
                raise PinRejected("garbage", "misplaced degree/minute/second mark")
            current[-1] = (current[-1][0], value)
        elif kind == "sep" and current and not prefix:
            raise PinRejected("garbage", "separator before the N/S/E/W letter")
    if prefix:
        parts.append((letter, current))
    elif current:
        raise PinRejected("garbage", "numbers after the last N/S/E/W letter")
    (first_letter, first), (second_letter, second) = parts
    values = {
        first_letter: _dms((1, first)),
        second_letter: _dms((1, second)),
    }
    lat_letter = next((h for h in values if h in "NS"), None)
    lon_letter = next((h for h in values if h in "EW"), None)
    if lat_letter is None or lon_letter is None:
        raise PinRejected("ambiguous", "expected one N/S and one E/W letter")
    lat = values[lat_letter] * (-1 if lat_letter == "S" else 1)
    lon = values[lon_letter] * (-1 if lon_letter == "W" else 1)
    return _check_coordinates(lat, lon)
