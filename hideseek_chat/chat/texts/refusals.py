"""The engine's refusals (``error.*``): why the rules said no, and what to do instead.

A ``RuleViolation`` carries a key (``error.only_admin``) and params; each key here gets one
friendly sentence. Plain sentences are msgids filled from the params (``plain``); the
others are renderers of their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hideseek_chat.chat.i18n import N_, Formatter
from hideseek_chat.chat.texts.registry import Params, plain, plain_texts, text

# ----- values the sentences show -----


def _question(p: Params, f: Formatter) -> Mapping[str, Any]:
    return {"question": f.question(p["question"], p.get("distance_m"))}


def _curse(p: Params, f: Formatter) -> Mapping[str, Any]:
    return {"curse": f.card(p["curse"])}


def _answers(p: Params, f: Formatter) -> Mapping[str, Any]:
    words = []
    for word in p["answers"]:
        if word == "named":
            words.append(f.t("the name of the place"))
        elif word == "photo":
            words.append(f.t("a photo"))
        else:
            words.append(f.answer(word))
    return {"answers": f.names(words)}


plain_texts(
    {
        # ----- generic refusals (the classes' own keys) -----
        "error.rule": N_("The rules don't allow that."),
        "error.not_a_player": N_(
            "You're not playing in this game. Send /join while it's being set up to take part."
        ),
        "error.not_allowed": N_("Your role in the game doesn't let you do that."),
        "error.wrong_phase": N_("That can't be done at this point of the game."),
        "error.paused": N_("The game is paused. Send /resume to carry on first."),
        "error.setup": N_("That doesn't work for setting up this game."),
        "error.question_not_available": N_("That question can't be asked right now."),
        "error.curse_blocks": N_("A curse is in the way of that right now."),
        "error.card_not_available": N_("That card can't be used right now."),
        "error.cost_not_met": N_("The cost of that card hasn't been paid yet."),
        "error.not_a_number": N_(
            "That doesn't look like a number I can use. Please try again with a plain number."
        ),
        # ----- setting up -----
        "error.already_joined": N_("You're already in this game."),
        "error.already_begun": N_(
            "The game is already under way: that can only be done before it starts."
        ),
        "error.game_over": N_("This game is over. Start a new one with /newgame."),
        "error.only_admin": N_("Only the game's admin can do that."),
        "error.too_few": N_(
            "You need at least two players (or teams) to start. Invite someone to /join!"
        ),
        "error.three_teams": N_(
            "This mode needs exactly three teams: two seeker teams and the hider. "
            "Team up until there are three."
        ),
        "error.unknown_player": N_("That person isn't in this game yet. They need to /join first."),
        "error.same_team": N_("You're already on that team."),
        "error.team_name": N_("Your team needs a name: send it along with the command."),
        "error.team_gone": N_("That team no longer exists. /team shows the teams there are now."),
        "error.team_alone": N_("You already play on your own."),
        "error.rounds": N_(
            "Each team can hide from 1 to {maximum} times. Pick a number in that range."
        ),
        "error.end_timer": N_(
            "The end-of-game timer must be longer than zero and at most 14 days."
        ),
        "error.rest_period": N_(
            "“{text}” isn't a rest period I understand. Give two different times of day, "
            "like 22:00-08:00."
        ),
        "error.utc_offset": N_(
            "That time zone offset is out of range: use one between UTC-14 and UTC+14."
        ),
        "error.ruleset": N_("A ruleset needs a name, like us or metric."),
        "error.time_zone": N_(
            "“{text}” isn't a time zone I know. Type a zone's name like Europe/Zurich or "
            "America/Chicago, or an offset between UTC-14 and UTC+14 like UTC+2."
        ),
        "error.hider_leaving": N_(
            "You're the only hider right now, so you can't leave mid-round. Pause the game, "
            "or ask the admin to end it."
        ),
        # ----- the running game -----
        "error.already_paused": N_("The game is already paused."),
        "error.not_paused": N_("The game isn't paused."),
        "error.no_round": N_("That only works while a round is being played."),
        "error.no_handover": N_(
            "There's no break between rounds right now, so there's no next round to start."
        ),
        "error.only_next_hider": N_("Only the next hider (or the admin) can start the next round."),
        "error.zone_phase": N_("The hiding zone is set when the hiding period ends."),
        "error.zone_end_game": N_("The end game has begun, so your zone can't change any more."),
        "error.zone_locked": N_(
            "The seekers have already asked about your current zone, so it stays as it is."
        ),
        "error.end_game_already": N_("The end game has already begun."),
        "error.not_seeking": N_("That only works while the seekers are seeking."),
        "error.only_seekers": N_("Only the seekers can do that."),
        "error.only_hider": N_("Only the hider can do that."),
        "error.already_caught": N_("Your team has already found the hider this round."),
        "error.no_claim": N_("Nobody has claimed to have found you."),
        "error.moving": N_(
            "The hider is on a Move: seekers stay where they are and no questions are asked "
            "or answered until it ends."
        ),
        # ----- questions -----
        "error.question_unknown": N_(
            "I don't know a question called “{question}”. Pick one from the question list."
        ),
        "error.no_pending_question": N_("There's no question waiting for an answer."),
        "error.no_thermometer": N_("No thermometer is under way."),
        "error.still_travelling": N_(
            "The seekers are still travelling for their thermometer. "
            "The question comes to you once they've arrived."
        ),
        "error.answer_needs_name": N_("Name the place you're nearest to."),
        "error.urban_explorer": N_(
            "The Curse of the Urban Explorer is on you: no questions while riding transit or "
            "inside a station. Ask once you're out."
        ),
        "error.urban_explorer_station": N_(
            "The Curse of the Urban Explorer is on you, and your location puts you at "
            "{station}: no questions from a platform or a station building. Step out of the "
            "station and ask again."
        ),
        "error.randomize_none": N_("There's no unasked question of that category left to swap in."),
        "error.cost_not_away": N_(
            "The seekers' pins show them travelling towards you, not away: the U-Turn can't "
            "be cast now."
        ),
        "error.veto_travelling": N_(
            "The seekers are still travelling for their thermometer: its answer window opens "
            "when they arrive, and you can veto it then."
        ),
        "error.veto_window_closed": N_(
            "Too late to veto: a veto is played while the answer window is open, and it has "
            "closed. Answer the question instead."
        ),
        # ----- cards -----
        "error.card_not_in_hand": N_("That card isn't in your hand."),
        "error.no_offer": N_("There's no draw to choose from right now."),
        "error.time_bonus_play": N_(
            "Time bonuses aren't played: keep them in your hand (they count when you're found) "
            "or discard them."
        ),
        "error.duplicate_target": N_(
            "Pick another card in your hand for the Duplicate to copy (not a Duplicate)."
        ),
        "error.duplicate_time_bonus": N_(
            "A Duplicate copies a time bonus simply by staying in your hand until you're found."
        ),
        "error.not_playable": N_("That card can't be played."),
        "error.move_end_game": N_("A Move can't be played once the end game has begun."),
        "error.move_phase": N_("A Move can only be played while the seekers are seeking."),
        # ----- curses -----
        "error.cost_distance_mode": N_(
            "Curses that depend on how far away the seekers are aren't played in this mode."
        ),
        "error.curse_target": N_("Choose which seeker team to curse."),
        "error.curse_phase": N_("Curses are cast while the seekers are seeking."),
        "error.curse_end_game": N_("This curse can't be cast in the end game."),
        "error.ban_unknown": N_(
            "One of those questions isn't part of this game. Pick from the question list."
        ),
        "error.ban_pending": N_(
            "The question waiting for your answer can't be banned. Pick another one."
        ),
        "error.ban_categories": N_(
            "The banned questions must each come from a different category."
        ),
        "error.no_curse": N_("That curse isn't in play."),
        "error.not_your_curse": N_("That curse is on the other team, not yours."),
        "error.not_clearable": N_("This curse ends by itself: there's nothing to clear."),
        "error.not_a_game": N_("Only a curse you play as a game counts lost games."),
        "error.not_caster": N_("Only the team that cast the curse can claim its bonus."),
        "error.no_penalty": N_("This curse doesn't award a time bonus."),
        "error.penalty_taken": N_("This curse's bonus has already been awarded."),
    }
)

# ----- questions, named as players read them -----

plain(
    "error.question_size",
    N_("{question} isn't played in a game of this size. Pick another question."),
    _question,
)
plain(
    "error.question_variant",
    N_("{question} needs public transit, so it isn't played in this game."),
    _question,
)
plain(
    "error.question_banned",
    N_("{question} has been banned by a curse for the rest of this run."),
    _question,
)
plain(
    "error.needs_ride",
    N_("{question} can only be asked while you're riding a moving vehicle."),
    _question,
)
plain(
    "error.needs_distance",
    N_("{question} needs a distance: say how far you'd like it to reach."),
    _question,
)
plain(
    "error.question_pending",
    N_("{question} is still waiting for its answer. Ask the next one once it's answered."),
    _question,
)
plain(
    "error.thermometer_short",
    N_("You've travelled {travelled} so far, but this thermometer needs {needed}. Keep going!"),
    lambda p, f: {
        "travelled": f.distance(p["travelled_m"]),
        "needed": f.distance(p["needed_m"]),
    },
)
plain(
    "error.invalid_answer",
    N_("That doesn't answer this question. You can answer: {answers}."),
    _answers,
)
plain(
    "error.category_disabled",
    N_("{category} questions are closed by a curse right now. Try another category."),
    lambda p, f: {"category": f.category(p["category"])},
)
plain(
    "error.curse_blocks_questions",
    N_("The {curse} has to be cleared before you can ask your next question."),
    _curse,
)

# ----- cards and curses -----


@text("error.keep_count")
def _keep_count(p: Params, f: Formatter) -> str:
    return f.n(
        "Choose exactly {count} of the drawn cards to keep.",
        "Choose exactly {count} of the drawn cards to keep.",
        p["keep"],
    )


@text("error.hand_over_limit")
def _hand_over_limit(p: Params, f: Formatter) -> str:
    return f.n(
        "Your hand is {count} card over its limit. Play or discard a card first, then keep "
        "from this draw.",
        "Your hand is {count} cards over its limit. Play or discard cards first, then keep "
        "from this draw.",
        p["excess"],
    )


@text("error.discard_count")
def _discard_count(p: Params, f: Formatter) -> str:
    return f.n(
        "Choose {count} other card from your hand to discard.",
        "Choose {count} other cards from your hand to discard.",
        p["count"],
    )


@text("error.discard_kind")
def _discard_kind(p: Params, f: Formatter) -> str:
    kind = p.get("kind")
    if kind == "powerup":
        return f.t("This curse asks you to discard powerup cards. Choose powerups to pay for it.")
    if kind == "time_bonus":
        return f.t("This curse asks you to discard time bonus cards. Choose time bonuses.")
    if kind == "curse":
        return f.t("This curse asks you to discard other curse cards. Choose curses.")
    return f.t("Those cards aren't the kind this curse asks you to discard.")


@text("error.cost_confirm")
def _cost_confirm(p: Params, f: Formatter) -> str:
    if p.get("limit_m") is not None:
        return f.t(
            "I have no fresh location pins from the seekers. Check this curse's distance "
            "condition ({distance}) yourself and confirm that it's met.",
            distance=f.distance(p["limit_m"]),
        )
    return f.t("Confirm that you've done what this curse asks for before you cast it.")


plain(
    "error.cost_distance",
    N_(
        "The seekers are {distance} away, which doesn't meet this curse's condition "
        "({limit}). Try again later."
    ),
    lambda p, f: {"distance": f.distance(p["distance_m"]), "limit": f.distance(p["limit_m"])},
)
plain(
    "error.one_blocking_curse",
    N_("The {curse} is already holding the seekers up. Cast this one once it's cleared."),
    _curse,
)


@text("error.ban_count")
def _ban_count(p: Params, f: Formatter) -> str:
    return f.n(
        "Choose {count} question to ban.",
        "Choose {count} questions to ban, each from a different category.",
        p["count"],
    )


plain(
    "error.curse_lockout",
    N_("You've lost enough games: sit it out. The curse ends by itself at {time}."),
    lambda p, f: {"time": f.clock(p["until"])},
)
