"""Property tests: invariants of the rules engine over random sequences of player actions.

A script is a started 2-4 player game (a drawn seed) and a list of abstract actions. Each
action is resolved against the state it meets ("play the third card of the hand", "the
hider answers 'closer'"), so the same script always produces the same events. Rule
violations are expected and must leave the state exactly as it was; any other exception is
a bug. After every applied event (and every deadline the clock delivers) the invariants
below are checked.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hideseek_chat.rules import curses, deck, due_deadlines
from hideseek_chat.rules.clock import hiding_seconds, open_pause
from hideseek_chat.rules.decisions import AudienceKind, Decision, Notify
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
    DeadlineReached,
    EndGameStarted,
    Event,
    GameAborted,
    GamePaused,
    GameResumed,
    NextRoundStarted,
    PlayerLeft,
    QuestionAnswered,
    QuestionAsked,
    ThermometerFinished,
    ZoneFixed,
)
from hideseek_chat.rules.ruleset import CATEGORY_ANSWERS, NULL_ANSWER, CardKind
from hideseek_chat.rules.state import (
    CardZone,
    GameState,
    PauseReason,
    Phase,
    QuestionStatus,
)
from tests.rules.harness import Game, seeking

PLAYERS = ("ann", "ben", "cat", "dan")
STRANGER = "stranger"
ROLES = ("hider", "seeker", "anyone", "stranger")
ANSWERS = [*sorted({a for w in CATEGORY_ANSWERS.values() for a in w}), NULL_ANSWER, "maybe", ""]
BOGUS_ID = 999_999
#: Notices that may name the hider's station: the round is over, or a Move gave it away.
REVEALING = frozenset({"round.result", "move.started"})
RULESET = Game.create(("a", "b")).ruleset
QUESTION_IDS = [q.id for q in RULESET.questions]
CARD_DEFS = [c.id for c in RULESET.cards]
POWERS_AND_CURSES = [c.id for c in RULESET.cards if c.kind != CardKind.TIME_BONUS]


# ----- the actions -----


def actors(role: str) -> st.SearchStrategy[tuple[str, int]]:
    """Mostly someone in ``role``; now and then the wrong person."""
    return st.tuples(st.sampled_from((role,) * 6 + ROLES), st.integers(0, 3))


hider = actors("hider")
seeker = actors("seeker")
anyone = actors("anyone")
indices = st.integers(0, 9)  # resolved modulo the list it picks from; 9 is nothing there
masks = st.lists(st.booleans(), max_size=8)


Action = tuple[Any, ...]  # (kind, *parts)


def _action(name: str, **parts: st.SearchStrategy[Any]) -> tuple[str, st.SearchStrategy[Action]]:
    return name, st.tuples(st.just(name), *parts.values())


#: (weight, (kind, strategy)): how often each kind of action comes up.
WEIGHTED: list[tuple[int, tuple[str, st.SearchStrategy[Action]]]] = [
    (6, _action("advance", seconds=st.integers(1, 400))),
    (3, _action("advance", seconds=st.sampled_from([300, 900, 1800, 3600]))),
    (3, _action("zone", by=st.one_of(st.none(), hider))),
    (
        6,
        _action(
            "ask",
            by=seeker,
            question=st.integers(0, len(QUESTION_IDS)),  # the last index is no question
            distance=st.sampled_from([None, None, -1.0, 750.0]),
            on_transit=st.booleans(),
        ),
    ),
    (2, _action("thermometer", by=seeker, travelled=st.sampled_from([0.0, 1500.0, 1e5]))),
    (8, _action("answer", by=hider, word=st.integers(0, 9), detail=st.booleans())),
    (
        6,
        _action(
            "keep",
            by=hider,
            extra=st.sampled_from([0, 0, 0, 1, -1]),  # how many more than the draw keeps
            offset=indices,
            bogus=st.sampled_from([False, False, False, True]),
        ),
    ),
    (3, _action("discard", by=hider, card=indices)),
    (
        8,
        _action(
            "play",
            by=hider,
            card=indices,
            discards=masks,
            target=st.one_of(st.none(), indices),
            confirmed=st.booleans(),
            bans=st.lists(st.integers(0, len(QUESTION_IDS)), max_size=4),
            seekers_distance=st.sampled_from([None, 10.0, 100_000.0]),
        ),
    ),
    (3, _action("gift", card=st.sampled_from(CARD_DEFS))),
    (3, _action("gift", card=st.sampled_from(POWERS_AND_CURSES))),
    (2, _action("fill")),
    (2, _action("clear", by=seeker, curse=indices)),
    (1, _action("loss", by=seeker, curse=indices)),
    (2, _action("penalty", by=hider, curse=indices)),
    (1, _action("pause", by=anyone)),
    (3, _action("resume", by=anyone)),
    (2, _action("end_game", by=st.one_of(st.none(), seeker))),
    (2, _action("claim", by=seeker, distance=st.sampled_from([None, 1.0]))),
    (2, _action("found", by=seeker, spotted=st.sampled_from([True, True, False]))),
    (3, _action("catch", by=hider, spotted=st.sampled_from([True, True, False]))),
    (1, _action("next_round", by=anyone)),
    (1, _action("leave", by=anyone)),  # leaving and aborting usually end the game
    (1, _action("abort", by=anyone)),
]


def actions(only: frozenset[str] | None = None) -> st.SearchStrategy[Action]:
    """Any action by its weight, or only the kinds named in ``only``."""
    pool = [
        strategy
        for weight, (kind, strategy) in WEIGHTED
        for _ in range(weight)
        if only is None or kind in only
    ]
    return st.sampled_from(pool).flatmap(lambda strategy: strategy)


#: What happens around a full hand: questions and answers, draws, discards and plays.
CARD_ACTIONS = frozenset({"advance", "ask", "answer", "keep", "discard", "play", "gift", "fill"})


@dataclass(frozen=True)
class Script:
    players: tuple[str, ...]
    seed: int
    seeking: bool  # start with the hiding period over and the zone fixed
    full_hand: bool  # ... and the hider's hand at its limit
    actions: tuple[tuple[Any, ...], ...]


@st.composite
def scripts(draw: st.DrawFn, max_actions: int = 60, only: frozenset[str] | None = None) -> Script:
    count = draw(st.integers(2, 4))
    seed = draw(st.one_of(st.just(7), st.integers(0, 2**32)))
    in_seeking = only is not None or draw(st.booleans())
    full_hand = in_seeking and draw(st.booleans())
    steps = draw(st.lists(actions(only), min_size=max_actions // 4, max_size=max_actions))
    return Script(PLAYERS[:count], seed, in_seeking, full_hand, tuple(steps))


# ----- running a script, checking after every step -----


@dataclass
class Run:
    """Plays a script on a fresh game and checks every invariant along the way."""

    script: Script
    game: Game = field(init=False)
    outcomes: list[str] = field(default_factory=list)  # "ok" or the violation's key
    stations: int = 0
    secrets: set[str] = field(default_factory=set)
    revealed: set[str] = field(default_factory=set)
    hiding: dict[int, float] = field(default_factory=dict)  # round -> last hiding seconds

    def __post_init__(self) -> None:
        self.game = Game.create(self.script.players, seed=self.script.seed)
        self.game.begin()
        self.check(self.game.log)

    @property
    def state(self) -> GameState:
        return self.game.state

    # ----- resolving abstract actions -----

    def who(self, actor: tuple[str, int]) -> str:
        role, index = actor
        state = self.state
        hider_team = state.hider_team_id()
        active = [p for p in state.players if p.active]
        if role == "hider":
            pool = [p for p in active if p.team_id == hider_team]
        elif role == "seeker":
            pool = [p for p in active if p.team_id != hider_team]
        elif role == "anyone":
            pool = list(state.players)  # players who left act as strangers
        else:
            pool = []
        return pool[index % len(pool)].ref if pool else STRANGER

    def hider_team(self) -> int:
        team = self.state.hider_team_id()
        assert team is not None
        return team

    def hand(self) -> list[int]:
        return [c.id for c in deck.hand(self.state, self.hider_team())]

    @staticmethod
    def pick(ids: list[int], index: int) -> int:
        return ids[index % len(ids)] if ids and index < 9 else BOGUS_ID

    def curse_id(self, index: int) -> int:
        return self.pick([c.id for c in self.state.curses], index)

    def event_for(self, action: tuple[Any, ...]) -> Event | None:
        name, *args = action
        if name == "zone":
            self.stations += 1
            station = f"SECRET-STATION-{self.stations}#"
            self.secrets.add(station)
            by = None if args[0] is None else self.who(args[0])
            return ZoneFixed(by, f"ref-{self.stations}", station, 36.1, -97.0)
        if name == "ask":
            by, question, distance, on_transit = args
            qid = QUESTION_IDS[question] if question < len(QUESTION_IDS) else "no-such-question"
            return QuestionAsked(self.who(by), qid, distance, on_transit)
        if name == "thermometer":
            return ThermometerFinished(self.who(args[0]), args[1])
        if name == "answer":  # mostly a word that fits the open question
            by, word, detail = args
            pending = self.state.pending_question()
            fitting = [NULL_ANSWER, *CATEGORY_ANSWERS[pending.category]] if pending else []
            words = fitting if word < 6 and fitting else ANSWERS
            text = words[word % len(words)]
            return QuestionAnswered(self.who(by), text, "the museum" if detail else None)
        if name == "keep":
            by, extra, offset, bogus = args
            offer = [c.id for c in self.state.cards_in(CardZone.OFFER)]
            cycle = self.state.open_draw()
            count = max(0, (cycle.keep if cycle else 1) + extra)
            chosen = tuple((offer * 2)[offset % len(offer) :][:count]) if offer else ()
            return CardsKept(self.who(by), chosen + ((BOGUS_ID,) if bogus else ()))
        if name == "discard":
            return CardDiscarded(self.who(args[0]), self.pick(self.hand(), args[1]))
        if name == "play":
            by, card, discards, target, confirmed, bans, seekers_distance = args
            hand = self.hand()
            card_id = self.pick(hand, card)
            return CardPlayed(
                self.who(by),
                card_id,
                discard_ids=tuple(
                    i for i, pick in zip(hand, discards, strict=False) if pick and i != card_id
                ),
                target_card_id=None if target is None else self.pick(hand, target),
                confirmed=confirmed,
                seekers_distance_m=seekers_distance,
                banned_question_ids=tuple(
                    QUESTION_IDS[b] if b < len(QUESTION_IDS) else "no-such-question" for b in bans
                ),
            )
        if name == "clear":
            return CurseCleared(self.who(args[0]), self.curse_id(args[1]))
        if name == "loss":
            return CurseLossReported(self.who(args[0]), self.curse_id(args[1]))
        if name == "penalty":
            return CursePenaltyClaimed(self.who(args[0]), self.curse_id(args[1]))
        if name == "end_game":
            return EndGameStarted(None if args[0] is None else self.who(args[0]))
        if name == "claim":
            return CatchClaimed(self.who(args[0]), args[1])
        if name == "catch":
            return CatchAnswered(self.who(args[0]), args[1])
        simple = {
            "pause": GamePaused,
            "resume": GameResumed,
            "next_round": NextRoundStarted,
            "leave": PlayerLeft,
            "abort": GameAborted,
        }
        return simple[name](self.who(args[0]))

    # ----- playing -----

    def play(self) -> Run:
        if self.script.seeking:
            self.advance(60 * RULESET.sizes[self.state.size].hiding_period_min)
            self.apply(self.event_for(("zone", None)))
        if self.script.full_hand:
            self.step(("fill",))
        for action in self.script.actions:
            self.step(action)
        return self

    def step(self, action: tuple[Any, ...]) -> None:
        if action[0] == "advance":
            self.advance(action[1])
        elif action[0] == "gift":
            self.gift(action[1])
        elif action[0] == "found":  # a claim and the hider's answer to it
            self.apply(CatchClaimed(self.who(action[1])))
            self.apply(CatchAnswered(self.who(("hider", 0)), action[2]))
        elif action[0] == "fill":
            for card in self.state.cards_in(CardZone.DECK):
                self.gift(card.def_id)
        else:
            self.apply(self.event_for(action))

    def apply(self, event: Event) -> None:
        before = self.state
        snapshot = copy.deepcopy(before)
        over = {t.id: deck.over_limit(before, RULESET, t.id) for t in before.teams}
        hands = {t.id: len(deck.hand(before, t.id)) for t in before.teams}
        try:
            decisions = self.game.do(event)
        except RuleViolation as error:
            assert self.state is before
            assert before == snapshot, f"{type(error).__name__} changed the state"
            self.outcomes.append(error.key)
            return
        self.outcomes.append("ok")
        self.check_hand_growth(event, over, hands)
        self.check(decisions)

    def advance(self, seconds: int) -> None:
        """Move the clock like ``Game.advance``, checking after every delivered deadline."""
        game = self.game
        target = game.now + timedelta(seconds=seconds)
        current = self.state.current_round
        paused = open_pause(self.state, PauseReason.GAME)
        before = hiding_seconds(self.state, current, game.now) if current else None
        while due := due_deadlines(self.state, target):
            game.now = max(game.now, due[0].due_at)  # type: ignore[type-var]
            self.apply(DeadlineReached(due[0].id))
        game.now = target
        self.check([])
        if (
            paused is not None
            and current is self.state.current_round
            and open_pause(self.state, PauseReason.GAME) is paused
        ):
            # Nothing but the clock changed while the game was paused: the hider's time stood.
            assert hiding_seconds(self.state, current, game.now) == before

    def gift(self, def_id: str) -> None:
        """Test setup: hand the hider a card from the deck while the hand has room."""
        state = self.state
        team = state.hider_team_id()
        if team is None or state.phase not in (Phase.HIDING, Phase.SEEKING, Phase.END_GAME):
            return
        if len(deck.hand(state, team)) >= deck.hand_limit(state, RULESET, team):
            return
        cards = [c for c in state.cards_in(CardZone.DECK) if c.def_id == def_id]
        if cards:
            deck.move_card(state, cards[0], CardZone.HAND, team)
            self.check([])

    # ----- the invariants -----

    def check(self, decisions: list[Decision]) -> None:
        self.check_cards()
        self.check_clock()
        self.check_secrets(decisions)
        self.check_one_at_a_time()

    def check_cards(self) -> None:
        """Cards are conserved: each card of the deck sits in exactly one zone."""
        state = self.state
        ids = [c.id for c in state.cards]
        assert len(ids) == len(set(ids)) == RULESET.deck_size()
        by_zone = Counter(c.zone for c in state.cards)
        assert sum(by_zone.values()) == RULESET.deck_size()
        assert set(by_zone) <= set(CardZone)
        for card in state.cards:
            held = card.zone in (CardZone.HAND, CardZone.OFFER)
            assert (card.holder_team_id is not None) == held, card
        places = Counter((c.zone, c.holder_team_id, c.position) for c in state.cards)
        assert max(places.values()) == 1, "two cards share a place in a pile"
        for team in state.teams:
            if state.cards_in(CardZone.OFFER, team.id):
                cycle = state.open_draw(team.id)
                assert cycle is not None and cycle.offered, "cards on offer without a draw"

    def check_hand_growth(self, event: Event, over: dict[int, int], hands: dict[int, int]) -> None:
        """A hand goes over its limit only when cards were added; over, its draws wait."""
        state = self.state
        for team in state.teams:
            before = over.get(team.id, 0)
            after = deck.over_limit(state, RULESET, team.id)
            if after and not before:
                assert len(deck.hand(state, team.id)) > hands.get(team.id, 0)
            if before and isinstance(event, CardsKept):
                player = state.player_by_ref(event.by)
                assert player is None or player.team_id != team.id, (
                    f"cards kept while the hand was {before} over its limit"
                )
            if after:
                assert not state.cards_in(CardZone.OFFER, team.id) or before, (
                    "a draw was offered to a hand over its limit"
                )

    def check_clock(self) -> None:
        """The hider's time of a round never runs backwards."""
        current = self.state.current_round
        if current is None:
            return
        value = hiding_seconds(self.state, current, self.game.now)
        last = self.hiding.get(current.number, 0.0)
        assert value >= last - 1e-6, f"hiding time went back from {last} to {value}"
        self.hiding[current.number] = value
        if current.hiding_seconds is not None:
            assert current.hiding_seconds == value

    def check_secrets(self, decisions: list[Decision]) -> None:
        """The station is told to the group only by the round's result or a Move."""
        hider_team = self.state.hider_team_id()
        for decision in decisions:
            if not isinstance(decision, Notify):
                continue
            to = decision.to
            # Everything but the hider's own team (or one of its players) counts as public.
            public = to.kind in (AudienceKind.GROUP, AudienceKind.SEEKERS) or (
                to.kind == AudienceKind.TEAM and to.team_id != hider_team
            ) or (
                to.kind == AudienceKind.PLAYER
                and to.player_id is not None
                and self.state.player(to.player_id).team_id != hider_team
            )
            if not public:
                continue
            text = repr(decision.params)
            if decision.key in REVEALING:
                self.revealed.update(s for s in self.secrets if s in text)
                continue
            leaked = [s for s in self.secrets - self.revealed if s in text]
            assert not leaked, f"{decision.key} tells the group {leaked}"

    def check_one_at_a_time(self) -> None:
        """One open question per asking team; one blocking curse per target."""
        state = self.state
        open_ = Counter(
            q.team_id
            for q in state.round_questions()
            if q.status in (QuestionStatus.PENDING, QuestionStatus.TRAVELLING)
        )
        assert max(open_.values(), default=0) <= 1, open_
        if state.phase in (Phase.HANDOVER, Phase.GAME_OVER):
            assert not open_, "a question stays open after its round"
        blocking = [
            c
            for c in state.round_curses()
            if curses.is_active(c, self.game.now)
            and (
                curses.rules_of(RULESET, c).blocks_questions
                or curses.rules_of(RULESET, c).blocks_transit
            )
        ]
        for team in state.seeker_team_ids():
            on_team = [c for c in blocking if c.target_team_id in (None, team)]
            assert len(on_team) <= 1, [c.def_id for c in on_team]


