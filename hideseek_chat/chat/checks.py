"""Answers checked against the pins, before the seekers act on a wrong one.

- ``compute`` reads the pins and the map for a question and stores what they say
  (``uow.checks``): when the question reaches the hider, and again when they answer.
- ``answer`` sends the hider's answer (a button or ``/answer``). One the pins contradict
  (outside the GPS margin) is held: the hider is asked privately, with the numbers, to send
  it anyway or to send the pins' answer instead (``b_check``). The rulebook makes the hider
  responsible for the truth; the bot only checks.
- ``note`` is the line the group reads under an answer: checked, sent although the pins
  disagreed, or not checkable, and why. Never the numbers.
- Automatic answers (an admin setting): ``plan_automatic`` decides while the question is
  rendered for the hider, ``answer_automatically`` sends the answer once that is committed.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from hideseek_chat.chat import referee
from hideseek_chat.chat.buttons import Press, encode
from hideseek_chat.chat.commands import ChatError
from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.model import (
    AnswerButton,
    Button,
    ButtonIn,
    Inbound,
    Outbound,
    SendText,
)
from hideseek_chat.chat.views import chat_text
from hideseek_chat.rules import apply as engine_apply
from hideseek_chat.rules.decisions import Notify
from hideseek_chat.rules.errors import RuleViolation
from hideseek_chat.rules.events import QuestionAnswered
from hideseek_chat.rules.questions import pending_for_hider
from hideseek_chat.rules.ruleset import Category
from hideseek_chat.rules.state import GameState, Mode, Question, QuestionStatus
from hideseek_chat.store import OutboxMessage, UnitOfWork
from hideseek_chat.store.checks import CheckNumbers, CheckVerdict, Computation

if TYPE_CHECKING:
    from hideseek_chat.chat.service import Conversation

log = logging.getLogger(__name__)

#: Why the pins could not tell, grouped as the group is told it.
LOCATION_REASONS = frozenset(
    {
        "no_live_pin",
        "stale_pin",
        "forwarded",
        "future_pin",
        "no_seeker_pin",
        "stale_seeker_pin",
        "no_pin",
        "no_zone",
    }
)
MAP_REASONS = frozenset(
    {
        "no_map",
        "no_map_data",
        "no_elevation_data",
        "unsupported_subject",
        "unsupported",
        "needs_line",
        "not_in_any_division",
    }
)


# ----------------------------------------------------------------- what the pins say


def compute(
    conv: Conversation,
    uow: UnitOfWork,
    game_id: int,
    state: GameState,
    record: Question,
    now: datetime,
) -> referee.Suggestion:
    """Work out ``record``'s answer from the pins and the map at ``now``, and store it.

    A thermometer ends where the seekers were when it first reached the hider, however
    often this runs.
    """
    chat = uow.games.chat_key(game_id)
    index = conv.maps.index(uow, uow.chats.prefs(chat).map_name)
    hider = conv.hider_ping(uow, game_id, state)
    asker_pings = conv.pins_of(uow, game_id, record.asked_by, 200)
    start = referee.latest_before(asker_pings, record.asked_at)
    earlier = uow.checks.get(game_id, record.id)
    reached_at = earlier.computation.computed_at if earlier else now
    # Whoever of the seekers travelled: in the standard game any seeker may carry it.
    end = conv.seekers_ping_before(uow, game_id, state, record.team_id, reached_at) or (
        referee.latest_before(asker_pings, reached_at)
    )
    suggestion = referee.suggest(conv.ruleset(state), state, record, index, hider, start, end, now)
    computation = Computation(
        suggestion.answer,
        suggestion.detail,
        suggestion.reason,
        suggestion.too_close,
        reached_at,
        hider.at if hider else None,
        numbers_of(suggestion),
    )
    uow.checks.computed(game_id, record.id, computation)
    return suggestion


def numbers_of(suggestion: referee.Suggestion) -> CheckNumbers:
    """The facts of a suggestion as the check's columns."""
    facts = suggestion.facts

    def number(key: str) -> float | None:
        value = facts.get(key)
        return float(value) if isinstance(value, int | float) else None

    def name(key: str) -> str | None:
        value = facts.get(key)
        return str(value) if value else None

    return CheckNumbers(
        distance_m=number("distance_m"),
        radius_m=number("radius_m"),
        start_m=number("start_m"),
        end_m=number("end_m"),
        travelled_m=number("travelled_m"),
        hider_m=number("hider_m"),
        seeker_m=number("seeker_m"),
        reach_m=number("reach_m"),
        hider_place=name("hider_place"),
        seeker_place=name("seeker_place"),
    )


