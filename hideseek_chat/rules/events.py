"""Events: what happened, in the past tense. ``by`` is the acting person's channel ref."""

from __future__ import annotations

from dataclasses import dataclass, field

from hideseek_chat.rules.ruleset import Size
from hideseek_chat.rules.state import Mode, Transport


@dataclass(frozen=True)
class Event:
    pass


# ----- setup -----


@dataclass(frozen=True)
class PlayerJoined(Event):
    by: str
    name: str


@dataclass(frozen=True)
class PlayerLeft(Event):
    by: str


@dataclass(frozen=True)
class TeamJoined(Event):
    """``by`` joins the team of the player ``teammate`` (teams hide together)."""

    by: str
    teammate: str


@dataclass(frozen=True)
class TeamChosen(Event):
    """``by`` joins the team ``team_id``, or the team called ``name`` (making it when there
    is none); with neither, ``by`` plays on their own again (a team of one)."""

    by: str
    name: str | None = None
    team_id: int | None = None


@dataclass(frozen=True)
class TeamRenamed(Event):
    by: str
    name: str


@dataclass(frozen=True)
class SettingsChanged(Event):
    """Admin changes setup settings; ``None`` leaves a setting as it is."""

    by: str
    size: Size | None = None
    rounds_per_team: int | None = None
    end_timer_min: float | None = None
    clear_end_timer: bool = False
    rest_periods: tuple[tuple[str, str], ...] | None = None
    #: a stored zone name (``rules.localtime.parse_time_zone`` makes one from typed text);
    #: ``time_zone_from_map`` when the map chose it rather than the admin
    time_zone: str | None = None
    time_zone_from_map: bool = False
    #: another ruleset for the game (the chat layer checks that it exists)
    ruleset: str | None = None
    transport: Transport | None = None
    mode: Mode | None = None
    global_scale: bool | None = None


@dataclass(frozen=True)
class GameBegun(Event):
    by: str


@dataclass(frozen=True)
class GameAborted(Event):
    """The admin ends the game early; the results so far stand."""

    by: str


# ----- time -----


@dataclass(frozen=True)
class DeadlineReached(Event):
    deadline_id: int


@dataclass(frozen=True)
class GamePaused(Event):
    by: str


@dataclass(frozen=True)
class GameResumed(Event):
    by: str


@dataclass(frozen=True)
class GroupLost(Event):
    """The referee can no longer speak in the game's group (removed from it): the game is
    paused until a player resumes it."""


# ----- zones and positions (facts the geo layer established) -----


@dataclass(frozen=True)
class ZoneFixed(Event):
    """The hider's zone is centred on this station (the geo layer or the hider chose it)."""

    by: str | None
    station_ref: str
    station_name: str
    lat: float
    lon: float
    #: fixed from a pin sent after the hiding period (the seekers were told it was pending)
    late: bool = False


@dataclass(frozen=True)
class EndGameStarted(Event):
    """A seeker is inside the zone and off transit (geo found it, or a seeker claims it)."""

    by: str | None


@dataclass(frozen=True)
class CatchClaimed(Event):
    by: str
    distance_m: float | None = None


@dataclass(frozen=True)
class CatchAnswered(Event):
    """The hider confirms (``spotted``) or denies a claimed catch."""

    by: str
    spotted: bool


@dataclass(frozen=True)
class CatchDecided(Event):
    """The admin decides that ``seeker`` (a ref) found the hider: the hider cannot answer."""

    by: str
    seeker: str


@dataclass(frozen=True)
class NextRoundStarted(Event):
    """The next hider (or the admin) ends the handover early."""

    by: str


# ----- questions -----


@dataclass(frozen=True)
class QuestionAsked(Event):
    by: str
    question_id: str
    distance_m: float | None = None  # a custom radar's distance
    on_transit: bool = False
    #: the station the asker's current pin is in (Urban Explorer forbids asking there)
    at_station: str | None = None
    #: a transit-line question: the line the seekers ride (None: they did not say)
    line: str | None = None


@dataclass(frozen=True)
class ThermometerFinished(Event):
    """The seekers arrived at the end of a thermometer after travelling ``travelled_m``."""

    by: str
    travelled_m: float


@dataclass(frozen=True)
class QuestionAnswered(Event):
    by: str
    answer: str
    detail: str | None = None  # a tentacle's feature name, a photo's reference
    record_id: int | None = None  # which question, when two teams each have one open
    caption: str | None = None  # what the hider wrote under an answering photo


# ----- cards -----


@dataclass(frozen=True)
class CardsKept(Event):
    by: str
    card_ids: tuple[int, ...]


@dataclass(frozen=True)
class CardDiscarded(Event):
    by: str
    card_id: int


@dataclass(frozen=True)
class CardPlayed(Event):
    """A powerup or curse is played; the extra fields carry what that card needs."""

    by: str
    card_id: int
    discard_ids: tuple[int, ...] = ()
    target_card_id: int | None = None  # Duplicate: the card it copies
    confirmed: bool = False  # the hider confirms a casting condition
    seekers_distance_m: float | None = None  # nearest seeker, when the pins tell
    seekers_away: bool | None = None  # U-Turn: the seekers head away (None: pins can't tell)
    banned_question_ids: tuple[str, ...] = ()  # Drained Brain
    target_team_id: int | None = None  # two-team games: the team a curse targets
    record_id: int | None = None  # Veto/Randomize: which open question (two-team games)
    extra: dict[str, str] = field(default_factory=dict, hash=False)


# ----- curses -----


@dataclass(frozen=True)
class CurseCleared(Event):
    by: str
    curse_id: int


@dataclass(frozen=True)
class CurseLossReported(Event):
    """Seekers lost a round of a curse game (Hidden Hangman)."""

    by: str
    curse_id: int


@dataclass(frozen=True)
class CursePenaltyClaimed(Event):
    """The hider reports that seekers broke a curse that awards them a bonus."""

    by: str
    curse_id: int
