"""Automatic answers: radar, thermometer, measuring, matching and tentacle suggestions.

Each function returns a frozen result with the answer word (``CATEGORY_ANSWERS`` words,
``"null"``, a feature name for tentacles, or None when no automatic answer is possible),
a ``reason`` code, the numbers behind it, ``too_close_to_call`` (GPS accuracy could flip
the answer) and ``hider_basis`` (which hider position was used: live pin or zone station).

Reason codes: ``ok``; ``no_map_data`` (the map does not cover the subject, answer None);
``no_feature_in_boundary`` (answer ``"null"``); ``not_far_enough`` (thermometer travel too
short, answer None); ``no_elevation_data`` (sea level, answer None); ``unsupported_subject``;
``not_in_any_division`` (matching on divisions when a position is in none, answer None);
``hider_out_of_reach`` / ``no_feature_in_reach`` (tentacle ``not_in_reach``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from hideseek_chat.geo.distance import distance_m
from hideseek_chat.geo.mappack import ROAD_KIND, Feature, Station
from hideseek_chat.geo.pins import Pin, PinRejected, check_own_position
from hideseek_chat.geo.spatial import Hit, MapIndex
from hideseek_chat.geo.zones import Zone
from hideseek_chat.rules.ruleset import NULL_ANSWER, HiderPosition

#: Margins below this many metres are always "too close to call" (float rounding).
TIE_EPSILON_M = 1e-3

#: Matching subjects answered by which polygon contains each player.
DIVISION_SUBJECTS = frozenset({"admin-1", "admin-2", "admin-3", "admin-4", "landmass", "zone"})
#: Matching subject answered with the nearest named road.
STREET_SUBJECT = "street"


class PositionUnavailable(ValueError):
    """No hider position can be used: ``reason`` is ``no_live_pin``, ``no_zone``,
    ``forwarded``, ``stale_pin`` or ``future_pin``."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True, slots=True)
class HiderFix:
    """The hider position an answer is computed from, and what it is (``basis``)."""

    lat: float
    lon: float
    accuracy_m: float | None
    basis: HiderPosition
    station_id: str | None = None

    @property
    def accuracy_or_zero(self) -> float:
        return self.accuracy_m or 0.0


def hider_fix(
    setting: HiderPosition,
    now: datetime,
    *,
    live: Pin | None = None,
    zone: Zone | None = None,
    max_pin_age: timedelta,
) -> HiderFix:
    """Return the hider position the ruleset says to use (``ruleset.hider_position``).

    LIVE uses the hider's latest own pin, which must be fresh and not forwarded; STATION
    uses the zone's station. Raises :class:`PositionUnavailable`.
    """
    if setting == HiderPosition.STATION:
        if zone is None:
            raise PositionUnavailable("no_zone")
        return HiderFix(zone.lat, zone.lon, 0.0, setting, zone.station.id)
    if live is None:
        raise PositionUnavailable("no_live_pin")
    try:
        check_own_position(live, now, max_pin_age)
    except PinRejected as rejected:
        raise PositionUnavailable(rejected.reason, rejected.detail) from None
    station_id = zone.station.id if zone else None
    return HiderFix(live.lat, live.lon, live.accuracy_m, setting, station_id)


# ---------------------------------------------------------------- radar and thermometer


@dataclass(frozen=True, slots=True)
class RadarResult:
    answer: str  # "yes" / "no"
    distance_m: float
    radius_m: float
    seeker_accuracy_m: float | None
    hider_accuracy_m: float | None
    too_close_to_call: bool
    hider_basis: HiderPosition
    reason: str = "ok"


def answer_radar(seeker: Pin, hider: HiderFix, radius_m: float) -> RadarResult:
    """Answer "are you within ``radius_m`` of me?" (a distance on the edge counts as yes)."""
    away = distance_m(seeker.lat, seeker.lon, hider.lat, hider.lon)
    error = (seeker.accuracy_m or 0.0) + (hider.accuracy_m or 0.0)
    return RadarResult(
        "yes" if away <= radius_m else "no",
        away,
        radius_m,
        seeker.accuracy_m,
        hider.accuracy_m,
        abs(away - radius_m) <= error + TIE_EPSILON_M,
        hider.basis,
    )


