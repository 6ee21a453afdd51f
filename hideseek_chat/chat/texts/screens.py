"""Screens the players ask for: /status, /score, /hand, /track and the /ask menu.

Secrecy: ``status_text`` and ``score_text`` go to the group; they never name the hider's
station or position. ``track_text`` is for the hider's private chat only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from hideseek_chat.chat.i18n import N_, Formatter
from hideseek_chat.chat.texts.parts import team_label
from hideseek_chat.chat.texts.registry import say
from hideseek_chat.chat.texts.setup import settings_lines, team_lines
from hideseek_chat.chat.texts.trackers import source_label
from hideseek_chat.rules.clock import hiding_seconds
from hideseek_chat.rules.curses import is_active, is_clearable
from hideseek_chat.rules.lifecycle import settings_summary
from hideseek_chat.rules.questions import QuestionOffer
from hideseek_chat.rules.scoring import scoreboard
from hideseek_chat.rules.state import ActiveCurse, CardZone, GameState, Phase

#: Each phase as the status names it.
PHASES = {
    Phase.SETUP: N_("Setting up — /join, then the admin sends /begin"),
    Phase.HIDING: N_("Hiding period"),
    Phase.SEEKING: N_("Seeking"),
    Phase.MOVING: N_("The hider is moving"),
    Phase.END_GAME: N_("End game: the seekers are in the zone"),
    Phase.HANDOVER: N_("Between rounds"),
    Phase.GAME_OVER: N_("Game over"),
}


def status_text(
    state: GameState,
    fmt: Formatter,
    now: datetime,
    last_seen: Mapping[str, datetime | None],
    sources: Mapping[str, str] | None = None,
) -> str:
    """The group's status: phase, clocks, pending question, curses, seekers' ping ages and
    where each seeker's newest pin came from (``sources``: a live location, a tracker app).
    The hider is never listed: not even how fresh their position is."""
    lines = [fmt.t(N_("📋 Status — {phase}"), phase=fmt.t(PHASES[state.phase]))]
    if state.is_paused:
        lines.append(fmt.t(N_("⏸ Paused")))
    current = state.current_round
    if current is not None and state.phase != Phase.GAME_OVER:
        team = state.team(current.hider_team_id)
        members = [p.name for p in state.team_players(team.id)]
        hider = team_label(fmt, team.name, members)
        lines.append(
            fmt.t(N_("Round {number} — {hider} hiding"), number=current.number, hider=hider)
        )
        for deadline in state.open_deadlines():
            if deadline.kind.value == "hiding_ends" and deadline.due_at:
                lines.append(
                    fmt.t(
                        N_("Hiding period ends at {time} (in {left})"),
                        time=fmt.clock(deadline.due_at),
                        left=fmt.duration((deadline.due_at - now).total_seconds()),
                    )
                )
        if current.seeking_started_at is not None:
            lines.append(
                fmt.t(
                    N_("Hiding time so far: {time}"),
                    time=fmt.duration(hiding_seconds(state, current, now)),
                )
            )
        pending = state.pending_question()
        if pending is not None:
            if pending.due_at is not None:
                lines.append(
                    fmt.t(
                        N_("❓ Waiting for the answer to {question} (due {time})"),
                        question=fmt.question(pending.question_id, pending.distance_m),
                        time=fmt.clock(pending.due_at),
                    )
                )
            else:
                lines.append(
                    fmt.t(
                        N_("🌡 {question} under way"),
                        question=fmt.question(pending.question_id, pending.distance_m),
                    )
                )
        for curse in state.round_curses():
            if not is_active(curse, now):
                continue
            lines.append(_curse_line(curse, fmt))
        if current.penalty_minutes:
            lines.append(
                fmt.t(
                    N_("⏱️ Curse bonuses for the hider so far: +{time}"),
                    time=fmt.duration(60 * current.penalty_minutes),
                )
            )
        if current.spotty_category is not None:
            lines.append(
                fmt.t(
                    N_("🚫 Spotty Memory: {category} questions are closed"),
                    category=fmt.category(current.spotty_category.value),
                )
            )
        seekers = [p for t in state.seeker_team_ids() for p in state.team_players(t)]
        for player in seekers:
            seen = last_seen.get(player.ref)
            source = (sources or {}).get(player.ref)
            if seen is None:
                lines.append(fmt.t(N_("📍 {name}: no location yet"), name=player.name))
            elif source is not None:
                lines.append(
                    fmt.t(
                        N_("📍 {name}: seen {age} ago ({source})"),
                        name=player.name,
                        age=fmt.duration(max(0.0, (now - seen).total_seconds())),
                        source=source_label(source, fmt),
                    )
                )
            else:
                lines.append(
                    fmt.t(
                        N_("📍 {name}: seen {age} ago"),
                        name=player.name,
                        age=fmt.duration(max(0.0, (now - seen).total_seconds())),
                    )
                )
    elif state.phase == Phase.SETUP:
        lines.extend(team_lines(state, fmt) or [fmt.t(N_("Players: {names}"), names="—")])
    if state.phase != Phase.GAME_OVER:
        # What the variants and rest periods change (all the settings during the setup).
        summary = settings_summary(state)
        lines.extend(settings_lines(summary, fmt, variants_only=state.phase != Phase.SETUP))
    if state.game_timer_at is not None and state.phase != Phase.GAME_OVER:
        lines.append(fmt.t(N_("The game ends at {time}"), time=fmt.clock(state.game_timer_at)))
    return "\n".join(lines)


def _curse_line(curse: ActiveCurse, fmt: Formatter) -> str:
    """An active curse in /status: until when, or what ends it."""
    name = fmt.card(curse.def_id)
    if curse.lockout_until is not None:
        return fmt.t(
            N_("🔮 {curse}: the seekers sit out until {time}, then it ends"),
            curse=name,
            time=fmt.clock(curse.lockout_until),
        )
    if curse.expires_at is not None:
        return fmt.t(N_("🔮 {curse} until {time}"), curse=name, time=fmt.clock(curse.expires_at))
    rules = fmt.ruleset.card(curse.def_id).curse if fmt.ruleset is not None else None
    if rules is not None and not is_clearable(rules):
        return fmt.t(N_("🔮 {curse} — for the rest of the run"), curse=name)
    return fmt.t(N_("🔮 {curse} — /cleared when done"), curse=name)


def score_text(state: GameState, fmt: Formatter) -> str:
    """The scores so far, and the winners once the game is over."""
    board = scoreboard(state)
    lines = [fmt.t(N_("🏆 Scores"))]
    for row in board["rows"]:
        score = row["score"]
        if score is None:
            value = fmt.t(N_("no finished run yet"))
        elif board["mode"] == "teams_points":
            value = fmt.n("{count} point", "{count} points", int(score))
        else:
            value = fmt.duration(score)
        team = team_label(fmt, row["team"], row.get("members"))
        lines.append(fmt.t(N_("{team}: {value}"), team=team, value=value))
        if board["mode"] == "standard" and score is not None:
            lines.extend(_run_parts(state, row["team_id"], score, fmt))
    if board["winners"] and state.phase == Phase.GAME_OVER:
        lines.append(fmt.t(N_("Winner: {names}"), names=fmt.names(board["winners"])))
    return "\n".join(lines)


def _run_parts(state: GameState, team_id: int, score: float, fmt: Formatter) -> list[str]:
    """How the team's best run adds up: the time hidden, time bonuses, curse bonuses."""
    for round_ in state.rounds:
        if round_.hider_team_id != team_id or round_.total_seconds != score:
            continue
        parts = [fmt.t(N_("hidden {time}"), time=fmt.duration(round_.hiding_seconds or 0))]
        if round_.bonus_minutes:
            parts.append(
                fmt.t(N_("time bonuses +{time}"), time=fmt.duration(60 * round_.bonus_minutes))
            )
        if round_.penalty_minutes:
            parts.append(
                fmt.t(N_("curse bonuses +{time}"), time=fmt.duration(60 * round_.penalty_minutes))
            )
        return [f"   ({', '.join(parts)})"] if len(parts) > 1 else []
    return []


