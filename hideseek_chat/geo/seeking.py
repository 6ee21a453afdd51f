"""The seekers' map as geometry: each answered question becomes a region, and what is left.

Only what the seekers know goes in: their own pins, the answers they were given and the
map. The hider's position never does, so the same answers give the same map wherever the
hider really is.

Every geometry here is in lon/lat (WGS84, x = lon), densified so that a straight segment
strays less than a metre from the geodesic curve it stands for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shapely.geometry.base import BaseGeometry

from hideseek_chat.geo.mappack import Station
from hideseek_chat.geo.pins import Pin
from hideseek_chat.geo.spatial import MapIndex
from hideseek_chat.rules.ruleset import HiderPosition


@dataclass(frozen=True, slots=True)
class Clue:
    """One answered question, as the seekers know it.

    ``category`` is a ``rules.ruleset.Category`` value; ``subject`` the question's subject
    slug (matching, measuring, tentacle; "" for radar and thermometer); ``answer`` the word
    the hider gave (``yes``/``no``, ``hotter``/``colder``, ``closer``/``further``,
    ``named``/``not_in_reach`` for tentacles, ``null``, a photo's ``photo``/
    ``cannot_answer``); ``detail`` the tentacle's named place or the matching transit line;
    ``distance_m`` the radar radius, thermometer distance or tentacle reach; ``seeker`` the
    asking seeker's pin when they asked (a thermometer's start) and ``end`` a thermometer's
    end pin. ``void`` says why the answer no longer says anything about where the hider is
    (``moved``: the hider moved zone since; ``vetoed``; ...), or is "".
    """

    ref: int  # the question record's id: clues apply in this order
    category: str
    subject: str = ""
    answer: str | None = None
    detail: str | None = None
    distance_m: float | None = None
    seeker: Pin | None = None
    end: Pin | None = None
    void: str = ""


@dataclass(frozen=True, slots=True)
class Applied:
    """A clue that became a region: where the hider can be by this clue alone.

    ``keep`` is an area (lon/lat) for clues about the hider's position, or None for clues
    about their station only (a transit line, a station name's length), which keep the
    station ids in ``stations`` instead.
    """

    ref: int
    keep: BaseGeometry | None
    stations: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class NotApplied:
    """A clue that could not become a region, and why (a reason code: ``photo``,
    ``no_map_data``, ``no_seeker_pin``, ``moved``, ``vetoed``, ``unsupported_subject``...)."""

    ref: int
    reason: str


@dataclass(frozen=True)
class SeekerMap:
    """Where the hider can still be.

    ``remaining`` is the boundary minus everything eliminated (lon/lat); ``candidates`` the
    stations, in the pack's order, whose zone disc (``zone_radius_m``) still meets it.
    """

    boundary: BaseGeometry
    remaining: BaseGeometry
    candidates: tuple[Station, ...]
    applied: tuple[Applied, ...]
    not_applied: tuple[NotApplied, ...]
    zone_radius_m: float
    basis: HiderPosition


def seeker_map(
    index: MapIndex,
    clues: Sequence[Clue],
    zone_radius_m: float,
    basis: HiderPosition = HiderPosition.LIVE,
) -> SeekerMap:
    """Work out the seekers' map from scratch."""
    raise NotImplementedError  # built by the geometry work of issue 19


def with_clue(index: MapIndex, previous: SeekerMap, clue: Clue) -> SeekerMap:
    """Return ``previous`` narrowed by one more clue (cheaper than from scratch)."""
    raise NotImplementedError  # built by the geometry work of issue 19


def to_geojson(view: SeekerMap) -> dict[str, object]:
    """A GeoJSON FeatureCollection of the remaining area and the candidate stations."""
    raise NotImplementedError  # built by the geometry work of issue 19
