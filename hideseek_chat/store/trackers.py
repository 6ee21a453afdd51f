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
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy import Row, Table, bindparam, select, update
from sqlalchemy.orm import Session

from hideseek_chat.store.models import TrackerRow

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
    """Whose token a ping came with."""

    tracker_id: int
    person_ref: str


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
        row = self.session.execute(
            select(TrackerRow.id, TrackerRow.person_ref, TrackerRow.token_hash).where(
                TrackerRow.token_hash == hashed, TrackerRow.revoked_at.is_(None)
            )
        ).first()
        return _checked(row, hashed)

    def heard(self, hashed: str, app: str, at: datetime) -> Holder | None:
        """Note that ``app`` was heard at ``at`` with the live token hashed ``hashed`` and
        return whose it is; None (nothing written) for an unknown or revoked token.

        Every tracker ping runs it: one prebuilt Core statement, no ORM flush."""
        row = (
            self.session.connection()
            .execute(_HEARD, {"hashed": hashed, "app": app[:16], "at": at})
            .first()
        )
        return _checked(row, hashed)


_TOKENS = cast(Table, TrackerRow.__table__)
_HEARD = (
    update(_TOKENS)
    .where(_TOKENS.c.token_hash == bindparam("hashed"), _TOKENS.c.revoked_at.is_(None))
    .values(last_app=bindparam("app"), last_heard_at=bindparam("at"))
    .returning(_TOKENS.c.id, _TOKENS.c.person_ref, _TOKENS.c.token_hash)
)


def _checked(row: Row[int, str, str] | None, hashed: str) -> Holder | None:
    """The holder of a row found by its hash, the hashes compared in constant time (the
    index lookup found it; the comparison keeps a collation from matching loosely)."""
    if row is None:
        return None
    tracker_id, person_ref, stored = row
    if not hmac.compare_digest(str(stored).encode(), hashed.encode()):
        return None
    return Holder(int(tracker_id), str(person_ref))
