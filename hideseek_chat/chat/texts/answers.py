"""What the referee says about answers and claims checked against the pins.

Secrecy: ``suggestion_text``, ``suggestion_numbers``, ``automatic_text``, ``held_answer``
and ``claim_hider_text`` are for the hider's private chat only (they hold numbers and
places near the hider). ``answer_note`` and ``claim_note`` are what everyone reads:
a verdict and why, never a number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from hideseek_chat.chat.i18n import N_, Formatter
from hideseek_chat.chat.referee import TRANSIT_UNKNOWN, Suggestion
from hideseek_chat.chat.texts.reasons import verdict_note, why_no_answer
from hideseek_chat.chat.texts.registry import say
from hideseek_chat.rules.ruleset import Category
from hideseek_chat.rules.state import Question
from hideseek_chat.store.checks import AnswerCheck, CheckNumbers, CheckVerdict, Claim

# ----------------------------------------------------------------- for the hider


def suggestion_text(s: Suggestion, fmt: Formatter) -> str:
    """The suggestion and the numbers behind it (hider only)."""
    if s.answer is None:
        if s.reason == "photo":
            return ""
        return fmt.t(
            N_("🤖 I can't work this one out ({why}): please answer yourself."),
            why=why_no_answer(s.reason, fmt),
        )
    lines = [fmt.t(N_("🤖 Suggested answer: {answer}"), answer=fmt.answer(s.answer, s.detail))]
    lines.extend(suggestion_numbers(s, fmt))
    if s.too_close:
        lines.append(fmt.t(N_("⚠️ Too close to call: check it yourself before answering.")))
    return "\n".join(lines)


def suggestion_numbers(s: Suggestion, fmt: Formatter) -> list[str]:
    """The numbers behind a suggestion, as lines (hider only)."""
    f = s.facts
    lines: list[str] = []
    if "radius_m" in f:
        lines.append(
            fmt.t(
                N_("The seeker was {distance} from you; the radar reaches {radius}."),
                distance=fmt.distance(f["distance_m"]),
                radius=fmt.distance(f["radius_m"]),
            )
        )
    elif "start_m" in f:
        lines.append(
            fmt.t(
                N_("The seekers went from {start} to {end} away from you (travelled {travelled})."),
                start=fmt.distance(f["start_m"]),
                end=fmt.distance(f["end_m"]),
                travelled=fmt.distance(f["travelled_m"]),
            )
        )
    elif "hider_chars" in f:
        lines.append(
            fmt.t(
                N_("Yours: {mine} ({my_count}); theirs: {theirs} ({their_count})."),
                mine=f["hider_place"],
                my_count=fmt.n("{count} character", "{count} characters", f["hider_chars"]),
                theirs=f["seeker_place"],
                their_count=fmt.n("{count} character", "{count} characters", f["seeker_chars"]),
            )
        )
    elif "hider_m" in f and f["hider_m"] is not None and f["seeker_m"] is not None:
        lines.append(
            fmt.t(
                N_(
                    "Nearest to you: {mine} ({my_distance}); nearest to them: {theirs} "
                    "({their_distance})."
                ),
                mine=f["hider_place"] or fmt.t(N_("an unnamed one")),
                my_distance=fmt.distance(f["hider_m"]),
                theirs=f["seeker_place"] or fmt.t(N_("an unnamed one")),
                their_distance=fmt.distance(f["seeker_m"]),
            )
        )
    elif "hider_place" in f:
        lines.append(
            fmt.t(
                N_("Yours: {mine}; theirs: {theirs}."),
                mine=f["hider_place"] or "—",
                theirs=f["seeker_place"] or "—",
            )
        )
    elif "places" in f:
        places = f["places"] or []
        lines.append(
            fmt.t(N_("Within reach of the seekers: {places}."), places=", ".join(places) or "—")
        )
    return lines


def automatic_text(record: Question, suggestion: Suggestion, fmt: Formatter) -> str:
    """What the hider reads about the answer the bot sent for them (with the numbers).

    Precondition: the suggestion has an answer.
    """
    assert suggestion.answer is not None
    values = {
        "question": fmt.question(record.question_id, record.distance_m),
        "answer": fmt.answer(suggestion.answer, suggestion.detail),
    }
    return "\n".join([say("chat.auto_answered", values, fmt), *suggestion_numbers(suggestion, fmt)])


@dataclass(frozen=True)
class HeldAnswer:
    """The texts of an answer held because the pins disagree: the hider chooses."""

    text: str  # what the pins say instead, with the numbers, and the question
    anyway: str  # the button that sends the hider's answer after all
    suggested: str  # the button that sends the pins' answer instead
    toast: str  # the short note on the pressed button, when the answer came by button


def held_answer(
    record: Question, suggestion: Suggestion, word: str, detail: str | None, fmt: Formatter
) -> HeldAnswer:
    """The texts that ask the hider to confirm ``word`` (``detail``) against the pins.

    Precondition: the suggestion has an answer.
    """
    assert suggestion.answer is not None
    values = {
        "question": fmt.question(record.question_id, record.distance_m),
        "answer": fmt.answer(word, detail),
        "suggested": fmt.answer(suggestion.answer, suggestion.detail),
    }
    text = "\n".join(
        [
            say("chat.check_disagrees", values, fmt),
            *suggestion_numbers(suggestion, fmt),
            say("chat.check_confirm", values, fmt),
        ]
    )
    return HeldAnswer(
        text,
        say("chat.check_send_anyway", values, fmt),
        say("chat.check_send_suggested", values, fmt),
        say("chat.check_toast", values, fmt),
    )


class ClaimFacts(Protocol):
    """What the pins said about an end-game claim (a check, or a stored ``Claim``)."""

    @property
    def pin_at(self) -> datetime | None: ...

    @property
    def outside_m(self) -> float | None: ...

    @property
    def on_transit(self) -> bool: ...


def claim_hider_text(check: ClaimFacts, name: str, now: datetime, fmt: Formatter) -> str:
    """What the hider reads about ``name``'s claim the pins contradict (hider only)."""
    if check.on_transit:
        first = say("chat.claim_transit_hider", {"name": name}, fmt)
    else:
        age = (now - check.pin_at).total_seconds() if check.pin_at else 0.0
        values = {
            "name": name,
            "distance": fmt.distance(check.outside_m or 0.0),
            "age": fmt.duration(max(0.0, age)),
        }
        first = say("chat.claim_outside_hider", values, fmt)
    return "\n".join([first, say("chat.claim_decide", {"name": name}, fmt)])


