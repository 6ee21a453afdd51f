"""The demo's scripted players: where they are, what they see, and what they do at the table.

:class:`DemoPlayers` reads the game as the players would see it (the state, their roles,
the buttons under the bot's messages), types and presses buttons for them, and lets
simulated time pass while they ride and walk and share their live locations. The records
of what the demo has shown (:class:`Goals`) and of what each round's seekers must not learn
early (:class:`RoundSecret`) are here too. The hider's card play is in ``demo_cards`` and
the game script in ``demo_script``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from hideseek_chat import geo
from hideseek_chat.console.session import Session
from hideseek_chat.console.streets import Streets, Trip, streets_of
from hideseek_chat.console.transcript import Transcript
from hideseek_chat.rules.ruleset import Category, Ruleset, Size
from hideseek_chat.rules.state import GameState

MAP = "stillwater"
NAMES = ("Alice", "Bob")
BUS_M_PER_MIN = 400.0  # about 24 km/h: the bus (faster than the 15 km/h "on transit" line)
#: The seekers' bus: a little slower, so that on the same streets they are never exactly
#: where the hider's pins were (which would look like a leak in the transcript).
SEEKERS_BUS_M_PER_MIN = 370.0
WALK_M_PER_MIN = 75.0  # 4.5 km/h


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



class DemoPlayers:
    """The two scripted players at a session's table, and the simulated time they spend."""

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
                return self.conv.services.state_at(uow, target.game_id, target.last_event_id)
            loaded = uow.games.for_chat(self.table.group)
            if loaded is None:
                raise DemoFailed("the group has no game")
            self.game_id = loaded.id
            return loaded.state

    def ruleset(self) -> Ruleset:
        return self.conv.services.rulesets(self.ruleset_name)

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
