"""A table with the real conversation, engine and store behind it, for demo, console, simulate.

The store is a SQLite file in a temporary directory (deleted on close) unless a database
URL is given; either way it is migrated with the project's Alembic scripts first. With a
shared database every ref gets a fresh prefix so that runs never meet each other's games.
"""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

from sqlalchemy.engine import Engine

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.map_clients import MapClients
from hideseek_chat.console.table import Table
from hideseek_chat.console.transcript import CONSOLE_ZONE
from hideseek_chat.rules.ruleset import Ruleset, ruleset_paths
from hideseek_chat.rules.ruleset_loader import load_ruleset
from hideseek_chat.store import make_engine, migrate, unit_of_work_factory

#: Games at the table start at this (simulated) time unless told otherwise.
DEFAULT_START = datetime(2026, 5, 2, 9, 0, tzinfo=CONSOLE_ZONE).astimezone(UTC)  # 09:00 there


@dataclass
class Session:
    """A ``Table`` on its own store; ``close`` it (or use ``with``) to drop a temporary one."""

    table: Table
    conversation: Conversation
    engine: Engine
    _tmp: tempfile.TemporaryDirectory[str] | None = field(default=None, repr=False)

    def close(self) -> None:
        self.engine.dispose()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_session(
    *,
    seed: int | None = None,
    start: datetime = DEFAULT_START,
    database_url: str | None = None,
    rulesets_dirs: tuple[Path, ...] = (),
    map_clients: MapClients | None = None,
) -> Session:
    """A migrated store, a conversation on it and an empty table at ``start``.

    ``seed`` seeds every game created at the table (the deck, the hiding order): the same
    seed and the same moves give the same game. ``map_clients`` lets /map find get maps
    from OpenStreetMap (the table runs each search and fetch at once, inline).
    """
    tmp: tempfile.TemporaryDirectory[str] | None = None
    prefix = "console"
    if database_url is None:
        tmp = tempfile.TemporaryDirectory(prefix="hideseek-console-")
        database_url = f"sqlite:///{Path(tmp.name) / 'hideseek.sqlite3'}"
    else:
        # A shared database may hold earlier tables: new refs keep them apart. The prefix
        # never shows in a transcript.
        prefix = f"console-{secrets.token_hex(4)}"
    try:
        migrate.upgrade(database_url)
        engine = make_engine(database_url)
    except BaseException:
        if tmp is not None:
            tmp.cleanup()
        raise
    seeds = (lambda: seed) if seed is not None else None
    conversation = Conversation(
        unit_of_work_factory(engine),
        rulesets=_loader(rulesets_dirs),
        known_rulesets=tuple(sorted(ruleset_paths(rulesets_dirs))),
        seeds=seeds,
        map_clients=map_clients,
    )
    table = Table(conversation, start, group=f"{prefix}:group", ref_prefix=prefix)
    return Session(table, conversation, engine, tmp)


@lru_cache(maxsize=8)
def _loader(dirs: tuple[Path, ...]) -> Callable[[str], Ruleset]:
    """Rulesets by name, from the shipped ones and ``dirs``, each loaded once."""

    @lru_cache(maxsize=32)
    def load(name: str) -> Ruleset:
        return load_ruleset(name, dirs)

    return load
