"""Where the hider's zone comes from: which pin fixes it, when, and how near a station the
hider must be. Pure: plain values and the game state, time an argument.

The zone is fixed when the hiding period ends (or a Move's time is up), from the hider's
pin at that moment: the freshest one taken by then, no older than the ruleset's
``zone_pin_max_age_min`` and still current (``rules.pins``). When the hider had no such pin
the seekers are told the zone is pending and the hider is asked for one; the first pin the
hider sends after that moment fixes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol, TypeVar

from hideseek_chat.rules import pins
from hideseek_chat.rules.decisions import GROUP, HIDERS, SEEKERS, Decision, Notify
from hideseek_chat.rules.state import GameState, PauseReason, Transport


class Sighting(Protocol):
    """A stored pin as these rules read it."""

    @property
    def at(self) -> datetime: ...
    @property
    def source(self) -> str: ...
    @property
    def forwarded(self) -> bool: ...


def zone_moment(state: GameState) -> datetime | None:
    """When the current zone was to be fixed: the end of the hiding period, or of the last
    Move of the round (None before the hiding period ended)."""
    current = state.current_round
    if current is None or current.seeking_started_at is None:
        return None
    moment = current.seeking_started_at
    for pause in state.pauses:
        if (
            pause.reason == PauseReason.MOVE
            and pause.round_number == current.number
            and pause.end is not None
            and pause.end > moment
        ):
            moment = pause.end
    return moment


def counts_at(pin: Sighting, moment: datetime, max_age_min: float) -> bool:
    """Say whether ``pin`` says where the hider was at ``moment``: taken by then, current
    then (``rules.pins``) and no older than ``max_age_min`` minutes."""
    return (
        pin.at <= moment
        and pins.is_current(pin.source, pin.forwarded, pin.at, moment)
        and moment - pin.at <= timedelta(minutes=max_age_min)
    )


P = TypeVar("P", bound=Sighting)


def zone_pin(
    newest_first: Sequence[P], moment: datetime, max_age_min: float
) -> tuple[P, bool] | None:
    """The pin that fixes the zone and whether it came late (after ``moment``).

    The freshest pin that ``counts_at`` the moment; failing that, the first pin not
    forwarded taken after it; None when there is neither (the hider is asked for one).
    """
    for pin in newest_first:
        if counts_at(pin, moment, max_age_min):
            return pin, False
    later = [p for p in newest_first if p.at > moment and not p.forwarded]
    return (later[-1], True) if later else None


def is_near_station(distance_m: float, radius_m: float) -> bool:
    """Say whether a hider ``distance_m`` from the nearest station of the map (in a car or
    on-foot game: the nearest street terminus) is at or near it: within the zone's radius,
    so the zone around it holds them."""
    return distance_m <= radius_m


#: How a zone centred on a street terminus (a car or on-foot game, rulebook section 6)
#: spells its ``station_ref``; the geo layer makes these refs.
STREET_END_PREFIX = "terminus:"


def zones_on_streets(state: GameState) -> bool:
    """Say whether this game centres zones on street termini, not stations: the car and
    on-foot games of the rulebook's section 6 (the map permitting: without roads the
    referee falls back on stations)."""
    return state.settings.transport != Transport.TRANSIT


def seeking_params(state: GameState, round_number: int, radius: float) -> dict[str, object]:
    """What ``round.seeking_started`` tells the group: the round, the zone's radius and
    whether zones are centred on street ends (never where)."""
    return {"round": round_number, "radius_m": radius, "street_end": zones_on_streets(state)}


def is_street_end(station_ref: str) -> bool:
    """Say whether a zone's ``station_ref`` names a street terminus."""
    return station_ref.startswith(STREET_END_PREFIX)


def late_zone_notices(radius_m: float, late: bool, street_end: bool = False) -> list[Decision]:
    """What the group hears when a pending zone is fixed (``late``): that it is, not where
    (only whether it is centred on a street end or a station, which the game's transport
    says anyway)."""
    params = {"radius_m": radius_m, "street_end": street_end}
    return [Notify(GROUP, "zone.fixed_late", params)] if late else []


def live_location_asks(round_number: int) -> list[Decision]:
    """When a round starts, every player is asked privately to share a live location for
    the round (the referee reads it: the zone, answers, the end game, thermometers)."""
    return [
        Notify(HIDERS, "live.share", {"round": round_number, "hider": True}),
        Notify(SEEKERS, "live.share", {"round": round_number, "hider": False}),
    ]
