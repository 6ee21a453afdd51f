"""Questions: who may ask what and when, answer windows, late answers, what answers pay."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from hideseek_chat.rules import deck
from hideseek_chat.rules.clock import cancel, rng, schedule
from hideseek_chat.rules.decisions import GROUP, HIDERS, Decision, Notify
from hideseek_chat.rules.errors import (
    CardNotAvailable,
    CurseBlocks,
    InvalidAnswer,
    NoPendingQuestion,
    NotAllowed,
    QuestionNotAvailable,
    QuestionPending,
    WrongPhase,
)
from hideseek_chat.rules.ruleset import (
    CATEGORY_ANSWERS,
    NULL_ANSWER,
    Category,
    QuestionDef,
    Ruleset,
)
from hideseek_chat.rules.scale import size_rules
from hideseek_chat.rules.state import (
    ActiveCurse,
    DeadlineKind,
    GameState,
    Mode,
    Pause,
    PauseReason,
    Phase,
    Player,
    Question,
    QuestionStatus,
    Transport,
)
from hideseek_chat.rules.units import MAX_DISTANCE_M

#: Statuses of a question that has been asked (a randomized one has not).
ASKED = frozenset(
    {
        QuestionStatus.TRAVELLING,
        QuestionStatus.PENDING,
        QuestionStatus.ANSWERED,
        QuestionStatus.VETOED,
    }
)
ASKING_PHASES = frozenset({Phase.SEEKING, Phase.END_GAME})
REMINDER_BEFORE = timedelta(minutes=1)
#: The shortest distance of one's choice a question may have.
MIN_CUSTOM_DISTANCE_M = 1.0
#: The subject of the matching question about the line the seekers ride.
TRANSIT_LINE = "transit-line"
#: The longest line name a question keeps (map data names lines far shorter; the chat
#: takes a line the map knows in the map's spelling).
MAX_LINE_CHARS = 200


@dataclass(frozen=True)
class QuestionOffer:
    """A question the seekers could ask now, with what it would cost."""

    question: QuestionDef
    times_asked: int  # how often it was asked before in this round
    draw: int
    keep: int

    @property
    def cycles(self) -> int:
        return self.times_asked + 1


def is_in_variant(state: GameState, question: QuestionDef) -> bool:
    """Games without public transit drop the questions that need a ride on it."""
    return not (question.needs_transit and state.settings.transport != Transport.TRANSIT)


def is_transit_line(question: QuestionDef) -> bool:
    """Whether ``question`` is the matching question about the line the seekers ride (it
    names the line)."""
    return question.subject == TRANSIT_LINE


def times_asked(state: GameState, question_id: str, distance_m: float | None) -> int:
    return sum(
        1
        for q in state.round_questions()
        if q.question_id == question_id
        and q.status in ASKED
        and (distance_m is None or q.distance_m == distance_m)
    )


def banned_ids(state: GameState) -> set[str]:
    current = state.current_round
    if current is None:
        return set()
    return {b.question_id for b in state.banned if b.round_number == current.number}


def blocking_curse(
    state: GameState, ruleset: Ruleset, team_id: int | None, what: str = "questions"
) -> ActiveCurse | None:
    """The active curse that keeps ``team_id`` from asking questions (or taking transit)."""
    for curse in state.round_curses():
        if curse.cleared_at is not None or curse.no_effect or curse.expires_at is not None:
            # Blocking curses have no duration: a timed curse never blocks questions.
            continue
        if (
            curse.target_team_id is not None
            and team_id is not None
            and (curse.target_team_id != team_id)
        ):
            continue
        rules = ruleset.card(curse.def_id).curse
        assert rules is not None
        if (what == "questions" and rules.blocks_questions) or (
            what == "transit" and rules.blocks_transit
        ):
            return curse
    return None


def reward_team(state: GameState, asking_team_id: int) -> int:
    """Who draws for an answer: the hider, or in the points mode the other seeker team."""
    if state.settings.mode == Mode.TEAMS_POINTS:
        others = [t for t in state.seeker_team_ids() if t != asking_team_id]
        if others:
            return others[0]
    hider = state.hider_team_id()
    assert hider is not None
    return hider


def offers(state: GameState, ruleset: Ruleset, team_id: int) -> list[QuestionOffer]:
    """Every question the team may ask now (the /ask menu), cheapest first per category."""
    current = state.current_round
    if current is None:
        return []
    banned = banned_ids(state)
    result = []
    for question in ruleset.questions:
        if not question.is_available(state.size) or not is_in_variant(state, question):
            continue
        if question.id in banned or question.category == current.spotty_category:
            continue
        rules = ruleset.categories[question.category]
        extra = 1 if current.chalice_remaining > 0 else 0
        asked = 0 if question.custom_distance else times_asked(state, question.id, None)
        result.append(QuestionOffer(question, asked, rules.draw + extra, rules.keep))
    return result


def _window(state: GameState, ruleset: Ruleset, category: Category) -> timedelta:
    rules = size_rules(state, ruleset)
    minutes = rules.photo_window_min if category == Category.PHOTO else rules.answer_window_min
    return timedelta(minutes=minutes)


def _start_window(state: GameState, ruleset: Ruleset, question: Question, now: datetime) -> None:
    question.status = QuestionStatus.PENDING
    window = _window(state, ruleset, question.category)
    question.due_at = now + window
    round_number = question.round_number
    schedule(state, DeadlineKind.ANSWER_DUE, question.due_at, round_number, question.id)
    if window > 2 * REMINDER_BEFORE:
        schedule(
            state,
            DeadlineKind.ANSWER_REMINDER,
            question.due_at - REMINDER_BEFORE,
            round_number,
            question.id,
        )


def check_can_ask(
    state: GameState, ruleset: Ruleset, player: Player, question: QuestionDef
) -> None:
    """Raise the specific reason why ``player`` may not ask ``question`` now."""
    if state.phase == Phase.MOVING:
        raise WrongPhase(
            "the hider is moving: seekers stay put and ask nothing", key="error.moving"
        )
    if state.phase not in ASKING_PHASES:
        raise WrongPhase("questions can only be asked while seeking", key="error.not_seeking")
    if state.is_hider(player.id):
        raise NotAllowed("only seekers ask questions", key="error.only_seekers")
    pending = state.pending_question(
        player.team_id if state.settings.mode != Mode.STANDARD else None
    )
    if pending is not None:
        raise QuestionPending(
            "a question is still waiting for its answer",
            question=pending.question_id,
            distance_m=pending.distance_m,
        )
    if not question.is_available(state.size):
        raise QuestionNotAvailable(
            f"{question.id} is not played in a {state.size.value} game",
            key="error.question_size",
            question=question.id,
        )
    if not is_in_variant(state, question):
        raise QuestionNotAvailable(
            f"{question.id} needs public transit",
            key="error.question_variant",
            question=question.id,
        )
    if question.id in banned_ids(state):
        raise QuestionNotAvailable(
            f"{question.id} was banned by a curse",
            key="error.question_banned",
            question=question.id,
        )
    current = state.current_round
    assert current is not None
    if question.category == current.spotty_category:
        raise CurseBlocks(
            f"{question.category.value} questions are disabled for now",
            key="error.category_disabled",
            category=question.category.value,
        )
    blocker = blocking_curse(state, ruleset, player.team_id)
    if blocker is not None:
        raise CurseBlocks(
            "an active curse must be cleared before the next question",
            key="error.curse_blocks_questions",
            curse=blocker.def_id,
        )


def ask(
    state: GameState,
    ruleset: Ruleset,
    player: Player,
    question_id: str,
    distance_m: float | None,
    on_transit: bool,
    now: datetime,
    at_station: str | None = None,
    line: str | None = None,
) -> list[Decision]:
    """``player`` asks ``question_id``; ``at_station`` names the station their current pin
    is in, if any (the chat finds it: ``rules.pins.AT_STATION_M``); ``line`` the line the
    seekers ride, for the transit-line question (kept only there; blank: not said)."""
    if not ruleset.has_question(question_id):
        raise QuestionNotAvailable(
            f"there is no question {question_id!r}",
            key="error.question_unknown",
            question=question_id,
        )
    question = ruleset.question(question_id)
    check_can_ask(state, ruleset, player, question)
    current = state.current_round
    assert current is not None
    if current.urban_explorer and on_transit:
        raise CurseBlocks(
            "the Urban Explorer curse: no questions on transit or in stations",
            key="error.urban_explorer",
        )
    if current.urban_explorer and at_station:
        raise CurseBlocks(
            "the Urban Explorer curse: no questions on a platform or in a station",
            key="error.urban_explorer_station",
            station=at_station,
        )
    if question.needs_transit and not on_transit:
        raise QuestionNotAvailable(
            "ask this one while riding moving transit", key="error.needs_ride", question=question_id
        )
    if question.custom_distance:
        # NaN fails both comparisons: a distance must be a number, from a metre to the
        # farthest two places on Earth can be
        if distance_m is None or not MIN_CUSTOM_DISTANCE_M <= distance_m <= MAX_DISTANCE_M:
            raise QuestionNotAvailable(
                "this question needs a distance", key="error.needs_distance", question=question_id
            )
    else:
        distance_m = question.distance_m
    previous = times_asked(state, question_id, distance_m if question.custom_distance else None)
    record = Question(
        id=state.new_id(),
        round_number=current.number,
        question_id=question_id,
        category=question.category,
        asked_by=player.id,
        team_id=player.team_id,
        asked_at=now,
        status=QuestionStatus.TRAVELLING,
        times_asked=previous + 1,
        distance_m=distance_m,
        free=current.next_question_free,
        line=_line(line) if is_transit_line(question) else None,
    )
    current.next_question_free = False
    state.questions.append(record)
    decisions: list[Decision] = []
    # Curses that only shape the next question (Bridge Troll, Ransom Note) are now spent.
    for curse in state.round_curses():
        rules = ruleset.card(curse.def_id).curse
        assert rules is not None
        if (
            rules.clears_on_next_question
            and curse.cleared_at is None
            and (curse.target_team_id in (None, player.team_id))
        ):
            curse.cleared_at = now
            decisions.append(Notify(GROUP, "curse.spent", {"curse": curse.def_id}))
    if question.category != Category.THERMOMETER:
        _start_window(state, ruleset, record, now)
    params = {
        "record_id": record.id,
        "question": question_id,
        "category": question.category.value,
        "distance_m": distance_m,
        "asker": player.name,
        "times": record.times_asked,
        "due_at": record.due_at,
        "free": record.free,
        "line": record.line,
    }
    decisions.append(Notify(GROUP, "question.asked", params))
    decisions.append(Notify(HIDERS, "question.incoming", params))
    return decisions


def _line(line: str | None) -> str | None:
    """A line's name as a question keeps it: spaces collapsed, None when blank."""
    cleaned = " ".join((line or "").split())[:MAX_LINE_CHARS]
    return cleaned or None