@dataclass(frozen=True, slots=True)
class ThermometerResult:
    answer: str | None  # "hotter" / "colder", None when the seekers did not travel enough
    reason: str  # "ok" or "not_far_enough"
    start_distance_m: float  # start pin to hider
    end_distance_m: float  # end pin to hider
    travelled_m: float  # start pin to end pin, as the crow flies
    required_m: float
    start_accuracy_m: float | None
    end_accuracy_m: float | None
    hider_accuracy_m: float | None
    too_close_to_call: bool
    hider_basis: HiderPosition


def answer_thermometer(
    start: Pin, end: Pin, hider: HiderFix, required_m: float
) -> ThermometerResult:
    """Answer a thermometer: hotter when the end pin is closer to the hider than the start.

    The seekers must have travelled at least ``required_m`` as the crow flies; otherwise
    ``answer`` is None and ``reason`` is ``not_far_enough``.
    """
    before = distance_m(start.lat, start.lon, hider.lat, hider.lon)
    after = distance_m(end.lat, end.lon, hider.lat, hider.lon)
    travelled = distance_m(start.lat, start.lon, end.lat, end.lon)
    error = (start.accuracy_m or 0.0) + (end.accuracy_m or 0.0) + 2 * (hider.accuracy_m or 0.0)
    far_enough = travelled >= required_m
    return ThermometerResult(
        ("hotter" if after < before else "colder") if far_enough else None,
        "ok" if far_enough else "not_far_enough",
        before,
        after,
        travelled,
        required_m,
        start.accuracy_m,
        end.accuracy_m,
        hider.accuracy_m,
        abs(before - after) <= error + TIE_EPSILON_M,
        hider.basis,
    )


# ---------------------------------------------------------------- measuring


@dataclass(frozen=True, slots=True)
class MeasuringResult:
    answer: str | None  # "closer" / "further" / "null" / None
    reason: str
    subject: str
    hider_distance_m: float | None
    seeker_distance_m: float | None
    hider_feature: Feature | None  # the feature nearest to the hider
    seeker_feature: Feature | None
    seeker_accuracy_m: float | None
    hider_accuracy_m: float | None
    too_close_to_call: bool
    hider_basis: HiderPosition


def measuring_kind(subject: str) -> str:
    """Return the map feature kind a measuring subject measures to (same slug, mostly)."""
    return subject


def answer_measuring(
    index: MapIndex, subject: str, seeker: Pin, hider: HiderFix
) -> MeasuringResult:
    """Answer "compared to me, are you closer to or further from the nearest <subject>?".

    Closer when the hider's nearest feature is strictly nearer than the seeker's nearest.
    """

    def result(answer: str | None, reason: str) -> MeasuringResult:
        return MeasuringResult(
            answer, reason, subject, None, None, None, None,
            seeker.accuracy_m, hider.accuracy_m, False, hider.basis,
        )

    if subject == "sea-level":
        return result(None, "no_elevation_data")
    kind = measuring_kind(subject)
    if not index.has_data_for(kind):
        return result(None, "no_map_data")
    hider_hit = index.nearest(kind, hider.lat, hider.lon)
    seeker_hit = index.nearest(kind, seeker.lat, seeker.lon)
    if hider_hit is None or seeker_hit is None:
        return result(NULL_ANSWER, "no_feature_in_boundary")
    error = seeker.accuracy_or_zero + hider.accuracy_or_zero
    return MeasuringResult(
        "closer" if hider_hit.distance_m < seeker_hit.distance_m else "further",
        "ok",
        subject,
        hider_hit.distance_m,
        seeker_hit.distance_m,
        hider_hit.item,
        seeker_hit.item,
        seeker.accuracy_m,
        hider.accuracy_m,
        abs(hider_hit.distance_m - seeker_hit.distance_m) <= error + TIE_EPSILON_M,
        hider.basis,
    )


# ---------------------------------------------------------------- matching


@dataclass(frozen=True, slots=True)
class MatchingResult:
    """``*_value`` is what is compared (a feature, division, street or station name or the
    line); ``*_number`` is the distance to the nearest feature or street, the distance to
    the division's edge, or the station name's length."""

    answer: str | None  # "yes" / "no" / "null" / None
    reason: str
    subject: str
    hider_value: str
    seeker_value: str
    hider_number: float | None
    seeker_number: float | None
    too_close_to_call: bool
    hider_basis: HiderPosition


