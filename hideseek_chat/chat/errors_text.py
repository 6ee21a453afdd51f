"""The English texts of the engine's refusals: ``render_error(key, params, fmt)``.

A ``RuleViolation`` carries a key (``error.only_admin``) and params; this module turns
them into one friendly sentence that says what went wrong and, where it can, what to do
instead. Every msgid is a literal at its ``fmt.t``/``fmt.n`` call so that
``pybabel extract -k t -k n:1,2 -k N_`` finds it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from hideseek_chat.chat.i18n import Formatter

log = logging.getLogger(__name__)

Params = Mapping[str, Any]
ErrorText = Callable[[Params, Formatter], str]


def _question(p: Params, f: Formatter) -> str:
    return f.question(p["question"])


def _answers(p: Params, f: Formatter) -> str:
    words = []
    for word in p["answers"]:
        if word == "named":
            words.append(f.t("the name of the place"))
        elif word == "photo":
            words.append(f.t("a photo"))
        else:
            words.append(f.answer(word))
    return f.names(words)


def _discard_kind(p: Params, f: Formatter) -> str:
    kind = p.get("kind")
    if kind == "powerup":
        return f.t("This curse asks you to discard powerup cards. Choose powerups to pay for it.")
    if kind == "time_bonus":
        return f.t("This curse asks you to discard time bonus cards. Choose time bonuses.")
    if kind == "curse":
        return f.t("This curse asks you to discard other curse cards. Choose curses.")
    return f.t("Those cards aren't the kind this curse asks you to discard.")


def _cost_confirm(p: Params, f: Formatter) -> str:
    if p.get("limit_m") is not None:
        return f.t(
            "I have no fresh location pins from the seekers. Check this curse's distance "
            "condition ({distance}) yourself and confirm that it's met.",
            distance=f.distance(p["limit_m"]),
        )
    return f.t("Confirm that you've done what this curse asks for before you cast it.")


_ERRORS: dict[str, ErrorText] = {
    # ----- generic refusals (the classes' own keys) -----
    "error.rule": lambda p, f: f.t("The rules don't allow that."),
    "error.not_a_player": lambda p, f: f.t(
        "You're not playing in this game. Send /join while it's being set up to take part."
    ),
    "error.not_allowed": lambda p, f: f.t("Your role in the game doesn't let you do that."),
    "error.wrong_phase": lambda p, f: f.t("That can't be done at this point of the game."),
    "error.paused": lambda p, f: f.t("The game is paused. Send /resume to carry on first."),
    "error.setup": lambda p, f: f.t("That doesn't work for setting up this game."),
    "error.question_not_available": lambda p, f: f.t("That question can't be asked right now."),
    "error.curse_blocks": lambda p, f: f.t("A curse is in the way of that right now."),
    "error.card_not_available": lambda p, f: f.t("That card can't be used right now."),
    "error.cost_not_met": lambda p, f: f.t("The cost of that card hasn't been paid yet."),
    "error.not_a_number": lambda p, f: f.t(
        "That doesn't look like a number I can use. Please try again with a plain number."
    ),
    # ----- setting up -----
    "error.already_joined": lambda p, f: f.t("You're already in this game."),
    "error.already_begun": lambda p, f: f.t(
        "The game is already under way: that can only be done before it starts."
    ),
    "error.game_over": lambda p, f: f.t("This game is over. Start a new one with /newgame."),
    "error.only_admin": lambda p, f: f.t("Only the game's admin can do that."),
    "error.too_few": lambda p, f: f.t(
        "You need at least two players (or teams) to start. Invite someone to /join!"
    ),
    "error.three_teams": lambda p, f: f.t(
        "This mode needs exactly three teams: two seeker teams and the hider. "
        "Team up until there are three."
    ),
    "error.unknown_player": lambda p, f: f.t(
        "That person isn't in this game yet. They need to /join first."
    ),
    "error.same_team": lambda p, f: f.t("You're already on that team."),
    "error.team_name": lambda p, f: f.t("Your team needs a name: send it along with the command."),
    "error.rounds": lambda p, f: f.t(
        "Each team can hide from 1 to {maximum} times. Pick a number in that range.",
        maximum=p["maximum"],
    ),
    "error.end_timer": lambda p, f: f.t(
        "The end-of-game timer must be longer than zero and at most 14 days."
    ),
    "error.rest_period": lambda p, f: f.t(
        "“{text}” isn't a rest period I understand. Give two different times of day, "
        "like 22:00-08:00.",
        text=p["text"],
    ),
    "error.utc_offset": lambda p, f: f.t(
        "That time zone offset is out of range: use one between UTC-14 and UTC+14."
    ),
    "error.hider_leaving": lambda p, f: f.t(
        "You're the only hider right now, so you can't leave mid-round. Pause the game, "
        "or ask the admin to end it."
    ),
    # ----- the running game -----
    "error.already_paused": lambda p, f: f.t("The game is already paused."),
    "error.not_paused": lambda p, f: f.t("The game isn't paused."),
    "error.no_round": lambda p, f: f.t("That only works while a round is being played."),
    "error.no_handover": lambda p, f: f.t(
        "There's no break between rounds right now, so there's no next round to start."
    ),
    "error.only_next_hider": lambda p, f: f.t(
        "Only the next hider (or the admin) can start the next round."
    ),
    "error.zone_phase": lambda p, f: f.t("The hiding zone is set when the hiding period ends."),
    "error.zone_end_game": lambda p, f: f.t(
        "The end game has begun, so your zone can't change any more."
    ),
    "error.zone_locked": lambda p, f: f.t(
        "The seekers have already asked about your current zone, so it stays as it is."
    ),
    "error.end_game_already": lambda p, f: f.t("The end game has already begun."),
    "error.not_seeking": lambda p, f: f.t("That only works while the seekers are seeking."),
    "error.only_seekers": lambda p, f: f.t("Only the seekers can do that."),
    "error.only_hider": lambda p, f: f.t("Only the hider can do that."),
    "error.already_caught": lambda p, f: f.t("Your team has already found the hider this round."),
    "error.no_claim": lambda p, f: f.t("Nobody has claimed to have found you."),
    "error.moving": lambda p, f: f.t(
        "The hider is on a Move: seekers stay where they are and no questions are asked "
        "or answered until it ends."
    ),
    # ----- questions -----
    "error.question_unknown": lambda p, f: f.t(
        "I don't know a question called “{question}”. Pick one from the question list.",
        question=p["question"],
    ),
    "error.question_size": lambda p, f: f.t(
        "{question} isn't played in a game of this size. Pick another question.",
        question=_question(p, f),
    ),
    "error.question_variant": lambda p, f: f.t(
        "{question} needs public transit, so it isn't played in this game.",
        question=_question(p, f),
    ),
    "error.question_banned": lambda p, f: f.t(
        "{question} has been banned by a curse for the rest of this run.",
        question=_question(p, f),
    ),
    "error.needs_ride": lambda p, f: f.t(
        "{question} can only be asked while you're riding a moving vehicle.",
        question=_question(p, f),
    ),
    "error.needs_distance": lambda p, f: f.t(
        "{question} needs a distance: say how far you'd like it to reach.",
        question=_question(p, f),
    ),
    "error.question_pending": lambda p, f: f.t(
        "{question} is still waiting for its answer. Ask the next one once it's answered.",
        question=_question(p, f),
    ),
    "error.no_pending_question": lambda p, f: f.t("There's no question waiting for an answer."),
    "error.no_thermometer": lambda p, f: f.t("No thermometer is under way."),
    "error.thermometer_short": lambda p, f: f.t(
        "You've travelled {travelled} so far, but this thermometer needs {needed}. Keep going!",
        travelled=f.distance(p["travelled_m"]),
        needed=f.distance(p["needed_m"]),
    ),
    "error.still_travelling": lambda p, f: f.t(
        "The seekers are still travelling for their thermometer. "
        "The question comes to you once they've arrived."
    ),
    "error.invalid_answer": lambda p, f: f.t(
        "That doesn't answer this question. You can answer: {answers}.",
        answers=_answers(p, f),
    ),
    "error.answer_needs_name": lambda p, f: f.t("Name the place you're nearest to."),
    "error.category_disabled": lambda p, f: f.t(
        "{category} questions are closed by a curse right now. Try another category.",
        category=f.category(p["category"]),
    ),
    "error.curse_blocks_questions": lambda p, f: f.t(
        "The {curse} has to be cleared before you can ask your next question.",
        curse=f.card(p["curse"]),
    ),
    "error.urban_explorer": lambda p, f: f.t(
        "The Curse of the Urban Explorer is on you: no questions while riding transit or "
        "inside a station. Ask once you're out."
    ),
    "error.randomize_none": lambda p, f: f.t(
        "There's no unasked question of that category left to swap in."
    ),
    # ----- cards -----
    "error.card_not_in_hand": lambda p, f: f.t("That card isn't in your hand."),
    "error.no_offer": lambda p, f: f.t("There's no draw to choose from right now."),
    "error.keep_count": lambda p, f: f.n(
        "Choose exactly {count} of the drawn cards to keep.",
        "Choose exactly {count} of the drawn cards to keep.",
        p["keep"],
    ),
    "error.hand_over_limit": lambda p, f: f.n(
        "Your hand is {count} card over its limit. Play or discard a card first.",
        "Your hand is {count} cards over its limit. Play or discard cards first.",
        p["excess"],
    ),
    "error.time_bonus_play": lambda p, f: f.t(
        "Time bonuses aren't played: keep them in your hand (they count when you're found) "
        "or discard them."
    ),
    "error.duplicate_target": lambda p, f: f.t(
        "Pick another card in your hand for the Duplicate to copy (not a Duplicate)."
    ),
    "error.duplicate_time_bonus": lambda p, f: f.t(
        "A Duplicate copies a time bonus simply by staying in your hand until you're found."
    ),
    "error.not_playable": lambda p, f: f.t("That card can't be played."),
    "error.move_end_game": lambda p, f: f.t("A Move can't be played once the end game has begun."),
    "error.move_phase": lambda p, f: f.t(
        "A Move can only be played while the seekers are seeking."
    ),
    "error.discard_count": lambda p, f: f.n(
        "Choose {count} other card from your hand to discard.",
        "Choose {count} other cards from your hand to discard.",
        p["count"],
    ),
    "error.discard_kind": _discard_kind,
    # ----- curses -----
    "error.cost_confirm": _cost_confirm,
    "error.cost_distance": lambda p, f: f.t(
        "The seekers are {distance} away, which doesn't meet this curse's condition "
        "({limit}). Try again later.",
        distance=f.distance(p["distance_m"]),
        limit=f.distance(p["limit_m"]),
    ),
    "error.cost_distance_mode": lambda p, f: f.t(
        "Curses that depend on how far away the seekers are aren't played in this mode."
    ),
    "error.curse_target": lambda p, f: f.t("Choose which seeker team to curse."),
    "error.curse_phase": lambda p, f: f.t("Curses are cast while the seekers are seeking."),
    "error.curse_end_game": lambda p, f: f.t("This curse can't be cast in the end game."),
    "error.one_blocking_curse": lambda p, f: f.t(
        "The {curse} is already holding the seekers up. Cast this one once it's cleared.",
        curse=f.card(p["curse"]),
    ),
    "error.ban_count": lambda p, f: f.n(
        "Choose {count} question to ban.",
        "Choose {count} questions to ban, each from a different category.",
        p["count"],
    ),
    "error.ban_unknown": lambda p, f: f.t(
        "One of those questions isn't part of this game. Pick from the question list."
    ),
    "error.ban_pending": lambda p, f: f.t(
        "The question waiting for your answer can't be banned. Pick another one."
    ),
    "error.ban_categories": lambda p, f: f.t(
        "The banned questions must each come from a different category."
    ),
    "error.no_curse": lambda p, f: f.t("That curse isn't in play."),
    "error.not_your_curse": lambda p, f: f.t("That curse is on the other team, not yours."),
    "error.not_clearable": lambda p, f: f.t("This curse ends by itself: there's nothing to clear."),
    "error.curse_lockout": lambda p, f: f.t(
        "You've lost enough games: sit it out. The curse ends by itself at {time}.",
        time=f.clock(p["until"]),
    ),
    "error.not_a_game": lambda p, f: f.t("Only a curse you play as a game counts lost games."),
    "error.not_caster": lambda p, f: f.t("Only the team that cast the curse can claim its bonus."),
    "error.no_penalty": lambda p, f: f.t("This curse doesn't award a time bonus."),
    "error.penalty_taken": lambda p, f: f.t("This curse's bonus has already been awarded."),
}


def has_error_text(key: str) -> bool:
    """Whether ``key`` has its own sentence (otherwise the generic one is shown)."""
    from hideseek_chat.chat.botnet_text import ERRORS as BOTNET_ERRORS

    return key in _ERRORS or key in BOTNET_ERRORS


def error_keys() -> frozenset[str]:
    return frozenset(_ERRORS)


def render_error(key: str, params: Mapping[str, Any], fmt: Formatter) -> str:
    """The sentence telling a player why the engine refused; never raises."""
    if key.startswith("botnet."):
        from hideseek_chat.chat.botnet_text import error_text

        botnet = error_text(key, params, fmt)
        if botnet is not None:
            return botnet
    text = _ERRORS.get(key)
    if text is not None:
        try:
            return text(params, fmt)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            log.exception("cannot render %s with %r", key, params)
    return fmt.t("Sorry, that isn't possible right now.")