def finish_thermometer(
    state: GameState, ruleset: Ruleset, player: Player, travelled_m: float, now: datetime
) -> list[Decision]:
    record = state.pending_question(
        player.team_id if state.settings.mode != Mode.STANDARD else None
    )
    if record is None or record.status != QuestionStatus.TRAVELLING:
        raise NoPendingQuestion("no thermometer is under way", key="error.no_thermometer")
    if state.is_hider(player.id):
        raise NotAllowed("only seekers finish a thermometer", key="error.only_seekers")
    needed = record.distance_m or 0.0
    if travelled_m < needed:
        raise InvalidAnswer(
            "the seekers have not yet travelled the thermometer's distance",
            key="error.thermometer_short",
            travelled_m=travelled_m,
            needed_m=needed,
        )
    _start_window(state, ruleset, record, now)
    params = {"record_id": record.id, "question": record.question_id, "due_at": record.due_at}
    return [
        Notify(GROUP, "question.thermometer_done", params),
        Notify(HIDERS, "question.incoming", params),
    ]


def pending_for_hider(
    state: GameState, record_id: int | None, *, travelling: bool = True
) -> Question:
    """The question the hider answers (``travelling``: a thermometer under way counts)."""
    statuses = (
        (QuestionStatus.PENDING, QuestionStatus.TRAVELLING)
        if travelling
        else (QuestionStatus.PENDING,)
    )
    candidates = [q for q in state.round_questions() if q.status in statuses]
    if record_id is not None:
        candidates = [q for q in candidates if q.id == record_id]
    if not candidates:
        raise NoPendingQuestion("there is no question to answer")
    return candidates[0]


