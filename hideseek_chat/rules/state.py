"""The game state: flat records with ids, shaped like the tables that will store them.

Everything here is plain data. The engine (``engine.apply``) copies a state, changes the
copy and returns it; nothing in this module reads the clock or talks to the outside.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TypeVar

from hideseek_chat.rules.ruleset import Category, Size


class Phase(StrEnum):
    SETUP = "setup"
    HIDING = "hiding"  # the hiding period: the hider travels, seekers wait
    SEEKING = "seeking"
    MOVING = "moving"  # a Move powerup: a new hiding period, hider clock paused
    END_GAME = "end_game"
    HANDOVER = "handover"  # after a catch, before the next hiding period
    GAME_OVER = "game_over"


class Transport(StrEnum):
    TRANSIT = "transit"
    CAR = "car"
    FOOT = "foot"


class Mode(StrEnum):
    STANDARD = "standard"
    TEAMS_POINTS = "teams_points"  # two seeker teams, a neutral hider, a point per round
    TEAMS_TIME = "teams_time"  # two seeker teams race; lowest single seeking time wins


class CardZone(StrEnum):
    DECK = "deck"
    OFFER = "offer"  # drawn, waiting for the holder to choose which to keep
    HAND = "hand"
    DISCARD = "discard"
    PLAYED = "played"


class QuestionStatus(StrEnum):
    TRAVELLING = "travelling"  # a thermometer whose seekers are still on their way
    PENDING = "pending"
    ANSWERED = "answered"
    VETOED = "vetoed"
    RANDOMIZED = "randomized"  # replaced by another question; does not count as asked
    CANCELLED = "cancelled"  # the round ended before an answer


class PauseReason(StrEnum):
    GAME = "game"  # /pause: every timer stops
    REST = "rest"  # a rest period: every timer stops
    LATE_ANSWER = "late_answer"  # only the hider's clock stops
    MOVE = "move"  # only the hider's clock stops (seekers are frozen too)


#: Pauses that stop every game timer, not only the hider's clock.
TIMER_PAUSES = frozenset({PauseReason.GAME, PauseReason.REST})


class DeadlineKind(StrEnum):
    HIDING_REMINDER = "hiding_reminder"
    HIDING_ENDS = "hiding_ends"
    ANSWER_REMINDER = "answer_reminder"
    ANSWER_DUE = "answer_due"
    CURSE_EXPIRES = "curse_expires"
    MOVE_ENDS = "move_ends"
    HANDOVER_ENDS = "handover_ends"
    GAME_TIMER = "game_timer"
    REST_STARTS = "rest_starts"
    REST_ENDS = "rest_ends"


#: Deadlines that keep running through a pause (a hard end time, the rest schedule).
UNPAUSABLE_DEADLINES = frozenset(
    {DeadlineKind.GAME_TIMER, DeadlineKind.REST_STARTS, DeadlineKind.REST_ENDS}
)


class Ending(StrEnum):
    """Why a round ended."""

    CAUGHT = "caught"
    GAME_TIMER = "game_timer"
    ABANDONED = "abandoned"


@dataclass
class Team:
    id: int
    name: str


@dataclass
class Player:
    id: int
    ref: str  # the channel's stable id for this person, e.g. "tg:12345"
    name: str
    team_id: int
    active: bool = True


@dataclass
class Card:
    id: int
    def_id: str
    zone: CardZone
    position: int  # order within its zone (deck: 0 is the top)
    holder_team_id: int | None = None  # whose hand or offer it is in


@dataclass
class DrawCycle:
    """One "draw N, keep K" owed to a team; the first open one is on offer."""

    id: int
    round_number: int
    team_id: int
    draw: int
    keep: int
    question_id: int | None
    offered: bool = False
    done: bool = False


@dataclass
class Question:
    id: int
    round_number: int
    question_id: str  # the ruleset's question id
    category: Category
    asked_by: int  # player id
    team_id: int  # the asking team
    asked_at: datetime
    status: QuestionStatus
    times_asked: int  # this is the Nth time the question is asked: costs N cycles
    distance_m: float | None = None
    due_at: datetime | None = None
    answer: str | None = None
    answer_detail: str | None = None  # a tentacle's named feature, a photo reference
    answered_at: datetime | None = None
    late: bool = False
    free: bool = False  # Impressionable Consumer: no cards for this one
    extra_draw: int = 0  # Overflowing Chalice
    replaced_by: int | None = None  # randomized into this question id
    line: str | None = None  # a transit-line question: the line the asking seekers ride


@dataclass
class ActiveCurse:
    id: int
    round_number: int
    card_id: int
    def_id: str
    cast_at: datetime
    target_team_id: int | None = None  # None: every seeker
    expires_at: datetime | None = None
    cleared_at: datetime | None = None
    no_effect: bool = False  # a die roll cancelled it
    losses: int = 0  # Hidden Hangman
    lockout_until: datetime | None = None
    penalties: int = 0


@dataclass
class BannedQuestion:
    round_number: int
    question_id: str
    curse_id: int


@dataclass
class Pause:
    id: int
    reason: PauseReason
    start: datetime
    end: datetime | None = None
    round_number: int | None = None


@dataclass
class Deadline:
    id: int
    kind: DeadlineKind
    due_at: datetime | None  # None while frozen by a pause
    round_number: int | None = None
    ref_id: int | None = None  # the question or curse it belongs to
    remaining_s: float | None = None  # while frozen
    done: bool = False


@dataclass
class Catch:
    """A seeker team found the hider; in two-team games each team's time is its own."""

    round_number: int
    team_id: int
    at: datetime
    seconds: float = 0.0  # the seeking time up to this catch, pauses excluded
    bonus_minutes: float = 0.0  # two-team points mode: the team's own time bonuses


