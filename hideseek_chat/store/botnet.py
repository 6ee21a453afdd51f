"""Botnet matches as rows: who plays, who starts, every move and claim in order.

``BotnetMatches`` lives inside one unit of work (``uow.botnet``); it flushes, never commits.
A match is stored as its events; ``StoredMatch.match`` replays them with ``rules.botnet``.
To change a match, load it with ``for_update=True`` first: that locks its row until the
unit of work ends (PostgreSQL; a SQLite transaction already holds the write lock), so two
steps of one match never get the same ``seq`` or apply to a stale board.

The proxy moves in ``events`` are each player's secret while the match runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

from sqlalchemy import Select, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from hideseek_chat.rules.botnet import (
    BotnetEvent,
    DeviceClaimed,
    Ending,
    Match,
    ProxyMoved,
    Resigned,
    cell_name,
    parse_cell,
    replay,
)
from hideseek_chat.store.models import (
    BotnetMatchRow,
    BotnetSeatRow,
    BotnetStatus,
    BotnetStepKind,
    BotnetStepRow,
)

__all__ = ["BotnetMatches", "BotnetStatus", "MatchRunning", "StoredMatch"]


class MatchRunning(Exception):
    """The chat has a botnet match that is not over; a second one cannot start."""


@dataclass(frozen=True)
class StoredMatch:
    """A match as stored; ``refs[seat]``/``names[seat]`` are the players of seats 0 and 1."""

    id: int
    chat_key: str
    refs: tuple[str, str]
    names: tuple[str, str]
    status: BotnetStatus
    first_seat: int | None
    created_at: datetime
    winner_seat: int | None
    ending: Ending | None
    ended_at: datetime | None
    events: tuple[BotnetEvent, ...]  # oldest first

    @cached_property
    def match(self) -> Match | None:
        """Where the match stands, or None while the players choose who starts.

        Raises ``BotnetViolation`` if the stored events are not a legal match.
        """
        if self.first_seat is None:
            return None
        return replay(self.first_seat, list(self.events))

    def seat_of(self, ref: str) -> int | None:
        """The seat ``ref`` plays, or None when they do not play this match."""
        for seat, seated in enumerate(self.refs):
            if seated == ref:
                return seat
        return None


class BotnetMatches:
    def __init__(self, session: Session) -> None:
        self.session = session

    # ----- reading -----

    def get(self, match_id: int, for_update: bool = False) -> StoredMatch | None:
        """Load a match; ``for_update`` locks its row until the unit of work ends."""
        query = select(BotnetMatchRow.id).where(BotnetMatchRow.id == match_id)
        return self._first(query, for_update)

    def active_for_chat(self, chat_key: str, for_update: bool = False) -> StoredMatch | None:
        """The chat's newest match that is not over; ``for_update`` locks its row."""
        query = (
            select(BotnetMatchRow.id)
            .where(BotnetMatchRow.chat_key == chat_key, BotnetMatchRow.status != BotnetStatus.OVER)
            .order_by(BotnetMatchRow.id.desc())
            .limit(1)
        )
        return self._first(query, for_update)

    def latest_for_chat(self, chat_key: str) -> StoredMatch | None:
        """The chat's newest match, over or not (to show how the last one ended)."""
        query = (
            select(BotnetMatchRow.id)
            .where(BotnetMatchRow.chat_key == chat_key)
            .order_by(BotnetMatchRow.id.desc())
            .limit(1)
        )
        return self._first(query, False)

    def active_for_person(self, ref: str) -> list[StoredMatch]:
        """The matches not over in which ``ref`` holds a seat, newest first."""
        ids = self.session.scalars(
            select(BotnetMatchRow.id)
            .join(BotnetSeatRow, BotnetSeatRow.match_id == BotnetMatchRow.id)
            .where(BotnetSeatRow.person_ref == ref, BotnetMatchRow.status != BotnetStatus.OVER)
            .order_by(BotnetMatchRow.id.desc())
        ).all()
        return self._load(list(ids))

    # ----- writing -----

    def create(self, chat_key: str, seats: Sequence[tuple[str, str]], now: datetime) -> int:
        """Store a new match with ``seats[0]``/``seats[1]`` = (ref, name); return its id.

        It starts in status ``choosing``: call ``start`` once the first player is known.
        Raises ValueError unless there are exactly two seats held by two different people,
        and ``MatchRunning`` (the unit of work must then be left) when the chat has a match
        that is not over, even one another transaction has just stored.
        """
        if len(seats) != 2 or seats[0][0] == seats[1][0]:
            raise ValueError(f"a botnet match needs two different players, not {seats!r}")
        row = BotnetMatchRow(chat_key=chat_key, created_at=now, status=BotnetStatus.CHOOSING)
        self.session.add(row)
        try:
            self.session.flush()
        except IntegrityError:  # the partial unique index: one running match per chat
            raise MatchRunning(chat_key) from None
        for seat, (ref, name) in enumerate(seats):
            self.session.add(BotnetSeatRow(match_id=row.id, seat=seat, person_ref=ref, name=name))
        self.session.flush()
        return row.id

    def start(self, match_id: int, first_seat: int) -> None:
        """Record who moves first and set the match ``playing``; raise LookupError if absent."""
        row = self._row(match_id)
        row.first_seat, row.status = first_seat, BotnetStatus.PLAYING
        self.session.flush()

    def append(self, match_id: int, seat: int, event: BotnetEvent, now: datetime) -> int:
        """Store ``event`` (played by ``seat``) as the match's next step; return its seq.

        The caller applies the event to the match first (the store does not check the
        rules) and holds the match's lock (``for_update``). Raises ValueError when ``seat``
        is not the event's seat.
        """
        if seat != event.seat:
            raise ValueError(f"seat {seat} cannot store an event of seat {event.seat}")
        last = self.session.scalar(
            select(func.max(BotnetStepRow.seq)).where(BotnetStepRow.match_id == match_id)
        )
        seq = (last or 0) + 1
        kind, cell = _step_columns(event)
        self.session.add(
            BotnetStepRow(match_id=match_id, seq=seq, seat=seat, kind=kind, cell=cell, at=now)
        )
        self.session.flush()
        return seq

    def finish(self, match_id: int, winner_seat: int, ending: Ending, now: datetime) -> None:
        """Set the match ``over`` with its winner; raise LookupError if absent."""
        row = self._row(match_id)
        row.status, row.ended_at = BotnetStatus.OVER, now
        row.winner_seat, row.ending = winner_seat, ending
        self.session.flush()

    # ----- helpers -----

    def _row(self, match_id: int) -> BotnetMatchRow:
        row = self.session.get(BotnetMatchRow, match_id)
        if row is None:
            raise LookupError(match_id)
        return row

    def _first(self, query: Select[int], for_update: bool) -> StoredMatch | None:
        if for_update:
            query = query.with_for_update(of=BotnetMatchRow)
        match_id = self.session.scalar(query)
        if match_id is None:
            return None
        return self._load([match_id])[0]

    def _load(self, ids: list[int]) -> list[StoredMatch]:
        """The matches ``ids`` in that order, read in three queries."""
        if not ids:
            return []
        fresh = {"populate_existing": True}
        matches = self.session.scalars(
            select(BotnetMatchRow).where(BotnetMatchRow.id.in_(ids)).execution_options(**fresh)
        ).all()
        seats: dict[int, list[BotnetSeatRow]] = {match_id: [] for match_id in ids}
        for seat in self.session.scalars(
            select(BotnetSeatRow)
            .where(BotnetSeatRow.match_id.in_(ids))
            .order_by(BotnetSeatRow.match_id, BotnetSeatRow.seat)
            .execution_options(**fresh)
        ):
            seats[seat.match_id].append(seat)
        events: dict[int, list[BotnetEvent]] = {match_id: [] for match_id in ids}
        for step in self.session.scalars(
            select(BotnetStepRow)
            .where(BotnetStepRow.match_id.in_(ids))
            .order_by(BotnetStepRow.match_id, BotnetStepRow.seq)
            .execution_options(**fresh)
        ):
            events[step.match_id].append(_event(step))
        by_id = {row.id: row for row in matches}
        return [_stored(by_id[i], seats[i], events[i]) for i in ids if i in by_id]