def _close(
    state: GameState, ruleset: Ruleset, record: Question, status: QuestionStatus, now: datetime
) -> tuple[bool, list[Decision]]:
    """Close a question; return whether it was late (then the hider's clock was paused)
    and the announcement of Spotty Memory's new roll, if that curse is on."""
    record.status = status
    record.answered_at = now
    cancel(state, DeadlineKind.ANSWER_DUE, record.id)
    cancel(state, DeadlineKind.ANSWER_REMINDER, record.id)
    late = record.due_at is not None and now > record.due_at
    if late:
        assert record.due_at is not None
        record.late = True
        state.pauses.append(
            Pause(state.new_id(), PauseReason.LATE_ANSWER, record.due_at, now, record.round_number)
        )
    return late, _reroll_spotty_memory(state, ruleset)


def answer(
    state: GameState,
    ruleset: Ruleset,
    player: Player,
    answer_word: str,
    detail: str | None,
    record_id: int | None,
    now: datetime,
    caption: str | None = None,
) -> list[Decision]:
    """The hider answers; ``caption`` is what they wrote under an answering photo."""
    if not state.is_hider(player.id):
        raise NotAllowed("only the hider answers", key="error.only_hider")
    record = pending_for_hider(state, record_id)
    if record.status == QuestionStatus.TRAVELLING:
        raise NoPendingQuestion(
            "the seekers are still travelling for their thermometer", key="error.still_travelling"
        )
    valid = (*CATEGORY_ANSWERS[record.category], NULL_ANSWER)
    if answer_word not in valid:
        raise InvalidAnswer(
            f"{answer_word!r} does not answer a {record.category.value} question",
            answers=list(valid),
        )
    if answer_word == "named" and not detail:
        raise InvalidAnswer("name the place you are nearest to", key="error.answer_needs_name")
    late, rerolled = _close(state, ruleset, record, QuestionStatus.ANSWERED, now)
    record.answer = answer_word
    record.answer_detail = detail
    decisions: list[Decision] = [
        Notify(
            GROUP,
            "question.answered",
            {
                "record_id": record.id,
                "question": record.question_id,
                "category": record.category.value,
                "answer": answer_word,
                "detail": detail,
                "late": late,
                **({"caption": caption} if caption else {}),
            },
        )
    ]
    decisions.extend(rerolled)
    if late:
        decisions.append(Notify(HIDERS, "question.late_no_cards", {"question": record.question_id}))
    elif record.free:
        decisions.append(Notify(HIDERS, "question.free_no_cards", {"question": record.question_id}))
    else:
        decisions.extend(_pay(state, ruleset, record))
    return decisions


