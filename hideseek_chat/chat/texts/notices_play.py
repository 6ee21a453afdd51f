"""The engine's notices about play: questions, cards and curses."""

from __future__ import annotations

import string

from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.texts.answers import answer_hint
from hideseek_chat.chat.texts.parts import (
    card_name,
    card_names,
    category_of,
    game_minutes,
    game_size,
    lines,
    minutes,
    question_name,
)
from hideseek_chat.chat.texts.registry import Params, text
from hideseek_chat.rules.ruleset import Size

# ----- questions -----


@text("question.asked")
def _question_asked(p: Params, f: Formatter) -> str:
    question = question_name(p, f)
    if p.get("due_at") is None:
        first = f.t(
            "🌡️ {asker} starts a thermometer: {question}. Travel {distance}, then say you're "
            "done and the hider answers.",
            asker=p["asker"],
            question=question,
            distance=f.distance(p.get("distance_m") or 0),
        )
    else:
        first = f.t(
            "❓ {asker} asks: {question}. The hider has until {time} to answer.",
            asker=p["asker"],
            question=question,
            time=f.clock(p["due_at"]),
        )
    times = int(p.get("times") or 1)
    return lines(
        first,
        f.n(
            "🔁 Asked before this round, so it costs more: the hider draws for it {count} time.",
            "🔁 Asked before this round, so it costs more: the hider draws for it {count} times.",
            times,
        )
        if times > 1
        else None,
        f.t("🆓 This question is free: the hider draws no cards for it.")
        if p.get("free")
        else None,
    )


@text("question.incoming")
def _question_incoming(p: Params, f: Formatter) -> str:
    key = "new_question" if p.get("new_question") else "question"
    question = question_name(p, f, key)
    if p.get("due_at") is None:
        return f.t(
            "🌡️ Heads-up: the seekers are on a thermometer ({question}). "
            "It comes to you to answer once they've travelled its distance.",
            question=question,
        )
    if key == "new_question":
        first = f.t(
            "🎲 You randomized {old}. Answer {question} instead, by {time}.",
            old=f.question(p["question"]),
            question=question,
            time=f.clock(p["due_at"]),
        )
    else:
        first = f.t(
            "❓ A question for you: {question}. Answer by {time}.",
            question=question,
            time=f.clock(p["due_at"]),
        )
    return lines(first, answer_hint(category_of(p, f, key), f))


@text("question.thermometer_done")
def _thermometer_done(p: Params, f: Formatter) -> str:
    return f.t(
        "🌡️ The seekers have finished their thermometer ({question}). "
        "The hider has until {time} to say hotter or colder.",
        question=question_name(p, f),
        time=f.clock(p["due_at"]),
    )


@text("question.answered")
def _answered(p: Params, f: Formatter) -> str:
    text = f.t(
        "✅ {question}: {answer}",
        question=question_name(p, f),
        answer=f.answer(p["answer"], p.get("detail")),
    )
    if p.get("caption"):
        text = lines(text, f.t("💬 The hider wrote: {caption}", caption=p["caption"]))
    if not p.get("late"):
        return text
    return lines(
        text,
        f.t(
            "⌛ That answer came late: the hider's clock stood still from the deadline until "
            "now, and they draw no cards for it."
        ),
    )


@text("question.late_no_cards")
def _late_no_cards(p: Params, f: Formatter) -> str:
    return f.t(
        "⌛ You answered {question} late, so you draw no cards for it.",
        question=question_name(p, f),
    )


@text("question.free_no_cards")
def _free_no_cards(p: Params, f: Formatter) -> str:
    return f.t(
        "🆓 {question} was the free question your curse cost you, so you draw no cards for it.",
        question=question_name(p, f),
    )


@text("question.vetoed")
def _vetoed(p: Params, f: Formatter) -> str:
    return f.t(
        "🚫 The hider vetoed {question}: no answer this time, and it still counts as asked.",
        question=question_name(p, f),
    )


@text("question.randomized")
def _randomized(p: Params, f: Formatter) -> str:
    old, new = f.question(p["question"]), question_name(p, f, "new_question")
    if p.get("due_at") is None:
        return f.t(
            "🎲 The hider randomized {old} into {new}, a thermometer: travel its distance, "
            "then say you're done.",
            old=old,
            new=new,
        )
    return f.t(
        "🎲 The hider randomized {old}. They answer {new} instead, by {time}.",
        old=old,
        new=new,
        time=f.clock(p["due_at"]),
    )


