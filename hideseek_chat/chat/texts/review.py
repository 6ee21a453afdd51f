"""``/review``: a finished round's questions, the answers sent and what the pins said.

Only a round that is over is reviewed: then the numbers behind each check and the
station are no secret any more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from hideseek_chat.chat.i18n import N_, Formatter
from hideseek_chat.chat.referee import NO_EVIDENCE, TRANSIT_UNKNOWN
from hideseek_chat.chat.texts.answers import numbers_text
from hideseek_chat.chat.texts.reasons import unchecked_key
from hideseek_chat.chat.texts.registry import say
from hideseek_chat.rules.state import GameState, Question, QuestionStatus, Round
from hideseek_chat.store.checks import AnswerCheck, CheckVerdict, Claim


def review_text(
    state: GameState,
    round_: Round,
    checks: Mapping[int, AnswerCheck],
    claims: Sequence[Claim],
    fmt: Formatter,
) -> str:
    """The review of a round that is over: questions, answers, checks and claims.

    Only for a round that is over: it names the station and the numbers behind each check.
    """
    hider = state.team(round_.hider_team_id).name
    lines = [
        fmt.t(
            N_("🔍 Round {number}: {hider} hid around {station}."),
            number=round_.number,
            hider=hider,
            station=round_.zone.station_name,
        )
        if round_.zone is not None
        else fmt.t(N_("🔍 Round {number}: {hider} hid."), number=round_.number, hider=hider)
    ]
    questions = sorted(state.round_questions(round_.number), key=lambda q: (q.asked_at, q.id))
    if not questions:
        lines.append(fmt.t(N_("No questions were asked.")))
    for n, record in enumerate(questions, start=1):
        lines.append(question_line(n, record, state, fmt))
        check = checks.get(record.id)
        if check is not None and check.computation.reason != "photo":
            lines.extend(f"   {line}" for line in check_lines(record, check, fmt))
    lines.extend(claim_line(claim, state, fmt) for claim in claims)
    return "\n".join(lines)


def question_line(n: int, record: Question, state: GameState, fmt: Formatter) -> str:
    """The ``n``-th question of a round: who asked it when, and how it ended."""
    asked = fmt.t(
        N_("{n}. {question}, asked by {asker} at {time}"),
        n=n,
        question=fmt.question(record.question_id, record.distance_m),
        asker=state.player(record.asked_by).name,
        time=fmt.clock(record.asked_at),
    )
    if record.status == QuestionStatus.ANSWERED and record.answer is not None:
        outcome = fmt.t(
            N_("answered “{answer}” at {time}"),
            answer=fmt.answer(record.answer, record.answer_detail),
            time=fmt.clock(record.answered_at) if record.answered_at else "—",
        )
        if record.late:
            outcome = fmt.t(N_("{outcome} (late)"), outcome=outcome)
    elif record.status == QuestionStatus.VETOED:
        outcome = fmt.t(N_("vetoed"))
    elif record.status == QuestionStatus.RANDOMIZED:
        outcome = fmt.t(N_("randomized"))
    else:
        outcome = fmt.t(N_("not answered"))
    return fmt.t(N_("{asked}: {outcome}"), asked=asked, outcome=outcome)


def check_lines(record: Question, check: AnswerCheck, fmt: Formatter) -> list[str]:
    """What the pins said about an answer, with the numbers (for a round that is over)."""
    computed = check.computation
    said = fmt.answer(computed.answer, computed.detail) if computed.answer else ""
    if check.automatic:
        lines = [say("chat.check_automatic", {}, fmt)]
    elif check.verdict == CheckVerdict.AGREED and check.proposed_answer is not None:
        lines = [
            fmt.t(
                N_("🛰 The pins said “{said}”; the hider chose “{proposed}” first, then theirs."),
                said=said,
                proposed=fmt.answer(check.proposed_answer, check.proposed_detail),
            )
        ]
    elif check.verdict == CheckVerdict.AGREED:
        lines = [fmt.t(N_("🛰 The pins agreed ✓"))]
    elif check.verdict == CheckVerdict.DISAGREED:
        lines = [
            fmt.t(
                N_("⚠️ The pins said “{said}”; the hider sent “{sent}” anyway."),
                said=said,
                sent=fmt.answer(check.answer_sent or "", check.detail_sent),
            )
        ]
    elif check.verdict == CheckVerdict.CONFIRMING and check.proposed_answer is not None:
        lines = [
            fmt.t(
                N_("🛰 The pins said “{said}”; the hider was asked to confirm “{proposed}”."),
                said=said,
                proposed=fmt.answer(check.proposed_answer, check.proposed_detail),
            )
        ]
    elif check.verdict == CheckVerdict.UNCHECKED:
        lines = [say(unchecked_key(computed.reason, computed.too_close), {}, fmt)]
    else:
        lines = []
    numbers = numbers_text(record.category, computed.numbers, fmt)
    if numbers and computed.answer is not None:
        lines.append(numbers)
    return lines


def claim_line(claim: Claim, state: GameState, fmt: Formatter) -> str:
    """An end-game claim of the round, what the pins said and what the hider decided."""
    values = {"name": state.player(claim.claimed_by).name, "time": fmt.clock(claim.claimed_at)}
    if claim.reason == TRANSIT_UNKNOWN:
        if claim.accepted:
            return fmt.t(
                N_(
                    "🎯 At {time} {name}'s pin was in the zone, but its speed was unknown: the "
                    "seekers confirmed that they had left transit."
                ),
                **values,
            )
        return fmt.t(
            N_(
                "🎯 At {time} {name}'s pin was in the zone, but its speed was unknown: the "
                "seekers were asked whether they had left transit."
            ),
            **values,
        )
    if claim.verdict == CheckVerdict.AGREED:
        return fmt.t(N_("🎯 {name} claimed the end game at {time}: the pins agreed ✓"), **values)
    if claim.verdict == CheckVerdict.UNCHECKED and claim.reason not in NO_EVIDENCE:
        why = say(unchecked_key(claim.reason, False), {}, fmt)
        return fmt.t(N_("🎯 {name} claimed the end game at {time}. {why}"), why=why, **values)
    if claim.verdict == CheckVerdict.UNCHECKED:
        said = fmt.t(N_("there was no current pin to check it by"))
    elif claim.on_transit:
        said = fmt.t(N_("the pins moved at transit speed"))
    else:
        said = fmt.t(
            N_("the pin was {distance} outside the zone"),
            distance=fmt.distance(claim.outside_m or 0),
        )
    if claim.accepted is None:
        decided = fmt.t(N_("the hider did not decide"))
    elif claim.accepted:
        decided = fmt.t(N_("the hider accepted it"))
    else:
        decided = fmt.t(N_("the hider refused it"))
    return fmt.t(
        N_("🎯 {name} claimed the end game at {time}: {said}; {decided}."),
        said=said,
        decided=decided,
        **values,
    )


def decided_line(seeker: str, admin: str, at: datetime, fmt: Formatter) -> str:
    """A catch the admin decided (the hider could not answer)."""
    return fmt.t(
        N_("⚖️ At {time} the admin, {admin}, decided that {seeker} found the hider."),
        time=fmt.clock(at),
        admin=admin,
        seeker=seeker,
    )
