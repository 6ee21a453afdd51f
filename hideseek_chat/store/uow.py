"""The unit of work: one session and one transaction per inbound event.

Use it as a context manager; nothing is written unless ``commit()`` is called, and leaving
the block without committing rolls back (cosmicpython's ``unit_of_work.py``)::

    with UnitOfWork(session_factory) as uow:
        game = uow.games.for_chat(chat_key, for_update=True)
        new_state, decisions = apply(ruleset, game.state, event, now)
        uow.games.save(game.id, new_state)
        uow.events.append(game.id, event, now, update_id)
        uow.outbox.add(game.id, decisions, now)
        uow.updates.mark_processed(update_id, now, game.id)
        uow.commit()

``handle`` does exactly that, plus the redelivery check; ``start_game`` stores a new game.
Repositories flush but never commit: only ``UnitOfWork.commit`` ends a transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from functools import cached_property, lru_cache
from types import TracebackType

from sqlalchemy.orm import Session, sessionmaker

from hideseek_chat.rules import apply, due_deadlines
from hideseek_chat.rules.decisions import Decision
from hideseek_chat.rules.events import DeadlineReached, Event
from hideseek_chat.rules.ruleset import Ruleset
from hideseek_chat.rules.ruleset_loader import load_ruleset
from hideseek_chat.rules.state import GameState
from hideseek_chat.store.botnet import BotnetMatches
from hideseek_chat.store.chats import Chats
from hideseek_chat.store.checks import AnswerChecks
from hideseek_chat.store.deadlines import Deadlines
from hideseek_chat.store.inbox import Inbox
from hideseek_chat.store.leases import Leases
from hideseek_chat.store.log import EventLog, Outbox
from hideseek_chat.store.mapjobs import MapJobs
from hideseek_chat.store.maps import MapPacks
from hideseek_chat.store.pictures import PictureJobs
from hideseek_chat.store.pings import Pings
from hideseek_chat.store.repository import GameNotFound, GameRepository
from hideseek_chat.store.session import UnitSession
from hideseek_chat.store.sms import SmsBook
from hideseek_chat.store.trackers import Trackers

RulesetLoader = Callable[[str], Ruleset]


@lru_cache(maxsize=32)
def cached_ruleset(name: str) -> Ruleset:
    """Load a shipped ruleset by name once per process."""
    return load_ruleset(name)


class UnitOfWork:
    """One session, one transaction; repositories as attributes while inside ``with``.

    A repository is made the first time it is used: a live-location edit touches two of
    them, and making all fifteen for each update cost more than its statement's
    parameters."""

    def __init__(self, session_factory: sessionmaker[Session]) -> None:
        self.session_factory = session_factory

    def __enter__(self) -> UnitOfWork:
        for made in [name for name in vars(self) if name not in ("session_factory", "session")]:
            del self.__dict__[made]  # a unit of work entered again: its new session's
        self.session = self.session_factory()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            self.rollback()
        finally:
            self.session.close()

    def commit(self) -> None:
        self.session.commit()

    def alone(self) -> bool:
        """Let the one statement this unit of work runs next be its own transaction (on
        PostgreSQL: two round trips fewer, ``UnitSession.lend_alone``); False when it
        shares the unit's transaction as usual. ``commit`` still ends the unit."""
        session = self.session
        return isinstance(session, UnitSession) and session.lend_alone()

    def rollback(self) -> None:
        self.session.rollback()
        made = self.__dict__
        if "pings" in made:
            self.pings.forget()
        if "games" in made:
            self.games.forget()
        if "sms" in made:
            self.sms.forget_read()
        if "updates" in made:
            self.updates.forget_begun()

    @cached_property
    def games(self) -> GameRepository:
        return GameRepository(self.session)

    @cached_property
    def events(self) -> EventLog:
        return EventLog(self.session)

    @cached_property
    def outbox(self) -> Outbox:
        return Outbox(self.session)

    @cached_property
    def updates(self) -> Inbox:
        return Inbox(self.session)

    @cached_property
    def leases(self) -> Leases:
        return Leases(self.session)

    @cached_property
    def deadlines(self) -> Deadlines:
        return Deadlines(self.session)

    @cached_property
    def pings(self) -> Pings:
        return Pings(self.session)

    @cached_property
    def maps(self) -> MapPacks:
        return MapPacks(self.session)

    @cached_property
    def map_jobs(self) -> MapJobs:
        return MapJobs(self.session)

    @cached_property
    def pictures(self) -> PictureJobs:
        return PictureJobs(self.session)

    @cached_property
    def chats(self) -> Chats:
        return Chats(self.session)

    @cached_property
    def checks(self) -> AnswerChecks:
        return AnswerChecks(self.session)

    @cached_property
    def botnet(self) -> BotnetMatches:
        return BotnetMatches(self.session)

    @cached_property
    def trackers(self) -> Trackers:
        return Trackers(self.session)

    @cached_property
    def sms(self) -> SmsBook:
        return SmsBook(self.session)