def hand_text(
    state: GameState, fmt: Formatter, team_id: int, limit: int, labels: Sequence[str] = ()
) -> str:
    """The cards in ``team_id``'s hand, out of ``limit`` (that team's private chats only);
    ``labels`` name the cards in order (default: their names)."""
    hand = state.cards_in(CardZone.HAND, team_id)
    if not hand:
        return fmt.t(N_("🃏 Your hand is empty."))
    lines = [fmt.t(N_("🃏 Your hand ({count} of {limit}):"), count=len(hand), limit=limit)]
    names = list(labels) or [fmt.card(card.def_id) for card in hand]
    lines.extend(f"• {name}" for name in names)
    return "\n".join(lines)


def track_text(
    state: GameState,
    fmt: Formatter,
    now: datetime,
    seekers: Sequence[tuple[str, float | None, datetime | None]],
) -> str:
    """For the hider: each seeker's distance from them and the age of the ping."""
    lines = [fmt.t(N_("🛰 Where the seekers were last seen:"))]
    for name, distance, at in seekers:
        if at is None:
            lines.append(fmt.t(N_("{name}: no location yet"), name=name))
        elif distance is None:
            lines.append(
                fmt.t(
                    N_("{name}: seen {age} ago (share your live location to see distances)"),
                    name=name,
                    age=fmt.duration((now - at).total_seconds()),
                )
            )
        else:
            lines.append(
                fmt.t(
                    N_("{name}: {distance} from you, seen {age} ago"),
                    name=name,
                    distance=fmt.distance(distance),
                    age=fmt.duration((now - at).total_seconds()),
                )
            )
    return "\n".join(lines)