def answer_matching(
    index: MapIndex, subject: str, seeker: Pin, hider: HiderFix
) -> MatchingResult:
    """Answer "is your nearest <subject> the same as mine?" for map-based subjects.

    Divisions (``admin-1`` .. ``admin-4``, ``landmass``, ``zone``) compare the polygon
    containing each player; ``street`` compares the nearest named road's name; every other
    subject compares the nearest feature of that kind. For ``transit-line`` and
    ``station-name-length`` use the dedicated functions.
    """
    if subject in ("transit-line", "station-name-length"):
        return _matching(None, "unsupported_subject", subject, hider)
    if subject in DIVISION_SUBJECTS:
        return _matching_division(index, subject, seeker, hider)
    named_only = subject == STREET_SUBJECT
    kind = ROAD_KIND if named_only else subject
    if not index.has_data_for(kind):
        return _matching(None, "no_map_data", subject, hider)
    hider_hits = _nearest_with_rivals(index, kind, hider.lat, hider.lon, hider.accuracy_or_zero,
                                      named_only)
    seeker_hits = _nearest_with_rivals(index, kind, seeker.lat, seeker.lon,
                                       seeker.accuracy_or_zero, named_only)
    if not hider_hits or not seeker_hits:
        return _matching(NULL_ANSWER, "no_feature_in_boundary", subject, hider)
    if named_only:
        same = hider_hits[0].item.name.casefold() == seeker_hits[0].item.name.casefold()
        names = {h.item.name.casefold() for h in hider_hits}
        seeker_names = {h.item.name.casefold() for h in seeker_hits}
        unsure = len(names) > 1 or len(seeker_names) > 1
    else:
        # Places, not rows: two rows of one school are one school.
        hider_place, seeker_place = hider_hits[0].item, seeker_hits[0].item
        same = index.same_place(kind, hider_place, seeker_place)
        unsure = any(not index.same_place(kind, h.item, hider_place) for h in hider_hits) or any(
            not index.same_place(kind, h.item, seeker_place) for h in seeker_hits
        )
    return MatchingResult(
        "yes" if same else "no",
        "ok",
        subject,
        hider_hits[0].item.name,
        seeker_hits[0].item.name,
        hider_hits[0].distance_m,
        seeker_hits[0].distance_m,
        unsure,
        hider.basis,
    )


def _nearest_with_rivals(
    index: MapIndex, kind: str, lat: float, lon: float, accuracy: float, named_only: bool
) -> list[Hit[Feature]]:
    """The nearest feature first, then every rival GPS error could make nearest instead."""
    if named_only:
        return index.ranked_named(kind, lat, lon, 2 * accuracy + TIE_EPSILON_M)
    return index.ranked(kind, lat, lon, 2 * accuracy + TIE_EPSILON_M)


def _matching(
    answer: str | None, reason: str, subject: str, hider: HiderFix
) -> MatchingResult:
    return MatchingResult(answer, reason, subject, "", "", None, None, False, hider.basis)


def _matching_division(
    index: MapIndex, subject: str, seeker: Pin, hider: HiderFix
) -> MatchingResult:
    if not index.has_data_for(subject):
        return _matching(None, "no_map_data", subject, hider)
    if not index.pack.features_of(subject):
        return _matching(NULL_ANSWER, "no_feature_in_boundary", subject, hider)
    hider_in, hider_edge = index.containing(subject, hider.lat, hider.lon)
    seeker_in, seeker_edge = index.containing(subject, seeker.lat, seeker.lon)
    if hider_in is None or seeker_in is None:
        result = _matching(None, "not_in_any_division", subject, hider)
        return MatchingResult(
            None, result.reason, subject,
            hider_in.name if hider_in else "", seeker_in.name if seeker_in else "",
            hider_edge, seeker_edge, False, hider.basis,
        )
    unsure = hider_edge <= hider.accuracy_or_zero + TIE_EPSILON_M or (
        seeker_edge <= seeker.accuracy_or_zero + TIE_EPSILON_M
    )
    return MatchingResult(
        "yes" if hider_in == seeker_in else "no",
        "ok",
        subject,
        hider_in.name,
        seeker_in.name,
        hider_edge,
        seeker_edge,
        unsure,
        hider.basis,
    )


def answer_transit_line(line: str, hider_station: Station, hider: HiderFix) -> MatchingResult:
    """Answer "does the line we are riding stop at your station?" from the map's routes."""
    if not hider_station.routes:
        return _matching(None, "no_map_data", "transit-line", hider)
    return MatchingResult(
        "yes" if hider_station.serves(line) else "no",
        "ok",
        "transit-line",
        ", ".join(hider_station.routes),
        line,
        None,
        None,
        False,
        hider.basis,
    )


