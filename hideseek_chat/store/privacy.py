"""Retention and a person's right to erasure.

``purge_pings`` deletes location pings a while after their game ended (run it
periodically; ``config.ping_retention()`` reads the delay). ``delete_player_data`` erases
one person across every game: their pings go, their player rows are anonymized (games keep
their shape: questions and catches still point at a player, now nameless), and their ref and
names are struck from the event log and the outbox. Their botnet seats are anonymized the same
way (the matches and their steps stay and still replay; the seat's ref and name are gone).
The game they chose for their private messages is forgotten, and so are their GPS tracker
links (``tracker_tokens``: the fingerprints and when an app was last heard) and what the bot
knew of them outside games (their name, language, that they opened a private chat). An SMS
player's number goes too (``SmsBook.forget``: memberships, choices, held news; the texts sent
stay counted) and so does every stored update that names it (their inbox payloads: the texts
it sent, an admin's ``/invite`` in whatever format it was typed). ``erase_person``
does the same inside a unit of work the caller commits (the chat's ``/forgetme``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, or_, select, update

from hideseek_chat.store.models import (
    BotnetSeatRow,
    EventRow,
    InboxRow,
    OutboxRow,
    PersonFocusRow,
    PersonRow,
    PingRow,
    PlayerRow,
    TeamRow,
    TrackerRow,
)
from hideseek_chat.store.serialize import dumps, loads
from hideseek_chat.store.sms import number_id_of
from hideseek_chat.store.uow import UnitOfWork, UnitOfWorkFactory

#: What an erased player's name becomes; the chat layer renders it as "a former player".
ERASED_NAME = ""
ERASED = "[erased]"


@dataclass(frozen=True)
class Erasure:
    """How many rows ``delete_player_data`` touched."""

    players: int
    pings: int
    events: int
    messages: int
    botnet_seats: int = 0
    people: int = 0  # what the bot knew of them outside games (0 or 1)
    numbers: int = 0  # an SMS player's phone number (0 or 1)


def purge_pings(uow_factory: UnitOfWorkFactory, now: datetime, keep: timedelta) -> int:
    """Delete the pings of games that ended more than ``keep`` before ``now``; return how many."""
    with uow_factory() as uow:
        count = uow.pings.purge(now, keep)
        uow.commit()
    return count


def _strike(value: Any, secrets: frozenset[str]) -> Any:
    if isinstance(value, str):
        return ERASED if value in secrets else value
    if isinstance(value, list):
        return [_strike(v, secrets) for v in value]
    if isinstance(value, tuple):
        return tuple(_strike(v, secrets) for v in value)
    if isinstance(value, dict):
        return {k: _strike(v, secrets) for k, v in value.items()}
    return value


def delete_player_data(uow_factory: UnitOfWorkFactory, player_ref: str) -> Erasure:
    """Erase the person ``player_ref`` (e.g. ``tg:12345``) from every game, in one transaction."""
    with uow_factory() as uow:
        erasure = erase_person(uow, player_ref)
        uow.commit()
    return erasure


def erase_person(uow: UnitOfWork, player_ref: str) -> Erasure:
    """Erase ``player_ref`` inside ``uow`` (see the module docstring); the caller commits."""
    session = uow.session
    players = session.scalars(select(PlayerRow).where(PlayerRow.ref == player_ref)).all()
    names = {p.name for p in players if p.name}
    secrets = frozenset({player_ref, *names})
    pings = 0
    for player in players:
        result = session.execute(
            delete(PingRow).where(PingRow.game_id == player.game_id, PingRow.player_id == player.id)
        )
        pings += int(result.rowcount)  # type: ignore[attr-defined]
        player.ref = f"erased:{player.game_id}:{player.id}"
        player.name = ERASED_NAME
    games = {p.game_id for p in players}
    if names:
        # A team is named after its first player unless it was renamed.
        teams = select(TeamRow).where(TeamRow.game_id.in_(games), TeamRow.name.in_(names))
        for team in session.scalars(teams):
            team.name = ERASED_NAME
    patterns = [EventRow.actor_ref == player_ref]
    patterns += [EventRow.payload.contains(s) for s in secrets]
    events = 0
    query = select(EventRow).where(EventRow.game_id.in_(games), or_(*patterns))
    for row in session.scalars(query):
        if row.actor_ref == player_ref:
            row.actor_ref = None
        row.payload = dumps(_strike(loads(row.payload), secrets))
        events += 1
    messages = 0
    if names:
        matches = or_(*(OutboxRow.params.contains(n) for n in names))
        outbox = select(OutboxRow).where(OutboxRow.game_id.in_(games), matches)
        for message in session.scalars(outbox):
            message.params = dumps(_strike(loads(message.params), secrets))
            messages += 1
    seats = session.scalars(
        select(BotnetSeatRow).where(BotnetSeatRow.person_ref == player_ref)
    ).all()
    for seat in seats:
        # Unique per (match, seat), so it cannot collide with the other seat's ref.
        seat.person_ref = f"erased:{seat.match_id}:{seat.seat}"
        seat.name = ERASED_NAME
    # Which of their games they meant in private: nothing of it is kept.
    session.execute(delete(PersonFocusRow).where(PersonFocusRow.ref == player_ref))
    # Their tracker links, revoked or not: a fingerprint still names them.
    session.execute(delete(TrackerRow).where(TrackerRow.person_ref == player_ref))
    people = session.execute(delete(PersonRow).where(PersonRow.ref == player_ref))
    numbers = _erase_number(uow, player_ref)
    session.flush()
    return Erasure(
        len(players),
        pings,
        events,
        messages,
        botnet_seats=len(seats),
        people=int(people.rowcount),  # type: ignore[attr-defined]
        numbers=numbers,
    )


def _erase_number(uow: UnitOfWork, player_ref: str) -> int:
    """Forget the phone number of the SMS player ``player_ref``, the texts it sent and every
    other stored update that names it (an admin's ``/invite +41 79 123 45 64``, kept as
    typed when it failed, was refused or waits)."""
    number_id = number_id_of(player_ref)
    known = None if number_id is None else uow.sms.by_id(number_id)
    if known is None:
        return 0
    kept = uow.session.execute(
        select(InboxRow.id, InboxRow.payload).where(InboxRow.payload.is_not(None))
    ).all()
    naming = [i for i, payload in kept if payload and _names_number(payload, known.number)]
    if naming:
        uow.session.execute(
            update(InboxRow)
            .where(InboxRow.id.in_(naming))
            .values(payload=None)
            .execution_options(synchronize_session=False)
        )
    return int(uow.sms.forget(known.id))


def _names_number(payload: str, number: str) -> bool:
    """Whether the stored update ``payload`` holds the E.164 ``number`` in any way it may
    be typed: ``+41 79 123 45 64``, ``0041 79 123 45 64``, ``+41 (0)79 123-45-64`` or, in
    the number's own country, ``079 123 45 64``."""
    import phonenumbers  # only erasing an SMS player needs it

    if number in payload:
        return True
    try:
        region = phonenumbers.region_code_for_number(phonenumbers.parse(number))
        typed = phonenumbers.PhoneNumberMatcher(
            payload, region, leniency=phonenumbers.Leniency.POSSIBLE
        )
        e164 = phonenumbers.PhoneNumberFormat.E164
        return any(phonenumbers.format_number(m.number, e164) == number for m in typed)
    except phonenumbers.NumberParseException:
        return False
