"""Texts the conversation itself composes: its refusals, /status, /score, /hand, /track,
/help and the /ask menu. Engine announcements are rendered in ``messages``.

Secrecy: ``status_text`` and ``score_text`` go to the group; they never name the hider's
station or position. ``track_text`` is for the hider's private chat only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from hideseek_chat.chat.i18n import N_, Formatter
from hideseek_chat.rules.curses import is_active
from hideseek_chat.rules.questions import QuestionOffer
from hideseek_chat.rules.scoring import scoreboard
from hideseek_chat.rules.state import CardZone, GameState, Phase

CHAT_MESSAGES: dict[str, str] = {
    "chat.no_game": N_("There is no game in this chat yet. Start one with /newgame."),
    "chat.not_in_game": N_(
        "You are not playing in a game right now. Join one in its group with /join."
    ),
    "chat.game_running": N_(
        "A game is already running here. The admin can end it with /abort before starting a new "
        "one."
    ),
    "chat.newgame_usage": N_(
        "I don't know “{word}”. Use /newgame [small|medium|large] [ruleset]; rulesets: {rulesets}."
    ),
    "chat.ask_usage": N_(
        "Ask like this: /ask radar 1km, /ask thermometer 1km, /ask matching museum, "
        "/ask measuring coastline, /ask photo tree. /ask alone shows every question you can ask "
        "now."
    ),
    "chat.ask_unknown_category": N_(
        "“{word}” is not a question category. Try matching, measuring, radar, thermometer, photo "
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
    "chat.ask_ambiguous": N_("Which one do you mean? {options}"),
    "chat.ask_needs_distance": N_("A custom radar needs a distance, for example /ask radar 3km."),
    "chat.ask_nothing": N_("There is nothing you can ask right now."),
    "chat.only_in_group": N_("Please do this in the game's group chat."),
    "chat.only_private": N_("Please send me this in our private chat, not in the group."),
    "chat.hider_pin_in_group": N_(
        "Hider, never share where you are in the group! Send your live location to me privately."
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
    "chat.map_unknown": N_("There is no map called “{name}”. Maps: {names}"),
    "chat.map_set": N_("🗺 The game will use the map “{name}”."),
    "chat.map_list": N_("🗺 This game uses the map “{name}”. Choose another one:"),
    "chat.map_bad_file": N_("I could not use “{filename}” as a map ({reason})."),
    "chat.map_unknown_type": N_(
        "“{filename}” is not a map file I can read. Send a GeoJSON, a GTFS zip or a KML file."
    ),
    "chat.map_too_big": N_("That file is too big for a map (at most {limit})."),
    "chat.map_imported": N_(
        "🗺 Map “{title}” imported: {stations} stations and {features} places. The game will use it."
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
    "chat.language_set": N_("I will speak English here."),
    "chat.language_set_private": N_("I will speak English with you in our private chat."),
    "chat.language_now": N_("I speak English here. Languages: {choices}"),
    "chat.language_unknown": N_("I don't speak “{word}”. Languages: {choices}"),
    "chat.units_set": N_("Distances will be shown in {units}."),
    "chat.zone_no_pin": N_(
        "⏰ The hiding period is over, but I don't know where you are. Share your live location "
        "with me now so I can fix your zone."
    ),
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
    # answers checked against the pins (checks.py); the group's lines never hold numbers
    "chat.check_agreed": N_("🛰 Checked against the pins ✓"),
    "chat.check_disagreed": N_("🛰 Sent by the hider although the pins disagreed."),
    "chat.check_no_location": N_("🛰 Could not be checked against the pins (no fresh location)."),
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
        "🤖 {question}: automatic answers are on, so I answered “{answer}” for you from the pins."
    ),
    "chat.auto_failed": N_(
        "🤖 I could not send the automatic answer after all. Please answer yourself with /answer."
    ),
    "chat.auto_on": N_(
        "🤖 Automatic answers are on: when the pins answer a question clearly, I answer it as "
        "soon as it reaches the hider. The hider still draws the cards."
    ),
    "chat.auto_off": N_("🤖 Automatic answers are off: the hider answers every question."),
    "chat.auto_turn_on": N_("🤖 Turn automatic answers on"),
    "chat.auto_turn_off": N_("🤖 Turn automatic answers off"),
    # end-game claims (endgame.py)
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
        "GPS can fail, so it's your call: accept the claim and start the end game, or refuse it?"
    ),
    "chat.claim_accept": N_("✅ Accept: start the end game"),
    "chat.claim_refuse": N_("❌ Refuse"),
    "chat.claim_refused": N_("❌ The hider refused {name}'s end-game claim. The search goes on!"),
    "chat.claim_accepted": N_("🛰 The pins disagreed, but the hider accepted the claim."),
    # /review (review.py)
    "chat.review_nothing": N_("No round is over yet: /review shows a round once it has ended."),
    "chat.review_running": N_(
        "That round is still running: /review shows a round once it has ended."
    ),
    "chat.review_usage": N_(
        "Review a round that is over: /review, or /review N for round N ({rounds})."
    ),
    "chat.review_admin_only": N_(
        "In private, /review shows the admin the rounds of their game. Ask in the group instead."
    ),
}


#: Why an uploaded map was refused, in words (the importers' reason codes).
MAP_PROBLEMS = {
    "bad_geometry": N_("a shape in it is broken"),
    "bad_gtfs": N_("it is not a complete GTFS feed"),
    "bad_kind": N_("a feature has a kind I don't know"),
    "no_boundary": N_("it has no boundary polygon for the game area"),
    "not_geojson": N_("it is not GeoJSON"),
    "not_kml": N_("it is not KML"),
    "too_large": N_("it is too large"),
    "too_many_features": N_("it has too many features"),
    "unreadable": N_("I can't read it"),
}


def chat_text(key: str, params: Mapping[str, Any], fmt: Formatter) -> str:
    """The sentence for a conversation key (``chat.*``)."""
    msgid = CHAT_MESSAGES.get(key)
    if msgid is None:
        return fmt.t(N_("Sorry, that did not work."))
    values = dict(params)
    if key == "chat.ask_ambiguous":
        values["options"] = ", ".join(
            f"/ask {o.replace('-', ' ', 1)}" for o in params.get("options", [])
        )
    if key == "chat.map_bad_file":
        reason = MAP_PROBLEMS.get(str(params.get("reason")), MAP_PROBLEMS["unreadable"])
        values["reason"] = fmt.t(reason)
    if key == "chat.map_too_big":
        values["limit"] = f"{int(params.get('limit', 0)) // (1024 * 1024)} MB"
    try:
        return fmt.t(msgid, **values)
    except (KeyError, IndexError):
        return fmt.t(msgid.split("{")[0].strip() or msgid)


HELP = N_(
    "🕵️ Hide+Seek referee — commands\n"
    "In the group:\n"
    "/newgame [small|medium|large] [ruleset] — start a game here (you become its admin)\n"
    "/join, /leave — take part or leave\n"
    "/settings, /map — the admin sets up the game\n"
    "/begin — the admin starts round 1\n"
    "/ask — the questions you can ask now (or /ask radar 1km …)\n"
    "/found — a seeker claims the catch\n"
    "/endgame — seekers say they are in the zone (if the bot missed it)\n"
    "/cleared — seekers report the active curse done\n"
    "/pause, /resume, /status, /score\n"
    "/review — a finished round's questions, answers and how they matched the pins\n"
    "In our private chat:\n"
    "/hand — your cards, to play or discard\n"
    "/track — the hider sees where the seekers were last seen\n"
    "Share your live location: seekers in the group or here, the hider only here.\n"
    "/language en|de|es — the language I speak: the admin chooses the group's, you choose "
    "yours here."
)


HELP_BOTNET = N_(
    "Two of you with time to spare? /botnet starts hide && seek on the botnet grid (or "
    "/botnet @name challenges someone): move your hidden proxy here in private with the "
    "buttons or /move e4, claim devices in the group with /claim e6, /resign to give up."
)


def help_text(fmt: Formatter) -> str:
    return f"{fmt.t(HELP)}\n\n{fmt.t(HELP_BOTNET)}"


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
) -> str:
    """The group's status: phase, clocks, pending question, curses, seekers' ping ages."""
    from hideseek_chat.rules.clock import hiding_seconds

    lines = [fmt.t(N_("📋 Status — {phase}"), phase=fmt.t(PHASES[state.phase]))]
    if state.is_paused:
        lines.append(fmt.t(N_("⏸ Paused")))
    current = state.current_round
    if current is not None and state.phase != Phase.GAME_OVER:
        hider = state.team(current.hider_team_id).name
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
            if curse.expires_at is not None:
                lines.append(
                    fmt.t(
                        N_("🔮 {curse} until {time}"),
                        curse=fmt.card(curse.def_id),
                        time=fmt.clock(curse.expires_at),
                    )
                )
            else:
                lines.append(
                    fmt.t(N_("🔮 {curse} — /cleared when done"), curse=fmt.card(curse.def_id))
                )
        seekers = [p for t in state.seeker_team_ids() for p in state.team_players(t)]
        for player in seekers:
            seen = last_seen.get(player.ref)
            if seen is None:
                lines.append(fmt.t(N_("📍 {name}: no location yet"), name=player.name))
            else:
                lines.append(
                    fmt.t(
                        N_("📍 {name}: seen {age} ago"),
                        name=player.name,
                        age=fmt.duration(max(0.0, (now - seen).total_seconds())),
                    )
                )
    elif state.phase == Phase.SETUP:
        names = [p.name for p in state.players if p.active]
        lines.append(fmt.t(N_("Players: {names}"), names=fmt.names(names) or "—"))
    if state.game_timer_at is not None and state.phase != Phase.GAME_OVER:
        lines.append(fmt.t(N_("The game ends at {time}"), time=fmt.clock(state.game_timer_at)))
    return "\n".join(lines)


def score_text(state: GameState, fmt: Formatter) -> str:
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
        lines.append(fmt.t(N_("{team}: {value}"), team=row["team"], value=value))
    if board["winners"] and state.phase == Phase.GAME_OVER:
        lines.append(fmt.t(N_("Winner: {names}"), names=fmt.names(board["winners"])))
    return "\n".join(lines)


def hand_text(state: GameState, fmt: Formatter, team_id: int, limit: int) -> str:
    hand = state.cards_in(CardZone.HAND, team_id)
    if not hand:
        return fmt.t(N_("🃏 Your hand is empty."))
    lines = [fmt.t(N_("🃏 Your hand ({count} of {limit}):"), count=len(hand), limit=limit)]
    lines.extend(f"• {fmt.card(card.def_id)}" for card in hand)
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
    if not offers:
        return chat_text("chat.ask_nothing", {}, fmt)
    return fmt.t(N_("❓ Which question? (the hider draws/keeps cards as shown)"))


def offer_label(offer: QuestionOffer, fmt: Formatter) -> str:
    cost = fmt.t(N_("draw {draw}, keep {keep}"), draw=offer.draw, keep=offer.keep)
    again = f" ×{offer.times_asked + 1}" if offer.times_asked else ""
    return f"{fmt.question(offer.question.id)}{again} ({cost})"
