"""Location pings: record them with the reads a ping needs, read the latest, purge old ones.

A ping names the chat and the person (their channel ref); ``record`` finds the chat's
current game, the player and the phase in one query and inserts the ping.

Location updates are not idempotent on their own: a channel redelivers an edit, or delivers
an older edit after a newer one. A ping names its message and that message's version (its
edit date, ``sent_at``), and ``add`` stores it only when it is new *and* not older than the
player's newest stored ping: one statement (insert ... where not exists ... on conflict do
nothing), never an IntegrityError. The order of pings is their ``id`` (a sequence), never
their times: a restart of a fast game clock moves game time back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import Table, bindparam, delete, exists, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from hideseek_chat.rules.state import Phase
from hideseek_chat.store.models import ChatRow, EventRow, GameRow, PingRow, PlayerRow


@dataclass(frozen=True)
class PingTarget:
    """Whose ping it is: the game, the player in it and the game's phase."""

    game_id: int
    player_id: int
    phase: Phase
    last_event_id: int | None = None  # changes whenever the game's state does


@dataclass(frozen=True)
class Ping:
    id: int
    game_id: int
    player_id: int
    lat: float
    lon: float
    accuracy_m: float | None
    source: str
    forwarded: bool
    at: datetime


# Pings are many and write-only: prebuilt Core statements skip statement construction and
# the ORM's flush on the hot path (see bench/bench_store.py).
_CURRENT_GAME = (
    select(func.max(GameRow.id))
    .join(ChatRow, ChatRow.id == GameRow.chat_id)
    .where(ChatRow.key == bindparam("chat"))
    .scalar_subquery()
)
_LAST_EVENT = select(func.max(EventRow.id)).where(EventRow.game_id == GameRow.id).scalar_subquery()
_TARGET = (
    select(GameRow.id, PlayerRow.id, GameRow.phase, _LAST_EVENT)
    .join(PlayerRow, PlayerRow.game_id == GameRow.id)
    .where(GameRow.id == _CURRENT_GAME, PlayerRow.ref == bindparam("ref"), PlayerRow.active)
)
_PINGS = cast(Table, PingRow.__table__)
_COLUMNS = (
    "game_id",
    "player_id",
    "lat",
    "lon",
    "accuracy_m",
    "source",
    "forwarded",
    "at",
    "message_ref",
    "sent_at",
)
# A newer version of this player's position is stored already: this one is history.
_NEWER = exists().where(
    PingRow.game_id == bindparam("game_id"),
    PingRow.player_id == bindparam("player_id"),
    PingRow.sent_at > bindparam("sent_at", type_=_PINGS.c.sent_at.type),
)
_VALUES = select(*(bindparam(name, type_=_PINGS.c[name].type) for name in _COLUMNS)).where(
    ~_NEWER
)
_VERSION = ["game_id", "player_id", "sent_at", "message_ref"]
_INSERT = {
    dialect.__name__.rsplit(".", 1)[-1]: dialect.insert(_PINGS)
    .from_select(list(_COLUMNS), _VALUES)
    .on_conflict_do_nothing(index_elements=_VERSION)
    .returning(_PINGS.c.id)
    for dialect in (postgresql, sqlite)
}
# The referee reads a seeker's track on every live edit near the zone: plain rows, no ORM
# identity map, a statement built once.
_LAST = (
    select(
        PingRow.id,
        PingRow.game_id,
        PingRow.player_id,
        PingRow.lat,
        PingRow.lon,
        PingRow.accuracy_m,
        PingRow.source,
        PingRow.forwarded,
        PingRow.at,
    )
    .where(PingRow.game_id == bindparam("game"), PingRow.player_id == bindparam("player"))
    .order_by(PingRow.id.desc())
    .limit(bindparam("n"))
)


class Pings:
    def __init__(self, session: Session) -> None:
        self.session = session

    def target(self, chat_key: str, player_ref: str) -> PingTarget | None:
        """The chat's current game, the active player ``player_ref`` in it, and its phase."""
        row = self.session.connection().execute(_TARGET, {"chat": chat_key, "ref": player_ref})
        found = row.first()
        return None if found is None else PingTarget(*found)

    def add(
        self,
        game_id: int,
        player_id: int,
        lat: float,
        lon: float,
        at: datetime,
        accuracy_m: float | None = None,
        source: str = "live",
        forwarded: bool = False,
        message_ref: str | None = None,
        sent_at: datetime | None = None,
    ) -> bool:
        """Store a ping; False (nothing written) when this version of ``message_ref`` is
        stored already or the player has a newer one (``sent_at`` later than this)."""
        connection = self.session.connection()
        inserted = connection.execute(
            _INSERT[connection.dialect.name],
            {
                "game_id": game_id,
                "player_id": player_id,
                "lat": lat,
                "lon": lon,
                "accuracy_m": accuracy_m,
                "source": source,
                "forwarded": forwarded,
                "at": at,
                "message_ref": message_ref,
                "sent_at": sent_at,
            },
        )
        return inserted.first() is not None

    def record(
        self,
        chat_key: str,
        player_ref: str,
        lat: float,
        lon: float,
        at: datetime,
        accuracy_m: float | None = None,
        source: str = "live",
        forwarded: bool = False,
    ) -> PingTarget | None:
        """Store a ping of ``player_ref`` in the chat's current game; None if not a player."""
        found = self.target(chat_key, player_ref)
        if found is not None:
            self.add(found.game_id, found.player_id, lat, lon, at, accuracy_m, source, forwarded)
        return found

    def last(self, game_id: int, player_id: int, n: int = 1) -> list[Ping]:
        """The player's ``n`` latest pings in the game, newest first."""
        rows = self.session.connection().execute(
            _LAST, {"game": game_id, "player": player_id, "n": n}
        )
        return [Ping(*row) for row in rows]

    def purge(self, now: datetime, keep: timedelta) -> int:
        """Delete the pings of games that ended more than ``keep`` before ``now``."""
        ended = select(GameRow.id).where(
            GameRow.ended_at.is_not(None), GameRow.ended_at <= now - keep
        )
        result = self.session.execute(delete(PingRow).where(PingRow.game_id.in_(ended)))
        return int(result.rowcount)  # type: ignore[attr-defined]
