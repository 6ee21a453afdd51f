"""Hiding zones, the end game, transit inference, catching and hiding-spot advice.

All functions take plain values and ``now``; none of them tells anybody anything. Results
carry the numbers (distances, accuracies) and a reason code:

- :func:`check_in_zone` -> ``ZoneCheck`` (``too_close_to_call`` when GPS error could flip it)
- :func:`estimate_transit` reasons: ``no_track``, ``stale_pin``, ``too_short``, ``moving``,
  ``still``
- :func:`check_end_game` reasons: ``inside_zone`` (it starts), ``outside_zone``,
  ``on_transit``, ``forwarded``, ``stale_pin``, ``future_pin``
- :func:`check_catch` -> ``CatchVerdict`` caught / not_caught / inconclusive
- :func:`advise_hiding_spot` reasons: ``near_road``, ``far_from_road``, ``no_map_data``
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from hideseek_chat.geo.distance import distance_m
from hideseek_chat.geo.mappack import ROAD_KIND, Station
from hideseek_chat.geo.pins import Pin, PinRejected, check_own_position
from hideseek_chat.geo.spatial import MapIndex

#: Above this speed over the last live updates a seeker is taken to be riding transit.
DEFAULT_TRANSIT_KMH = 15.0
#: How far back live updates are used to estimate the speed.
DEFAULT_TRANSIT_WINDOW = timedelta(minutes=2)
#: Updates closer together than this give no usable speed.
MIN_TRANSIT_SPAN = timedelta(seconds=10)


class ZoneError(ValueError):
    """A zone could not be set: ``reason`` is ``no_stations``, ``no_streets``,
    ``unknown_station`` or ``not_in_chosen_zone``."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Zone:
    """The hider's zone: a circle of ``radius_m`` around ``station`` (in a car or on-foot
    game a street terminus in the station's role, ``Terminus.as_station``)."""

    station: Station
    radius_m: float

    @property
    def lat(self) -> float:
        return self.station.lat

    @property
    def lon(self) -> float:
        return self.station.lon


def choose_zone(
    index: MapIndex, hider: Pin, radius_m: float, chosen_station_id: str | None = None
) -> Zone:
    """Return the hider's zone at the end of the hiding period.

    By default the station nearest to the hider; the hider may instead choose another
    station whose zone contains them (``chosen_station_id``). Raises :class:`ZoneError`.
    """
    if chosen_station_id is None:
        nearest = index.nearest_station(hider.lat, hider.lon)
        if nearest is None:
            raise ZoneError("no_stations", index.pack.name)
        return Zone(nearest.item, radius_m)
    if not index.pack.has_station(chosen_station_id):
        raise ZoneError("unknown_station", chosen_station_id)
    station = index.pack.station(chosen_station_id)
    away = distance_m(hider.lat, hider.lon, station.lat, station.lon)
    if away > radius_m:
        raise ZoneError("not_in_chosen_zone", f"{away:.0f} m from {station.id}")
    return Zone(station, radius_m)


def choose_street_zone(index: MapIndex, hider: Pin, radius_m: float) -> Zone:
    """Return the hider's zone in a car or on-foot game: centred on the street terminus
    nearest to the hider (``geo.termini``), which plays the station's role. Raises
    :class:`ZoneError` (``no_streets``) when the map has no roads."""
    nearest = index.nearest_terminus(hider.lat, hider.lon)
    if nearest is None:
        raise ZoneError("no_streets", index.pack.name)
    return Zone(nearest.item.as_station(), radius_m)


@dataclass(frozen=True, slots=True)
class ZoneCheck:
    inside: bool
    distance_m: float  # from the zone's station
    radius_m: float
    accuracy_m: float | None
    too_close_to_call: bool


def check_in_zone(zone: Zone, pin: Pin) -> ZoneCheck:
    """Say whether a pin is inside the zone (use it to warn a hider who has left)."""
    away = distance_m(pin.lat, pin.lon, zone.lat, zone.lon)
    return ZoneCheck(
        inside=away <= zone.radius_m,
        distance_m=away,
        radius_m=zone.radius_m,
        accuracy_m=pin.accuracy_m,
        too_close_to_call=abs(away - zone.radius_m) <= pin.accuracy_or_zero,
    )


@dataclass(frozen=True, slots=True)
class TransitEstimate:
    """``on_transit`` is None when the track cannot tell (see ``reason``)."""

    on_transit: bool | None
    speed_kmh: float | None
    reason: str
    threshold_kmh: float


def estimate_transit(
    track: Sequence[Pin],
    now: datetime,
    *,
    threshold_kmh: float = DEFAULT_TRANSIT_KMH,
    window: timedelta = DEFAULT_TRANSIT_WINDOW,
    max_age: timedelta = DEFAULT_TRANSIT_WINDOW,
) -> TransitEstimate:
    """Guess from one player's recent live updates whether they are riding transit.

    The speed is the straight-line displacement from the oldest update within ``window`` of
    the newest to the newest, divided by the time between them. The GPS accuracies are
    subtracted from the displacement first so that jitter while standing still never looks
    like riding. The newest update must be at most ``max_age`` old at ``now``.
    """
    pins = sorted((p for p in track if not p.forwarded), key=lambda p: p.at)
    if not pins:
        return TransitEstimate(None, None, "no_track", threshold_kmh)
    newest = pins[-1]
    if now - newest.at > max_age:
        return TransitEstimate(None, None, "stale_pin", threshold_kmh)
    if newest.speed_kmh is not None and math.isfinite(newest.speed_kmh):
        # A tracker's GPS measures its speed (Doppler), better than two positions can.
        riding = newest.speed_kmh > threshold_kmh
        return TransitEstimate(
            riding, newest.speed_kmh, "moving" if riding else "still", threshold_kmh
        )
    recent = [p for p in pins if newest.at - p.at <= window]
    oldest = recent[0]
    span = (newest.at - oldest.at).total_seconds()
    if span < MIN_TRANSIT_SPAN.total_seconds():
        return TransitEstimate(None, None, "too_short", threshold_kmh)
    moved = distance_m(oldest.lat, oldest.lon, newest.lat, newest.lon)
    speed_kmh = moved / span * 3.6
    sure_moved = max(0.0, moved - oldest.accuracy_or_zero - newest.accuracy_or_zero)
    riding = sure_moved / span * 3.6 > threshold_kmh
    return TransitEstimate(riding, speed_kmh, "moving" if riding else "still", threshold_kmh)


