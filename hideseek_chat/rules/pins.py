"""What a reported position counts for: how long it is current, what it may establish.

The geo layer measures pins (distances, zones, rides); these rules say what the measurements
mean for the game. A pin's source is a plain string: ``"live"`` for a live location that
keeps updating, and a GPS tracker app's (``"tracker:owntracks"``...), which keeps reporting
too, count as live; anything else (``"pin"``, ``"text"``) is treated like a one-off pin.
Time is always an argument.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from hideseek_chat.rules.state import GameState, Mode, Question, QuestionStatus

#: The source of a live location, which keeps following its person.
LIVE = "live"
#: A tracker app's pins are stored as ``"tracker:<app>"``; they keep following their
#: person like a live location.
TRACKER = "tracker"

#: A one-off pin counts as where its person is for this long (automatic answers, the zone,
#: a catch, a thermometer's start).
MAX_PIN_AGE = timedelta(minutes=15)
#: A live location stays current much longer: phones only send an edit when they move, so
#: a hider sitting still sends none for as long as they sit.
MAX_LIVE_AGE = timedelta(hours=2)

#: A catch claim the pins put further than this from the hider (and not within the catch
#: distance) is not sent to the hider at once: the seeker is told the pins disagree and may
#: still say they have spotted the hider (GPS indoors can be far off); closer ones go
#: straight to the hider, who has the last word.
FAR_CATCH_CLAIM_M = 100.0

#: A pin this close to a station's point counts as in the station (the Curse of the Urban
#: Explorer forbids asking from "a platform or any building associated with the station").
#: A map knows a station as one point, usually the middle of its platforms or its stop
#: pole; most metro and light-rail platforms are 60 to 150 m long, so their ends lie 30
#: to 75 m from that point, and a phone in the open is typically 5 to 20 m off. 60 m
#: covers a platform and the station's entrances without forbidding the streets around a
#: stop, which a seeker can always reach by walking a minute.
AT_STATION_M = 60.0


def is_at_station(distance_m: float) -> bool:
    """Say whether a current pin ``distance_m`` from a station's point is in that station."""
    return distance_m <= AT_STATION_M


def is_live(source: str) -> bool:
    """Say whether ``source`` keeps following its person: a live location or a tracker app
    (every other source is a one-off pin)."""
    return source == LIVE or is_tracker(source)


def is_tracker(source: str) -> bool:
    """Say whether ``source`` is a GPS tracker app's (``"tracker:<app>"``)."""
    return source == TRACKER or source.startswith(TRACKER + ":")


def max_pin_age(source: str) -> timedelta:
    """Return how long a position from ``source`` counts as where its person is."""
    return MAX_LIVE_AGE if is_live(source) else MAX_PIN_AGE


def is_current(source: str, forwarded: bool, taken_at: datetime, now: datetime) -> bool:
    """Say whether a position taken at ``taken_at`` still counts at ``now``.

    A forwarded position is never current: it may be someone else's. The age limit is
    inclusive (a pin exactly ``max_pin_age`` old still counts).
    """
    return not forwarded and now - taken_at <= max_pin_age(source)


#: During the end game the hider stays put: a pin further than both pins' accuracies plus
#: this from the spot frozen when it began shows them moving (GPS jitter stays below it).
STAY_PUT_SLACK_M = 10.0


def can_start_end_game(source: str, on_transit: bool | None) -> bool:
    """Say whether a seeker's position from ``source`` inside the zone starts the end game.

    Only a live location whose speed is known to be below transit speed (``on_transit``
    False) may: a one-off pin can be dropped anywhere on a map, and a speed that cannot be
    told (None: a single sparse pin) is not "off transit".
    """
    return is_live(source) and on_transit is False


def asks_off_transit(source: str, on_transit: bool | None) -> bool:
    """Say whether a seeker's position inside the zone asks the seekers to confirm that they
    left transit: it cannot start the end game alone, and does not show them riding."""
    return on_transit is not True and not can_start_end_game(source, on_transit)


def is_outside_zone(distance_m: float, radius_m: float, accuracy_m: float | None) -> bool:
    """Say whether a pin ``distance_m`` from the zone's station is outside the zone even with
    its GPS error (a pin within its accuracy of the edge may still be inside)."""
    return distance_m - (accuracy_m or 0.0) > radius_m


def has_moved(distance_m: float, spot_accuracy_m: float | None, accuracy_m: float | None) -> bool:
    """Say whether a hider's pin ``distance_m`` from their frozen hiding spot shows them moving.

    Beyond both accuracies plus ``STAY_PUT_SLACK_M``; an unknown accuracy counts as 0.
    """
    return distance_m > (spot_accuracy_m or 0.0) + (accuracy_m or 0.0) + STAY_PUT_SLACK_M


def is_far_catch_claim(distance_m: float) -> bool:
    """Say whether a catch claim ``distance_m`` from the hider needs the seeker to confirm.

    Apply it only to a claim the pins do not already put within the catch distance.
    """
    return distance_m > FAR_CATCH_CLAIM_M


def can_carry_thermometer(state: GameState, player_id: int, question: Question) -> bool:
    """Say whether the pins of ``player_id`` may finish the travelling thermometer ``question``.

    A member of the asking team may; in the standard game any seeker may. The hider, a
    player who left and a question no longer travelling never qualify.
    """
    if question.status != QuestionStatus.TRAVELLING:
        return False
    player = next((p for p in state.players if p.id == player_id), None)
    if player is None or not player.active or state.is_hider(player_id):
        return False
    return player.team_id == question.team_id or state.settings.mode == Mode.STANDARD


def has_finished_thermometer(travelled_m: float, required_m: float | None) -> bool:
    """Say whether travelling ``travelled_m`` from the asker's starting pin finishes it.

    Reaching the distance exactly is enough; a thermometer without a distance
    (``required_m`` None) is finished by any pin.
    """
    return travelled_m >= (required_m or 0.0)
