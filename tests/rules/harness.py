"""A small driver for engine tests: named players, a movable clock, decision lookups."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from hideseek_chat.rules import apply, due_deadlines, load_ruleset, new_game
from hideseek_chat.rules.decisions import Decision, Notify
from hideseek_chat.rules.events import (
    DeadlineReached,
    Event,
    GameBegun,
    PlayerJoined,
    ZoneFixed,
)
from hideseek_chat.rules.ruleset import CardKind, Ruleset, Size
from hideseek_chat.rules.state import CardZone, GameState, Phase

START = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)


@dataclass
class Game:
    ruleset: Ruleset
    state: GameState
    now: datetime = START
    log: list[Decision] = field(default_factory=list)

    @classmethod
    def create(
        cls,
        players: tuple[str, ...] = ("alice", "bob", "carol"),
        ruleset: str = "metric",
        size: Size = Size.SMALL,
        seed: int = 7,
    ) -> Game:
        rules = load_ruleset(ruleset)
        state, decisions = new_game(rules, size, seed, players[0], players[0].title(), START)
        game = cls(rules, state, START, list(decisions))
        for name in players[1:]:
            game.do(PlayerJoined(name, name.title()))
        return game

    def do(self, event: Event) -> list[Decision]:
        self.state, decisions = apply(self.ruleset, self.state, event, self.now)
        self.log.extend(decisions)
        return decisions

    def advance(self, **delta: float) -> list[Decision]:
        """Move the clock forward, delivering every deadline that falls due on the way."""
        target = self.now + timedelta(**delta)
        out: list[Decision] = []
        while True:
            due = [d for d in due_deadlines(self.state, target)]
            if not due:
                break
            self.now = max(self.now, due[0].due_at)  # type: ignore[type-var]
            out.extend(self.do(DeadlineReached(due[0].id)))
        self.now = target
        return out

    def begin(self) -> None:
        self.do(GameBegun(self.ref(self.state.admin_player_id)))

    def ref(self, player_id: int | None) -> str:
        assert player_id is not None
        return self.state.player(player_id).ref

    @property
    def hider(self) -> str:
        team = self.state.hider_team_id()
        return next(p.ref for p in self.state.players if p.team_id == team and p.active)

    @property
    def seekers(self) -> list[str]:
        team = self.state.hider_team_id()
        return [p.ref for p in self.state.players if p.team_id != team and p.active]

    def to_seeking(self) -> None:
        """Run the hiding period out and fix a zone."""
        assert self.state.phase == Phase.HIDING
        self.advance(minutes=self.ruleset.sizes[self.state.size].hiding_period_min)
        assert self.state.phase == Phase.SEEKING
        self.do(ZoneFixed(None, "stop-1", "Hester & 4th", 36.12, -97.06))

    def hand(self) -> list[int]:
        return [c.id for c in self.state.cards_in(CardZone.HAND, self.state.hider_team_id())]

    def hand_defs(self) -> list[str]:
        return [self.state.card(i).def_id for i in self.hand()]

    def offer(self) -> list[int]:
        return [c.id for c in self.state.cards_in(CardZone.OFFER, self.state.hider_team_id())]

    def give(self, def_id: str) -> int:
        """Put a card of ``def_id`` from the deck into the hider's hand (test setup)."""
        team = self.state.hider_team_id()
        for card in self.state.cards_in(CardZone.DECK):
            if card.def_id == def_id:
                card.zone = CardZone.HAND
                card.holder_team_id = team
                card.position = 1000 + card.id
                return card.id
        raise LookupError(def_id)

    def give_kind(self, kind: CardKind, count: int = 1) -> list[int]:
        ids = []
        for card_def in self.ruleset.cards:
            if card_def.kind == kind:
                while len(ids) < count:
                    try:
                        ids.append(self.give(card_def.id))
                    except LookupError:
                        break
        return ids

    def notes(self, key: str) -> list[Notify]:
        return [d for d in self.log if isinstance(d, Notify) and d.key == key]

    def last(self, key: str) -> dict[str, Any]:
        found = self.notes(key)
        assert found, f"no {key} notice"
        return found[-1].params


def seeking(**kwargs: Any) -> Game:
    """A begun game whose first hiding period is over and whose zone is fixed."""
    game = Game.create(**kwargs)
    game.begin()
    game.to_seeking()
    return game