@text("question.reminder")
def _reminder(p: Params, f: Formatter) -> str:
    return f.t(
        "⏰ Reminder: answer {question} by {time}.",
        question=question_name(p, f),
        time=f.clock(p["due_at"]),
    )


@text("question.overdue")
def _overdue(p: Params, f: Formatter) -> str:
    return f.t(
        "⌛ {question} is overdue. The hider's clock stands still until they answer, and a "
        "late answer earns no cards.",
        question=question_name(p, f),
    )


@text("question.overdue_hider")
def _overdue_hider(p: Params, f: Formatter) -> str:
    return f.t(
        "⌛ Time's up for {question}! Your clock has stopped until you answer, and you draw "
        "no cards for it. Answer as soon as you can.",
        question=question_name(p, f),
    )


# ----- cards -----


@text("draw.offer")
def _draw_offer(p: Params, f: Formatter) -> str:
    rows = [
        f.t("{number}. {card}", number=i, card=card_name(c, p, f))
        for i, c in enumerate(p["cards"], start=1)
    ]
    head = f.n(
        "🃏 You drew {drawn} cards. Keep {count}; the rest go to the discard pile:",
        "🃏 You drew {drawn} cards. Keep {count}; the rest go to the discard pile:",
        p["keep"],
        drawn=len(rows),
    )
    return lines(head, *rows)


@text("draw.kept")
def _draw_kept(p: Params, f: Formatter) -> str:
    if not p["cards"]:
        return f.t("🃏 The deck is empty: there were no cards left to draw.")
    return f.t("🃏 Into your hand: {cards}.", cards=card_names(p, f))


@text("draw.deck_empty")
def _deck_empty(p: Params, f: Formatter) -> str:
    return f.t("🃏 The deck and the discard pile are empty, so there's nothing to draw this time.")


@text("hand.over_limit")
def _over_limit(p: Params, f: Formatter) -> str:
    return f.n(
        "✋ Your hand holds more than {limit} cards: play or discard {count} card now, with "
        "the buttons below. The game goes on meanwhile, but your next draw waits until your "
        "hand is back within the limit.",
        "✋ Your hand holds more than {limit} cards: play or discard {count} cards now, with "
        "the buttons below. The game goes on meanwhile, but your next draw waits until your "
        "hand is back within the limit.",
        p["excess"],
        limit=p["limit"],
    )


@text("hand.sorting")
def _sorting(p: Params, f: Formatter) -> str:
    if p.get("hider", True):
        return f.t("🃏 The hider is sorting their cards. The game goes on: keep seeking.")
    return f.t("🃏 {team} is sorting its cards. The game goes on.", team=p["team"])


@text("hand.discarded")
def _discarded(p: Params, f: Formatter) -> str:
    return f.t("🗑️ Discarded: {card}.", card=card_name(p["card"], p, f))


@text("hand.expanded")
def _expanded(p: Params, f: Formatter) -> str:
    return f.n(
        "🃏 Until the end of this round your hand holds up to {count} card.",
        "🃏 Until the end of this round your hand holds up to {count} cards.",
        p["limit"],
    )


@text("card.duplicated")
def _duplicated(p: Params, f: Formatter) -> str:
    return f.t("🃏 Your Duplicate plays as a copy of {card}.", card=card_name(p["card"], p, f))


# ----- curses -----


class _Fill(dict[str, str]):
    """Values for a card's text; a placeholder without a value reads as an ellipsis."""

    def __missing__(self, key: str) -> str:
        return "…"