UnitOfWorkFactory = Callable[[], UnitOfWork]


def handle(
    uow_factory: UnitOfWorkFactory,
    chat_key: str,
    event: Event,
    now: datetime,
    update_id: str | None = None,
    rulesets: RulesetLoader = cached_ruleset,
) -> list[Decision]:
    """Apply ``event`` to the chat's current game in one transaction; return the decisions.

    Locks the game, skips an ``update_id`` already processed (returns ``[]``, changes
    nothing), applies the event, then saves the state, logs the event, queues the decisions
    in the outbox and records the update id, and commits. A ``RuleViolation`` rolls back and
    propagates; so does ``GameNotFound`` when the chat has no game. Deliver the queued
    decisions from the outbox after this returns, not the returned list, unless the caller
    marks them sent itself.
    """
    with uow_factory() as uow:
        game_id = uow.games.current_id(chat_key, for_update=True)
        if game_id is None:
            raise GameNotFound(chat_key)
        if update_id is not None and uow.updates.is_processed(update_id):
            return []
        state = uow.games.get(game_id)
        _, decisions = apply_event(
            uow, game_id, state, rulesets(state.ruleset), event, now, update_id
        )
        uow.commit()
    return decisions


def apply_event(
    uow: UnitOfWork,
    game_id: int,
    state: GameState,
    ruleset: Ruleset,
    event: Event,
    now: datetime,
    update_id: str | None = None,
) -> tuple[GameState, list[Decision]]:
    """Apply ``event`` to ``state`` (the locked game's) inside ``uow``; return the new state
    and every decision, those of timers that fell due first included. Does not commit.

    A ``RuleViolation`` propagates; the caller rolls back.
    """
    state, fired = fire_due(uow, game_id, state, ruleset, now)
    new_state, applied = apply(ruleset, state, event, now)
    record_applied(uow, game_id, new_state, event, applied, now, update_id)
    return new_state, fired + applied


def fire_due(
    uow: UnitOfWork, game_id: int, state: GameState, ruleset: Ruleset, now: datetime
) -> tuple[GameState, list[Decision]]:
    """Fire, at their own times, the timers of ``state`` that fell due by ``now``, and write
    them; return the state after them and their decisions. Does not commit.

    An event applied at ``now`` comes after them, so a lagging scheduler never lets a later
    event jump ahead of a timer.
    """
    decisions: list[Decision] = []
    while due := due_deadlines(state, now):
        deadline = due[0]
        assert deadline.due_at is not None
        timer = DeadlineReached(deadline.id)
        state, fired = apply(ruleset, state, timer, deadline.due_at)
        record_applied(uow, game_id, state, timer, fired, deadline.due_at, None)
        decisions.extend(fired)
    return state, decisions


def start_game(
    uow_factory: UnitOfWorkFactory,
    chat_key: str,
    state: GameState,
    decisions: Iterable[Decision],
    now: datetime,
    update_id: str | None = None,
) -> int | None:
    """Store a game made by ``rules.new_game`` as the chat's current game; return its id.

    The creation is logged as a ``GameCreated`` entry and its decisions queued. Returns None
    (and changes nothing) when ``update_id`` was processed already.
    """
    with uow_factory() as uow:
        if update_id is not None and uow.updates.is_processed(update_id):
            return None
        game_id = create_game(uow, chat_key, state, decisions, now, update_id)
        uow.commit()
    return game_id


def create_game(
    uow: UnitOfWork,
    chat_key: str,
    state: GameState,
    decisions: Iterable[Decision],
    now: datetime,
    update_id: str | None = None,
) -> int:
    """Store a new game inside ``uow`` (logged, its decisions queued); does not commit."""
    game_id = uow.games.create(chat_key, state, now)
    admin = state.player(state.admin_player_id).ref if state.admin_player_id else None
    uow.events.append_created(game_id, state, admin, now, update_id)
    uow.outbox.add(game_id, decisions, now)
    if update_id is not None:
        uow.updates.mark_processed(update_id, now, game_id)
    return game_id


def record_applied(
    uow: UnitOfWork,
    game_id: int,
    state: GameState,
    event: Event,
    decisions: list[Decision],
    now: datetime,
    update_id: str | None,
) -> None:
    """Write an applied event's outcome: state, log entry, outbox, processed update id."""
    uow.games.save(game_id, state)
    uow.events.append(game_id, event, now, update_id)
    current = state.current_round
    uow.outbox.add(game_id, decisions, now, current.number if current else None)
    if update_id is not None:
        uow.updates.mark_processed(update_id, now, game_id)
