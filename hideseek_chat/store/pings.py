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
from typing import Any, cast

from sqlalchemy import (
    Boolean,
    String,
    Table,
    bindparam,
    delete,
    exists,
    false,
    func,
    literal,
    select,
    true,
)
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, aliased

from hideseek_chat.rules.state import Phase
from hideseek_chat.store import trackers
from hideseek_chat.store.inbox import BEGIN_CTE, Inbox, Redelivered
from hideseek_chat.store.models import ChatRow, EventRow, GameRow, PingRow, PlayerRow
from hideseek_chat.store.rawrow import first_row


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
    "speed_kmh",
)


def _newer(game_id: Any, player_id: Any) -> Any:
    """A newer version of this player's position is stored already: this one is history.

    Asked as "the newest stored version is later", which the unique index on (game,
    player, sent_at, message) answers by reading one entry, whatever the planner knows of
    the table; an ``EXISTS`` with the same condition was planned, on a young table, as a
    scan of every ping of the player (0.4 ms a ping after a few thousand)."""
    newest = (
        select(func.max(PingRow.sent_at))
        .where(PingRow.game_id == game_id, PingRow.player_id == player_id)
        .scalar_subquery()
    )
    later = newest > bindparam("sent_at", type_=_PINGS.c.sent_at.type)
    return func.coalesce(later, false(), type_=Boolean)


_NEWER = _newer(bindparam("game_id"), bindparam("player_id"))
_VALUES = select(*(bindparam(name, type_=_PINGS.c[name].type) for name in _COLUMNS)).where(~_NEWER)
_VERSION = ["game_id", "player_id", "sent_at", "message_ref"]
_INSERT = {
    dialect.__name__.rsplit(".", 1)[-1]: dialect.insert(_PINGS)
    .from_select(list(_COLUMNS), _VALUES)
    .on_conflict_do_nothing(index_elements=_VERSION)
    .returning(_PINGS.c.id)
    for dialect in (postgresql, sqlite)
}


def _of_player(game_id: Any, player_id: Any) -> tuple[Any, Any]:
    """The pings of one player of one game, for reading newest first (``_NEWEST_FIRST``).

    "player between p and p" is "player = p", said so that the planner keeps the player in
    the order it must produce: then only the index on (game, player, id) gives that order.
    With an equality the order reduces to the id alone, which the primary key also gives,
    and PostgreSQL, taking the player's pings to be spread evenly over the table, walked it
    back from the newest ping of every game (to the very first for a player without pings:
    34 ms for a status with 200,000 pings kept, against 0.09 ms through the index)."""
    return PingRow.game_id == game_id, PingRow.player_id.between(player_id, player_id)


_NEWEST_FIRST = (PingRow.player_id.desc(), PingRow.id.desc())
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
        PingRow.speed_kmh,
    )
    .where(*_of_player(bindparam("game"), bindparam("player")))
    .order_by(*_NEWEST_FIRST)
    .limit(bindparam("n"))
)


# A player's newest ping taken at or before a moment: the pin a question was measured
# against. The database walks the player's pings back from the newest (the index on game,
# player, id) and stops at the first old enough: one row crosses to Python, however many
# pings the player sent since (a live location sends one every few seconds, for hours).
_BEFORE_AT = (
    select(*_LAST.selected_columns)
    .where(
        *_of_player(bindparam("game"), bindparam("player")),
        PingRow.at <= bindparam("at", type_=_PINGS.c.at.type),
    )
    .order_by(*_NEWEST_FIRST)
    .limit(1)
)


