"""The referee's eyes: turn pins and the map into engine facts and hider advice.

Pure functions over pins, the game state and a map index: ``sightings`` reads the pins,
the pins handler feeds back the events returned here (the zone fixed, the end game started,
a thermometer finished). How long a pin counts and what it may start are rules
(``rules.pins``). Everything a result holds beyond ``geo.public_answer`` is for the hider
only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from hideseek_chat import geo
from hideseek_chat.geo import MapIndex, Pin, PinSource
from hideseek_chat.geo.stationtable import station_table
from hideseek_chat.rules import hiding, pins
from hideseek_chat.rules.events import EndGameStarted, ThermometerFinished, ZoneFixed
from hideseek_chat.rules.questions import is_transit_line
from hideseek_chat.rules.ruleset import Category, QuestionDef, Ruleset
from hideseek_chat.rules.state import GameState, Question
from hideseek_chat.rules.state import Zone as StateZone
from hideseek_chat.store import Ping
from hideseek_chat.store.chats import SpotData
from hideseek_chat.store.checks import CheckVerdict

_Place = TypeVar("_Place")


def max_age(ping: Ping) -> timedelta:
    """How long ``ping`` counts as where its person is."""
    return pins.max_pin_age(ping.source)


def is_current(ping: Ping, now: datetime) -> bool:
    return pins.is_current(ping.source, ping.forwarded, ping.at, now)


def _source(value: str) -> PinSource:
    if pins.is_tracker(value):
        return PinSource.TRACKER
    try:
        return PinSource(value)
    except ValueError:  # an older or unknown source: a one-off pin
        return PinSource.PIN


def pin_of(ping: Ping) -> Pin:
    return Pin(
        lat=ping.lat,
        lon=ping.lon,
        at=ping.at,
        accuracy_m=ping.accuracy_m,
        source=_source(ping.source),
        forwarded=ping.forwarded,
        speed_kmh=ping.speed_kmh,
    )


def geo_zone(zone: StateZone) -> geo.Zone:
    station = geo.Station(zone.station_ref, zone.station_name, zone.lat, zone.lon)
    return geo.Zone(station, zone.radius_m)


# ----------------------------------------------------------------- zone and end game


def zone_fixed(
    index: MapIndex | None,
    hider: Ping | None,
    radius_m: float,
    late: bool = False,
    streets: bool = False,
) -> ZoneFixed | None:
    """The zone around the station nearest ``hider`` (the pin ``rules.hiding.zone_pin``
    chose), or with ``streets`` (a car or on-foot game) around the nearest street terminus,
    the nearest station when the map has no roads; None when there is no pin, no map or
    nothing on it to centre the zone on."""
    if hider is None or index is None:
        return None
    try:
        if streets and index.has_street_termini():
            zone = geo.choose_street_zone(index, pin_of(hider), radius_m)
        else:
            zone = geo.choose_zone(index, pin_of(hider), radius_m)
    except geo.ZoneError:
        return None
    station = zone.station
    return ZoneFixed(None, station.id, station.name, station.lat, station.lon, late)


def far_from_stations(
    index: MapIndex | None, lat: float, lon: float, radius_m: float
) -> tuple[geo.Station, float] | None:
    """The map's nearest station and its distance when a hider at (``lat``, ``lon``) is not
    near any station (``rules.hiding.is_near_station``); None when they are, or without a
    map or stations. Hider-only."""
    if index is None:
        return None
    return _unless_near(index.nearest_station(lat, lon), radius_m)


def far_from_street_ends(
    index: MapIndex | None, lat: float, lon: float, radius_m: float
) -> tuple[geo.Terminus, float] | None:
    """In a car or on-foot game: the map's nearest street terminus and its distance when a
    hider at (``lat``, ``lon``) is not near any (``rules.hiding.is_near_station``); None
    when they are, or without a map or roads. Hider-only."""
    if index is None:
        return None
    return _unless_near(index.nearest_terminus(lat, lon), radius_m)


def _unless_near(nearest: geo.Hit[_Place] | None, radius_m: float) -> tuple[_Place, float] | None:
    """``nearest`` and its distance, unless it is within ``radius_m`` (or there is none)."""
    if nearest is None or hiding.is_near_station(nearest.distance_m, radius_m):
        return None
    return nearest.item, nearest.distance_m


def end_game_started(
    zone: StateZone, track: Sequence[Ping], now: datetime
) -> EndGameStarted | None:
    """The end game, when a seeker's newest pin (``track`` newest first) may start it and
    puts them in the zone, known to be off transit."""
    if not track or not pins.can_start_end_game(track[0].source, transit_of(track, now)):
        return None
    return EndGameStarted(None) if starts_end_game(zone, track, now) else None


def asks_off_transit(zone: StateZone, track: Sequence[Ping], now: datetime) -> bool:
    """Whether a seeker's newest pin (``track`` newest first) puts them in the zone but
    cannot start the end game alone (a one-off pin, a speed that cannot be told): the
    seekers are then asked whether they have left transit."""
    if not track or not pins.asks_off_transit(track[0].source, transit_of(track, now)):
        return False
    return starts_end_game(zone, track, now)


def transit_of(track: Sequence[Ping], now: datetime) -> bool | None:
    """Whether a person's pins (newest first) move at transit speed; None when they
    cannot tell (one pin, pins too close in time, a stale track)."""
    return geo.estimate_transit([pin_of(p) for p in reversed(track)], now).on_transit


#: The reason of an end-game claim the bot opened itself: a seeker's pin in the zone whose
#: speed could not be told, waiting for the seekers to confirm that they left transit.
TRANSIT_UNKNOWN = "transit_unknown"

#: Claim reasons that leave no current location to check an ``/endgame`` by: the hider
#: decides, as for a claim the pins contradict (a claim without evidence never freezes them).
#: Why an end-game claim cannot be checked: no current pin, or no zone yet to check it
#: against (the hider decides then, rather than the claim starting the end game unchecked).
NO_EVIDENCE = frozenset({"no_pin", "stale_pin", "forwarded", "future_pin", "no_zone"})


def hider_decides(verdict: CheckVerdict, reason: str) -> bool:
    """Whether an ``/endgame`` claim waits for the hider: the pins contradict it, or there is
    no current pin to check it by."""
    return verdict == CheckVerdict.DISAGREED or (
        verdict == CheckVerdict.UNCHECKED and reason in NO_EVIDENCE
    )


def thermometer_finished(
    by: str, start: Ping | None, latest: Ping | None, required_m: float | None
) -> ThermometerFinished | None:
    """The thermometer, finished when ``by`` has travelled its distance from the start."""
    if start is None or latest is None:
        return None
    moved = travelled_m(start, latest)
    return (
        ThermometerFinished(by, moved) if pins.has_finished_thermometer(moved, required_m) else None
    )


def starts_end_game(zone: StateZone, track: Sequence[Ping], now: datetime) -> bool:
    """Whether a seeker's newest pin (``track`` newest first) is in the zone, off transit."""
    check = end_game_check(zone, track, now)
    return check is not None and check.starts


