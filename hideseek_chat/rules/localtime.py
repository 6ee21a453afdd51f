"""The game's time zone: its stored name, what an admin may type for it, and local clock times.

A game keeps its zone as a name (``Settings.time_zone``), one of two forms:

- an IANA zone, ``America/Chicago``, ``Europe/Zurich``: local time with daylight saving time,
  from the tz database (``zoneinfo``; the ``tzdata`` package where the system has none);
- a fixed offset, ``UTC`` or ``UTC+02:00`` / ``UTC-05:30``: what an admin typed as an offset
  (and what games stored before zones had names), never changing with the seasons.

Wall-clock times (``"22:00"``) become instants with PEP 495's fold rules: a time the clocks
skip (02:30 on the night of spring forward) is read with the offset before the change, so it
falls the length of the gap later (03:30 new time); a time that happens twice (01:30 on the
night of fall back) is its first occurrence.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

UTC_NAME = "UTC"
#: The largest offset from UTC any place uses (Kiribati's +14; Baker Island's -12).
MAX_OFFSET_MIN = 14 * 60

_OFFSET = re.compile(r"^(?:UTC|GMT)?\s*([+-])\s*(\d{1,2})(?:[:h.]?(\d{2}))?$", re.IGNORECASE)
_FIXED = re.compile(r"^UTC([+-])(\d{2}):(\d{2})$")


class TimeZoneError(ValueError):
    """Not a time zone: neither a zone name the tz database knows nor an offset within ±14 h."""


def offset_name(offset_min: int) -> str:
    """The stored name of a fixed offset: ``UTC``, ``UTC+02:00``, ``UTC-05:30`` (one beyond
    ±14 h is named too, and refused where it is set: ``is_time_zone`` says no)."""
    if offset_min == 0:
        return UTC_NAME
    sign = "+" if offset_min > 0 else "-"
    hours, minutes = divmod(abs(offset_min), 60)
    return f"UTC{sign}{hours:02d}:{minutes:02d}"


def fixed_offset_min(name: str) -> int | None:
    """Minutes east of UTC when ``name`` is a fixed offset (``UTC`` included), else None."""
    if name == UTC_NAME:
        return 0
    match = _FIXED.match(name)
    if match is None:
        return None
    sign = -1 if match.group(1) == "-" else 1
    return sign * (int(match.group(2)) * 60 + int(match.group(3)))


@lru_cache(maxsize=1)
def _known_zones() -> dict[str, str]:
    """Every IANA zone name by its lower-case spelling."""
    return {name.lower(): name for name in available_timezones()}


def parse_time_zone(text: str) -> str:
    """The stored name for what an admin typed: ``+2``, ``UTC-5:30``, ``GMT``, ``utc``,
    ``Europe/Zurich``, ``america/chicago``; raise TimeZoneError for anything else."""
    word = text.strip().replace("−", "-").replace(" ", "_")
    if word.upper() in ("UTC", "GMT", "Z"):
        return UTC_NAME
    match = _OFFSET.match(word.replace("_", ""))
    if match is not None:
        sign = -1 if match.group(1) == "-" else 1
        hours, minutes = int(match.group(2)), int(match.group(3) or 0)
        if minutes >= 60:
            raise TimeZoneError(f"{text!r} is not an offset from UTC")
        return offset_name(sign * (hours * 60 + minutes))
    name = _known_zones().get(word.lower())
    if name is None:
        raise TimeZoneError(f"{text!r} is not a time zone name or an offset from UTC")
    return name


def is_time_zone(name: str) -> bool:
    """Say whether ``name`` is a stored zone name this module can resolve."""
    try:
        zone_info(name)
    except TimeZoneError:
        return False
    return True


@lru_cache(maxsize=64)
def zone_info(name: str) -> tzinfo:
    """The tzinfo of a stored zone name; raise TimeZoneError when it names no zone."""
    offset = fixed_offset_min(name)
    if offset is not None:
        if offset == 0:
            return UTC
        if abs(offset) > MAX_OFFSET_MIN:
            raise TimeZoneError(f"{name!r} is not an offset from UTC")
        return timezone(timedelta(minutes=offset), name)
    if name != _known_zones().get(name.lower()):  # only canonical spellings are stored
        raise TimeZoneError(f"{name!r} is not a time zone name")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise TimeZoneError(f"{name!r} is not a time zone name") from None


def local_instant(day: date, clock_min: int, zone: tzinfo) -> datetime:
    """The UTC instant of ``clock_min`` minutes after midnight on ``day`` in ``zone``
    (fold 0: a skipped time falls after the gap, a repeated one is its first occurrence)."""
    hours, minutes = divmod(clock_min, 60)
    local = datetime.combine(day, time(hours, minutes), tzinfo=zone)
    return local.astimezone(UTC)


def utc_offset_at(name: str, at: datetime) -> timedelta:
    """The zone's offset from UTC at the instant ``at``."""
    return at.astimezone(zone_info(name)).utcoffset() or timedelta(0)
