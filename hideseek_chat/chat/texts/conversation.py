"""The conversation's own sentences (``chat.*``): its refusals, confirmations and prompts.

Each is a plain msgid filled from the params; a few prepare theirs (the options of an
ambiguous question, why a map file was refused, a size limit). A missing value never
fails: the sentence is shown up to its first placeholder.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hideseek_chat.chat.i18n import N_, Formatter
from hideseek_chat.chat.texts.reasons import map_problem
from hideseek_chat.chat.texts.registry import Params, plain, plain_texts

plain_texts(
    {
        "chat.no_game": N_("There is no game in this chat yet. Start one with /newgame."),
        "chat.not_in_game": N_(
            "You are not playing in a game right now. Join one in its group with /join."
        ),
        "chat.game_running": N_(
            "A game is already running here. The admin can end it with /abort before starting a "
            "new "
            "one."
        ),
        "chat.newgame_usage": N_(
            "I don't know “{word}”. Use /newgame [small|medium|large] [ruleset]; rulesets: "
            "{rulesets}."
        ),
        "chat.ask_usage": N_(
            "Ask like this: /ask radar 1km, /ask thermometer 1km, /ask matching museum, "
            "/ask measuring coastline, /ask photo tree. /ask alone shows every question you can "
            "ask "
            "now."
        ),
        "chat.ask_unknown_category": N_(
            "“{word}” is not a question category. Try matching, measuring, radar, thermometer, "
            "photo "
            "or tentacle."
        ),
        "chat.ask_needs_subject": N_(
            "Which one? For example /ask {category} … — or just /ask for the menu."
        ),
        "chat.ask_bad_distance": N_(
            "I can't read “{text}” as a distance. Write it like 1km, 500m or 0.5mi."
        ),
        "chat.ask_no_such_distance": N_(
            "There is no such distance for this kind of question. /ask shows the ones you can use."
        ),
        "chat.ask_unknown_subject": N_(
            "I know no question about “{subject}” in that category. /ask shows the menu."
        ),
        "chat.ask_not_in_size": N_("That question is not part of a game of this size."),
        "chat.ask_needs_distance": N_(
            "A custom radar needs a distance, for example /ask radar 3km."
        ),
        "chat.ask_nothing": N_("There is nothing you can ask right now."),
        "chat.only_in_group": N_("Please do this in the game's group chat."),
        "chat.only_private": N_("Please send me this in our private chat, not in the group."),
        "chat.hider_pin_in_group": N_(
            "Hider, never share where you are in the group! Send your live location to me "
            "privately."
        ),
        "chat.forwarded_pin": N_("A forwarded location does not count: share your own location."),
        "chat.bad_pin": N_(
            "I could not read that as a location. Share your location, or send coordinates such as "
            "36.1156, -97.0584."
        ),
        "chat.pin_saved": N_("Got your location."),
        "chat.button_unknown": N_("That button no longer works."),
        "chat.button_old_game": N_("That button belongs to an earlier game."),
        "chat.button_not_yours": N_("That button is not for you."),
        "chat.done": N_("Done."),
        "chat.only_admin": N_("Only the game's admin can do that."),
        "chat.setup_only": N_("That can only be changed before the game begins."),
        "chat.abort_confirm": N_(
            "🛑 End the game now? Nobody wins; the scores so far are shown and the run in "
            "progress counts as it stands."
        ),
        "chat.abort_yes": N_("🛑 Yes, end the game"),
        "chat.abort_no": N_("Keep playing"),
        "chat.abort_kept": N_("The game goes on."),
        "chat.abort_nothing": N_("There is no game running to abort. Start one with /newgame."),
        "chat.map_unknown": N_("There is no map called “{name}”. Maps: {names}"),
        "chat.map_set": N_("🗺 The game will use the map “{name}”."),
        "chat.map_list": N_("🗺 This game uses the map “{name}”. Choose another one:"),
        "chat.map_unknown_type": N_(
            "“{filename}” is not a map file I can read. Send a GeoJSON, a GTFS zip or a KML file."
        ),
        "chat.map_imported": N_(
            "🗺 Map “{title}” imported: {stations} stations and {features} places. The game will "
            "use it."
        ),
        "chat.welcome": N_(
            "Hi {name}! I can now write to you privately: your hand, your questions and secret "
            "notices will come here. Go back to your group and /join the game."
        ),
        "chat.open_private": N_(
            "{names}: I can't write to you privately yet. Press the button below and start a chat "
            "with me."
        ),
        "chat.open_private_button": N_("Open a private chat with me"),
        "chat.join_button": N_("Join the game"),
        "chat.settings_title": N_("⚙️ Settings (admin only). Current: {summary}"),
        "chat.settings_fixed": N_(
            "⚙️ The game is under way, so its settings stay as they are: {summary} How I speak "
            "here can still change:"
        ),
        "chat.settings_usage": N_(
            "Use the buttons of /settings, or type /settings rest 22:00-07:00 (or none) for "
            "the rest periods and /settings timezone +2 (or UTC-5:30) for the game's time "
            "zone."
        ),
        "chat.settings_typed": N_(
            "The game's time zone and other rest periods are typed: /settings timezone +2, "
            "/settings rest 21:00-06:00."
        ),
        "chat.ruleset_unknown": N_("I don't know the ruleset “{word}”. Rulesets: {rulesets}."),
        "chat.settings_zones": N_(
            "A time zone can be a name too, like /settings timezone Europe/Zurich; the map "
            "sets it unless you type one, and /settings timezone map follows the map again. "
            "/settings ruleset us and /settings units imperial change the rules and units."
        ),
        "chat.team_join_button": N_("Join {team}"),
        "chat.team_alone_button": N_("🚶 Play on my own"),
        "chat.language_set": N_("I will speak English here."),
        "chat.language_set_private": N_("I will speak English with you in our private chat."),
        "chat.language_now": N_("I speak English here. Languages: {choices}"),
        "chat.language_unknown": N_("I don't speak “{word}”. Languages: {choices}"),
        "chat.units_set": N_("Distances will be shown in {units}."),
        "chat.catch_too_far": N_(
            "Your location is nowhere near the hider's. Get closer, check that your live "
            "location is on, then send /found again."
        ),
        "chat.which_curse": N_("Which curse did you clear?"),
        "chat.no_curse_to_clear": N_("There is no curse to clear right now."),
        "chat.photo_not_expected": N_("There is no photo question waiting for an answer."),
        "chat.unknown_command": N_("I don't know /{name}. /help lists what I can do."),
        "chat.not_a_player_button": N_("Only the hider can answer this."),
        "chat.hand_sent": N_("I've sent it to you privately."),
        "chat.choose_discard": N_("Choose the card(s) to discard for {card}:"),
        "chat.choose_target": N_("Which card should {card} copy?"),
        "chat.choose_team": N_("Which team should {card} curse?"),
        "chat.confirm_cost": N_("{card}: confirm that you meet its casting condition."),
        "chat.ban_usage": N_(
            "Name the questions to ban: /play {number} ban radar-1km thermometer-1km matching-zoo"
        ),
        "chat.answer_usage": N_(
            "Answer with the buttons, or type /answer yes|no|hotter|colder|closer|further|null, or "
            "/answer named Place Name."
        ),
        # answers checked against the pins (answers, reasons); the group's lines hold no numbers
        "chat.check_agreed": N_("🛰 Checked against the pins ✓"),
        "chat.check_disagreed": N_("🛰 Sent by the hider although the pins disagreed."),
        "chat.check_no_location": N_(
            "🛰 Could not be checked against the pins (no fresh location)."
        ),
        "chat.check_no_map": N_("🛰 Could not be checked against the pins (no map data)."),
        "chat.check_too_close": N_("🛰 Could not be checked against the pins (too close to call)."),
        "chat.check_unknown": N_("🛰 Could not be checked against the pins."),
        "chat.check_automatic": N_("🤖 Answered automatically from the pins."),
        "chat.check_disagrees": N_(
            "🛰 Wait: for {question} the pins say “{suggested}”, not “{answer}”."
        ),
        "chat.check_confirm": N_(
            "You answer for the truth, so it's your call: send “{answer}” anyway, or “{suggested}” "
            "instead?"
        ),
        "chat.check_send_anyway": N_("📤 Send “{answer}” anyway"),
        "chat.check_send_suggested": N_("👉 Send “{suggested}” instead"),
        "chat.check_toast": N_("🛰 The pins disagree: see my message."),
        "chat.auto_answered": N_(
            "🤖 {question}: automatic answers are on, so I answered “{answer}” for you from the "
            "pins."
        ),
        "chat.auto_failed": N_(
            "🤖 I could not send the automatic answer after all. Please answer yourself with "
            "/answer."
        ),
        "chat.auto_on": N_(
            "🤖 Automatic answers are on: when the pins answer a question clearly, I answer it as "
            "soon as it reaches the hider. The hider still draws the cards."
        ),
        "chat.auto_off": N_("🤖 Automatic answers are off: the hider answers every question."),
        "chat.auto_turn_on": N_("🤖 Turn automatic answers on"),
        "chat.auto_turn_off": N_("🤖 Turn automatic answers off"),
        # end-game claims (answers)
        "chat.claim_disputed": N_(
            "🛰 {name} claims the end game, but the pins don't put them inside the zone. The hider "
            "decides whether it starts."
        ),
        "chat.claim_outside_hider": N_(
            "🎯 {name} claims the end game, but their last pin, from {age} ago, is {distance} "
            "outside your zone."
        ),
        "chat.claim_transit_hider": N_(
            "🎯 {name} claims the end game, but their pins move at transit speed, and the end game "
            "starts off transit."
        ),
        "chat.claim_decide": N_(
            "GPS can fail, so it's your call: accept the claim and start the end game, or refuse "
            "it?"
        ),
        "chat.claim_accept": N_("✅ Accept: start the end game"),
        "chat.claim_refuse": N_("❌ Refuse"),
        "chat.claim_refused": N_(
            "❌ The hider refused {name}'s end-game claim. The search goes on!"
        ),
        "chat.claim_accepted": N_("🛰 The pins disagreed, but the hider accepted the claim."),
        # /review (the handler refuses with these)
        "chat.review_nothing": N_("No round is over yet: /review shows a round once it has ended."),
        "chat.review_running": N_(
            "That round is still running: /review shows a round once it has ended."
        ),
        "chat.review_usage": N_(
            "Review a round that is over: /review, or /review N for round N ({rounds})."
        ),
        "chat.review_admin_only": N_(
            "In private, /review shows the admin the rounds of their game. Ask in the group "
            "instead."
        ),
    },
    partial=True,
)


def _ask_options(p: Params, f: Formatter) -> Mapping[str, Any]:
    return {"options": ", ".join(f"/ask {o.replace('-', ' ', 1)}" for o in p.get("options", []))}


def _map_problem(p: Params, f: Formatter) -> Mapping[str, Any]:
    return {"reason": map_problem(str(p.get("reason")), f)}


def _megabytes(p: Params, f: Formatter) -> Mapping[str, Any]:
    return {"limit": f"{int(p.get('limit', 0)) // (1024 * 1024)} MB"}


plain("chat.ask_ambiguous", N_("Which one do you mean? {options}"), _ask_options, partial=True)
plain(
    "chat.map_bad_file",
    N_("I could not use “{filename}” as a map ({reason})."),
    _map_problem,
    partial=True,
)
plain(
    "chat.map_too_big",
    N_("That file is too big for a map (at most {limit})."),
    _megabytes,
    partial=True,
)


def _category_name(p: Params, f: Formatter) -> Mapping[str, Any]:
    return {"category": f.category(str(p.get("category", "")))}


plain(
    "chat.ask_category_closed",
    N_("No {category} question can be asked right now. Press Back for the others."),
    _category_name,
    partial=True,
)


def _lines_near(p: Params, f: Formatter) -> Mapping[str, Any]:
    near = str(p.get("lines") or "")
    return {"lines": near or f.t("none that I know of near your location")}


plain(
    "chat.ask_unknown_line",
    N_(
        "This map knows no line called “{line}”. Lines stopping near you: {lines}. "
        "/ask matching transit line shows them as buttons."
    ),
    _lines_near,
    partial=True,
)