def _pay(state: GameState, ruleset: Ruleset, record: Question) -> list[Decision]:
    current = state.current_round
    assert current is not None
    rules = ruleset.categories[record.category]
    if current.chalice_remaining > 0:
        current.chalice_remaining -= 1
        record.extra_draw = 1
    team = reward_team(state, record.team_id)
    deck.owe_draws(
        state, team, rules.draw + record.extra_draw, rules.keep, record.times_asked, record.id
    )
    return deck.offer_next(state, ruleset)


def veto(
    state: GameState, ruleset: Ruleset, record_id: int | None, now: datetime
) -> list[Decision]:
    record = pending_for_hider(state, record_id, travelling=False)
    _late, rerolled = _close(state, ruleset, record, QuestionStatus.VETOED, now)
    return [Notify(GROUP, "question.vetoed", {"question": record.question_id}), *rerolled]


def randomize(
    state: GameState, ruleset: Ruleset, record_id: int | None, now: datetime
) -> list[Decision]:
    """Replace the pending question by a random unasked one of the same category."""
    record = pending_for_hider(state, record_id, travelling=False)
    asked = {q.question_id for q in state.round_questions() if q.status in ASKED}
    banned = banned_ids(state)
    candidates = [
        q
        for q in ruleset.questions_in(record.category, state.size)
        if q.id not in asked
        and q.id not in banned
        and not q.custom_distance
        and is_in_variant(state, q)
        and not q.needs_transit
    ]
    if not candidates:
        raise CardNotAvailable(
            "no unasked question of that category is left", key="error.randomize_none"
        )
    choice = rng(state).choice(candidates)
    # Closing the original also pauses the hider's clock if the window had already run out.
    _late, rerolled = _close(state, ruleset, record, QuestionStatus.RANDOMIZED, now)
    new = Question(
        id=state.new_id(),
        round_number=record.round_number,
        question_id=choice.id,
        category=choice.category,
        asked_by=record.asked_by,
        team_id=record.team_id,
        asked_at=now,
        status=QuestionStatus.TRAVELLING,
        times_asked=1,
        distance_m=choice.distance_m,
        free=record.free,
    )
    record.replaced_by = new.id
    state.questions.append(new)
    if choice.category != Category.THERMOMETER:
        _start_window(state, ruleset, new, now)
    params = {
        "question": record.question_id,
        "new_question": choice.id,
        "record_id": new.id,
        "due_at": new.due_at,
        "distance_m": new.distance_m,
    }
    return [
        Notify(GROUP, "question.randomized", params),
        Notify(HIDERS, "question.incoming", params),
        *rerolled,
    ]


def _reroll_spotty_memory(state: GameState, ruleset: Ruleset) -> list[Decision]:
    """Spotty Memory: after each question the die closes a category again; say which."""
    current = state.current_round
    if current is None or current.spotty_category is None:
        return []
    current.spotty_category = roll_category(state, ruleset)
    return [Notify(GROUP, "curse.spotty_rolled", {"category": current.spotty_category.value})]


def roll_category(state: GameState, ruleset: Ruleset) -> Category:
    """Roll a die over the six categories; a category the size does not play is rerolled."""
    order = list(Category)
    random = rng(state)
    while True:
        category = order[random.randint(1, 6) - 1]
        if ruleset.questions_in(category, state.size):
            return category


def cancel_open_questions(state: GameState, round_number: int) -> None:
    for record in state.round_questions(round_number):
        if record.status in (QuestionStatus.PENDING, QuestionStatus.TRAVELLING):
            record.status = QuestionStatus.CANCELLED