@dataclass
class PendingCatch:
    round_number: int
    claimed_by: int  # player id
    claimed_at: datetime
    distance_m: float | None = None


@dataclass
class Zone:
    """The hider's zone: secret until the rules reveal it."""

    station_ref: str
    station_name: str
    lat: float
    lon: float
    radius_m: float
    fixed_at: datetime


@dataclass
class Round:
    number: int
    hider_team_id: int
    hiding_started_at: datetime | None = None
    seeking_started_at: datetime | None = None
    end_game_started_at: datetime | None = None
    ended_at: datetime | None = None
    ending: Ending | None = None
    zone: Zone | None = None
    previous_zones: list[Zone] = field(default_factory=list)
    hand_limit_bonus: dict[int, int] = field(default_factory=dict)  # team id -> extra slots
    chalice_remaining: int = 0
    spotty_category: Category | None = None
    urban_explorer: bool = False
    next_question_free: bool = False
    penalty_minutes: float = 0.0
    bonus_minutes: float | None = None  # time bonuses in hand at the end (with duplicates)
    hiding_seconds: float | None = None  # elapsed hiding time, pauses excluded

    @property
    def total_seconds(self) -> float | None:
        if self.hiding_seconds is None or self.bonus_minutes is None:
            return None
        return self.hiding_seconds + 60 * (self.bonus_minutes + self.penalty_minutes)


@dataclass
class Settings:
    rounds_per_team: int = 1
    end_timer_min: float | None = None
    rest_periods: list[tuple[str, str]] = field(default_factory=list)  # ("22:00", "08:00")
    #: the zone clock times are read and shown in: an IANA name or a fixed offset
    #: (``rules.localtime``); the map sets it unless the admin typed one
    time_zone: str = "UTC"
    time_zone_typed: bool = False  # the admin typed the zone (a later map keeps it)
    transport: Transport = Transport.TRANSIT
    mode: Mode = Mode.STANDARD
    global_scale: bool = False


