"""The referee's jobs: what must be done when an announcement is taken from the outbox,
before anything is shown.

- ``RequestZone`` (the hiding period ended): fix the zone from the hider's current pin, or
  ask the hider privately to share one (the zone is then fixed from that pin).
- ``FreezeHidingSpot`` (the end game began): remember where the hider is.
- ``question.incoming`` (a question reached the hider): work out and store what the pins
  say of it, and answer it when automatic answers are on and the pins are clear.

Each job runs in a unit of work of its own, on the locked game, and commits; the outbox
entry of a ``RequestZone``/``FreezeHidingSpot`` is marked done in the same transaction.
"""

from __future__ import annotations

from contextlib import suppress
from datetime import datetime

from hideseek_chat.chat import checking, referee, sightings
from hideseek_chat.chat.model import Outbound, SendText
from hideseek_chat.chat.texts import say
from hideseek_chat.chat.turn import Services
from hideseek_chat.rules.decisions import Decision, FreezeHidingSpot, Notify, RequestZone
from hideseek_chat.rules.errors import RuleViolation
from hideseek_chat.rules.state import Phase, QuestionStatus
from hideseek_chat.store import OutboxMessage, apply_event
from hideseek_chat.store.chats import SpotData


def is_job(decision: Decision) -> bool:
    """Whether ``decision`` is work for the referee rather than something to show."""
    return isinstance(decision, RequestZone | FreezeHidingSpot)


def carry_out(services: Services, message: OutboxMessage, now: datetime) -> list[Outbound]:
    """Do the referee's job ``message`` and mark it done; return what to tell the hider."""
    decision = message.decision
    with services.uow_factory() as uow:
        uow.games.lock(message.game_id)
        state = uow.games.get(message.game_id)
        current = state.current_round
        replies: list[Outbound] = []
        wanted = getattr(decision, "round_number", None)
        if current is None or current.number != wanted:
            pass  # a round that is over: nothing left to do
        elif isinstance(decision, FreezeHidingSpot):
            ping = sightings.hider_pin(uow, message.game_id, state)
            # An old pin is not where the hider stands: their next pin is frozen instead.
            if ping is not None and referee.is_current(ping, now):
                spot = SpotData(ping.lat, ping.lon, ping.accuracy_m, now)
                uow.chats.freeze_spot(message.game_id, current.number, spot)
        elif state.phase in (Phase.SEEKING, Phase.END_GAME) and current.zone is None:
            ruleset = services.ruleset(state)
            chat = message.chat_key
            fixed = sightings.zone_fixed(uow, services.maps, ruleset, message.game_id, state, now)
            if fixed is None:
                replies = [
                    SendText(
                        p.ref,
                        text=say(
                            "chat.zone_no_pin", {}, services.formatter(uow, chat, state, p.ref)
                        ),
                        private=True,
                    )
                    for p in state.team_players(current.hider_team_id)
                ]
            else:
                # Refused when the zone is no longer the referee's to fix.
                with suppress(RuleViolation):
                    apply_event(uow, message.game_id, state, ruleset, fixed, now)
        uow.outbox.mark_sent(message.id, now)
        uow.commit()
    services.states.pop(message.game_id, None)
    return replies


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
