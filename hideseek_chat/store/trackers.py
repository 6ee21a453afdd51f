"""Tracker tokens: issue, revoke, and authenticate a GPS tracker app's ping.

Only a token's SHA-256 is stored (``token_hash``): the database alone cannot be used to
send pins for anyone. A person has at most one live token; issuing a new one revokes the
old. ``heard`` authenticates and notes the app in one statement (an update ... returning),
so a ping costs one round trip before the conversation sees it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import ColumnElement, Connection, String, Table, bindparam, func, select, update
from sqlalchemy.orm import Session

from hideseek_chat.rules.state import Phase
from hideseek_chat.store.models import ChatRow, GameRow, PlayerRow, TrackerRow
from hideseek_chat.store.rawrow import first_row, lend

#: Bytes of randomness in a token (its URL-safe text is 4/3 as long).
TOKEN_BYTES = 24


def new_token() -> str:
    """A fresh secret token, URL-safe."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    """The SHA-256 of ``token`` as 64 hex digits: what the store keeps and looks up."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Tracker:
    """A person's live tracker token (without the token itself)."""

    id: int
    person_ref: str
    created_at: datetime
    last_app: str | None
    last_heard_at: datetime | None


@dataclass(frozen=True)
class Holder:
    """Whose token a ping came with, and their unfinished games: how many, and the group
    of the newest (so a ping of someone in one game needs no query to find it)."""

    tracker_id: int
    person_ref: str
    games: int = 0
    newest_chat: str | None = None


class ForgedToken(Exception):
    """A token's row was found by a looser match than its hash (a collation): nothing that
    was written with it may stay."""


class Trackers:
    """Tracker tokens inside a unit of work (``uow.trackers``)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def issue(self, person_ref: str, now: datetime) -> str:
        """Revoke the person's token, if any, and make a new one; return the token (the
        only time it is known: the store keeps its hash)."""
        self.revoke(person_ref, now)
        token = new_token()
        self.session.add(
            TrackerRow(person_ref=person_ref, token_hash=token_hash(token), created_at=now)
        )
        self.session.flush()
        return token

    def revoke(self, person_ref: str, now: datetime) -> bool:
        """Revoke the person's live token; False when they had none."""
        result = self.session.execute(
            update(TrackerRow)
            .where(TrackerRow.person_ref == person_ref, TrackerRow.revoked_at.is_(None))
            .values(revoked_at=now)
            .execution_options(synchronize_session=False)
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]

    def active(self, person_ref: str) -> Tracker | None:
        """The person's live token, None when they have none."""
        row = self.session.execute(
            select(
                TrackerRow.id,
                TrackerRow.person_ref,
                TrackerRow.created_at,
                TrackerRow.last_app,
                TrackerRow.last_heard_at,
            )
            .where(TrackerRow.person_ref == person_ref, TrackerRow.revoked_at.is_(None))
            .order_by(TrackerRow.id.desc())
            .limit(1)
        ).first()
        return None if row is None else Tracker(*row)

    def holder(self, hashed: str) -> Holder | None:
        """Whose live token has the hash ``hashed``; None for an unknown or revoked one."""
        row = self.session.connection().execute(_HOLDER, {"hashed": hashed}).first()
        return checked(row, hashed)

    def heard(self, hashed: str, app: str, at: datetime) -> Holder | None:
        """Note that ``app`` was heard at ``at`` with the live token hashed ``hashed`` and
        return whose it is; None (nothing written) for an unknown or revoked token. Raise
        ``ForgedToken`` when the row was found by a looser match than its hash: the caller
        rolls back the note.

        Every tracker ping runs it: prebuilt Core statements, one on PostgreSQL."""
        connection = lend(self.session)
        values = {"hashed": hashed, "app": app[:16], "at": at}
        if connection.dialect.name == "postgresql":
            row = first_row(connection, _HEARD_WITH_GAMES, values)
        else:
            assert isinstance(connection, Connection)  # nothing is lent off PostgreSQL
            who = connection.execute(_HEARD, values).first()
            if who is None:
                return None
            row = (*who, *connection.execute(_GAMES_OF, {"ref": who[1]}).one())
        return verified(row, hashed)


_TOKENS = cast(Table, TrackerRow.__table__)


def games_of(ref: ColumnElement[str]) -> tuple[ColumnElement[int], ColumnElement[str]]:
    """How many unfinished games ``ref`` plays in (``Chats.games_of``'s), and the newest
    one's group: so the ping of someone in one game needs no query to find it."""
    plays = (PlayerRow.ref == ref, PlayerRow.active, GameRow.phase != Phase.GAME_OVER)
    count = (
        select(func.count(GameRow.id))
        .join(PlayerRow, PlayerRow.game_id == GameRow.id)
        .where(*plays)
        .scalar_subquery()
    )
    newest = (
        select(ChatRow.key)
        .join(GameRow, GameRow.chat_id == ChatRow.id)
        .join(PlayerRow, PlayerRow.game_id == GameRow.id)
        .where(*plays)
        .order_by(GameRow.id.desc())
        .limit(1)
        .scalar_subquery()
    )
    return count, newest


_LIVE = (_TOKENS.c.token_hash == bindparam("hashed"), _TOKENS.c.revoked_at.is_(None))
_WHO = (_TOKENS.c.id, _TOKENS.c.person_ref, _TOKENS.c.token_hash)
_HOLDER = select(*_WHO, *games_of(_TOKENS.c.person_ref)).where(*_LIVE)


def _heard(at: str) -> Any:
    """The live token noted as heard from ``app`` at the parameter named ``at``; its row."""
    return (
        update(_TOKENS)
        .where(*_LIVE)
        .values(last_app=bindparam("app"), last_heard_at=bindparam(at))
        .returning(*_WHO)
    )


_HEARD = _heard("at")
#: The same, its time named ``heard_at`` (for a statement that also stores the ping, which
#: has its own ``at``: ``Pings.record_tracked``).
HEARD = _heard("heard_at")
# PostgreSQL: the update and the holder's games in one round trip.
_HEARD_CTE = _HEARD.cte("heard")
_HEARD_WITH_GAMES = select(*_HEARD_CTE.c, *games_of(_HEARD_CTE.c.person_ref))
# Elsewhere (SQLite cannot update in a WITH), the games after the update.
_GAMES_OF = select(*games_of(bindparam("ref", type_=String())))


def verified(row: Sequence[Any] | None, hashed: str) -> Holder | None:
    """``checked`` for a row something was written with: raise ``ForgedToken`` when the
    hashes differ (the caller rolls back), None only when there is no row."""
    holder = checked(row, hashed)
    if row is not None and holder is None:
        raise ForgedToken(hashed)
    return holder


def checked(row: Sequence[Any] | None, hashed: str) -> Holder | None:
    """The holder of a row found by its hash, the hashes compared in constant time (the
    index lookup found it; the comparison keeps a collation from matching loosely)."""
    if row is None:
        return None
    tracker_id, person_ref, stored, games, newest_chat = row
    if not hmac.compare_digest(str(stored).encode(), hashed.encode()):
        return None
    return Holder(int(tracker_id), str(person_ref), int(games or 0), newest_chat)
