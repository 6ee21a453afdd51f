"""The demo's game script: the rounds as the players play them, from /newgame to the winner.

:class:`Demo` meets at a station, starts the game, and plays every round: the hider rides
to a station during the hiding period, the seekers ask one question of every category
(more while the cards the demo needs have not come), ride and walk towards the zone, find
the hider and claim the catch; then the next hider takes over. :class:`DemoResult` is what
a run returns.
"""

from __future__ import annotations

from dataclasses import dataclass

from hideseek_chat import geo
from hideseek_chat.console.demo_cards import DemoCards
from hideseek_chat.console.demo_players import (
    BUS_M_PER_MIN,
    MAP,
    NAMES,
    SEEKERS_BUS_M_PER_MIN,
    WALK_M_PER_MIN,
    DemoFailed,
    Goals,
    Mover,
    RoundSecret,
)
from hideseek_chat.console.table import Line
from hideseek_chat.rules.ruleset import Category, PowerupEffect, QuestionDef
from hideseek_chat.rules.state import CardZone, GameState, Phase, Question, QuestionStatus

#: Seekers get off the bus this far (straight line) from the hider's station.
ALIGHT_M = 900.0
#: Hider stations lie this far (straight line) from where the seekers wait.
STATION_DISTANCE_M = (2500.0, 4500.0)
#: At most this many more questions a round while the cards the demo needs have not come.
MAX_EXTRA_QUESTIONS = 12


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


class Demo(DemoCards):
    """The scripted game: ``run`` plays it to the end and returns what happened."""

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
        found = [b for b in self.buttons(hider, f"catch:{self.game_id}:") if b[1].endswith(":y")]
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