def end_game_check(
    zone: StateZone, track: Sequence[Ping], now: datetime
) -> geo.EndGameCheck | None:
    """What a seeker's pins (``track``, newest first) say about the end game; None without
    pins. Its ``distance_m`` is hider-only."""
    if not track:
        return None
    pins = [pin_of(p) for p in reversed(track)]
    estimate = geo.estimate_transit(pins, now)
    return geo.check_end_game(
        geo_zone(zone),
        pins[-1],
        now,
        on_transit=geo.is_on_transit(estimate),
        max_pin_age=max_age(track[0]),
    )


@dataclass(frozen=True)
class ClaimCheck:
    """What the pins say about an end-game claim; ``outside_m`` (beyond the zone's edge)
    is hider-only."""

    verdict: CheckVerdict
    reason: str
    pin_at: datetime | None = None
    outside_m: float | None = None
    on_transit: bool = False


def check_claim(zone: StateZone | None, track: Sequence[Ping], now: datetime) -> ClaimCheck:
    """Check a seeker's end-game claim against their pins (``track``, newest first)."""
    if not track:
        return ClaimCheck(CheckVerdict.UNCHECKED, "no_pin")
    if zone is None:
        # No zone to check against: a current pin is all the evidence there can be.
        current = is_current(track[0], now)
        return ClaimCheck(CheckVerdict.UNCHECKED, "no_zone" if current else "stale_pin")
    check = end_game_check(zone, track, now)
    if check is None:
        return ClaimCheck(CheckVerdict.UNCHECKED, "no_pin")
    pin_at = track[0].at
    if check.starts:
        return ClaimCheck(CheckVerdict.AGREED, check.reason, pin_at)
    if check.reason == "outside_zone":
        outside = max(0.0, (check.distance_m or 0.0) - check.radius_m)
        if check.too_close_to_call:
            return ClaimCheck(CheckVerdict.UNCHECKED, "too_close", pin_at, outside)
        return ClaimCheck(CheckVerdict.DISAGREED, check.reason, pin_at, outside)
    if check.reason == "on_transit":
        return ClaimCheck(CheckVerdict.DISAGREED, check.reason, pin_at, on_transit=True)
    return ClaimCheck(CheckVerdict.UNCHECKED, check.reason, pin_at)  # stale, forwarded...


def may_be_in_zone(zone: StateZone, lat: float, lon: float) -> bool:
    """A cheap first test: could a pin here be inside the zone?"""
    return geo.distance_m(zone.lat, zone.lon, lat, lon) <= zone.radius_m + NEAR_ZONE_M