def is_on_transit(estimate: TransitEstimate, override: bool | None = None) -> bool:
    """Decide whether a seeker is on transit: the seekers' override wins; unknown is False."""
    if override is not None:
        return override
    return bool(estimate.on_transit)


@dataclass(frozen=True, slots=True)
class EndGameCheck:
    """Whether a seeker's pin starts the end game.

    ``starts`` and ``reason`` may be told to the seekers. ``distance_m`` is the distance to the
    hider's station: hider-only (a few pins with it would triangulate the station).
    """

    starts: bool
    reason: str
    distance_m: float | None
    radius_m: float
    too_close_to_call: bool


def check_end_game(
    zone: Zone, seeker: Pin, now: datetime, *, on_transit: bool, max_pin_age: timedelta
) -> EndGameCheck:
    """Say whether a seeker's pin starts the end game: inside the zone and not on transit.

    ``on_transit`` comes from :func:`is_on_transit`. Forwarded, stale and future pins never
    start it (their reason code says why).
    """
    try:
        check_own_position(seeker, now, max_pin_age)
    except PinRejected as rejected:
        return EndGameCheck(False, rejected.reason, None, zone.radius_m, False)
    where = check_in_zone(zone, seeker)
    if not where.inside:
        reason = "outside_zone"
    elif on_transit:
        reason = "on_transit"
    else:
        reason = "inside_zone"
    return EndGameCheck(
        starts=reason == "inside_zone",
        reason=reason,
        distance_m=where.distance_m,
        radius_m=zone.radius_m,
        too_close_to_call=where.too_close_to_call,
    )


@dataclass(frozen=True, slots=True)
class HidingSpot:
    """The hider's position frozen when the end game started."""

    lat: float
    lon: float
    accuracy_m: float | None
    frozen_at: datetime


def freeze_hiding_spot(hider: Pin, now: datetime) -> HidingSpot:
    """Freeze the hider's spot at the start of the end game (from their latest pin)."""
    return HidingSpot(hider.lat, hider.lon, hider.accuracy_m, now)


class CatchVerdict(StrEnum):
    CAUGHT = "caught"  # within the catch distance even with GPS error
    NOT_CAUGHT = "not_caught"  # too far even with GPS error
    INCONCLUSIVE = "inconclusive"  # GPS error could go either way: ask the hider


@dataclass(frozen=True, slots=True)
class CatchCheck:
    """A seeker's catch claim measured against the hider's spot.

    Only ``verdict`` may reach the seekers before the hider confirms; the distance and the
    accuracies go to the hider (a "not caught, 40 m" would point the seekers at the spot).
    """

    verdict: CatchVerdict
    distance_m: float
    catch_distance_m: float
    seeker_accuracy_m: float | None
    hider_accuracy_m: float | None


def check_catch(seeker: Pin, hider: HidingSpot | Pin, catch_distance_m: float) -> CatchCheck:
    """Check a seeker's claim to have caught the hider (the hider still confirms "spotted").

    Caught only when the distance plus both accuracies is within the catch distance; not
    caught when the distance minus both accuracies is beyond it; otherwise inconclusive.
    An unknown accuracy never allows "caught".
    """
    away = distance_m(seeker.lat, seeker.lon, hider.lat, hider.lon)
    error = (seeker.accuracy_m or 0.0) + (hider.accuracy_m or 0.0)
    known = seeker.accuracy_m is not None and hider.accuracy_m is not None
    if away - error > catch_distance_m:
        verdict = CatchVerdict.NOT_CAUGHT
    elif known and away + error <= catch_distance_m:
        verdict = CatchVerdict.CAUGHT
    else:
        verdict = CatchVerdict.INCONCLUSIVE
    return CatchCheck(verdict, away, catch_distance_m, seeker.accuracy_m, hider.accuracy_m)


@dataclass(frozen=True, slots=True)
class SpotAdvice:
    """``ok`` is None when the map has no roads; ``road_name`` is "" for unnamed roads."""

    ok: bool | None
    reason: str
    road_distance_m: float | None
    road_name: str
    max_road_m: float


def advise_hiding_spot(spot: HidingSpot | Pin, index: MapIndex, max_road_m: float) -> SpotAdvice:
    """Warn when the spot is more than ``max_road_m`` from every road or path of the map."""
    if not index.pack.features_of(ROAD_KIND):
        return SpotAdvice(None, "no_map_data", None, "", max_road_m)
    hit = index.nearest(ROAD_KIND, spot.lat, spot.lon)
    assert hit is not None
    ok = hit.distance_m <= max_road_m
    return SpotAdvice(
        ok, "near_road" if ok else "far_from_road", hit.distance_m, hit.item.name, max_road_m
    )