def verdict_for(suggestion: referee.Suggestion, word: str, detail: str | None) -> CheckVerdict:
    """How the answer ``word`` (``detail``) compares with what the pins say."""
    if suggestion.answer is None or suggestion.too_close:
        return CheckVerdict.UNCHECKED
    if word != suggestion.answer:
        return CheckVerdict.DISAGREED
    if word == "named" and (detail or "").casefold() != (suggestion.detail or "").casefold():
        return CheckVerdict.DISAGREED
    return CheckVerdict.AGREED


# ----------------------------------------------------------------- the hider answers


def answer(
    conv: Conversation,
    msg: Inbound,
    state: GameState,
    record_id: int | None,
    word: str,
    detail: str | None,
) -> list[Outbound]:
    """Send the hider's answer to ``record_id`` (None: the pending one), unless the pins
    contradict it: then hold it and ask the hider to confirm."""
    chat = conv.game_chat(msg)
    if _redelivered(conv, msg):
        return []
    record = _open_record(state, record_id)
    event = _event(state, msg.sender.ref, record, word, detail)
    engine_apply(conv.ruleset(state), state, event, msg.at)  # refuse now what the rules refuse
    player = state.player_by_ref(msg.sender.ref)
    assert player is not None  # the rules accepted the answer
    with conv.uow_factory() as uow:
        game_id = uow.games.current_id(chat)
        assert game_id is not None
        if record.category == Category.PHOTO:
            uow.checks.computed(game_id, record.id, _not_computed("photo", msg.at))
            verdict = CheckVerdict.UNCHECKED
            suggestion = None
        else:
            suggestion = compute(conv, uow, game_id, state, record, msg.at)
            verdict = verdict_for(suggestion, word, detail)
        if verdict == CheckVerdict.DISAGREED:
            assert suggestion is not None
            uow.checks.decide(
                game_id,
                record.id,
                CheckVerdict.CONFIRMING,
                msg.at,
                answered_by=player.id,
                proposed=(word, detail),
            )
            fmt = conv.formatter(uow, chat, state, msg.sender.ref)
            uow.commit()
            return _ask_to_confirm(msg, game_id, record, suggestion, word, detail, fmt)
        uow.checks.decide(
            game_id, record.id, verdict, msg.at, answered_by=player.id, sent=(word, detail)
        )
        uow.commit()
    _send(conv, chat, game_id, record.id, event, msg)
    return []