#: Slack for the cheap zone test: ``geo.check_in_zone`` counts a pin as inside only within
#: the radius itself, so a metre covers rounding and nothing more.
NEAR_ZONE_M = 1.0


def on_transit(track: Sequence[Ping], now: datetime) -> bool:
    """Whether a person's recent pins (newest first) move at transit speed."""
    if len(track) < 2:
        return False
    estimate = geo.estimate_transit([pin_of(p) for p in reversed(track)], now)
    return geo.is_on_transit(estimate)


def travelled_m(start: Ping, now_at: Ping) -> float:
    return geo.distance_m(start.lat, start.lon, now_at.lat, now_at.lon)


def catch_distance(seeker: Ping, hider: Pin | geo.HidingSpot, catch_m: float) -> geo.CatchCheck:
    return geo.check_catch(pin_of(seeker), hider, catch_m)


def catch_target(
    hider: Ping | None, spot: SpotData | None, now: datetime
) -> Pin | geo.HidingSpot | None:
    """Where a catch is measured to: the hider's current pin (a hider who moved is caught
    where they are), else the spot frozen when the end game began; None without either."""
    if hider is not None and is_current(hider, now):
        return pin_of(hider)
    if spot is not None:
        return geo.HidingSpot(spot.lat, spot.lon, spot.accuracy_m, spot.frozen_at)
    return None


def outside_zone_m(zone: StateZone, hider: Ping) -> float | None:
    """How far beyond the zone's edge the hider's pin is, when it is outside even with its
    GPS error; None when it may be inside. Hider-only."""
    away = geo.distance_m(zone.lat, zone.lon, hider.lat, hider.lon)
    if not pins.is_outside_zone(away, zone.radius_m, hider.accuracy_m):
        return None
    return away - zone.radius_m


def moved_from_spot_m(spot: SpotData, hider: Ping) -> float | None:
    """How far the hider's pin is from their frozen hiding spot, when it shows them moving
    beyond both pins' accuracies; None when they may have stayed put. Hider-only."""
    away = geo.distance_m(spot.lat, spot.lon, hider.lat, hider.lon)
    return away if pins.has_moved(away, spot.accuracy_m, hider.accuracy_m) else None


def nearest_seeker_m(hider: Ping, seekers: Sequence[Ping]) -> float | None:
    if not seekers:
        return None
    return min(geo.distance_m(hider.lat, hider.lon, s.lat, s.lon) for s in seekers)


# ----------------------------------------------------------------- suggestions


@dataclass(frozen=True)
class Suggestion:
    """What the bot computed for a question, for the hider's eyes.

    ``answer`` is an engine answer word (or None when it cannot tell); ``facts`` hold the
    numbers behind it (metres, names) for the message.
    """

    answer: str | None
    detail: str | None
    reason: str
    too_close: bool = False
    facts: dict[str, Any] = field(default_factory=dict)


def suggest(
    ruleset: Ruleset,
    state: GameState,
    record: Question,
    index: MapIndex | None,
    hider: Ping | None,
    asker_start: Ping | None,
    asker_now: Ping | None,
    now: datetime,
) -> Suggestion:
    """Compute the answer to ``record`` from the pins and the map, if the data allow."""
    question = ruleset.question(record.question_id)
    if question.category == Category.PHOTO:
        return Suggestion(None, None, "photo")
    current = state.current_round
    zone = geo_zone(current.zone) if current and current.zone else None
    try:
        fix = geo.hider_fix(
            ruleset.hider_position,
            now,
            live=pin_of(hider) if hider else None,
            zone=zone,
            max_pin_age=max_age(hider) if hider else pins.MAX_PIN_AGE,
        )
    except geo.PositionUnavailable as missing:
        return Suggestion(None, None, missing.reason)
    if asker_start is None:
        return Suggestion(None, None, "no_seeker_pin")
    if not is_current(asker_start, record.asked_at):
        # Where the seeker was long before asking says nothing about where they asked from.
        return Suggestion(None, None, "stale_seeker_pin")
    try:
        return _compute(question, record, index, fix, asker_start, asker_now, zone)
    except geo.PinRejected as rejected:
        return Suggestion(None, None, rejected.reason)