def _step_columns(event: BotnetEvent) -> tuple[BotnetStepKind, str | None]:
    if isinstance(event, ProxyMoved):
        return BotnetStepKind.MOVE, cell_name(event.cell)
    if isinstance(event, DeviceClaimed):
        return BotnetStepKind.CLAIM, cell_name(event.cell)
    return BotnetStepKind.RESIGN, None


def _event(step: BotnetStepRow) -> BotnetEvent:
    if step.kind == BotnetStepKind.RESIGN:
        return Resigned(step.seat)
    assert step.cell is not None  # the table's CHECK: only a resign has no cell
    if step.kind == BotnetStepKind.MOVE:
        return ProxyMoved(step.seat, parse_cell(step.cell))
    return DeviceClaimed(step.seat, parse_cell(step.cell))


def _stored(
    row: BotnetMatchRow, seats: list[BotnetSeatRow], events: list[BotnetEvent]
) -> StoredMatch:
    first, second = seats  # create() always writes both seats
    return StoredMatch(
        id=row.id,
        chat_key=row.chat_key,
        refs=(first.person_ref, second.person_ref),
        names=(first.name, second.name),
        status=row.status,
        first_seat=row.first_seat,
        created_at=row.created_at,
        winner_seat=row.winner_seat,
        ending=row.ending,
        ended_at=row.ended_at,
        events=tuple(events),
    )