_PING_COLUMNS = [c.name for c in _LAST.selected_columns]
_NEW_PING = _PING_COLUMNS[3:]  # a stored ping's fields after its ids, from its values
# Every player's newest ping in a game, in one statement (the newest has the highest id):
# one index probe a player of the game, not a pass over every ping the game ever had.
_PLAYER_NEWEST = (
    select(*_LAST.selected_columns)
    .where(*_of_player(PlayerRow.game_id, PlayerRow.id))
    .order_by(*_NEWEST_FIRST)
    .limit(1)
    .lateral("newest")
)
_NEWEST = {
    "postgresql": select(*_PLAYER_NEWEST.c)
    .select_from(PlayerRow)
    .join(_PLAYER_NEWEST, true())
    .where(PlayerRow.game_id == bindparam("game")),
    # SQLite has no LATERAL: the newest id of each player, from the same index.
    "sqlite": select(*_LAST.selected_columns).where(
        PingRow.id.in_(
            select(func.max(PingRow.id))
            .where(PingRow.game_id == bindparam("game"))
            .group_by(PingRow.player_id)
        )
    ),
}
# PostgreSQL, in one round trip: find the target, store the ping unless this version (or a
# newer one) is stored, and read the ping it follows (the statement's snapshot is from
# before its insert), so that ``last`` needs no query for the two newest pings.
_T_COLUMNS = select(
    GameRow.id.label("game_id"),
    PlayerRow.id.label("player_id"),
    GameRow.phase.label("phase"),
    _LAST_EVENT.label("last_event_id"),
)
# The player in the chat's current game (a ping in the group).
_FOUND = (
    _T_COLUMNS.join_from(GameRow, PlayerRow, PlayerRow.game_id == GameRow.id)
    .where(GameRow.id == _CURRENT_GAME, PlayerRow.ref == bindparam("ref"), PlayerRow.active)
    .cte("found")
)
def _found_alone(ref: Any, source: Any = None, *extra: Any) -> Any:
    """The player ``ref`` in the only unfinished game they play in (a ping in their private
    chat), with the game's chat key and title and the ``extra`` columns; no row when they
    play in none or in several (then the chat layer asks which one it is). ``source`` is
    where ``ref`` comes from, when it is a column."""
    elsewhere_player, elsewhere_game = aliased(PlayerRow), aliased(GameRow)
    unfinished = (
        select(func.count())
        .select_from(elsewhere_player)
        .join(elsewhere_game, elsewhere_game.id == elsewhere_player.game_id)
        .where(
            elsewhere_player.ref == ref,
            elsewhere_player.active,
            elsewhere_game.phase != Phase.GAME_OVER,
        )
        .scalar_subquery()
    )
    found = _T_COLUMNS.add_columns(
        ChatRow.key.label("chat_key"), ChatRow.title.label("chat_title"), *extra
    )
    if source is not None:
        found = found.select_from(source)
    return (
        found.join_from(GameRow, PlayerRow, PlayerRow.game_id == GameRow.id)
        .join(ChatRow, ChatRow.id == GameRow.chat_id)
        .where(
            PlayerRow.ref == ref,
            PlayerRow.active,
            GameRow.phase != Phase.GAME_OVER,
            unfinished == 1,
        )
        .cte("found")
    )


_FOUND_ALONE = _found_alone(bindparam("ref"))


def _record_statement(found: Any, with_begin: bool, *after: Any, source: Any = None) -> Any:
    """The one statement of ``record`` on PostgreSQL for the player ``found`` names;
    ``with_begin`` also writes the update's inbox row (``Inbox.defer``) and stores the ping
    only when the update is new. A column of ``found`` named as one of the ping's is
    stored instead of its parameter. Always one row: the begun inbox id (or None), the
    target, the stored ping's id, the ping before, the rest of ``found``'s columns, then
    the ``after`` columns (of ``source``, a CTE of at most one row that ``found`` reads);
    all None when the person is not a player."""
    condition = ~_newer(found.c.game_id, found.c.player_id)
    if with_begin:
        condition = condition & exists(select(BEGIN_CTE.c.id))
    stored = (
        postgresql.insert(_PINGS)
        .from_select(
            list(_COLUMNS),
            select(
                found.c.game_id,
                found.c.player_id,
                *(
                    found.c[name]
                    if name in found.c
                    else bindparam(name, type_=_PINGS.c[name].type)
                    for name in _COLUMNS[2:]
                ),
            ).where(condition),
        )
        .on_conflict_do_nothing(index_elements=_VERSION)
        .returning(_PINGS.c.id)
        .cte("stored")
    )
    before = (
        select(*_LAST.selected_columns)
        .where(*_of_player(found.c.game_id, found.c.player_id))
        .order_by(*_NEWEST_FIRST)
        .limit(1)
        .lateral("before")
    )
    begun = select(BEGIN_CTE.c.id).scalar_subquery() if with_begin else literal(None)
    one = select(begun.label("begun_id")).subquery("one")
    target = ("game_id", "player_id", "phase", "last_event_id")
    statement = select(
        one.c.begun_id,
        *(found.c[name] for name in target),
        select(stored.c.id).scalar_subquery().label("stored_id"),
        *(before.c[name] for name in _PING_COLUMNS),
        *(column for column in found.c if column.name not in target),
        *after,
    )
    joined = one if source is None else one.outerjoin(source, true())
    return statement.select_from(joined.outerjoin(found, true()).outerjoin(before, true()))


