"""``hideseek-chat demo``: two scripted players play a whole game on the Stillwater map.

Everything goes through the real conversation, engine and store, at a ``Table``: the
players type commands, share live locations, press buttons and send photos, and the
simulated clock fires the game's timers. The script plays like people would: the hider
rides along real streets to a station during the hiding period, the seekers ride and walk
towards the zone, and every decision is read off the game as the players would see it
(their hand, the buttons under the bot's messages).

It adapts to the deck the seed deals: the hider keeps a curse it can cast and clear, and
a powerup it can play, when they are offered (otherwise the best time bonus), and the
seekers keep asking questions until both were seen, in either round. The same seed
prints the same transcript: the game's seed, the start time and every choice are fixed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from hideseek_chat import geo
from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.views import chat_text
from hideseek_chat.console.session import DEFAULT_START, Session, open_session
from hideseek_chat.console.streets import Streets, Trip, streets_of
from hideseek_chat.console.table import Line
from hideseek_chat.console.transcript import Transcript
from hideseek_chat.rules.curses import is_active, is_clearable
from hideseek_chat.rules.deck import over_limit
from hideseek_chat.rules.ruleset import (
    CardDef,
    CardKind,
    Category,
    CostKind,
    CurseEffect,
    PowerupEffect,
    QuestionDef,
    Ruleset,
    Size,
)
from hideseek_chat.rules.state import CardZone, GameState, Phase, Question, QuestionStatus

MAP = "stillwater"
NAMES = ("Alice", "Bob")
BUS_M_PER_MIN = 400.0  # about 24 km/h: the bus (faster than the 15 km/h "on transit" line)
#: The seekers' bus: a little slower, so that on the same streets they are never exactly
#: where the hider's pins were (which would look like a leak in the transcript).
SEEKERS_BUS_M_PER_MIN = 370.0
WALK_M_PER_MIN = 75.0  # 4.5 km/h
#: Seekers get off the bus this far (straight line) from the hider's station.
ALIGHT_M = 900.0
#: Hider stations lie this far (straight line) from where the seekers wait.
STATION_DISTANCE_M = (2500.0, 4500.0)
#: Powerups the script can play by itself (Move would reveal the old station; Duplicate
#: needs a second card worth copying).
PLAYABLE = (
    PowerupEffect.DRAW_EXPAND,
    PowerupEffect.DISCARD_DRAW,
    PowerupEffect.VETO,
    PowerupEffect.RANDOMIZE,
)
#: At most this many more questions a round while the cards the demo needs have not come.
MAX_EXTRA_QUESTIONS = 12
#: Curse costs the script pays without further cards.
EASY_COSTS = (CostKind.CONFIRM, CostKind.DIE, CostKind.NEXT_QUESTION_FREE)


class DemoFailed(RuntimeError):
    """The script could not go on (a bug in the game or in the script)."""


@dataclass
class Goals:
    """What the demo has shown so far."""

    answered: set[Category] = field(default_factory=set)
    photo_sent: bool = False
    kept: int = 0
    curse_cast: str | None = None
    curse_cleared: bool = False
    powerup: str | None = None
    end_games: int = 0
    catches: int = 0
    game_over: bool = False

    def cards_done(self) -> bool:
        return self.curse_cleared and self.powerup is not None


@dataclass
class Mover:
    """A scripted player: where they are, and the trip they are on."""

    name: str
    lat: float
    lon: float
    private: bool = False  # shares their live location with the bot only
    trip: Trip | None = None
    along: float = 0.0
    speed: float = 0.0
    last_pin: datetime | None = None

    @property
    def position(self) -> tuple[float, float]:
        return self.lat, self.lon

    def set_trip(self, trip: Trip, speed: float) -> None:
        self.trip, self.along, self.speed = trip, 0.0, speed

    def advance(self, minutes: float) -> bool:
        """Move along the trip; whether they moved."""
        if self.trip is None:
            return False
        self.along = min(self.trip.length_m, self.along + self.speed * minutes)
        self.lat, self.lon = self.trip.at(self.along)
        if self.along >= self.trip.length_m:
            self.trip = None
        return True

    def street(self) -> str | None:
        if self.trip is None:
            return None
        return self.trip.street_at(self.along) or None


@dataclass
class RoundSecret:
    """What the seekers of a round must not learn before its result, and when it is told."""

    hider: str
    seekers: list[str]
    first_line: int  # the table's newest line id when the round began
    station: str = ""
    pins: list[str] = field(default_factory=list)  # the hider's pins as printed ("lat, lon")
    revealed_after: int = 0  # the newest line id before the hider confirmed the catch


@dataclass
class DemoResult:
    """The transcript and what the game did, for tests and the caller."""

    lines: list[str]  # as printed
    goals: Goals
    rounds: list[RoundSecret]
    chats: list[Line]  # every line of every chat at the table
    statuses: list[Line]  # every text of the pinned status messages (``id``: when)
    refs: dict[str, str]  # player name -> their ref (their private chat's key)
    group: str  # the group chat's key
    winner: str | None


class Demo:
    def __init__(
        self,
        session: Session,
        *,
        seed: int,
        ruleset: str = "metric",
        size: Size = Size.SMALL,
        lang: str | None = None,
        write: Callable[[str], None] = print,
    ) -> None:
        self.session = session
        self.table = session.table
        self.conv = session.conversation
        self.rng = random.Random(seed)
        self.seed = seed
        self.ruleset_name = ruleset
        self.size = size
        self.lang = lang
        self.lines: list[str] = []

        def out(text: str) -> None:
            self.lines.append(text)
            write(text)

        self.write = out
        self.transcript = Transcript(self.table, out)
        self.streets: Streets = streets_of(MAP)
        self.pack = geo.load_map_pack(MAP)
        self.goals = Goals()
        self.movers: dict[str, Mover] = {}
        self.game_id = 0
        self.rounds: list[RoundSecret] = []

    # ------------------------------------------------------------------ reading the game

    def state(self) -> GameState:
        """The game as it stands (shared with the conversation's cache: do not change it)."""
        with self.conv.uow_factory() as uow:
            first = self.table.person(NAMES[0]).ref
            target = uow.pings.target(self.table.group, first)
            if target is not None and target.last_event_id is not None:
                self.game_id = target.game_id
                return self.conv.state_at(uow, target.game_id, target.last_event_id)
            loaded = uow.games.for_chat(self.table.group)
            if loaded is None:
                raise DemoFailed("the group has no game")
            self.game_id = loaded.id
            return loaded.state

    def ruleset(self) -> Ruleset:
        return self.conv.rulesets(self.ruleset_name)

    def name_of(self, state: GameState, player_id: int) -> str:
        ref = state.player(player_id).ref
        return next(p.name for p in self.table.people.values() if p.ref == ref)

    def roles(self, state: GameState) -> tuple[str, list[str]]:
        hider_team = state.hider_team_id()
        assert hider_team is not None
        hider = self.name_of(state, state.team_players(hider_team)[0].id)
        seekers = [
            self.name_of(state, p.id)
            for t in state.seeker_team_ids()
            for p in state.team_players(t)
        ]
        return hider, seekers

    def buttons(self, name: str, prefix: str) -> list[tuple[object, str, str]]:
        """(line, data, label) of the buttons ``name`` sees whose data starts with ``prefix``."""
        return [
            (line, button.data, button.label)
            for line, button in self.table.buttons(name)
            if button.data.startswith(prefix)
        ]

    def press(self, name: str, data: str) -> None:
        for line, button in self.table.buttons(name):
            if button.data == data:
                self.table.press_data(name, data, line, label=button.label)
                self.flush()
                return
        raise DemoFailed(f"{name} sees no button {data!r}")

    def say(self, name: str, text: str, *, private: bool = False) -> None:
        self.table.send(name, text, private=private)
        self.flush()

    def flush(self) -> None:
        self.transcript.flush()

    def note(self, text: str) -> None:
        self.transcript.flush(final=True)
        self.write("")
        self.write(f"=== {text} ===")

    # ------------------------------------------------------------------ time and movement

    def minutes(self, count: int = 1) -> None:
        """Let ``count`` minutes pass: everyone moves on and shares where they are."""
        for _ in range(count):
            self.table.wait(timedelta(minutes=1))
            for mover in self.movers.values():
                moved = mover.advance(1)
                stale = mover.last_pin is None or self.table.now - mover.last_pin >= timedelta(
                    minutes=5
                )
                if moved or stale:
                    self.share(mover)
            self.flush()

    def share(self, mover: Mover) -> None:
        self.table.pin(mover.name, mover.lat, mover.lon, private=mover.private, note=mover.street())
        mover.last_pin = self.table.now
        if mover.private and self.rounds:
            self.rounds[-1].pins.append(f"{mover.lat:.5f}, {mover.lon:.5f}")

    def until(self, done: Callable[[GameState], bool], limit: int, what: str) -> GameState:
        for _ in range(limit):
            state = self.state()
            if done(state):
                return state
            self.minutes(1)
        state = self.state()
        if not done(state):
            raise DemoFailed(f"gave up waiting for {what}")
        return state

    # ------------------------------------------------------------------ the game

    def run(self) -> DemoResult:
        size = self.size.value
        self.write(
            f"Hide+Seek demo: seed {self.seed}, ruleset {self.ruleset_name}, {size} game, "
            f"{self.pack.title or MAP} map. Times are simulated."
        )
        self.write("")
        first, second = NAMES
        for name in NAMES:
            self.table.person(name)
        self.flush()
        self.say(first, f"/newgame {size} {self.ruleset_name}")
        self.press(second, next(d for _, d, _ in self.buttons(second, "join:")))
        if self.lang:
            self.state()
            self.say(first, "/settings")
            self.press(first, f"set:{self.game_id}:lang:{self.lang}")
        start = self.meeting_point()
        for name in NAMES:
            self.movers[name] = Mover(name, *start)
        self.say(first, "/begin")
        while True:
            state = self.state()
            if state.phase == Phase.GAME_OVER:
                break
            if state.phase == Phase.HANDOVER:
                self.handover(state)
                continue
            self.play_round(state)
        self.goals.game_over = True
        self.transcript.flush(final=True)
        winner = self.winner()
        self.write("")
        self.write(self.summary(winner))
        refs = {p.name: p.ref for p in self.table.people.values()}
        return DemoResult(
            self.lines,
            self.goals,
            self.rounds,
            self.table.lines,
            self.table.status_log,
            refs,
            self.table.group,
            winner,
        )

    def meeting_point(self) -> tuple[float, float]:
        """Where the players meet before the game: a station near the campus."""
        central = [
            s for s in self.pack.stations if geo.distance_m(s.lat, s.lon, 36.1265, -97.0640) < 1500
        ]
        station = self.rng.choice(central)
        return station.lat, station.lon

    def pick_station(self, start: tuple[float, float], seekers: tuple[float, float]) -> geo.Station:
        """A station to hide at: far enough from the seekers, reachable in the hiding period."""
        low, high = STATION_DISTANCE_M
        candidates = []
        for station in self.pack.stations:
            away = geo.distance_m(station.lat, station.lon, *seekers)
            if not low <= away <= high:
                continue
            nearest = self.streets.nearest(station.lat, station.lon)
            if geo.distance_m(station.lat, station.lon, *nearest) > 60:
                continue
            others = [
                s
                for s in self.pack.stations
                if s.id != station.id
                and geo.distance_m(s.lat, s.lon, station.lat, station.lon) < 40
            ]
            if others:  # two stops at one corner: the zone could take either
                continue
            candidates.append(station)
        if not candidates:
            raise DemoFailed("no station to hide at")
        return self.rng.choice(candidates)

    def play_round(self, state: GameState) -> None:
        hider, seekers = self.roles(state)
        current = state.current_round
        assert current is not None
        verb = "seeks" if len(seekers) == 1 else "seek"
        self.note(f"Round {current.number}: {hider} hides, {' and '.join(seekers)} {verb}")
        self.rounds.append(RoundSecret(hider, seekers, self.table.mark()))
        hiding = self.movers[hider]
        hiding.private = True
        for name in seekers:
            self.movers[name].private = False
        station = self.pick_station(hiding.position, self.movers[seekers[0]].position)
        trip = self.streets.trip(hiding.position, (station.lat, station.lon))
        hiding.set_trip(trip, BUS_M_PER_MIN)
        hiding.last_pin = self.table.now  # the first pin comes from the bus
        for name in seekers:
            self.share(self.movers[name])
        self.flush()
        state = self.until(lambda s: s.phase != Phase.HIDING, 240, "the hiding period to end")
        state = self.until(
            lambda s: s.current_round is not None and s.current_round.zone is not None,
            10,
            "the zone",
        )
        zone = state.current_round.zone if state.current_round else None
        assert zone is not None
        self.rounds[-1].station = zone.station_name
        self.seek(hider, seekers, zone.lat, zone.lon)

    def handover(self, state: GameState) -> None:
        self.minutes(2)
        state = self.state()
        if state.phase != Phase.HANDOVER:
            return
        current = state.current_round
        assert current is not None
        next_team = state.hide_order[current.number]
        name = self.name_of(state, state.team_players(next_team)[0].id)
        found = self.buttons(name, f"next:{self.game_id}")
        if found:
            self.press(name, found[0][1])
        else:
            self.minutes(1)

    # ------------------------------------------------------------------ seeking

    def plan(self) -> list[QuestionDef]:
        """One question of every category the size plays, park ones where the map knows."""
        ruleset = self.ruleset()
        index_kinds = self.pack.kinds
        plan: list[QuestionDef] = []
        by_category: dict[Category, list[QuestionDef]] = {}
        for question in ruleset.questions:
            if (
                question.is_available(self.size)
                and not question.custom_distance
                and not question.needs_transit
            ):
                by_category.setdefault(question.category, []).append(question)
        order = [
            Category.RADAR,
            Category.MATCHING,
            Category.MEASURING,
            Category.PHOTO,
            Category.THERMOMETER,
            Category.TENTACLE,
        ]
        for category in order:
            options = by_category.get(category, [])
            if not options:
                continue
            if category in (Category.MATCHING, Category.MEASURING):
                mapped = [q for q in options if q.subject == "park"] or [
                    q for q in options if q.subject in index_kinds
                ]
                options = mapped or options
                plan.append(options[0])
            elif category == Category.THERMOMETER:
                plan.append(min(options, key=lambda q: q.distance_m or 0.0))
            elif category == Category.RADAR:
                near = [q for q in options if (q.distance_m or 0) <= 5000] or options
                plan.append(self.rng.choice(near))
            else:
                plan.append(self.rng.choice(options))
        return plan

    def extras(self, asked: set[str]) -> list[QuestionDef]:
        """More questions for when the cards the demo needs have not come yet."""
        ruleset = self.ruleset()
        pool = [
            q
            for q in ruleset.questions
            if q.is_available(self.size)
            and not q.custom_distance
            and not q.needs_transit
            and q.id not in asked
            and q.category in (Category.RADAR, Category.MATCHING, Category.MEASURING)
        ]
        radars = [q for q in pool if q.category == Category.RADAR]
        others = [q for q in pool if q.category != Category.RADAR and q.subject in self.pack.kinds]
        rest = [q for q in pool if q not in radars and q not in others]
        return radars + others + rest

    def seek(self, hider: str, seekers: list[str], lat: float, lon: float) -> None:
        lead = seekers[0]
        asked: set[str] = set()
        queue = self.plan()
        extra = self.extras({q.id for q in queue})[:MAX_EXTRA_QUESTIONS]
        while queue or (not self.goals.cards_done() and extra):
            if self.state().phase != Phase.SEEKING:
                break
            question = queue.pop(0) if queue else extra.pop(0)
            asked.add(question.id)
            self.clear_curses(seekers)
            self.ask(hider, seekers, lead, question, (lat, lon))
            self.hider_turn(hider)
            self.clear_curses(seekers)
        self.approach(hider, seekers, lat, lon)

    def ask_text(self, question: QuestionDef) -> str:
        if question.category in (Category.RADAR, Category.THERMOMETER):
            return f"/ask {question.category.value} {question.label.replace(' ', '')}"
        return f"/ask {question.category.value} {question.subject}"

    def ask(
        self,
        hider: str,
        seekers: list[str],
        lead: str,
        question: QuestionDef,
        zone: tuple[float, float],
    ) -> None:
        self.minutes(1)
        before = {q.id for q in self.state().questions}
        self.say(lead, self.ask_text(question))
        state = self.state()
        new = [q for q in state.questions if q.id not in before]
        if not new:
            return  # refused: the transcript shows why
        record = new[0]
        if record.category == Category.THERMOMETER:
            self.thermometer(seekers, record, zone)
        self.minutes(1)
        self.answer(hider, record.id, allow_power=question.category in self.goals.answered)

    def thermometer(self, seekers: list[str], record: Question, zone: tuple[float, float]) -> None:
        """The seekers ride towards the zone until their pins show the distance travelled."""
        for name in seekers:
            mover = self.movers[name]
            mover.set_trip(self.streets.trip(mover.position, zone), SEEKERS_BUS_M_PER_MIN)

        def finished(state: GameState) -> bool:
            return state.question_record(record.id).status != QuestionStatus.TRAVELLING

        self.until(finished, 30, "the thermometer")
        for name in seekers:
            self.movers[name].trip = None  # off the bus

    def answer(self, hider: str, record_id: int, *, allow_power: bool) -> None:
        state = self.state()
        record = state.question_record(record_id)
        if record.status != QuestionStatus.PENDING:
            return
        team = state.hider_team_id()
        hand = {self.ruleset().card(c.def_id).powerup for c in state.cards_in(CardZone.HAND, team)}
        if self.goals.powerup is None and allow_power:
            for verb, effect in (("veto", PowerupEffect.VETO), ("rnd", PowerupEffect.RANDOMIZE)):
                found = self.buttons(hider, f"{verb}:{self.game_id}:{record_id}")
                if effect in hand and found:
                    self.press(hider, found[0][1])
                    after = self.state().question_record(record_id)
                    if after.status in (QuestionStatus.VETOED, QuestionStatus.RANDOMIZED):
                        self.goals.powerup = effect.value
                    if after.replaced_by is not None:
                        self.minutes(1)
                        self.answer(hider, after.replaced_by, allow_power=False)
                    return
        if record.category == Category.PHOTO:
            self.minutes(2)
            self.table.photo(hider, f"{record.question_id}.jpg")
            self.flush()
            if self.state().question_record(record_id).status == QuestionStatus.ANSWERED:
                self.goals.photo_sent = True
                self.goals.answered.add(Category.PHOTO)
            return
        found = self.buttons(hider, f"ans:{self.game_id}:{record_id}:")
        if not found:
            raise DemoFailed(f"no answer buttons for question {record.question_id}")
        suggested = [f for f in found if f[2].startswith("👉")]
        null = [f for f in found if f[1].endswith(":null")]
        choice = (suggested or [f for f in found if f not in null] or found)[0]
        self.press(hider, choice[1])
        if self.state().question_record(record_id).status == QuestionStatus.ANSWERED:
            self.goals.answered.add(record.category)

    # ------------------------------------------------------------------ the hider's cards

    def wanted_curse(self, card: CardDef, hand_size: int) -> bool:
        curse = card.curse
        if curse is None or not is_clearable(curse) or curse.effect != CurseEffect.NONE:
            return False
        if curse.cost.kind in EASY_COSTS:
            return True
        # a discard of any kind of card: time bonuses pay it
        return (
            curse.cost.kind == CostKind.DISCARD
            and curse.cost.card_kind in (None, CardKind.TIME_BONUS)
            and hand_size >= curse.cost.count
        )

    def card_value(
        self, card: CardDef, state: GameState, team: int, own: int | None = None
    ) -> float:
        """How much the script wants ``card`` (``own``: its id, when it is in the hand)."""
        ruleset = self.ruleset()
        hand = [ruleset.card(c.def_id) for c in state.cards_in(CardZone.HAND, team) if c.id != own]
        if (
            self.goals.curse_cast is None
            and self.wanted_curse(card, len(hand))
            and not any(self.wanted_curse(h, len(hand)) for h in hand)
        ):
            return 1000.0
        if (
            self.goals.powerup is None
            and card.powerup in PLAYABLE
            and not any(h.powerup in PLAYABLE for h in hand)
        ):
            return 900.0 - PLAYABLE.index(card.powerup)
        if card.kind == CardKind.TIME_BONUS:
            return card.minutes[self.size] if card.minutes else 0.0
        return -1.0

    def hider_turn(self, hider: str) -> None:
        """Keep cards from the offers, keep the hand within its limit, play what is wanted."""
        for _ in range(12):
            state = self.state()
            team = state.hider_team_id()
            if team is None or state.phase not in (Phase.SEEKING, Phase.END_GAME):
                return
            if over_limit(state, self.ruleset(), team):
                worst = self.worst_in_hand(state, team)
                self.minutes(1)
                self.say(hider, "/hand", private=True)
                self.press(hider, f"disc:{self.game_id}:{worst}")
                continue
            best = self.best_offer(hider, state, team)
            if best is not None:
                self.press(hider, best)
                self.goals.kept += 1
                continue
            if self.play_cards(hider, state, team):
                continue
            return

    def worst_in_hand(self, state: GameState, team: int) -> int:
        """The id of the card the hider misses least."""
        ruleset = self.ruleset()
        values = [
            (self.card_value(ruleset.card(c.def_id), state, team, c.id), c.id)
            for c in state.cards_in(CardZone.HAND, team)
        ]
        return min(values)[1]

    def best_offer(self, hider: str, state: GameState, team: int) -> str | None:
        """The data of the keep button for the most wanted cards on offer, if any."""
        offered = {c.id for c in state.cards_in(CardZone.OFFER, team)}
        if not offered:
            return None
        ruleset = self.ruleset()
        scored = []
        for _, data, _ in self.buttons(hider, f"keep:{self.game_id}:"):
            ids = {int(i) for i in data.rsplit(":", 1)[1].split(",")}
            if ids <= offered:
                value = sum(
                    self.card_value(ruleset.card(state.card(i).def_id), state, team) for i in ids
                )
                scored.append((value, data))
        if not scored:
            raise DemoFailed("the offer's buttons do not match the cards on offer")
        return max(scored)[1]

    def play_cards(self, hider: str, state: GameState, team: int) -> bool:
        """Play a wanted curse or powerup; whether something was played."""
        ruleset = self.ruleset()
        hand = state.cards_in(CardZone.HAND, team)
        if self.goals.curse_cast is None and state.phase == Phase.SEEKING:
            blocking = any(is_active(c, self.table.now) for c in state.round_curses())
            for card in hand:
                card_def = ruleset.card(card.def_id)
                if not blocking and self.wanted_curse(card_def, len(hand) - 1):
                    return self.play(hider, card.id, card_def)
        if self.goals.powerup is None:
            for card in hand:
                card_def = ruleset.card(card.def_id)
                if card_def.powerup == PowerupEffect.DRAW_EXPAND or (
                    card_def.powerup == PowerupEffect.DISCARD_DRAW
                    and len(hand) - 1 >= card_def.discard
                ):
                    return self.play(hider, card.id, card_def)
        return False

    def play(self, hider: str, card_id: int, card_def: CardDef) -> bool:
        self.minutes(1)
        self.say(hider, "/hand", private=True)
        prefix = f"play:{self.game_id}:{card_id}"
        self.press(hider, prefix)
        for _ in range(4):  # the steps a card asks for: confirm a cost, choose discards
            steps = [f for f in self.buttons(hider, prefix + ":") if f[1] != prefix]
            state = self.state()
            if card_id not in {c.id for c in state.cards_in(CardZone.HAND, state.hider_team_id())}:
                break
            if not steps:
                return False
            self.press(hider, self.choose_step(state, steps))
        state = self.state()
        if card_def.curse is not None:
            cast = [c for c in state.round_curses() if c.card_id == card_id]
            if cast and not cast[0].no_effect:
                self.goals.curse_cast = card_def.id
        elif card_id in {c.id for c in state.cards_in(CardZone.PLAYED)}:
            self.goals.powerup = card_def.id
        return True

    def choose_step(self, state: GameState, steps: list[tuple[object, str, str]]) -> str:
        """The cheapest discard (time bonuses first), or the confirmation."""
        ruleset = self.ruleset()
        team = state.hider_team_id()
        assert team is not None

        def cost(found: tuple[object, str, str]) -> tuple[float, str]:
            last = found[1].rsplit(":", 1)[1]
            if not last.startswith("d"):
                return (0.0, found[1])
            ids = [int(i) for i in last[1:].split(".") if i]
            return (
                sum(
                    self.card_value(ruleset.card(state.card(i).def_id), state, team, i) for i in ids
                ),
                found[1],
            )

        return min(steps, key=cost)[1]

    def clear_curses(self, seekers: list[str]) -> None:
        """The seekers do what an active curse asks, then press its button."""
        state = self.state()
        ruleset = self.ruleset()
        for curse in state.round_curses():
            rules = ruleset.card(curse.def_id).curse
            if rules is None or not is_active(curse, self.table.now) or not is_clearable(rules):
                continue
            found = self.buttons(seekers[0], f"clear:{self.game_id}:{curse.id}")
            if not found:
                continue
            self.minutes(4)  # doing what the curse asks
            self.press(seekers[0], found[0][1])
            if self.state().curse(curse.id).cleared_at is not None:
                self.goals.curse_cleared = True

    # ------------------------------------------------------------------ end game and catch

    def approach(self, hider: str, seekers: list[str], lat: float, lon: float) -> None:
        """Ride towards the zone, walk in, find the hider, claim the catch."""
        for name in seekers:
            mover = self.movers[name]
            mover.set_trip(self.streets.trip(mover.position, (lat, lon)), SEEKERS_BUS_M_PER_MIN)
        lead = self.movers[seekers[0]]
        for _ in range(90):
            state = self.state()
            if state.phase != Phase.SEEKING:
                break
            if (
                lead.speed == SEEKERS_BUS_M_PER_MIN
                and geo.distance_m(lead.lat, lead.lon, lat, lon) < ALIGHT_M
            ):
                for name in seekers:
                    self.movers[name].speed = WALK_M_PER_MIN
            if lead.trip is None:  # at the station: walk on a little
                for name in seekers:
                    mover = self.movers[name]
                    mover.set_trip(self.streets.trip(mover.position, (lat, lon)), WALK_M_PER_MIN)
            self.minutes(1)
            self.clear_curses(seekers)
            self.hider_turn(hider)
        state = self.state()
        if state.phase != Phase.END_GAME:
            raise DemoFailed(f"the end game did not start ({state.phase})")
        self.goals.end_games += 1
        self.minutes(1)
        self.hider_turn(hider)
        spot = self.movers[hider].position
        for name in seekers:
            mover = self.movers[name]
            bearing = geo.bearing_deg(spot[0], spot[1], mover.lat, mover.lon)
            near = geo.destination(spot[0], spot[1], bearing, 1.5)
            mover.set_trip(self.streets.trip(mover.position, near), WALK_M_PER_MIN)
        for _ in range(60):
            if self.movers[seekers[0]].trip is None:
                break
            self.minutes(1)
            self.clear_curses(seekers)
        self.minutes(1)
        self.say(seekers[0], "/found")
        self.minutes(1)
        found = self.buttons(hider, f"catch:{self.game_id}:y")
        if not found:
            raise DemoFailed("the hider was not asked to confirm the catch")
        self.rounds[-1].revealed_after = self.table.mark()
        self.press(hider, found[0][1])
        state = self.state()
        if state.phase in (Phase.HANDOVER, Phase.GAME_OVER):
            self.goals.catches += 1

    # ------------------------------------------------------------------ the end

    def winner(self) -> str | None:
        state = self.state()
        best: tuple[float, str] | None = None
        for round_ in state.rounds:
            total = round_.total_seconds
            if total is None:
                continue
            name = self.name_of(state, state.team_players(round_.hider_team_id)[0].id)
            if best is None or total > best[0]:
                best = (total, name)
        return best[1] if best else None

    def summary(self, winner: str | None) -> str:
        g = self.goals
        asked = ", ".join(sorted(c.value for c in g.answered))
        parts = [
            f"Demo over: {len(self.rounds)} rounds; answered {asked};",
            f"{g.kept} draws kept; curse {g.curse_cast or '-'}"
            f" {'cast and cleared' if g.curse_cleared else 'not cleared'};",
            f"powerup {g.powerup or '-'}; {g.end_games} end games, {g.catches} catches;",
            f"longest hider: {winner or '-'}.",
        ]
        return " ".join(parts)


def run_demo(
    *,
    seed: int = 1,
    ruleset: str = "metric",
    size: Size = Size.SMALL,
    lang: str | None = None,
    write: Callable[[str], None] = print,
    database_url: str | None = None,
    rulesets_dirs: tuple[Path, ...] = (),
    start: datetime = DEFAULT_START,
) -> DemoResult:
    """Play the demo game and print its transcript with ``write``."""
    with open_session(
        seed=seed, start=start, database_url=database_url, rulesets_dirs=rulesets_dirs
    ) as session:
        demo = Demo(session, seed=seed, ruleset=ruleset, size=size, lang=lang, write=write)
        if lang:
            demo.transcript.quiet_toasts = frozenset(
                {"Done.", chat_text("chat.done", {}, Formatter(lang))}
            )
        return demo.run()
