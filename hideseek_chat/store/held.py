"""Rows a unit of work keeps in reach.

The session's identity map holds a row only while something references it, so a row read
once and dropped would be read again by the next ``Session.get``. The repositories that
look the same rows up several times in one unit of work (a person's, a number's) hold them
here, on the session, for as long as it lives.
"""

from __future__ import annotations

from sqlalchemy.orm import Session


def hold(session: Session, *rows: object) -> None:
    """Keep ``rows`` referenced until ``session`` is gone."""
    session.info.setdefault("held", []).extend(rows)
