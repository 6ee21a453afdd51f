"""Distances typed by people or written in ruleset files: "500 m", "1.5km", "0.25 mi", "1000 ft"."""

from __future__ import annotations

import math
import re
from fractions import Fraction

METRES_PER_UNIT: dict[str, float] = {
    "m": 1.0,
    "km": 1000.0,
    "mi": 1609.344,
    "ft": 0.3048,
    "yd": 0.9144,
}

_UNIT_ALIASES: dict[str, str] = {
    "m": "m",
    "meter": "m",
    "meters": "m",
    "metre": "m",
    "metres": "m",
    "km": "km",
    "kilometer": "km",
    "kilometers": "km",
    "kilometre": "km",
    "kilometres": "km",
    "mi": "mi",
    "mile": "mi",
    "miles": "mi",
    "ft": "ft",
    "foot": "ft",
    "feet": "ft",
    "'": "ft",
    "yd": "yd",
    "yard": "yd",
    "yards": "yd",
    # German and Spanish players type their own words (Meter and Kilometer are the same).
    "meile": "mi",
    "meilen": "mi",
    "fuß": "ft",
    "fuss": "ft",
    "metro": "m",
    "metros": "m",
    "kilómetro": "km",
    "kilómetros": "km",
    "kilometro": "km",
    "kilometros": "km",
    "milla": "mi",
    "millas": "mi",
    "pie": "ft",
    "pies": "ft",
    "yarda": "yd",
    "yardas": "yd",
}

_DISTANCE = re.compile(
    r"^\s*(?P<num>\d+(?:[.,]\d+)?|\d+\s*/\s*\d+|\.\d+)\s*(?P<unit>[^\W\d_]+|')\s*$"
)

#: Longest distance anyone could ask about: half the Earth's circumference.
MAX_DISTANCE_M = 20_037_509.0


class DistanceError(ValueError):
    """A distance could not be read; ``reason`` says why in a few plain words."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(f"{text!r}: {reason}")
        self.text = text
        self.reason = reason


def parse_distance(text: str) -> float:
    """Return the distance in metres written in ``text`` (a number and a unit)."""
    match = _DISTANCE.match(text or "")
    if not match:
        raise DistanceError(
            text, "expected a number and a unit such as 500m, 1.5km, 0.5mi or 300ft"
        )
    unit = _UNIT_ALIASES.get(match["unit"].lower())
    if unit is None:
        raise DistanceError(text, f"unknown unit {match['unit']!r}; use m, km, mi, ft or yd")
    number = match["num"].replace(",", ".").replace(" ", "")
    try:
        value = float(Fraction(number)) if "/" in number else float(number)
    except (ZeroDivisionError, OverflowError):
        raise DistanceError(text, "the distance must be more than zero") from None
    if not math.isfinite(value):  # more digits than a float holds
        raise DistanceError(text, "no two places on Earth are that far apart")
    if value <= 0:
        raise DistanceError(text, "the distance must be more than zero")
    metres = value * METRES_PER_UNIT[unit]
    if metres > MAX_DISTANCE_M:
        raise DistanceError(text, "no two places on Earth are that far apart")
    return metres


#: Countries whose people read distances in miles and feet: the US, Liberia and Myanmar, and
#: the United Kingdom, whose road signs and everyday distances are in miles (heights there
#: are mixed; a group that prefers metres chooses metric units).
IMPERIAL_COUNTRIES = frozenset({"US", "LR", "MM", "GB"})


def units_for_country(country: str) -> str:
    """The units a map in ``country`` (ISO 3166-1 alpha-2) suggests: imperial or metric."""
    return "imperial" if country.upper() in IMPERIAL_COUNTRIES else "metric"