def answer_station_name_length(
    hider_station: Station, seeker_station: Station, hider: HiderFix
) -> MatchingResult:
    """Answer "is your station's name as long as mine?" (every character counts)."""
    hider_length = len(hider_station.name)
    seeker_length = len(seeker_station.name)
    return MatchingResult(
        "yes" if hider_length == seeker_length else "no",
        "ok",
        "station-name-length",
        hider_station.name,
        seeker_station.name,
        float(hider_length),
        float(seeker_length),
        False,
        hider.basis,
    )


# ---------------------------------------------------------------- tentacle


@dataclass(frozen=True, slots=True)
class TentacleResult:
    answer: str | None  # a feature name, "not_in_reach", "null" or None
    reason: str
    subject: str
    reach_m: float
    hider_to_seeker_m: float
    feature: Feature | None  # the feature named in the answer
    hider_to_feature_m: float | None
    in_reach: tuple[Hit[Feature], ...]  # features within reach of the seeker, nearest first
    too_close_to_call: bool
    hider_basis: HiderPosition
    #: every name the answered place goes by on the map (its rows may differ)
    names: tuple[str, ...] = ()


def answer_tentacle(
    index: MapIndex, subject: str, seeker: Pin, hider: HiderFix, reach_m: float
) -> TentacleResult:
    """Answer "of the <subject>s within ``reach_m`` of me, which are you nearest to?".

    The hider must be within reach of the seeker too, else the answer is ``not_in_reach``.
    """
    apart = distance_m(seeker.lat, seeker.lon, hider.lat, hider.lon)

    def result(answer: str | None, reason: str, hits: tuple[Hit[Feature], ...] = (),
               unsure: bool = False) -> TentacleResult:
        return TentacleResult(answer, reason, subject, reach_m, apart, None, None, hits,
                              unsure, hider.basis)

    if not index.has_data_for(subject):
        return result(None, "no_map_data")
    if not index.pack.features_of(subject):
        return result(NULL_ANSWER, "no_feature_in_boundary")
    error = seeker.accuracy_or_zero + hider.accuracy_or_zero
    edge_unsure = abs(apart - reach_m) <= error + TIE_EPSILON_M
    rows = index.within(subject, seeker.lat, seeker.lon, reach_m)
    # One hit per place, the row nearest the seeker: two rows of one museum are one museum.
    in_reach = tuple(
        hit for n, hit in enumerate(rows)
        if not any(index.same_place(subject, hit.item, seen.item) for seen in rows[:n])
    )
    if apart > reach_m:
        return result("not_in_reach", "hider_out_of_reach", in_reach, edge_unsure)
    if not in_reach:
        return result("not_in_reach", "no_feature_in_reach", in_reach, edge_unsure)
    to_hider = sorted(
        (index.distance_to(hit.item, hider.lat, hider.lon), n) for n, hit in enumerate(rows)
    )
    best_distance, best = to_hider[0]
    feature = next(
        hit.item for hit in in_reach if index.same_place(subject, hit.item, rows[best].item)
    )
    rival = any(
        distance - best_distance <= 2 * hider.accuracy_or_zero + TIE_EPSILON_M
        and not index.same_place(subject, rows[n].item, feature)
        for distance, n in to_hider[1:]
    )
    return TentacleResult(
        feature.name, "ok", subject, reach_m, apart, feature, best_distance, in_reach,
        edge_unsure or rival, hider.basis, index.place_names(subject, feature),
    )


@dataclass(frozen=True, slots=True)
class PublicAnswer:
    """What seekers and the group may learn of an automatic answer: never the hider's numbers.

    Every other field of the result types (distances, accuracies, the hider's nearest
    feature or station, ``hider_value``) is for the hider's eyes only: with a few of them the
    seekers could work out where the hider is.
    """

    answer: str | None
    reason: str
    too_close_to_call: bool


AnswerResult = RadarResult | ThermometerResult | MeasuringResult | MatchingResult | TentacleResult


def public_answer(result: AnswerResult) -> PublicAnswer:
    """The part of ``result`` that may be shown to seekers and the group."""
    return PublicAnswer(result.answer, result.reason, result.too_close_to_call)
