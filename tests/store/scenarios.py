"""Real games for store tests: a seeded random player drives the engine through the harness.

``play(seed)`` returns every step that the engine accepted (events and the deadlines the
clock delivered), with the state after it, so tests can compare the store against the
in-memory engine at any point.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime

from hideseek_chat.rules import new_game
from hideseek_chat.rules.decisions import Decision
from hideseek_chat.rules.errors import RuleViolation
from hideseek_chat.rules.events import (
    CardDiscarded,
    CardPlayed,
    CardsKept,
    CatchAnswered,
    CatchClaimed,
    CurseCleared,
    CurseLossReported,
    CursePenaltyClaimed,
    EndGameStarted,
    Event,
    GamePaused,
    GameResumed,
    NextRoundStarted,
    QuestionAnswered,
    QuestionAsked,
    SettingsChanged,
    TeamJoined,
    ThermometerFinished,
    ZoneFixed,
)
from hideseek_chat.rules.ruleset import CATEGORY_ANSWERS, Size
from hideseek_chat.rules.state import CardZone, GameState, Phase
from tests.rules.harness import START, Game


@dataclass(frozen=True)
class Step:
    event: Event
    now: datetime
    state: GameState
    decisions: tuple[Decision, ...]


@dataclass
class RecordingGame(Game):
    steps: list[Step] = field(default_factory=list)

    def do(self, event: Event) -> list[Decision]:
        decisions = super().do(event)
        self.steps.append(Step(event, self.now, self.state, tuple(decisions)))
        return decisions

    def attempt(self, event: Event) -> bool:
        try:
            self.do(event)
        except RuleViolation:
            return False
        return True


@dataclass(frozen=True)
class Script:
    """A played game: the state ``new_game`` made, then every accepted step."""

    initial: GameState
    initial_decisions: tuple[Decision, ...]
    created_at: datetime
    steps: tuple[Step, ...]


def _actions(game: RecordingGame, rng: random.Random) -> list[Event]:
    state = game.state
    if state.phase in (Phase.SETUP, Phase.GAME_OVER):
        return []
    admin = game.ref(state.admin_player_id)
    hider, seekers = game.hider, game.seekers
    seeker = rng.choice(seekers)
    team = state.hider_team_id()
    hand = [c.id for c in state.cards_in(CardZone.HAND, team)]
    offer = [c.id for c in state.cards_in(CardZone.OFFER, team)]
    questions = [q for q in game.ruleset.questions if Size.SMALL in q.sizes]
    events: list[Event] = [QuestionAsked(seeker, rng.choice(questions).id) for _ in range(4)]
    events += [
        ThermometerFinished(seeker, rng.uniform(100, 3000)),
        ZoneFixed(None, f"stop-{rng.randint(1, 9)}", "Hester & 4th", 36.12, -97.06),
        NextRoundStarted(admin),
    ]
    if rng.random() < 0.1:  # rarer: pauses and the end of a round
        events += [
            GamePaused(admin),
            GameResumed(admin),
            EndGameStarted(seeker),
            CatchClaimed(seeker, rng.choice([None, 12.5])),
            CatchAnswered(hider, rng.random() < 0.7),
        ]
    if state.is_paused:
        events.append(GameResumed(admin))
    pending = state.pending_question()
    if pending is not None:
        answer = rng.choice(CATEGORY_ANSWERS[pending.category])
        events += [QuestionAnswered(hider, answer, rng.choice([None, "Central Park"]))] * 3
    cycle = state.open_draw()
    if offer and cycle is not None:
        events += [CardsKept(hider, tuple(rng.sample(offer, min(cycle.keep, len(offer)))))] * 3
    if hand:
        card = rng.choice(hand)
        others = tuple(c for c in hand if c != card)
        events += [
            CardPlayed(
                hider,
                card,
                discard_ids=others[: rng.randint(0, 2)],
                target_card_id=others[0] if others else None,
                confirmed=True,
                seekers_distance_m=rng.uniform(200, 5000),
            ),
            CardPlayed(hider, card, confirmed=True),
            CardDiscarded(hider, card),
        ]
    for curse in state.round_curses():
        events += [
            CurseCleared(seeker, curse.id),
            CurseLossReported(seeker, curse.id),
            CursePenaltyClaimed(hider, curse.id),
        ]
    return events


def play(
    seed: int, steps: int = 120, players: tuple[str, ...] = ("alice", "bob", "carol")
) -> Script:
    """Play a game with a seeded random player; every step is something the engine accepted."""
    rng = random.Random(seed)
    game = RecordingGame.create(players, seed=seed)
    initial, initial_decisions = new_game(
        game.ruleset, Size.SMALL, seed, players[0], players[0].title(), START
    )
    admin = game.ref(game.state.admin_player_id)
    game.attempt(
        SettingsChanged(
            admin,
            rounds_per_team=1,
            end_timer_min=rng.choice([None, 600.0]),
            rest_periods=rng.choice([(), (("12:00", "12:30"),)]),
        )
    )
    if len(players) > 3:
        game.attempt(TeamJoined(players[3], players[2]))
    game.begin()
    for _ in range(steps):
        if game.state.phase == Phase.GAME_OVER:
            break
        if rng.random() < 0.35:
            game.advance(minutes=rng.choice([1, 3, 7, 15, 30]))
            continue
        options = _actions(game, rng)
        if options:
            game.attempt(rng.choice(options))
    return Script(initial, tuple(initial_decisions), START, tuple(game.steps))
