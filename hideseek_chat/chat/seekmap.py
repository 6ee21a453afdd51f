"""The seekers' map from the seekers' side: the clues they were given and what is left.

Only what the seekers know goes in: the answers of the current round, their own pins when
they asked (chosen exactly as ``sightings.suggestion`` chose them when the question
reached the hider), the questions' distances and subjects, the zone's size, and the
public moments of the round (a Move). The hider's pins and zone are never read here, so
two hiders given the same answers get the same map, captions and lists, byte for byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from hideseek_chat.chat import referee, sightings
from hideseek_chat.chat.lru import LRU
from hideseek_chat.chat.maps import Maps
from hideseek_chat.geo import MapIndex, MapPack
from hideseek_chat.geo.seeking import Clue, SeekerMap, seeker_map, with_clue
from hideseek_chat.rules import hiding
from hideseek_chat.rules.questions import is_transit_line
from hideseek_chat.rules.ruleset import Category, HiderPosition, Ruleset
from hideseek_chat.rules.scale import size_rules
from hideseek_chat.rules.state import GameState, PauseReason, Question, QuestionStatus
from hideseek_chat.store import Ping, UnitOfWork

#: Seekers' maps one process keeps in memory (the newest of each game, and its clues).
MAX_VIEWS = 64
#: Stations /stations lists per page.
PAGE_SIZE = 10
#: A seeker's label on the picture: the start of their name.
LABEL_CHARS = 12
#: The caption names the candidates when at most this many are left (a text without the
#: picture, SMS, then says where to look).
NAMED = 5

#: the map, the stations dropped, the zone's radius, the basis of the answers, whether the
#: zones are centred on street ends, then the clues
ViewKey = tuple[str, frozenset[str], float, HiderPosition, bool, tuple[Clue, ...]]
ViewCache = LRU[ViewKey, SeekerMap]


def view_cache(cap: int = MAX_VIEWS) -> ViewCache:
    """Seekers' maps by what they were computed from (map, dropped stations, clues)."""
    return LRU(cap)


@dataclass(frozen=True)
class SeekersView:
    """The seekers' map of a round, with what a picture of it shows besides."""

    view: SeekerMap
    #: each seeker's newest pin, as ``(label, lat, lon)``, in the game's order of players
    pins: tuple[tuple[str, float, float], ...]
    pack: MapPack
    #: each clue's question id, by the clue's ``ref`` (the not-applied list names them)
    questions: dict[int, tuple[str, float | None]]
    #: the candidates are street ends (a car or on-foot game), not stations
    street_ends: bool = False
    #: the group's units ("metric" or "imperial"): the picture's scale bar
    units: str = "metric"


# ----------------------------------------------------------------- clues


def clues(uow: UnitOfWork, ruleset: Ruleset, game_id: int, state: GameState) -> list[Clue]:
    """The clues of the current round's answered (or vetoed) questions, oldest first."""
    current = state.current_round
    if current is None:
        return []
    moved_at = _last_move(state, current.number)
    found: list[Clue] = []
    for record in state.round_questions(current.number):
        if record.status == QuestionStatus.VETOED:
            found.append(_bare(ruleset, record, void="vetoed"))
        elif record.status == QuestionStatus.ANSWERED:
            clue = _clue(uow, ruleset, game_id, state, record)
            # Asked before the Move (even if answered during it): the answer is about a
            # place the hider has left, and may rule out the zone they moved to.
            if moved_at is not None and record.asked_at <= moved_at:
                clue = replace(clue, void="moved")
            found.append(clue)
    return sorted(found, key=lambda clue: clue.ref)


def _last_move(state: GameState, round_number: int) -> datetime | None:
    """When the hider last began a Move this round (public: the group is told)."""
    starts = [
        pause.start
        for pause in state.pauses
        if pause.reason == PauseReason.MOVE and pause.round_number == round_number
    ]
    return max(starts) if starts else None


def _bare(ruleset: Ruleset, record: Question, *, void: str = "") -> Clue:
    """The clue of ``record`` without pins: its category, subject, answer and distance."""
    question = ruleset.question(record.question_id)
    return Clue(
        ref=record.id,
        category=record.category.value,
        subject=question.subject,
        answer=record.answer,
        # a transit-line clue's detail is the line the seekers rode, which they named
        detail=record.line if is_transit_line(question) else record.answer_detail,
        distance_m=record.distance_m or question.distance_m,
        void=void,
    )


def _clue(
    uow: UnitOfWork, ruleset: Ruleset, game_id: int, state: GameState, record: Question
) -> Clue:
    """``record`` as a clue, with the pins ``sightings.suggestion`` used for it."""
    bare = _bare(ruleset, record)
    if record.category == Category.PHOTO:
        return bare
    start = sightings.pin_before(uow, game_id, record.asked_by, record.asked_at)
    if start is None:
        return bare  # the geometry lists it: no seeker pin
    if not referee.is_current(start, record.asked_at):
        # Where the seeker was long before asking says nothing of where they asked from.
        return replace(bare, void="stale_seeker_pin")
    end = None
    if record.category == Category.THERMOMETER:
        reached_at = _reached_at(uow, game_id, record)
        # A seeker who walked it may have left the game since: their pin still ends it.
        ping = sightings.seekers_pin_before(
            uow, game_id, state, record.team_id, reached_at, left_too=True
        )
        end = ping or sightings.pin_before(uow, game_id, record.asked_by, reached_at)
    return replace(
        bare, seeker=referee.pin_of(start), end=referee.pin_of(end) if end is not None else None
    )