def ask_menu_text(offers: Sequence[QuestionOffer], fmt: Formatter) -> str:
    """The line above the /ask menu's first screen (one button per category)."""
    if not offers:
        return say("chat.ask_nothing", {}, fmt)
    return fmt.t(N_("❓ Which kind of question? Each button shows what the hider draws and keeps."))


def category_label(offers: Sequence[QuestionOffer], fmt: Formatter) -> str:
    """A category's button on the first screen: ``Radar (draw 2, keep 1)``."""
    first = offers[0]
    cost = fmt.t(N_("draw {draw}, keep {keep}"), draw=first.draw, keep=first.keep)
    return f"{fmt.category(first.question.category.value)} ({cost})"


def offer_label(offer: QuestionOffer, fmt: Formatter) -> str:
    """A question's button on its category's screen: ``Zoo``, ``1 km``, ``✔ Park ×2`` (asked
    before this round: asking again makes the hider draw for it twice)."""
    question = offer.question
    if question.custom_distance:
        name = fmt.t(N_("📏 Distance of your choice"))
    elif question.category.value in ("radar", "thermometer") and question.distance_m:
        name = fmt.distance(question.distance_m)
    else:
        name = fmt.t(question.label)
    return asked_mark(name, offer.times_asked)


def asked_mark(name: str, times_asked: int) -> str:
    """``name`` marked as asked ``times_asked`` times before this round (if at all)."""
    return f"✔ {name} ×{times_asked + 1}" if times_asked else name


def ask_category_text(offers: Sequence[QuestionOffer], fmt: Formatter) -> str:
    """The line above a category's questions: the category, what an answer costs, and
    what the ✔ marks mean when one is shown."""
    first = offers[0]
    text = fmt.t(
        N_("❓ {category}: which one? For each answer the hider draws {draw} and keeps {keep}."),
        category=fmt.category(first.question.category.value),
        draw=first.draw,
        keep=first.keep,
    )
    if any(offer.times_asked for offer in offers):
        text += "\n" + asked_note(fmt)
    return text


def asked_note(fmt: Formatter) -> str:
    return fmt.t(
        N_(
            "✔ asked before this round: asking it again, the hider draws for it once more "
            "(×2: twice)."
        )
    )


def ask_distance_text(offer: QuestionOffer, example: str, any_asked: bool, fmt: Formatter) -> str:
    """The line above the distances of one's choice, with how to type any other."""
    text = fmt.t(
        N_("📏 {category}: choose the distance, or type any other like {example}."),
        category=fmt.category(offer.question.category.value),
        example=example,
    )
    return text + "\n" + asked_note(fmt) if any_asked else text


def ask_line_text(question: str, example: str, known: bool, fmt: Formatter) -> str:
    """The line above the lines to choose for the transit-line question (``known``: the
    map knows which lines stop where, so the bot can check the hider's answer)."""
    if not known:
        return fmt.t(
            N_(
                "🚆 {question}: this map doesn't say which lines stop where, so the hider "
                "answers it alone. To name your line, type it like {example}."
            ),
            question=question,
            example=example,
        )
    return fmt.t(
        N_(
            "🚆 {question}: which line are you riding? The hider answers whether it stops at "
            "their station. Not listed? Type it like {example}."
        ),
        question=question,
        example=example,
    )


def asked_from_menu_text(question: str, fmt: Formatter) -> str:
    """What the /ask menu turns into once a question is asked from it."""
    return fmt.t(N_("❓ Asked: {question}"), question=question)
