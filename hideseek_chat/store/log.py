"""The event log and the outbox, as used inside a unit of work."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from hideseek_chat.rules.decisions import Decision
from hideseek_chat.rules.events import Event
from hideseek_chat.rules.state import GameState
from hideseek_chat.store.models import ChatRow, EventRow, GameRow, OutboxRow
from hideseek_chat.store.serialize import (
    DecisionColumns,
    EventColumns,
    decode_decision,
    decode_event,
    dumps,
    encode_decision,
    encode_event,
    loads,
)

#: The log entry ``start_game`` writes; not an engine event (``rules.new_game`` makes games).
GAME_CREATED = "GameCreated"


@dataclass(frozen=True)
class LoggedEvent:
    id: int
    game_id: int
    type: str
    actor_ref: str | None
    occurred_at: datetime
    update_id: str | None
    payload: dict[str, Any]

    def event(self) -> Event:
        """Rebuild the engine event (not for ``GameCreated`` entries)."""
        return decode_event(EventColumns(self.type, self.actor_ref, dumps(self.payload)))


def event_values(
    game_id: int, columns: EventColumns, occurred_at: datetime, update_id: str | None
) -> dict[str, Any]:
    """An ``event_log`` row's values (attribute names are the column names)."""
    return {
        "game_id": game_id,
        "type": columns.type,
        "actor_ref": columns.actor_ref,
        "occurred_at": occurred_at,
        "update_id": update_id,
        "payload": columns.payload,
    }


def outbox_values(
    game_id: int, decisions: Iterable[Decision], now: datetime, round_number: int | None
) -> list[dict[str, Any]]:
    """The ``outbox`` rows of ``decisions``, in order (attribute names are the column
    names); a notice keeps ``round_number`` (see ``Outbox.add``)."""
    rows = []
    for decision in decisions:
        columns = encode_decision(decision)
        if columns.kind == "Notify":
            columns = replace(columns, round_number=round_number)
        rows.append(
            {
                "game_id": game_id,
                "kind": columns.kind,
                "audience_kind": columns.audience_kind,
                "audience_player_id": columns.audience_player_id,
                "audience_team_id": columns.audience_team_id,
                "key": columns.key,
                "params": columns.params,
                "round_number": columns.round_number,
                "created_at": now,
                "sent_at": None,
            }
        )
    return rows


class EventLog:
    """Append-only history of every applied event."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def append(
        self, game_id: int, event: Event, occurred_at: datetime, update_id: str | None = None
    ) -> None:
        columns = encode_event(event)
        self._add(game_id, columns, occurred_at, update_id)

    def append_created(
        self,
        game_id: int,
        state: GameState,
        admin_ref: str | None,
        occurred_at: datetime,
        update_id: str | None = None,
    ) -> None:
        payload = dumps({"ruleset": state.ruleset, "size": state.size, "seed": state.seed})
        self._add(game_id, EventColumns(GAME_CREATED, admin_ref, payload), occurred_at, update_id)

    def _add(
        self, game_id: int, columns: EventColumns, occurred_at: datetime, update_id: str | None
    ) -> None:
        self.session.add(EventRow(**event_values(game_id, columns, occurred_at, update_id)))

    def for_game(self, game_id: int) -> list[LoggedEvent]:
        """The game's log, oldest first."""
        rows = self.session.scalars(
            select(EventRow).where(EventRow.game_id == game_id).order_by(EventRow.id)
        )
        return [
            LoggedEvent(
                row.id,
                row.game_id,
                row.type,
                row.actor_ref,
                row.occurred_at,
                row.update_id,
                loads(row.payload),
            )
            for row in rows
        ]


@dataclass(frozen=True)
class OutboxMessage:
    id: int
    game_id: int
    chat_key: str
    decision: Decision
    created_at: datetime
    #: the game's newest round when it was written (for a notice), which decides who the
    #: hiders are: by sequence, never by ``created_at`` (a fast clock restarted runs back)
    round_number: int | None = None


class Outbox:
    """Decisions written with the state change that made them, delivered after commit."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def add(
        self,
        game_id: int,
        decisions: Iterable[Decision],
        now: datetime,
        round_number: int | None = None,
    ) -> None:
        """Queue ``decisions``; ``round_number`` is the game's newest round, kept with each
        notice so that "the hiders" are that round's, whatever the clocks say."""
        for values in outbox_values(game_id, decisions, now, round_number):
            self.session.add(OutboxRow(**values))

    def pending_games(self, limit: int = 100) -> list[int]:
        """The games with unsent messages, the one waiting longest first."""
        query = (
            select(OutboxRow.game_id)
            .where(OutboxRow.sent_at.is_(None))
            .group_by(OutboxRow.game_id)
            .order_by(func.min(OutboxRow.id))
            .limit(limit)
        )
        return list(self.session.scalars(query))

    def pending(
        self, limit: int = 100, for_update: bool = False, game_id: int | None = None
    ) -> list[OutboxMessage]:
        """Unsent messages (of ``game_id`` only, if given), oldest first.

        ``for_update`` locks them (skipping rows another sender holds on PostgreSQL) until
        the unit of work ends: send, ``mark_sent`` and commit inside that unit of work.
        """
        query = (
            select(OutboxRow, ChatRow.key)
            .join(GameRow, GameRow.id == OutboxRow.game_id)
            .join(ChatRow, ChatRow.id == GameRow.chat_id)
            .where(OutboxRow.sent_at.is_(None))
            .order_by(OutboxRow.id)
            .limit(limit)
        )
        if game_id is not None:
            query = query.where(OutboxRow.game_id == game_id)
        if for_update:
            query = query.with_for_update(of=OutboxRow, skip_locked=True)
        return [
            OutboxMessage(
                row.id,
                row.game_id,
                chat_key,
                decode_decision(
                    DecisionColumns(
                        row.kind,
                        row.audience_kind,
                        row.audience_player_id,
                        row.audience_team_id,
                        row.key,
                        row.params,
                        row.round_number,
                    )
                ),
                row.created_at,
                row.round_number,
            )
            for row, chat_key in self.session.execute(query)
        ]

    def notified_since(
        self, game_id: int, player_id: int, keys: Iterable[str], since: datetime
    ) -> bool:
        """Whether a notice with one of ``keys`` was addressed to ``player_id`` alone after
        ``since`` (sent or not)."""
        query = (
            select(OutboxRow.id)
            .where(
                OutboxRow.game_id == game_id,
                OutboxRow.audience_player_id == player_id,
                OutboxRow.key.in_(list(keys)),
                OutboxRow.created_at > since,
            )
            .limit(1)
        )
        return self.session.scalar(query) is not None

    def mark_sent(self, message_id: int, now: datetime) -> None:
        row = self.session.get(OutboxRow, message_id)
        if row is None:
            raise LookupError(message_id)
        row.sent_at = now
        self.session.flush()
