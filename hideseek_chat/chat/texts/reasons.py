"""Reason codes in one table: why a map file was refused, why no answer could be worked
out, and why an answer or a claim could not be checked against the pins.

Each code belongs to a group and may have words (a msgid that completes "…({why})"):

- ``map_file``: an uploaded map was refused (the importers' codes);
- ``location``: a pin is missing, too old or not to be trusted: "no fresh location";
- ``map``: the map has no data for the question: "no map data";
- ``too_close``: the pins cannot tell within the GPS margin;
- ``other``: anything else; the group hears only that it could not be checked.

What the group reads of a check (``verdict_note``) never holds numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from hideseek_chat.chat.i18n import N_, Formatter
from hideseek_chat.chat.texts.registry import say
from hideseek_chat.store.checks import CheckVerdict

MAP_FILE = "map_file"
LOCATION = "location"
MAP = "map"
TOO_CLOSE = "too_close"
OTHER = "other"


@dataclass(frozen=True)
class Reason:
    """A reason code, its group and, where it has them, its words (a msgid)."""

    code: str
    group: str
    words: str | None = None


REASONS: dict[str, Reason] = {
    reason.code: reason
    for reason in (
        # an uploaded map file
        Reason("bad_geometry", MAP_FILE, N_("a shape in it is broken")),
        Reason("bad_gtfs", MAP_FILE, N_("it is not a complete GTFS feed")),
        Reason("bad_kind", MAP_FILE, N_("a feature has a kind I don't know")),
        Reason("no_boundary", MAP_FILE, N_("it has no boundary polygon for the game area")),
        Reason("not_geojson", MAP_FILE, N_("it is not GeoJSON")),
        Reason("not_kml", MAP_FILE, N_("it is not KML")),
        Reason("too_large", MAP_FILE, N_("it is too large")),
        Reason("too_many_features", MAP_FILE, N_("it has too many features")),
        Reason("unreadable", MAP_FILE, N_("I can't read it")),
        # the pins: no fresh location
        Reason("no_live_pin", LOCATION, N_("I have no location from you")),
        Reason("stale_pin", LOCATION, N_("your last location is too old")),
        Reason("future_pin", LOCATION, N_("your location's time is off")),
        Reason("forwarded", LOCATION, N_("a forwarded location doesn't count")),
        Reason("no_zone", LOCATION, N_("your zone isn't fixed yet")),
        Reason("no_seeker_pin", LOCATION, N_("I have no location from the seekers")),
        Reason("stale_seeker_pin", LOCATION),
        Reason("no_pin", LOCATION),
        # the map: no map data
        Reason("no_map_data", MAP, N_("the map has no data for this")),
        Reason("no_map", MAP, N_("there is no map for this game")),
        Reason("needs_line", MAP, N_("I can't tell which line they are riding")),
        Reason("unnamed_street", MAP, N_("an unnamed street has no name to count")),
        Reason("no_elevation_data", MAP),
        Reason("unsupported_subject", MAP),
        Reason("unsupported", MAP),
        Reason("not_in_any_division", MAP),
        # the rest
        Reason("too_close", TOO_CLOSE),
        Reason("not_far_enough", OTHER, N_("the seekers haven't travelled far enough")),
        Reason("other", OTHER, N_("not enough data")),
    )
}

#: What the group is told when a check could not be made, by the reason's group.
UNCHECKED_KEYS = {
    TOO_CLOSE: "chat.check_too_close",
    LOCATION: "chat.check_no_location",
    MAP: "chat.check_no_map",
}


def reason_group(code: str) -> str:
    """The group of ``code``; an unknown code is ``other``."""
    reason = REASONS.get(code)
    return reason.group if reason is not None else OTHER


def codes_in(group: str) -> frozenset[str]:
    """Every code of ``group``."""
    return frozenset(code for code, reason in REASONS.items() if reason.group == group)


def _words(code: str, groups: tuple[str, ...], default: str) -> str:
    reason = REASONS.get(code)
    if reason is None or reason.group not in groups or reason.words is None:
        reason = REASONS[default]
    assert reason.words is not None
    return reason.words


def map_problem(code: str, fmt: Formatter) -> str:
    """Why an uploaded map was refused, in words (``unreadable`` for an unknown code)."""
    return fmt.t(_words(code, (MAP_FILE,), "unreadable"))


def why_no_answer(code: str, fmt: Formatter) -> str:
    """Why no answer could be worked out, in words (``not enough data`` if unknown)."""
    return fmt.t(_words(code, (LOCATION, MAP, OTHER), "other"))


def unchecked_key(code: str, too_close: bool) -> str:
    """The ``chat.check_*`` key telling the group why a check could not be made."""
    group = TOO_CLOSE if too_close else reason_group(code)
    return UNCHECKED_KEYS.get(group, "chat.check_unknown")


def verdict_note(verdict: CheckVerdict, reason: str, too_close: bool, fmt: Formatter) -> str | None:
    """What the group may know of a check: the verdict and, when unchecked, why."""
    if verdict == CheckVerdict.AGREED:
        return say("chat.check_agreed", {}, fmt)
    if verdict == CheckVerdict.DISAGREED:
        return say("chat.check_disagreed", {}, fmt)
    if verdict != CheckVerdict.UNCHECKED:
        return None
    return say(unchecked_key(reason, too_close), {}, fmt)
