"""Durable timers: deliver "deadline reached" to the engine for every deadline row due.

``Scheduler.run_due(now)`` fires due deadlines, a batch of games per transaction, those
due longest first, until none is left; call it on start (to catch up on whatever fell due
while the bot was down) and then whenever ``next_due_at()`` passes. A deadline fires at its
own ``due_at``, so a late delivery leaves the game as if the timer had fired on time.
Several processes may run schedulers on one PostgreSQL database: each claims games with
``SKIP LOCKED``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from hideseek_chat.rules import apply, due_deadlines
from hideseek_chat.rules.decisions import Decision
from hideseek_chat.rules.events import DeadlineReached
from hideseek_chat.rules.ruleset import Ruleset
from hideseek_chat.rules.state import Deadline, DeadlineKind, GameState
from hideseek_chat.store.batch import StagedWrites, collection_paused, read_states
from hideseek_chat.store.deadlines import DueDeadline
from hideseek_chat.store.health import is_transient
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


@dataclass(frozen=True)
class _Step:
    deadline: Deadline
    event: DeadlineReached
    at: datetime
    state: GameState
    decisions: list[Decision]


def _fire_all(ruleset: Ruleset, state: GameState, now: datetime) -> list[_Step]:
    """Apply every deadline of ``state`` due by ``now``, each at its own time (pure)."""
    steps: list[_Step] = []
    while due := due_deadlines(state, now):
        deadline = due[0]
        assert deadline.due_at is not None
        event = DeadlineReached(deadline.id)
        state, decisions = apply(ruleset, state, event, deadline.due_at)
        if not any(d.id == deadline.id and d.done for d in state.deadlines):
            raise RuntimeError(f"deadline {deadline.id} stays open")
        steps.append(_Step(deadline, event, deadline.due_at, state, decisions))
    return steps


#: Claims tried in one ``fire_next`` when another process fired the claimed deadline first.
CLAIM_TRIES = 5
#: Games whose due timers one transaction fires (their rows loaded and written together):
#: each transaction costs a few milliseconds beyond its games (the claim, a statement per
#: table and kind of change, the commit).
BATCH = 50
#: ... on SQLite, where the transaction holds the database's one write lock: small enough
#: that a live edit waiting for it waits one short batch (about 20 ms).
SQLITE_BATCH = 20


class _FiredElsewhere(Exception):
    """The claimed deadline was fired by another process meanwhile."""


class Scheduler:
    def __init__(
        self, uow_factory: UnitOfWorkFactory, rulesets: RulesetLoader = cached_ruleset
    ) -> None:
        self.uow_factory = uow_factory
        self.rulesets = rulesets

    def run_due(self, now: datetime, limit: int | None = None) -> list[Fired]:
        """Fire every deadline due at ``now`` (at most about ``limit``): games in batches of
        ``BATCH`` (``SQLITE_BATCH`` on SQLite), one transaction each; a batch that fails is
        fired again one game at a time."""
        fired: list[Fired] = []
        while limit is None or len(fired) < limit:
            room = BATCH if limit is None else max(1, min(BATCH, limit - len(fired)))
            try:
                with collection_paused():
                    batch = self.fire_batch(now, room)
            except Exception:  # one bad write must not stop every game's timers
                log.warning("a batch of timers failed; firing them one by one", exc_info=True)
                batch = [result] if (result := self.fire_next(now)) else []
            if not batch:
                break
            fired.extend(batch)
        return fired

    def fire_batch(self, now: datetime, games: int) -> list[Fired]:
        """Fire the due deadlines of up to ``games`` unlocked games in one transaction: each
        game's, in order, up to ``now``. Empty when nothing is due.

        The engine runs on every game before anything is written; a game it fails on is
        left out and fired alone afterwards (``fire_next`` closes what it cannot apply).
        """
        fired: list[Fired] = []
        failed: list[int] = []
        with self.uow_factory() as uow:
            if uow.session.get_bind().dialect.name == "sqlite":
                games = min(games, SQLITE_BATCH)
            claimed = uow.deadlines.claim_games(now, games)
            if not claimed:
                return []
            writes = StagedWrites(uow.session)
            for game_id, state in read_states(uow.session, claimed).items():
                try:
                    steps = _fire_all(self.rulesets(state.ruleset), state, now)
                except Exception:  # written off below, alone
                    failed.append(game_id)
                    continue
                if not steps:
                    continue  # fired by another process between the claim's look and lock
                writes.stage(game_id, state, steps[-1].state)
                for step in steps:
                    current = step.state.current_round
                    writes.log(
                        game_id,
                        step.event,
                        step.at,
                        step.decisions,
                        current.number if current else None,
                    )
                    fired.append(
                        Fired(
                            game_id,
                            step.deadline.id,
                            step.deadline.kind,
                            step.at,
                            tuple(step.decisions),
                        )
                    )
            writes.write()
            uow.commit()
        fired.sort(key=lambda result: result.due_at)  # stable: each game's stay in order
        for _ in failed:
            if (result := self.fire_next(now)) is not None:
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
            failing = claimed  # the deadline a failure below is told against
            try:
                state = uow.games.get(claimed.game_id)
                # Within the locked game, its own oldest due deadline goes first.
                due = due_deadlines(state, now)
                if not due:
                    # Another process fired it between this query's look at the deadlines
                    # and its lock on the game (PostgreSQL re-reads only the locked row).
                    raise _FiredElsewhere
                deadline = due[0]
                assert deadline.due_at is not None
                failing = DueDeadline(claimed.game_id, deadline.id, deadline.kind, deadline.due_at)
                event = DeadlineReached(deadline.id)
                new_state, decisions = apply(
                    self.rulesets(state.ruleset), state, event, deadline.due_at
                )
                if not any(d.id == deadline.id and d.done for d in new_state.deadlines):
                    raise RuntimeError(f"deadline {deadline.id} stays open")
                record_applied(
                    uow, claimed.game_id, new_state, event, decisions, deadline.due_at, None
                )
                uow.commit()
            except Exception as err:
                if isinstance(err, _FiredElsewhere) or is_transient(err):
                    raise  # looked at again, or tried again on the next tick
                # The game's own fault (the engine, its rows, their write): the same every
                # time, so it must not hold up every other game's timers. Closed unapplied.
                log.exception("deadline %s of game %s failed", failing.deadline_id, failing.game_id)
                uow.rollback()
                self._close_unapplied(failing.game_id, failing.deadline_id)
                return Fired(
                    failing.game_id,
                    failing.deadline_id,
                    failing.kind,
                    failing.due_at,
                    (),
                    repr(err),
                )
        return Fired(claimed.game_id, deadline.id, deadline.kind, deadline.due_at, tuple(decisions))

    def _close_unapplied(self, game_id: int, deadline_id: int) -> None:
        """Mark the deadline done in its row alone: the game's state may be what fails."""
        with self.uow_factory() as uow:
            uow.games.lock(game_id)
            uow.deadlines.close(game_id, deadline_id)
            uow.commit()

    def next_due_at(self) -> datetime | None:
        with self.uow_factory() as uow:
            return uow.deadlines.next_due_at()