def _reached_at(uow: UnitOfWork, game_id: int, record: Question) -> datetime:
    """When ``record`` reached the hider: its check's first computation (the moment the
    thermometer's end was read), else when it was answered."""
    check = uow.checks.get(game_id, record.id)
    if check is not None:
        return check.computation.computed_at
    return record.answered_at or record.asked_at


# ----------------------------------------------------------------- the map


def seekers_view(
    uow: UnitOfWork,
    maps: Maps,
    ruleset: Ruleset,
    cache: ViewCache,
    game_id: int,
    state: GameState,
) -> SeekersView | None:
    """The seekers' map of the current round now; None without a round or a map.

    In a car or on-foot game the zones are centred on street ends: they are the
    candidates then (stations only when the map has no streets, as the referee does)."""
    if state.current_round is None:
        return None
    chat = uow.games.chat_key(game_id)
    prefs = uow.chats.prefs(chat)
    name = prefs.map_name
    ends = maps.street_ends(uow, name) if hiding.zones_on_streets(state) else None
    dropped = frozenset[str]() if ends is not None else uow.map_jobs.dropped(chat, name)
    index = ends if ends is not None else maps.index(uow, name, dropped)
    if index is None:
        return None
    found = clues(uow, ruleset, game_id, state)
    radius = size_rules(state, ruleset).zone_radius_m
    basis = (name, dropped, radius, ruleset.hider_position, ends is not None)
    view = _view(cache, index, basis, found)
    questions = {
        record.id: (record.question_id, record.distance_m) for record in state.round_questions()
    }
    pins = seeker_labels(uow, game_id, state)
    units = prefs.units or ruleset.units
    return SeekersView(view, pins, index.pack, questions, ends is not None, units)


def _view(
    cache: ViewCache,
    index: MapIndex,
    basis: tuple[str, frozenset[str], float, HiderPosition, bool],
    found: Sequence[Clue],
) -> SeekerMap:
    """The map of ``found`` on ``index``: from memory, one clue more than a remembered
    map (``with_clue``, cheaper), or from scratch."""
    key: ViewKey = (*basis, tuple(found))
    known = cache.get(key)
    if known is not None:
        return known
    before = cache.get((*basis, tuple(found[:-1]))) if found else None
    if before is not None:
        view = with_clue(index, before, found[-1])
    else:
        view = seeker_map(index, found, basis[2], basis[3])
    cache[key] = view
    return view


def seeker_labels(
    uow: UnitOfWork, game_id: int, state: GameState
) -> tuple[tuple[str, float, float], ...]:
    """Each seeker's newest pin with the start of their name, in the game's order."""
    pins: list[tuple[str, float, float]] = []
    for team in state.seeker_team_ids():
        for seeker in state.team_players(team):
            ping: Ping | None = sightings.last_pin(uow, game_id, seeker.id)
            if ping is not None:
                pins.append((seeker.name[:LABEL_CHARS], ping.lat, ping.lon))
    return tuple(pins)


def candidate_names(view: SeekerMap) -> list[tuple[str, tuple[str, ...]]]:
    """The candidate stations as ``(name, lines)``, by name (a station's id stays out)."""
    return sorted(
        ((s.name, tuple(sorted(s.routes))) for s in view.candidates),
        key=lambda item: (item[0].casefold(), item[1]),
    )


def page_of(view: SeekerMap, page: int) -> tuple[list[tuple[str, tuple[str, ...]]], int, int]:
    """Page ``page`` of the candidates (clamped), the page shown and the number of pages."""
    names = candidate_names(view)
    pages = max(1, -(-len(names) // PAGE_SIZE))
    shown = min(max(page, 0), pages - 1)
    return names[shown * PAGE_SIZE : (shown + 1) * PAGE_SIZE], shown, pages


def caption_params(seekers: SeekersView) -> dict[str, object]:
    """What the caption of the picture says, as notice params: the count of candidates (and
    their names when ``NAMED`` or fewer are left) and each clue not applied (its question
    and the reason code)."""
    view = seekers.view
    skipped = []
    for item in view.not_applied:
        question, distance = seekers.questions.get(item.ref, ("", None))
        skipped.append([question, distance, item.reason])
    few = [name for name, _ in candidate_names(view)] if len(view.candidates) <= NAMED else []
    return {
        "count": len(view.candidates),
        "names": few,
        "not_applied": skipped,
        "contradicted": contradicted(seekers),
        "street_ends": seekers.street_ends,
    }


def contradicted(seekers: SeekersView) -> bool:
    """Whether the answers together leave no station of a map that has some: truthful
    answers never do, so the group is told one of them is wrong rather than left to
    search nowhere."""
    view = seekers.view
    return bool(view.applied) and not view.candidates and bool(seekers.pack.stations)