# A tracker app's ping (PostgreSQL): its token checked and noted as heard, its holder's game
# found, the ping stored, in one statement; the holder's row (as ``Trackers.heard`` reads it)
# comes last, for the holder of a token in several games or none.
_HEARD = trackers.HEARD.cte("heard")
_TRACKED = _record_statement(
    _found_alone(
        _HEARD.c.person_ref,
        _HEARD,
        (literal("trk:") + sql_cast(_HEARD.c.id, String)).label("message_ref"),
    ),
    False,
    *_HEARD.c,
    *trackers.games_of(_HEARD.c.person_ref),
    source=_HEARD,
)

_RECORD = {
    (alone, begin): _record_statement(_FOUND_ALONE if alone else _FOUND, begin)
    for alone in (False, True)
    for begin in (False, True)
}


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
        speed_kmh: float | None = None,
    ) -> bool:
        """Store a ping; False (nothing written) when this version of ``message_ref`` is
        stored already or the player has a newer one (``sent_at`` later than this)."""
        self._recent.pop((game_id, player_id), None)
        connection = self.session.connection()
        inserted = connection.execute(
            _INSERT[connection.dialect.name],
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
        connection = self.session.connection()
        if connection.dialect.name != "postgresql":
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
        row = first_row(self.session.connection(), _TRACKED, values)
        assert row is not None  # always one row (``_record_statement``)
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
        row = first_row(self.session.connection(), _RECORD[alone, deferred is not None], values)
        assert row is not None  # always one row (``_record_statement``)
        if inbox is not None and deferred is not None:
            inbox.begun(deferred["update_id"], row[0] is not None)
        return self._recorded(row, values, (row[-2], row[-1]) if alone else None)

    def _recorded(
        self, row: Any, values: dict[str, Any], chat: tuple[str, str | None] | None
    ) -> Recorded | None:
        """What a ``_record_statement`` row says was recorded; the new ping and the one
        before it are remembered for this unit of work's reads."""
        game_id, player_id, phase, last_event_id, stored_id = row[1:6]
        if game_id is None:
            return None
        target = PingTarget(game_id, player_id, phase, last_event_id)
        if stored_id is None:
            self._recent.pop((game_id, player_id), None)
            return Recorded(target, False, chat)
        new = Ping(stored_id, game_id, player_id, *(values[name] for name in _NEW_PING))
        before = row[6 : 6 + len(_PING_COLUMNS)]
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
        rows = self.session.connection().execute(
            _LAST, {"game": game_id, "player": player_id, "n": n}
        )
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
            .execute(_BEFORE_AT, {"game": game_id, "player": player_id, "at": at})
            .first()
        )
        return None if row is None else Ping(*row)  # type: ignore[call-arg]

    def newest(self, game_id: int) -> dict[int, Ping]:
        """Each player's latest ping in the game (by player id), in one query."""
        connection = self.session.connection()
        rows = connection.execute(_NEWEST[connection.dialect.name], {"game": game_id})
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