# ----- the properties -----


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(script=scripts())
def test_random_games_keep_every_invariant(script: Script) -> None:
    Run(script).play()


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(script=scripts(max_actions=40, only=CARD_ACTIONS))
def test_card_play_around_the_hand_limit_keeps_every_invariant(script: Script) -> None:
    Run(script).play()


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(script=scripts(max_actions=40))
def test_the_same_seed_plays_the_same_game(script: Script) -> None:
    first = Run(script).play()
    second = Run(script).play()
    assert first.state == second.state
    assert first.game.log == second.game.log
    assert first.outcomes == second.outcomes
    assert first.game.now == second.game.now


# ----- regressions the properties found -----


def test_an_overdue_question_stops_the_clock_before_it_is_answered() -> None:
    """The hider's time stood from the deadline on; it used to jump back at a late answer."""
    game = seeking()
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    game.advance(minutes=5)
    current = game.state.current_round
    assert current is not None
    at_deadline = hiding_seconds(game.state, current, game.now)
    game.advance(minutes=7)
    assert hiding_seconds(game.state, game.state.current_round, game.now) == at_deadline
    game.do(QuestionAnswered(game.hider, "no"))
    assert hiding_seconds(game.state, game.state.current_round, game.now) == at_deadline
    game.advance(minutes=1)
    assert hiding_seconds(game.state, game.state.current_round, game.now) == at_deadline + 60


def test_a_round_ending_on_an_unanswered_question_does_not_count_its_overdue_time() -> None:
    game = seeking()
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    game.advance(minutes=5)
    at_deadline = hiding_seconds(game.state, game.state.current_round, game.now)
    game.advance(minutes=20)
    game.do(CatchClaimed(game.seekers[0]))
    game.do(CatchAnswered(game.hider, True))
    assert game.state.rounds[0].hiding_seconds == at_deadline
    assert game.last("round.result")["hiding_seconds"] == at_deadline
