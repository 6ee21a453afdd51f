"""Games as rows: create, load (optionally locked), save by diffing, look up by chat.

A ``GameRepository`` lives inside one unit of work (one session). ``get``/``for_chat`` read
a game's rows as plain values (``store.state_read``) and remember the state they make;
``save`` compares the rows the new state needs with the remembered state's and inserts new
rows, updates changed ones and deletes removed ones (``store.batch.StagedWrites``). A game
created in the unit of work is written as ORM rows. It never commits.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, select
from sqlalchemy.orm import Session

from hideseek_chat.rules.state import GameState, Phase
from hideseek_chat.store.batch import StagedWrites
from hideseek_chat.store.mapping import (
    STATE_TABLES,
    column_keys,
    row_values,
    state_from_tuples,
    state_rows,
)
from hideseek_chat.store.models import Base, ChatRow, GameRow
from hideseek_chat.store.rawrow import first_row, lend
from hideseek_chat.store.state_read import READ, read_postgresql, read_postgresql_chat


class GameNotFound(LookupError):
    """No game for this chat (or id): the chat layer should offer /newgame."""


# Nearly every turn asks for its chat's current game first: built once, run as plain rows.
_NEWEST_OF_CHAT = (
    select(GameRow.id)
    .join(ChatRow, ChatRow.id == GameRow.chat_id)
    .where(ChatRow.key == bindparam("key"))
    .order_by(GameRow.id.desc())
    .limit(1)
)
_CURRENT = {False: _NEWEST_OF_CHAT, True: _NEWEST_OF_CHAT.with_for_update(of=GameRow)}
#: where a game's id is in its row as ``read_postgresql`` gives it
_GAME_ID = column_keys(GameRow).index("id")


#: ``Session.info``'s key of the chats' preferences ``read_chat`` read with their games (by
#: chat key: the values of ``Chats.prefs``' columns, or None for none chosen)
PREFS_READ = "hideseek.prefs_read"


@dataclass(frozen=True)
class LoadedGame:
    id: int
    chat_key: str
    state: GameState


class GameRepository:
    def __init__(self, session: Session) -> None:
        self.session = session
        #: the ORM rows of the games created in this unit of work, which ``save`` diffs
        self._rows: dict[int, dict[type[Base], dict[tuple[Any, ...], Base]]] = {}
        #: each game's state as ``get`` read it or ``save`` last wrote it
        self._read: dict[int, GameState] = {}

    # ----- chats -----

    def chat_id(self, chat_key: str, now: datetime) -> int:
        """Return the chat's row id, creating the chat row on first use."""
        found = self.session.scalar(select(ChatRow.id).where(ChatRow.key == chat_key))
        if found is not None:
            return found
        chat = ChatRow(key=chat_key, created_at=now)
        self.session.add(chat)
        self.session.flush()
        return chat.id

    # ----- games -----

    def create(self, chat_key: str, state: GameState, now: datetime) -> int:
        """Insert a new game for the chat (it becomes the chat's current game); return its id."""
        game = GameRow(chat_id=self.chat_id(chat_key, now), **_game_columns(state))
        self.session.add(game)
        self.session.flush()
        self._rows[game.id] = {model: {} for model in STATE_TABLES}
        self._rows[game.id][GameRow][()] = game
        self.save(game.id, state)
        return game.id

    def current_id(self, chat_key: str, for_update: bool = False) -> int | None:
        """Return the id of the chat's newest game; ``for_update`` locks its row until commit."""
        found = first_row(lend(self.session), _CURRENT[for_update], {"key": chat_key})
        return None if found is None else int(found[0])

    def for_chat(self, chat_key: str, for_update: bool = False) -> LoadedGame | None:
        """Load the chat's current game, or None when the chat never had one.

        With ``for_update`` the game row stays locked until the unit of work ends, so
        concurrent updates of one game run one after another (PostgreSQL; SQLite
        transactions already hold the database's write lock).
        """
        game_id = self.current_id(chat_key, for_update=for_update)
        if game_id is None:
            return None
        return LoadedGame(game_id, chat_key, self.get(game_id))

    def read_chat(self, chat_key: str) -> LoadedGame | None:
        """``for_chat`` to read only: the state as ``read`` loads it (plain rows; on
        PostgreSQL the game found and read in one round trip, with the chat's preferences
        for ``Chats.prefs``: the session's ``PREFS_READ``), nothing kept for ``save``."""
        connection = lend(self.session)
        if connection.dialect.name != "postgresql":
            game_id = self.current_id(chat_key)
            if game_id is None:
                return None
            return LoadedGame(game_id, chat_key, self.read(game_id))
        loaded, prefs = read_postgresql_chat(connection, chat_key)  # ``set_prefs`` flushes
        self.session.info.setdefault(PREFS_READ, {})[chat_key] = prefs
        if not loaded[GameRow]:
            return None
        state = state_from_tuples(loaded)  # rows in column_keys order
        (game,) = loaded[GameRow]
        return LoadedGame(int(game[_GAME_ID]), chat_key, state)

    def lock(self, game_id: int, skip_locked: bool = False) -> bool:
        """Lock the game's row until commit; with ``skip_locked`` return False if it is taken."""
        query = select(GameRow.id).where(GameRow.id == game_id)
        query = query.with_for_update(skip_locked=skip_locked)
        return self.session.scalar(query) is not None

    def get(self, game_id: int) -> GameState:
        """Load a game's state to change it: read as ``read`` reads it, and kept as it was so
        that ``save`` writes only what changed (Core statements from the two states, as the
        timers' batch writes them: no ORM objects, a tenth of the CPU of loading a game's
        rows as ORM objects, 8 ms for a small game). Raise GameNotFound when there is no
        such game."""
        state = self.read(game_id)
        self._read[game_id] = state.clone()  # the caller may change what it is given
        return state

    def forget(self) -> None:
        """Drop the states ``get`` and ``save`` remembered (the transaction was rolled back:
        what they say was read or written is no longer so)."""
        self._read.clear()

    def read(self, game_id: int) -> GameState:
        """Load a game's state to read it only, as ``get`` does but keeping nothing for
        ``save`` (which reads the state again to diff against when it was not got): plain
        rows through prebuilt statements, on PostgreSQL one prepared statement. Raise
        GameNotFound when there is no such game."""
        connection = lend(self.session)
        loaded: dict[type[Base], list[Any]]
        if connection.dialect.name == "postgresql":
            loaded = read_postgresql(connection, [game_id])
        else:
            assert isinstance(connection, Connection)  # nothing is lent off PostgreSQL
            loaded = {
                model: list(connection.execute(statement, {"game": game_id}).all())
                for model, statement in READ.items()
            }
        if not loaded[GameRow]:
            raise GameNotFound(game_id)
        return state_from_tuples(loaded)  # rows in column_keys order

    def in_phases(self, phases: Iterable[Phase]) -> list[int]:
        """The ids of the games now in one of ``phases``, oldest first."""
        query = select(GameRow.id).where(GameRow.phase.in_(list(phases))).order_by(GameRow.id)
        return list(self.session.scalars(query))

    def chat_key(self, game_id: int) -> str:
        key = self.session.scalar(
            select(ChatRow.key)
            .join(GameRow, GameRow.chat_id == ChatRow.id)
            .where(GameRow.id == game_id)
        )
        if key is None:
            raise GameNotFound(game_id)
        return key

    def save(self, game_id: int, state: GameState) -> None:
        """Write ``state`` over the game's rows: insert, update and delete only what changed
        since ``get`` read it (or since the last ``save``; read now when it was not)."""
        have = self._rows.get(game_id)
        if have is None:
            before = self._read.get(game_id)
            if before is None:
                self.get(game_id)
                before = self._read[game_id]
            writes = StagedWrites(self.session)
            writes.stage(game_id, before, state)
            writes.write()
            self._read[game_id] = state.clone()
            return
        for model, wanted in state_rows(game_id, state).items():  # a game created here
            existing = have[model]
            for key, values in wanted.items():
                row = existing.get(key)
                if row is None:
                    row = model(**values)
                    self.session.add(row)
                    existing[key] = row
                    continue
                for name, value in values.items():
                    if getattr(row, name) != value:
                        setattr(row, name, value)
            for key in existing.keys() - wanted.keys():
                self.session.delete(existing.pop(key))
        self.session.flush()


def _game_columns(state: GameState) -> dict[str, Any]:
    values = state_rows(0, state)[GameRow][()]
    values.pop("id")
    return values


__all__ = ["GameNotFound", "GameRepository", "LoadedGame", "row_values"]
