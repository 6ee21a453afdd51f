"""A game's history as plain JSON values: ``hideseek-chat export GAME``.

The export holds the game's metadata, its players and every logged event in order. It is for
the person running the bot (a dispute, an archive, a bug report): it names the players and
may hold the places their pings and answers gave, so it is written where they asked, never to
a chat or a log.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any

from sqlalchemy import select

from hideseek_chat.store.models import ChatRow, GameRow, PlayerRow, TeamRow
from hideseek_chat.store.repository import GameNotFound
from hideseek_chat.store.uow import UnitOfWorkFactory

#: The export's format; a reader checks it before trusting the fields.
FORMAT = "hideseek_chat.game-export/1"


def _plain(value: Any) -> Any:
    """``value`` with datetimes as ISO 8601 text, enums as their values, tuples as lists."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Enum):
        return _plain(value.value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def export_game(uow_factory: UnitOfWorkFactory, game_id: int) -> dict[str, Any]:
    """The game ``game_id`` as JSON-ready values; raise ``GameNotFound`` when there is none."""
    with uow_factory() as uow:
        session = uow.session
        game = session.get(GameRow, game_id)
        if game is None:
            raise GameNotFound(game_id)
        chat = session.get(ChatRow, game.chat_id)
        teams = {
            team.id: team.name
            for team in session.scalars(select(TeamRow).where(TeamRow.game_id == game_id))
        }
        players = session.scalars(
            select(PlayerRow).where(PlayerRow.game_id == game_id).order_by(PlayerRow.id)
        ).all()
        events = uow.events.for_game(game_id)
        return _plain(
            {
                "format": FORMAT,
                "game": {
                    "id": game.id,
                    "chat": chat.key if chat is not None else None,
                    "chat_title": chat.title if chat is not None else None,
                    "ruleset": game.ruleset,
                    "size": game.size,
                    "seed": game.seed,
                    "phase": game.phase,
                    "created_at": game.created_at,
                    "started_at": game.started_at,
                    "ended_at": game.ended_at,
                },
                "players": [
                    {
                        "id": p.id,
                        "ref": p.ref,
                        "name": p.name,
                        "team": teams.get(p.team_id),
                        "active": p.active,
                    }
                    for p in players
                ],
                "events": [
                    {
                        "id": e.id,
                        "type": e.type,
                        "actor": e.actor_ref,
                        "at": e.occurred_at,
                        "update": e.update_id,
                        "payload": e.payload,
                    }
                    for e in events
                ],
            }
        )