@dataclass
class GameState:
    ruleset: str
    size: Size
    seed: int
    admin_player_id: int | None = None
    created_at: datetime | None = None
    phase: Phase = Phase.SETUP
    settings: Settings = field(default_factory=Settings)
    teams: list[Team] = field(default_factory=list)
    players: list[Player] = field(default_factory=list)
    hide_order: list[int] = field(default_factory=list)  # team ids, one per round
    rounds: list[Round] = field(default_factory=list)
    cards: list[Card] = field(default_factory=list)
    draws: list[DrawCycle] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    curses: list[ActiveCurse] = field(default_factory=list)
    banned: list[BannedQuestion] = field(default_factory=list)
    pauses: list[Pause] = field(default_factory=list)
    deadlines: list[Deadline] = field(default_factory=list)
    catches: list[Catch] = field(default_factory=list)
    pending_catch: PendingCatch | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    game_timer_at: datetime | None = None
    rng_counter: int = 0
    next_id: int = 1
    last_event_at: datetime | None = None

    def clone(self) -> GameState:
        """A copy whose records can be changed without touching this state.

        Records are copied one level deep (their fields are immutable values), which is
        much cheaper than ``copy.deepcopy``; the few nested containers are copied too.
        """
        new = _copy(self)
        new.settings = _copy(self.settings)
        new.settings.rest_periods = list(self.settings.rest_periods)
        new.hide_order = list(self.hide_order)
        new.pending_catch = copy.copy(self.pending_catch)
        for name in RECORD_LISTS:
            setattr(new, name, [_copy(record) for record in getattr(self, name)])
        for round_ in new.rounds:
            round_.previous_zones = list(round_.previous_zones)  # Zones are never changed
            round_.hand_limit_bonus = dict(round_.hand_limit_bonus)
        return new

    # ----- lookups (read-only helpers used across the engine) -----

    def new_id(self) -> int:
        value = self.next_id
        self.next_id += 1
        return value

    @property
    def current_round(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def is_paused(self) -> bool:
        return any(p.end is None and p.reason in TIMER_PAUSES for p in self.pauses)

    def player(self, player_id: int) -> Player:
        for player in self.players:
            if player.id == player_id:
                return player
        raise KeyError(player_id)

    def player_by_ref(self, ref: str) -> Player | None:
        for player in self.players:
            if player.ref == ref and player.active:
                return player
        return None

    def team(self, team_id: int) -> Team:
        for team in self.teams:
            if team.id == team_id:
                return team
        raise KeyError(team_id)

    def team_players(self, team_id: int) -> list[Player]:
        return [p for p in self.players if p.team_id == team_id and p.active]

    def active_team_ids(self) -> list[int]:
        return [t.id for t in self.teams if self.team_players(t.id)]

    def hider_team_id(self) -> int | None:
        current = self.current_round
        return current.hider_team_id if current else None

    def is_hider(self, player_id: int) -> bool:
        current = self.current_round
        return current is not None and self.player(player_id).team_id == current.hider_team_id

    def seeker_team_ids(self) -> list[int]:
        hider = self.hider_team_id()
        return [t for t in self.active_team_ids() if t != hider]

    def cards_in(self, zone: CardZone, team_id: int | None = None) -> list[Card]:
        cards = [
            c
            for c in self.cards
            if c.zone == zone and (team_id is None or c.holder_team_id == team_id)
        ]
        return sorted(cards, key=lambda c: c.position)

    def card(self, card_id: int) -> Card:
        for card in self.cards:
            if card.id == card_id:
                return card
        raise KeyError(card_id)

    def question_record(self, record_id: int) -> Question:
        for question in self.questions:
            if question.id == record_id:
                return question
        raise KeyError(record_id)

    def round_questions(self, number: int | None = None) -> list[Question]:
        current = self.current_round
        number = number if number is not None else (current.number if current else -1)
        return [q for q in self.questions if q.round_number == number]

    def pending_question(self, team_id: int | None = None) -> Question | None:
        for question in self.round_questions():
            if question.status in (QuestionStatus.PENDING, QuestionStatus.TRAVELLING) and (
                team_id is None or question.team_id == team_id
            ):
                return question
        return None

    def curse(self, curse_id: int) -> ActiveCurse:
        for curse in self.curses:
            if curse.id == curse_id:
                return curse
        raise KeyError(curse_id)

    def round_curses(self) -> list[ActiveCurse]:
        current = self.current_round
        if current is None:
            return []
        return [c for c in self.curses if c.round_number == current.number]

    def open_deadlines(self) -> list[Deadline]:
        return [d for d in self.deadlines if not d.done]

    def open_draw(self, team_id: int | None = None) -> DrawCycle | None:
        for cycle in self.draws:
            if not cycle.done and (team_id is None or cycle.team_id == team_id):
                return cycle
        return None


#: GameState fields that are lists of records (copied record by record in ``clone``).
_R = TypeVar("_R")


def _copy(record: _R) -> _R:
    """A shallow copy of a plain dataclass instance: ``copy.copy`` without its protocol
    lookups, a few times faster (a burst of timers copies a hundred cards per game)."""
    new = object.__new__(record.__class__)
    new.__dict__.update(record.__dict__)
    return new


RECORD_LISTS = (
    "teams",
    "players",
    "rounds",
    "cards",
    "draws",
    "questions",
    "curses",
    "banned",
    "pauses",
    "deadlines",
    "catches",
)