# ----------------------------------------------------------------- each category in words
# What a category's answer says in words lives here, so a new category's texts are written
# in this one module: how to answer it, the numbers behind a suggestion, and /review's numbers.


def answer_hint(category: str | None, f: Formatter) -> str | None:
    """How the hider answers a question of ``category``, for the question's notice."""
    if category in ("matching", "radar"):
        return f.t("Answer yes or no.")
    if category == "measuring":
        return f.t("Answer closer or further.")
    if category == "thermometer":
        return f.t("Answer hotter or colder.")
    if category == "photo":
        return f.t("Send the photo, or say you can't answer.")
    if category == "tentacle":
        return f.t("Name the place you're nearest to, or say none is in reach.")
    return None



def numbers_text(category: Category, n: CheckNumbers, fmt: Formatter) -> str | None:
    """The numbers behind a check, for a round that is over."""
    if category == Category.RADAR and n.distance_m is not None and n.radius_m is not None:
        return fmt.t(
            N_("The seeker was {distance} from the hider; the radar reached {radius}."),
            distance=fmt.distance(n.distance_m),
            radius=fmt.distance(n.radius_m),
        )
    if category == Category.THERMOMETER and None not in (n.start_m, n.end_m, n.travelled_m):
        return fmt.t(
            N_("The seekers went from {start} to {end} from the hider (travelled {travelled})."),
            start=fmt.distance(n.start_m or 0.0),
            end=fmt.distance(n.end_m or 0.0),
            travelled=fmt.distance(n.travelled_m or 0.0),
        )
    if category == Category.MEASURING and n.hider_m is not None and n.seeker_m is not None:
        return fmt.t(
            N_(
                "Nearest to the hider: {hider} ({hider_distance}); to the seeker: {seeker} "
                "({seeker_distance})."
            ),
            hider=n.hider_place or "—",
            hider_distance=fmt.distance(n.hider_m),
            seeker=n.seeker_place or "—",
            seeker_distance=fmt.distance(n.seeker_m),
        )
    if category == Category.MATCHING and (n.hider_place or n.seeker_place):
        return fmt.t(
            N_("The hider's: {hider}; the seeker's: {seeker}."),
            hider=n.hider_place or "—",
            seeker=n.seeker_place or "—",
        )
    return None


# ----------------------------------------------------------------- for everyone


def answer_note(check: AnswerCheck | None, fmt: Formatter) -> str | None:
    """The check line under an answered question, for everyone; None if there is none."""
    if check is None or check.computation.reason == "photo":
        return None
    if check.automatic:
        return say("chat.check_automatic", {}, fmt)
    return verdict_note(check.verdict, check.computation.reason, check.computation.too_close, fmt)


def claim_note(claims: Sequence[Claim], fmt: Formatter) -> str | None:
    """The check line under a claimed end game's announcement (no numbers).

    ``claims`` are the current round's claims, oldest first; the newest one counts.
    """
    if not claims:
        return None
    # The claim that started it: the newest one someone accepted, else the newest.
    claim = next((c for c in reversed(claims) if c.accepted), claims[-1])
    if claim.reason == TRANSIT_UNKNOWN:
        return say("chat.claim_off_transit", {}, fmt) if claim.accepted else None
    if claim.verdict == CheckVerdict.DISAGREED:
        return say("chat.claim_accepted", {}, fmt) if claim.accepted else None
    return verdict_note(claim.verdict, claim.reason, False, fmt)
