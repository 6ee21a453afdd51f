"""The referee's jobs: what must be done when an announcement is taken from the outbox,
before anything is shown.

- ``RequestZone`` (the hiding period or a Move ended): fix the zone from the hider's pin at
  that moment (``rules.hiding``), or tell the group the zone is pending and ask the hider
  privately for a pin (the first one they send fixes it, and the group hears it is set).
- ``CheckHidingSpot`` (the hiding period is about to end): tell the hider privately when
  they are not near any station of the map, or ask for a location when there is none.
- ``FreezeHidingSpot`` (the end game began): remember where the hider is.
- ``question.incoming`` (a question reached the hider): work out and store what the pins
  say of it, and answer it when automatic answers are on and the pins are clear.

Each job runs in a unit of work of its own, on the locked game, and commits; the outbox
entry of a ``RequestZone``/``FreezeHidingSpot`` is marked done in the same transaction.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import replace
from datetime import datetime

from hideseek_chat.chat import checking, referee, sightings
from hideseek_chat.chat.turn import Services
from hideseek_chat.rules import hiding, pins
from hideseek_chat.rules.decisions import (
    GROUP,
    HIDERS,
    CheckHidingSpot,
    Decision,
    FreezeHidingSpot,
    Notify,
    RequestZone,
)
from hideseek_chat.rules.errors import RuleViolation
from hideseek_chat.rules.state import GameState, Phase, QuestionStatus
from hideseek_chat.store import OutboxMessage, UnitOfWork, apply_event
from hideseek_chat.store.chats import SpotData


def is_job(decision: Decision) -> bool:
    """Whether ``decision`` is work for the referee rather than something to show."""
    return isinstance(decision, RequestZone | FreezeHidingSpot | CheckHidingSpot)


def carry_out(services: Services, message: OutboxMessage, now: datetime) -> None:
    """Do the referee's job ``message`` and mark it done; what it has to say goes to the
    outbox in the same transaction."""
    decision = message.decision
    with services.uow_factory() as uow:
        uow.games.lock(message.game_id)
        state = uow.games.get(message.game_id)
        current = state.current_round
        wanted = getattr(decision, "round_number", None)
        if current is None or current.number != wanted:
            pass  # a round that is over: nothing left to do
        elif isinstance(decision, FreezeHidingSpot):
            ping = sightings.hider_pin(uow, message.game_id, state)
            # An old pin is not where the hider stands: their next pin is frozen instead.
            if ping is not None and referee.is_current(ping, now):
                spot = SpotData(ping.lat, ping.lon, ping.accuracy_m, now)
                uow.chats.freeze_spot(message.game_id, current.number, spot)
        elif isinstance(decision, CheckHidingSpot):
            if state.phase == Phase.HIDING:
                advice = _hiding_advice(services, uow, message, state, now)
                uow.outbox.add(message.game_id, advice, now, current.number)
        elif state.phase in (Phase.SEEKING, Phase.END_GAME) and current.zone is None:
            assert isinstance(decision, RequestZone)
            ruleset = services.ruleset(state)
            at = decision.at or now
            fixed = sightings.zone_fixed(
                uow, services.maps, ruleset, message.game_id, state, now, at
            )
            if fixed is None:
                # Nothing to fix it from: the seekers are not left guessing, the hider is asked.
                pending = [
                    Notify(GROUP, "chat.zone_pending"),
                    Notify(
                        HIDERS,
                        "chat.zone_pin_needed",
                        {"street_end": hiding.zones_on_streets(state)},
                    ),
                ]
                uow.outbox.add(message.game_id, pending, now, current.number)
            else:
                # A pin sent since the moment, before this job ran: the group was never told
                # the zone was pending, so it need not hear that it is fixed.
                with suppress(RuleViolation):  # the zone is no longer the referee's to fix
                    apply_event(
                        uow, message.game_id, state, ruleset, replace(fixed, late=False), now
                    )
        uow.outbox.mark_sent(message.id, now)
        uow.commit()
    services.states.pop(message.game_id, None)


def _hiding_advice(
    services: Services, uow: UnitOfWork, message: OutboxMessage, state: GameState, now: datetime
) -> list[Decision]:
    """What the hider hears before the hiding period ends: where the nearest station is
    when they are not near one, or that they must share a location; nothing when fine."""
    game_id = message.game_id
    ping = sightings.hider_pin(uow, game_id, state)
    if ping is None or not pins.is_current(ping.source, ping.forwarded, ping.at, now):
        return [Notify(HIDERS, "chat.hiding_no_pin")]
    ruleset = services.ruleset(state)
    advice = sightings.station_advice(
        uow, services.maps, ruleset, game_id, state, ping.lat, ping.lon
    )
    return [Notify(HIDERS, "chat.hiding_far_from_station", advice)] if advice else []


def prepare(services: Services, message: OutboxMessage, now: datetime) -> bool:
    """Check a question that reached the hider against the pins, once, and answer it when
    automatic answers are on; True when that answer was applied (new announcements)."""
    decision = message.decision
    if not isinstance(decision, Notify) or decision.key != "question.incoming":
        return False
    record_id = decision.params.get("record_id")
    if record_id is None:
        return False
    with services.uow_factory() as uow:
        game_id = message.game_id
        if uow.checks.get(game_id, int(record_id)) is not None:
            return False  # prepared before (in this process or another)
        uow.games.lock(game_id)
        state = uow.games.get(game_id)
        try:
            record = state.question_record(int(record_id))
        except KeyError:
            return False
        if record.status != QuestionStatus.PENDING:
            return False  # a thermometer's heads-up, or answered already
        ruleset = services.ruleset(state)
        suggestion = checking.compute(uow, services.maps, ruleset, game_id, state, record, now)
        event = checking.automatic_answer(uow, ruleset, game_id, state, record, suggestion, now)
        if event is not None:
            apply_event(uow, game_id, state, ruleset, event, now)
        uow.commit()
    if event is not None:
        services.states.pop(game_id, None)
    return event is not None