def curse_text(p: Params, f: Formatter) -> str | None:
    """The curse's rules text from the ruleset, its ``{placeholders}`` filled for this game."""
    if f.ruleset is None:
        return None
    try:
        card = f.ruleset.card(p["curse"])
    except KeyError:
        return None
    if not card.text:
        return None
    rules = card.curse
    values = _Fill()
    for name, param, per_size in (
        ("duration", "duration_min", rules.duration_min if rules else None),
        ("penalty", "penalty_min", rules.penalty_min if rules else None),
        ("time_limit", "time_limit_min", rules.time_limit_min if rules else None),
    ):
        value = p.get(param)
        if value is None and per_size is not None:
            value = game_minutes(per_size, p, f)
        if value is not None:
            values[name] = minutes(f, value)
    if p.get("distance_m") is not None:
        values["distance"] = f.distance(p["distance_m"])
    elif rules is not None and rules.distance_m is not None and game_size(p) is not None:
        size = Size.LARGE if p.get("global_scale") else game_size(p)
        values["distance"] = f.distance(rules.distance_m[size or Size.LARGE])
    text = f.t(card.text)  # ruleset data: translated where a catalogue has it
    try:
        return string.Formatter().vformat(text, (), values)
    except (ValueError, IndexError, AttributeError):
        return text.replace("{", "").replace("}", "")


@text("curse.cast")
def _curse_cast(p: Params, f: Formatter) -> str:
    banned = [f.question(q) for q in p.get("banned") or []]
    losses = p.get("losses")
    return lines(
        f.t("🔮 A curse has been cast: {curse}!", curse=f.card(p["curse"])),
        curse_text(p, f),
        f.t("🎲 The die showed {die}.", die=p["die"]) if p.get("die") is not None else None,
        f.t("⏳ It lasts until {time}.", time=f.clock(p["expires_at"]))
        if p.get("expires_at") is not None
        else None,
        f.t("🚫 Closed right now: {category} questions.", category=f.category(p["category"]))
        if p.get("category")
        else None,
        f.t("🚫 Banned for the rest of this run: {questions}.", questions=f.names(banned))
        if banned
        else None,
        f.n(
            "💀 The curse ends after the seekers lose {count} game (and a short wait).",
            "💀 The curse ends after the seekers lose {count} games (and a short wait).",
            int(losses),
        )
        if losses
        else None,
    )


@text("curse.no_effect")
def _curse_no_effect(p: Params, f: Formatter) -> str:
    if p.get("die") is not None:
        return f.t(
            "🎲 The {curse} was cast, but the die showed {die}: no effect this time.",
            curse=f.card(p["curse"]),
            die=p["die"],
        )
    return f.t("🎲 The {curse} was cast, but it has no effect this time.", curse=f.card(p["curse"]))


@text("curse.spent")
def _curse_spent(p: Params, f: Formatter) -> str:
    return f.t("✅ That question used up the {curse}.", curse=f.card(p["curse"]))


@text("curse.cleared")
def _curse_cleared(p: Params, f: Formatter) -> str:
    return f.t("✅ {by} cleared the {curse}.", by=p["by"], curse=f.card(p["curse"]))


@text("curse.cleared_hider")
def _curse_cleared_hider(p: Params, f: Formatter) -> str:
    return f.t("✅ The seekers have cleared your {curse}.", curse=f.card(p["curse"]))


@text("curse.loss")
def _curse_loss(p: Params, f: Formatter) -> str:
    return f.t(
        "💀 The seekers lost a game against the {curse}: {losses} of {needed}.",
        curse=f.card(p["curse"]),
        losses=p["losses"],
        needed=p["needed"],
    )


@text("curse.lockout")
def _curse_lockout(p: Params, f: Formatter) -> str:
    return f.t(
        "💀 That's {losses} of {needed} games lost: the seekers sit out until {time}, then "
        "the {curse} ends.",
        losses=p["losses"],
        needed=p["needed"],
        time=f.clock(p["until"]),
        curse=f.card(p["curse"]),
    )


@text("curse.penalty")
def _curse_penalty(p: Params, f: Formatter) -> str:
    return f.t(
        "⏱️ The {curse} strikes: a bonus of {duration}.",
        curse=f.card(p["curse"]),
        duration=minutes(f, p["minutes"]),
    )


@text("curse.spotty_rolled")
def _spotty_rolled(p: Params, f: Formatter) -> str:
    return f.t(
        "🎲 Spotty Memory: the die was rolled again. Closed now: {category} questions.",
        category=f.category(p["category"]),
    )


@text("curse.expired")
def _curse_expired(p: Params, f: Formatter) -> str:
    return f.t("⌛ The {curse} has worn off.", curse=f.card(p["curse"]))