def b_check(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    """The hider confirms a held answer (``a``: send it anyway) or takes the pins' (``s``)."""
    record_id, choice = press.int_arg(0), press.arg(1)
    if _redelivered(conv, msg):
        return []
    with conv.uow_factory() as uow:
        check = uow.checks.get(press.game_id, record_id)
    if check is None or check.verdict != CheckVerdict.CONFIRMING or choice not in ("a", "s"):
        raise ChatError("chat.button_unknown")
    record = _open_record(state, record_id)
    if choice == "a":
        assert check.proposed_answer is not None
        sent = (check.proposed_answer, check.proposed_detail)
        verdict = CheckVerdict.DISAGREED
    elif check.computation.answer is not None:
        sent = (check.computation.answer, check.computation.detail)
        verdict = CheckVerdict.AGREED
    else:
        raise ChatError("chat.button_unknown")
    event = _event(state, msg.sender.ref, record, *sent)
    engine_apply(conv.ruleset(state), state, event, msg.at)
    player = state.player_by_ref(msg.sender.ref)
    assert player is not None
    with conv.uow_factory() as uow:
        uow.checks.decide(
            press.game_id,
            record_id,
            verdict,
            msg.at,
            answered_by=player.id,
            sent=sent,
            confirmed_anyway=choice == "a",
        )
        uow.commit()
    _send(conv, conv.game_chat(msg), press.game_id, record_id, event, msg)
    return []


def _redelivered(conv: Conversation, msg: Inbound) -> bool:
    """Whether ``msg`` was acted on before (a channel may deliver an update twice)."""
    if msg.update_id is None:
        return False
    with conv.uow_factory() as uow:
        return uow.updates.is_processed(msg.update_id)


def _open_record(state: GameState, record_id: int | None) -> Question:
    """The question being answered; a button of a question no longer open is refused."""
    if record_id is None:
        return pending_for_hider(state, None)
    try:
        record = state.question_record(record_id)
    except KeyError:
        raise ChatError("chat.button_unknown") from None
    if record.status not in (QuestionStatus.PENDING, QuestionStatus.TRAVELLING):
        raise ChatError("chat.button_unknown")
    return record


def _event(
    state: GameState, by: str, record: Question, word: str, detail: str | None
) -> QuestionAnswered:
    record_id = record.id if state.settings.mode != Mode.STANDARD else None
    return QuestionAnswered(by, word, detail, record_id)


def _not_computed(reason: str, at: datetime) -> Computation:
    return Computation(None, None, reason, False, at)


def _send(
    conv: Conversation,
    chat: str,
    game_id: int,
    record_id: int,
    event: QuestionAnswered,
    msg: Inbound,
) -> None:
    """Apply the answer; if the rules refuse it after all, the check is open again."""
    try:
        conv.apply(chat, event, msg.at, msg.update_id)
    except Exception:
        with conv.uow_factory() as uow:
            uow.checks.decide(game_id, record_id, CheckVerdict.PENDING, msg.at)
            uow.commit()
        raise


def _ask_to_confirm(
    msg: Inbound,
    game_id: int,
    record: Question,
    suggestion: referee.Suggestion,
    word: str,
    detail: str | None,
    fmt: Formatter,
) -> list[Outbound]:
    """Hold the answer: show the hider the numbers and let them choose (``b_check``)."""
    from hideseek_chat.chat.outgoing import suggestion_numbers

    assert suggestion.answer is not None
    values = {
        "question": fmt.question(record.question_id, record.distance_m),
        "answer": fmt.answer(word, detail),
        "suggested": fmt.answer(suggestion.answer, suggestion.detail),
    }
    text = "\n".join(
        [
            chat_text("chat.check_disagrees", values, fmt),
            *suggestion_numbers(suggestion, fmt),
            chat_text("chat.check_confirm", values, fmt),
        ]
    )
    buttons = (
        (
            Button(
                chat_text("chat.check_send_anyway", values, fmt),
                encode("chk", game_id, record.id, "a"),
            ),
        ),
        (
            Button(
                chat_text("chat.check_send_suggested", values, fmt),
                encode("chk", game_id, record.id, "s"),
            ),
        ),
    )
    replies: list[Outbound] = [
        SendText(msg.sender.ref, text=text, buttons=buttons, private=True),
    ]
    if isinstance(msg, ButtonIn):
        toast = chat_text("chat.check_toast", values, fmt)
        replies.insert(0, AnswerButton(msg.sender.ref, text=toast, press_ref=msg.press_ref))
    return replies


# ----------------------------------------------------------------- what the group reads


def note(
    uow: UnitOfWork,
    game_id: int,
    state: GameState,
    key: str,
    params: Mapping[str, Any],
    fmt: Formatter,
) -> str | None:
    """The check line under an answer or a claimed end game, for everyone; None if none."""
    if key == "question.answered" and params.get("record_id") is not None:
        check = uow.checks.get(game_id, int(params["record_id"]))
        if check is None or check.computation.reason == "photo":
            return None
        if check.automatic:
            return chat_text("chat.check_automatic", {}, fmt)
        return verdict_note(
            check.verdict, check.computation.reason, check.computation.too_close, fmt
        )
    if key == "endgame.started" and params.get("by"):
        from hideseek_chat.chat.endgame import claim_note

        return claim_note(uow, game_id, state, fmt)
    return None


def verdict_note(verdict: CheckVerdict, reason: str, too_close: bool, fmt: Formatter) -> str | None:
    """What the group may know of a check: the verdict and, when unchecked, why."""
    if verdict == CheckVerdict.AGREED:
        return chat_text("chat.check_agreed", {}, fmt)
    if verdict == CheckVerdict.DISAGREED:
        return chat_text("chat.check_disagreed", {}, fmt)
    if verdict != CheckVerdict.UNCHECKED:
        return None
    return chat_text(unchecked_key(reason, too_close), {}, fmt)


def unchecked_key(reason: str, too_close: bool) -> str:
    if too_close or reason == "too_close":
        return "chat.check_too_close"
    if reason in LOCATION_REASONS:
        return "chat.check_no_location"
    if reason in MAP_REASONS:
        return "chat.check_no_map"
    return "chat.check_unknown"


# ----------------------------------------------------------------- automatic answers


def set_automatic(conv: Conversation, msg: Inbound, on: bool) -> list[Outbound]:
    """The admin turns automatic answers on or off for the group's games."""
    chat = conv.game_chat(msg)
    with conv.uow_factory() as uow:
        prefs = uow.chats.prefs(chat)
        uow.chats.set_prefs(chat, replace(prefs, auto_answer=on), msg.at)
        uow.commit()
    fmt = conv.formatter_for(msg)
    key = "chat.auto_on" if on else "chat.auto_off"
    return [SendText(chat, text=chat_text(key, {}, fmt))]


def plan_automatic(
    conv: Conversation,
    uow: UnitOfWork,
    game_id: int,
    state: GameState,
    record: Question,
    suggestion: referee.Suggestion,
    now: datetime,
) -> bool:
    """Whether the bot answers ``record`` itself (automatic answers are on, the pins are
    clear and the rules allow it); if so, record the answer as checked and automatic.

    ``answer_automatically`` sends it once the rendering is committed.
    """
    check = uow.checks.get(game_id, record.id)
    if check is not None and check.automatic:
        return True  # rendered before: for another reader, or again after a restart
    if (
        record.status != QuestionStatus.PENDING
        or suggestion.answer is None
        or suggestion.too_close
        or not uow.chats.prefs(uow.games.chat_key(game_id)).auto_answer
    ):
        return False
    hider_team = state.hider_team_id()
    hiders = state.team_players(hider_team) if hider_team is not None else []
    if not hiders:
        return False
    event = _event(state, hiders[0].ref, record, suggestion.answer, suggestion.detail)
    try:
        engine_apply(conv.ruleset(state), state, event, now)
    except RuleViolation:
        return False  # e.g. the hider still has cards to choose: they answer themselves
    uow.checks.decide(
        game_id,
        record.id,
        CheckVerdict.AGREED,
        now,
        answered_by=hiders[0].id,
        sent=(suggestion.answer, suggestion.detail),
        automatic=True,
    )
    return True


def automatic_text(record: Question, suggestion: referee.Suggestion, fmt: Formatter) -> str:
    """What the hider reads about the answer the bot sent for them (with the numbers)."""
    from hideseek_chat.chat.outgoing import suggestion_numbers

    assert suggestion.answer is not None
    values = {
        "question": fmt.question(record.question_id, record.distance_m),
        "answer": fmt.answer(suggestion.answer, suggestion.detail),
    }
    return "\n".join(
        [chat_text("chat.auto_answered", values, fmt), *suggestion_numbers(suggestion, fmt)]
    )


def answer_automatically(
    conv: Conversation, message: OutboxMessage, decision: Notify, now: datetime
) -> list[Outbound] | None:
    """Send the answer ``plan_automatic`` chose while rendering ``decision``.

    Returns None when there was none to send, else what to tell the hider on top ([] when
    it went out).
    """
    if decision.key != "question.incoming" or decision.params.get("record_id") is None:
        return None
    record_id = int(decision.params["record_id"])
    with conv.uow_factory() as uow:
        check = uow.checks.get(message.game_id, record_id)
        if check is None or not check.automatic or check.answered_by is None:
            return None
        state = uow.games.get(message.game_id)
        hider = state.player(check.answered_by)
        fmt = conv.formatter(uow, message.chat_key, state, hider.ref)
    try:
        record = state.question_record(record_id)
    except KeyError:
        return None
    if record.status != QuestionStatus.PENDING or check.answer_sent is None:
        return None  # answered already
    event = _event(state, hider.ref, record, check.answer_sent, check.detail_sent)
    try:
        conv.apply(message.chat_key, event, now, None)
    except RuleViolation:
        log.warning("automatic answer to question %s refused", record_id, exc_info=True)
        with conv.uow_factory() as uow:
            uow.checks.decide(message.game_id, record_id, CheckVerdict.PENDING, now)
            uow.commit()
        text = chat_text("chat.auto_failed", {}, fmt)
        return [SendText(hider.ref, text=text, private=True)]
    return []
