"""The statements of location pings (``store.pings``), built once at import.

Pings are many and write-only: prebuilt Core statements skip statement construction and the
ORM's flush on the hot path (see bench/bench_store.py). On PostgreSQL a ping is recorded in
one statement (``RECORD``, ``TRACKED``) that finds whose it is, stores it and reads what the
referee reads next.
"""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import (
    Boolean,
    String,
    Table,
    bindparam,
    exists,
    false,
    func,
    literal,
    select,
    true,
)
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import aliased

from hideseek_chat.rules.state import Phase
from hideseek_chat.store import trackers
from hideseek_chat.store.inbox import BEGIN_CTE
from hideseek_chat.store.models import ChatRow, EventRow, GameRow, PingRow, PlayerRow

CURRENT_GAME = (
    select(func.max(GameRow.id))
    .join(ChatRow, ChatRow.id == GameRow.chat_id)
    .where(ChatRow.key == bindparam("chat"))
    .scalar_subquery()
)
_LAST_EVENT = select(func.max(EventRow.id)).where(EventRow.game_id == GameRow.id).scalar_subquery()
TARGET = (
    select(GameRow.id, PlayerRow.id, GameRow.phase, _LAST_EVENT)
    .join(PlayerRow, PlayerRow.game_id == GameRow.id)
    .where(GameRow.id == CURRENT_GAME, PlayerRow.ref == bindparam("ref"), PlayerRow.active)
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
INSERT = {
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
LAST = (
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
BEFORE_AT = (
    select(*LAST.selected_columns)
    .where(
        *_of_player(bindparam("game"), bindparam("player")),
        PingRow.at <= bindparam("at", type_=_PINGS.c.at.type),
    )
    .order_by(*_NEWEST_FIRST)
    .limit(1)
)


PING_COLUMNS = [c.name for c in LAST.selected_columns]
NEW_PING = PING_COLUMNS[3:]  # a stored ping's fields after its ids, from its values
# Every player's newest ping in a game, in one statement (the newest has the highest id):
# one index probe a player of the game, not a pass over every ping the game ever had.
_PLAYER_NEWEST = (
    select(*LAST.selected_columns)
    .where(*_of_player(PlayerRow.game_id, PlayerRow.id))
    .order_by(*_NEWEST_FIRST)
    .limit(1)
    .lateral("newest")
)
NEWEST = {
    "postgresql": select(*_PLAYER_NEWEST.c)
    .select_from(PlayerRow)
    .join(_PLAYER_NEWEST, true())
    .where(PlayerRow.game_id == bindparam("game")),
    # SQLite has no LATERAL: the newest id of each player, from the same index.
    "sqlite": select(*LAST.selected_columns).where(
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
    .where(GameRow.id == CURRENT_GAME, PlayerRow.ref == bindparam("ref"), PlayerRow.active)
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
        select(*LAST.selected_columns)
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
        *(before.c[name] for name in PING_COLUMNS),
        *(column for column in found.c if column.name not in target),
        *after,
    )
    joined = one if source is None else one.outerjoin(source, true())
    return statement.select_from(joined.outerjoin(found, true()).outerjoin(before, true()))


# A tracker app's ping (PostgreSQL): its token checked and noted as heard, its holder's game
# found, the ping stored, in one statement; the holder's row (as ``Trackers.heard`` reads it)
# comes last, for the holder of a token in several games or none.
_HEARD = trackers.HEARD.cte("heard")
TRACKED = _record_statement(
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

RECORD = {
    (alone, begin): _record_statement(_FOUND_ALONE if alone else _FOUND, begin)
    for alone in (False, True)
    for begin in (False, True)
}
