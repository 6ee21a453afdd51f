"""Location pings: record them with the reads a ping needs, read the latest, purge old ones.

A ping names the chat and the person (their channel ref); ``record`` finds the chat's
current game, the player and the phase in one query and inserts the ping; ``record_alone``
does the same in the sender's only unfinished game (a location in their private chat).

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
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from hideseek_chat.rules.state import Phase
from hideseek_chat.store import ping_sql as sql
from hideseek_chat.store import trackers
from hideseek_chat.store.inbox import Inbox, Redelivered
from hideseek_chat.store.models import GameRow, PingRow
from hideseek_chat.store.rawrow import all_rows, first_row, lend


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
    speed_kmh: float | None = None  # as the device measured it (a tracker app)


def _ping_values(
    lat: float,
    lon: float,
    at: datetime,
    accuracy_m: float | None,
    source: str,
    forwarded: bool,
    sent_at: datetime | None,
    speed_kmh: float | None,
) -> dict[str, Any]:
    """A ping's own values for a statement's parameters (its ids and version aside)."""
    return {
        "lat": lat,
        "lon": lon,
        "accuracy_m": accuracy_m,
        "source": source,
        "forwarded": forwarded,
        "at": at,
        "sent_at": sent_at,
        "speed_kmh": speed_kmh,
    }


@dataclass(frozen=True)
class Recorded:
    """What ``record`` found and did: whose ping, and whether it was stored."""

    target: PingTarget
    stored: bool
    #: the game's chat key and title, when ``record_alone`` found the game
    chat: tuple[str, str | None] | None = None


class Pings:
    def __init__(self, session: Session) -> None:
        self.session = session
        #: (game, player) -> their newest pings, newest first, as ``record`` left them in this
        #: unit of work, and whether that list holds every ping they have
        self._recent: dict[tuple[int, int], tuple[list[Ping], bool]] = {}

    def target(self, chat_key: str, player_ref: str) -> PingTarget | None:
        """The chat's current game, the active player ``player_ref`` in it, and its phase."""
        row = self.session.connection().execute(sql.TARGET, {"chat": chat_key, "ref": player_ref})
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
        speed_kmh: float | None = None,
    ) -> bool:
        """Store a ping; False (nothing written) when this version of ``message_ref`` is
        stored already or the player has a newer one (``sent_at`` later than this)."""
        self._recent.pop((game_id, player_id), None)
        connection = self.session.connection()
        inserted = connection.execute(
            sql.INSERT[connection.dialect.name],
            {
                "game_id": game_id,
                "player_id": player_id,
                "message_ref": message_ref,
                **_ping_values(lat, lon, at, accuracy_m, source, forwarded, sent_at, speed_kmh),
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
        message_ref: str | None = None,
        sent_at: datetime | None = None,
        inbox: Inbox | None = None,
        speed_kmh: float | None = None,
    ) -> Recorded | None:
        """Store a ping of ``player_ref`` in the chat's current game (as ``add`` does); None
        when they are not an active player of it.

        On PostgreSQL this is one statement, which also reads the ping it follows, so the
        referee's reads of the player's two newest pins in this unit of work need no query,
        and writes the update's inbox row when ``inbox`` deferred it (``Inbox.defer``):
        ``Redelivered`` propagates when the update was handled already.
        """
        if lend(self.session).dialect.name != "postgresql":
            if inbox is not None and not inbox.begin_deferred():
                raise Redelivered("deferred update")
            found = self.target(chat_key, player_ref)
            if found is None:
                return None
            stored = self.add(
                found.game_id,
                found.player_id,
                lat,
                lon,
                at,
                accuracy_m,
                source,
                forwarded,
                message_ref,
                sent_at,
                speed_kmh,
            )
            return Recorded(found, stored)
        values = {
            "chat": chat_key,
            "ref": player_ref,
            "message_ref": message_ref,
            **_ping_values(lat, lon, at, accuracy_m, source, forwarded, sent_at, speed_kmh),
        }
        return self._record_in_one(False, values, inbox)

    def record_alone(
        self,
        player_ref: str,
        lat: float,
        lon: float,
        at: datetime,
        accuracy_m: float | None = None,
        source: str = "live",
        message_ref: str | None = None,
        sent_at: datetime | None = None,
        inbox: Inbox | None = None,
        speed_kmh: float | None = None,
    ) -> Recorded | None:
        """``record`` in the only unfinished game ``player_ref`` plays in (a location in
        their private chat), naming that game's chat in ``Recorded.chat``: one statement
        on PostgreSQL. None, with nothing stored, when they play in no unfinished game or
        in several, and off PostgreSQL: the caller then finds the game and calls
        ``record``. A deferred inbox row is written either way."""
        if self.session.get_bind().dialect.name != "postgresql":
            return None
        values = {
            "ref": player_ref,
            "message_ref": message_ref,
            **_ping_values(lat, lon, at, accuracy_m, source, False, sent_at, speed_kmh),
        }
        return self._record_in_one(True, values, inbox)

    def record_tracked(
        self,
        hashed: str,
        app: str,
        heard_at: datetime,
        lat: float,
        lon: float,
        at: datetime,
        accuracy_m: float | None,
        source: str,
        sent_at: datetime | None,
        speed_kmh: float | None = None,
    ) -> tuple[trackers.Holder | None, Recorded | None]:
        """``Trackers.heard`` and ``record_alone`` in one statement on PostgreSQL: the live
        token hashed ``hashed`` noted as heard from ``app``, and the ping stored as its
        holder's in their only unfinished game, versioned by the token (``trk:<id>``).
        Returns the holder (None: no such live token, nothing written) and what was
        recorded (None, nothing stored: the holder plays in no unfinished game or in
        several, or off PostgreSQL, where only ``heard`` runs). ``ForgedToken`` as
        ``heard``."""
        if self.session.get_bind().dialect.name != "postgresql":
            return trackers.Trackers(self.session).heard(hashed, app, heard_at), None
        values = {
            "hashed": hashed,
            "app": app[:16],
            "heard_at": heard_at,
            **_ping_values(lat, lon, at, accuracy_m, source, False, sent_at, speed_kmh),
        }
        row = first_row(lend(self.session), sql.TRACKED, values)
        assert row is not None  # always one row (``ping_sql.RECORD``)
        holder = trackers.verified(row[-5:] if row[-5] is not None else None, hashed)
        if holder is None:
            return None, None
        return holder, self._recorded(row, values, None)  # the holder names the chat

    def _record_in_one(
        self, alone: bool, values: dict[str, Any], inbox: Inbox | None
    ) -> Recorded | None:
        deferred = inbox.take_deferred() if inbox is not None else None
        if deferred is not None:
            values.update(deferred)
        row = first_row(lend(self.session), sql.RECORD[alone, deferred is not None], values)
        assert row is not None  # always one row (``ping_sql.RECORD``)
        if inbox is not None and deferred is not None:
            inbox.begun(deferred["update_id"], row[0] is not None)
        return self._recorded(row, values, (row[-2], row[-1]) if alone else None)

    def _recorded(
        self, row: Any, values: dict[str, Any], chat: tuple[str, str | None] | None
    ) -> Recorded | None:
        """What a ``ping_sql.RECORD`` row says was recorded; the new ping and the one
        before it are remembered for this unit of work's reads."""
        game_id, player_id, phase, last_event_id, stored_id = row[1:6]
        if game_id is None:
            return None
        target = PingTarget(game_id, player_id, phase, last_event_id)
        if stored_id is None:
            self._recent.pop((game_id, player_id), None)
            return Recorded(target, False, chat)
        new = Ping(stored_id, game_id, player_id, *(values[name] for name in sql.NEW_PING))
        before = row[6 : 6 + len(sql.PING_COLUMNS)]
        if before[0] is None:
            self._recent[(game_id, player_id)] = ([new], True)  # their first ping
        else:
            self._recent[(game_id, player_id)] = ([new, Ping(*before)], False)
        return Recorded(target, True, chat)

    def forget(self) -> None:
        """Drop what ``record`` remembered (the transaction was rolled back)."""
        self._recent.clear()

    def last(self, game_id: int, player_id: int, n: int = 1) -> list[Ping]:
        """The player's ``n`` latest pings in the game, newest first."""
        known = self._recent.get((game_id, player_id))
        if known is not None and (n <= len(known[0]) or known[1]):
            return known[0][:n]
        values = {"game": game_id, "player": player_id, "n": n}
        rows = all_rows(lend(self.session), sql.LAST, values)
        return [Ping(*row) for row in rows]  # type: ignore[call-arg]  # ten columns: untyped

    def before(self, game_id: int, player_id: int, at: datetime) -> Ping | None:
        """The player's newest ping (by the order they were stored) taken at or before
        ``at``; None when they have none that old."""
        known = self._recent.get((game_id, player_id))
        if known is not None:
            for ping in known[0]:
                if ping.at <= at:
                    return ping
            if known[1]:
                return None
        row = (
            self.session.connection()
            .execute(sql.BEFORE_AT, {"game": game_id, "player": player_id, "at": at})
            .first()
        )
        return None if row is None else Ping(*row)  # type: ignore[call-arg]

    def newest(self, game_id: int) -> dict[int, Ping]:
        """Each player's latest ping in the game (by player id), in one query."""
        connection = lend(self.session)
        rows = all_rows(connection, sql.NEWEST[connection.dialect.name], {"game": game_id})
        pings = [Ping(*row) for row in rows]  # type: ignore[call-arg]  # ten columns: untyped
        return {ping.player_id: ping for ping in pings}

    def purge(self, now: datetime, keep: timedelta) -> int:
        """Delete the pings of games that ended more than ``keep`` before ``now``."""
        ended = select(GameRow.id).where(
            GameRow.ended_at.is_not(None), GameRow.ended_at <= now - keep
        )
        self._recent.clear()
        result = self.session.execute(delete(PingRow).where(PingRow.game_id.in_(ended)))
        return int(result.rowcount)  # type: ignore[attr-defined]
