"""What the operator's probes and ``/metrics`` read from the database: is it there, is its
schema the newest, how deep is the outbox, how many games are being played."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, func, select
from sqlalchemy.exc import (
    DBAPIError,
    DisconnectionError,
    InterfaceError,
    OperationalError,
    SQLAlchemyError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeout

from hideseek_chat.rules.state import Phase
from hideseek_chat.store.migrate import alembic_config, script_location
from hideseek_chat.store.models import GameRow, OutboxRow

#: ``not_ready``'s answers: the database cannot be reached, or its schema is not the newest.
UNREACHABLE = "database"
BEHIND = "schema"


@lru_cache(maxsize=4)
def expected_heads(location: str) -> frozenset[str]:
    """The newest revisions of the migration scripts at ``location`` (read once)."""
    config = alembic_config("sqlite://")
    config.set_main_option("script_location", location)
    return frozenset(ScriptDirectory.from_config(config).get_heads())


#: SQLSTATE classes and codes that say the database is away or busy, not that the work is
#: wrong: connections (08), transaction rollbacks (40: serialization, deadlock), resources
#: (53), operator intervention (57: shutdown, a cancelled query), system errors (58), a
#: lock not available (55P03) or an object in use (55006), and a table or column that a
#: migration not yet run will add (42P01, 42703).
_TRANSIENT_CLASSES = frozenset({"08", "40", "53", "57", "58"})
_TRANSIENT_CODES = frozenset({"55P03", "55006", "42P01", "42703"})


def is_transient(error: BaseException) -> bool:
    """Whether ``error`` is the database's state rather than the work's fault, so that the
    same work may succeed later: the database away, a lost connection, a full pool, a
    deadlock, a serialization failure or a lock timeout, a schema not yet migrated. Rows
    that break a constraint or a type, or values the driver cannot send, fail the same way
    every time. PostgreSQL's errors are told by their SQLSTATE; SQLite's and the driver's
    own (no SQLSTATE) by their class: operational ones (busy, locked, unreachable) are
    transient."""
    if isinstance(error, DisconnectionError | PoolTimeout | OSError):
        return True
    if not isinstance(error, DBAPIError):
        return False
    if error.connection_invalidated:
        return True
    code = getattr(error.orig, "sqlstate", None)
    if isinstance(code, str) and code:
        return code[:2] in _TRANSIENT_CLASSES or code in _TRANSIENT_CODES
    return isinstance(error, OperationalError | InterfaceError)


def not_ready(engine: Engine) -> str | None:
    """None when the database answers and its schema is at the newest migration; else one
    word: ``database`` (unreachable) or ``schema`` (behind, or ahead of this code)."""
    try:
        with engine.connect() as connection:
            current = frozenset(MigrationContext.configure(connection).get_current_heads())
    except (SQLAlchemyError, OSError):
        return UNREACHABLE
    return None if current == expected_heads(str(script_location())) else BEHIND


def outbox_depth(engine: Engine) -> int:
    """How many outbox messages wait to be sent, every game's together."""
    with engine.connect() as connection:
        count = connection.scalar(
            select(func.count()).select_from(OutboxRow).where(OutboxRow.sent_at.is_(None))
        )
    return int(count or 0)


def games_by_phase(engine: Engine) -> dict[Phase, int]:
    """How many games are in each phase but the last (``game_over``): the games on."""
    with engine.connect() as connection:
        rows = connection.execute(
            select(GameRow.phase, func.count())
            .where(GameRow.phase != Phase.GAME_OVER)
            .group_by(GameRow.phase)
        ).all()
    counts: Counter[Phase] = Counter()
    for phase, count in rows:
        counts[Phase(phase)] += int(count)
    return dict(counts)
