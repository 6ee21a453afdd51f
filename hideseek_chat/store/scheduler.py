"""Durable timers: deliver "deadline reached" to the engine for every deadline row due.

``Scheduler.run_due(now)`` fires due deadlines one per transaction, oldest first, until
none is left; call it on start (to catch up on whatever fell due while the bot was down)
and then whenever ``next_due_at()`` passes. A deadline fires at its own ``due_at``, so a
late delivery leaves the game as if the timer had fired on time. Several processes may run
schedulers on one PostgreSQL database: each claims a game with ``SKIP LOCKED``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from hideseek_chat.rules import apply, due_deadlines
from hideseek_chat.rules.decisions import Decision
from hideseek_chat.rules.events import DeadlineReached
from hideseek_chat.rules.state import DeadlineKind
from hideseek_chat.store.uow import RulesetLoader, UnitOfWorkFactory, cached_ruleset, record_applied


@dataclass(frozen=True)
class Fired:
    """A deadline the scheduler delivered, and what the engine decided."""

    game_id: int
    deadline_id: int
    kind: DeadlineKind
    due_at: datetime
    decisions: tuple[Decision, ...]
    error: str | None = None  # the engine failed on it; the deadline was closed unapplied


log = logging.getLogger(__name__)


#: Claims tried in one ``fire_next`` when another process fired the claimed deadline first.
CLAIM_TRIES = 5


class _FiredElsewhere(Exception):
    """The claimed deadline was fired by another process meanwhile."""


class Scheduler:
    def __init__(
        self, uow_factory: UnitOfWorkFactory, rulesets: RulesetLoader = cached_ruleset
    ) -> None:
        self.uow_factory = uow_factory
        self.rulesets = rulesets

    def run_due(self, now: datetime, limit: int | None = None) -> list[Fired]:
        """Fire every deadline due at ``now`` (at most ``limit``), each in its own transaction."""
        fired: list[Fired] = []
        while limit is None or len(fired) < limit:
            result = self.fire_next(now)
            if result is None:
                break
            fired.append(result)
        return fired

    def fire_next(self, now: datetime) -> Fired | None:
        """Fire the oldest due deadline of an unlocked game; None when nothing is due."""
        for _ in range(CLAIM_TRIES):
            try:
                return self._fire_claimed(now)
            except _FiredElsewhere:
                continue
        return None

    def _fire_claimed(self, now: datetime) -> Fired | None:
        with self.uow_factory() as uow:
            claimed = uow.deadlines.claim_next(now)
            if claimed is None:
                return None
            state = uow.games.get(claimed.game_id)
            # Within the locked game, its own oldest due deadline goes first.
            due = due_deadlines(state, now)
            if not due:
                # Another process fired it between this query's look at the deadlines and
                # its lock on the game (PostgreSQL re-reads only the locked row): look again.
                raise _FiredElsewhere
            deadline = due[0]
            assert deadline.due_at is not None
            event = DeadlineReached(deadline.id)
            try:
                new_state, decisions = apply(
                    self.rulesets(state.ruleset), state, event, deadline.due_at
                )
            except Exception as err:  # one broken game must not stop every other game's timers
                log.exception("deadline %s of game %s failed", deadline.id, claimed.game_id)
                uow.rollback()
                self._close_unapplied(claimed.game_id, deadline.id)
                return Fired(
                    claimed.game_id, deadline.id, deadline.kind, deadline.due_at, (), repr(err)
                )
            if not any(d.id == deadline.id and d.done for d in new_state.deadlines):
                raise RuntimeError(f"deadline {deadline.id} of game {claimed.game_id} stays open")
            record_applied(uow, claimed.game_id, new_state, event, decisions, deadline.due_at, None)
            uow.commit()
        return Fired(claimed.game_id, deadline.id, deadline.kind, deadline.due_at, tuple(decisions))

    def _close_unapplied(self, game_id: int, deadline_id: int) -> None:
        with self.uow_factory() as uow:
            uow.games.lock(game_id)
            state = uow.games.get(game_id)
            for deadline in state.deadlines:
                if deadline.id == deadline_id:
                    deadline.done = True
            uow.games.save(game_id, state)
            uow.commit()

    def next_due_at(self) -> datetime | None:
        with self.uow_factory() as uow:
            return uow.deadlines.next_due_at()