def _compute(
    question: QuestionDef,
    record: Question,
    index: MapIndex | None,
    fix: geo.HiderFix,
    seeker_ping: Ping,
    end_ping: Ping | None,
    zone: geo.Zone | None,
) -> Suggestion:
    seeker = pin_of(seeker_ping)
    category = question.category
    if category == Category.RADAR:
        radius = record.distance_m or question.distance_m or 0.0
        radar = geo.answer_radar(seeker, fix, radius)
        return Suggestion(
            radar.answer,
            None,
            radar.reason,
            radar.too_close_to_call,
            {"distance_m": radar.distance_m, "radius_m": radar.radius_m},
        )
    if category == Category.THERMOMETER:
        if end_ping is None:
            return Suggestion(None, None, "no_seeker_pin")
        required = record.distance_m or question.distance_m or 0.0
        thermo = geo.answer_thermometer(seeker, pin_of(end_ping), fix, required)
        return Suggestion(
            thermo.answer,
            None,
            thermo.reason,
            thermo.too_close_to_call,
            {
                "start_m": thermo.start_distance_m,
                "end_m": thermo.end_distance_m,
                "travelled_m": thermo.travelled_m,
            },
        )
    if index is None:
        return Suggestion(None, None, "no_map")
    if category == Category.MEASURING:
        measuring = geo.answer_measuring(index, question.subject, seeker, fix)
        return Suggestion(
            measuring.answer,
            None,
            measuring.reason,
            measuring.too_close_to_call,
            {
                "hider_m": measuring.hider_distance_m,
                "seeker_m": measuring.seeker_distance_m,
                "hider_place": measuring.hider_feature.name if measuring.hider_feature else "",
                "seeker_place": measuring.seeker_feature.name if measuring.seeker_feature else "",
            },
        )
    if category == Category.MATCHING:
        if is_transit_line(question):
            if not record.line:
                return Suggestion(None, None, "needs_line")
            if zone is None:
                return Suggestion(None, None, "no_zone")
            matching = geo.answer_transit_line(record.line, map_station(index, zone), fix)
        elif question.subject == "station-name-length":
            if zone is None:
                return Suggestion(None, None, "no_zone")
            if hiding.is_street_end(zone.station.id):
                return street_name_length(index, zone, seeker, fix)
            near = index.nearest_station(seeker.lat, seeker.lon)
            if near is None:
                return Suggestion(None, None, "no_zone")
            return name_lengths(geo.answer_station_name_length(zone.station, near.item, fix))
        else:
            matching = geo.answer_matching(index, question.subject, seeker, fix)
        return Suggestion(
            matching.answer,
            None,
            matching.reason,
            matching.too_close_to_call,
            {
                "hider_place": matching.hider_value,
                "seeker_place": matching.seeker_value,
                "hider_m": matching.hider_number,
                "seeker_m": matching.seeker_number,
            },
        )
    if category == Category.TENTACLE:
        reach = record.distance_m or question.distance_m or 0.0
        tentacle = geo.answer_tentacle(index, question.subject, seeker, fix, reach)
        answer = tentacle.answer
        detail = None
        if answer not in (None, "not_in_reach", "null"):
            answer, detail = "named", tentacle.answer
        return Suggestion(
            answer,
            detail,
            tentacle.reason,
            tentacle.too_close_to_call,
            {
                "reach_m": tentacle.reach_m,
                "places": [hit.item.name for hit in tentacle.in_reach if hit.item.name][:6],
                "aliases": list(tentacle.names),  # the answered place's other rows' names
            },
        )
    return Suggestion(None, None, "unsupported")


def map_station(index: MapIndex, zone: geo.Zone) -> geo.Station:
    """The zone's station as the map has it (with the lines stopping there); the zone's
    own record, which lists none, when the map no longer has it."""
    table = station_table(index)
    row = table.row.get(zone.station.id)
    return zone.station if row is None else table.stations[row]


def street_name_length(
    index: MapIndex, zone: geo.Zone, seeker: Pin, fix: geo.HiderFix
) -> Suggestion:
    """The station-name length question when the zone is on a street terminus (a car or
    on-foot game): the hider's street's name against the street of the terminus nearest
    the seeker (rulebook section 6: such questions reference the street's name)."""
    hider_end = index.terminus(zone.station.id)
    seeker_end = index.nearest_terminus(seeker.lat, seeker.lon)
    if hider_end is None or seeker_end is None:
        return Suggestion(None, None, "no_map_data")
    if not hider_end.street or not seeker_end.item.street:
        return Suggestion(None, None, "unnamed_street")
    hider_street = geo.Station(hider_end.id, hider_end.street, hider_end.lat, hider_end.lon)
    near = seeker_end.item
    seeker_street = geo.Station(near.id, near.street, near.lat, near.lon)
    return name_lengths(geo.answer_station_name_length(hider_street, seeker_street, fix))


def name_lengths(matching: geo.MatchingResult) -> Suggestion:
    """The suggestion for a name-length question: the two names and their lengths (in
    characters, not metres)."""
    return Suggestion(
        matching.answer,
        None,
        matching.reason,
        matching.too_close_to_call,
        {
            "hider_place": matching.hider_value,
            "seeker_place": matching.seeker_value,
            "hider_chars": int(matching.hider_number or 0),
            "seeker_chars": int(matching.seeker_number or 0),
        },
    )
