"""The engine's notices about the game and its rounds: setting up, rounds, results.

The rules engine says what happened as ``Notify(to, key, params)``; these renderers say
it in words. Notices about questions, cards and curses are in ``notices_play``.

Secrecy: only ``zone.fixed`` (sent to the hider alone) names the hider's station. The
station names that ``round.result`` and ``move.started`` carry are not shown, except
where the rules reveal them (the Move card names the station the hider leaves; the
round's result names it once the round is over).
"""

from __future__ import annotations

from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.texts.parts import lines, minutes, size_word, team_label
from hideseek_chat.chat.texts.registry import Params, text
from hideseek_chat.chat.texts.setup import settings_lines

# ----- setting up -----


@text("game.created")
def _game_created(p: Params, f: Formatter) -> str:
    return lines(
        f.t("🎲 {admin} has set up a new game of Hide+Seek!", admin=p["admin"]),
        f.t("Size: {size}. Rules: {ruleset}.", size=size_word(f, p["size"]), ruleset=p["ruleset"]),
        f.t("Send /join to play."),
    )


@text("game.joined")
def _game_joined(p: Params, f: Formatter) -> str:
    return f.n(
        "👋 {name} joined. That's {count} team so far.",
        "👋 {name} joined. That's {count} teams so far.",
        p["players"],
        name=p["name"],
    )


@text("game.left")
def _game_left(p: Params, f: Formatter) -> str:
    return f.t("👋 {name} left the game.", name=p["name"])


@text("game.new_admin")
def _game_new_admin(p: Params, f: Formatter) -> str:
    return f.t("🛡️ {name} is the game's admin now.", name=p["name"])


@text("team.joined")
def _team_joined(p: Params, f: Formatter) -> str:
    return f.t(
        "🤝 {members} now play together as team {team}.",
        members=f.names(list(p["members"])),
        team=p["team"],
    )


@text("team.created")
def _team_created(p: Params, f: Formatter) -> str:
    return f.t(
        "🏷️ {by} made the team {team}. Join it with /team {team}.", by=p["by"], team=p["team"]
    )


@text("team.alone")
def _team_alone(p: Params, f: Formatter) -> str:
    return f.t("🚶 {name} left team {team} and plays on their own.", name=p["name"], team=p["left"])


@text("team.renamed")
def _team_renamed(p: Params, f: Formatter) -> str:
    return f.t("🏷️ A team has a new name: {team}.", team=p["team"])


@text("game.settings")
def _game_settings(p: Params, f: Formatter) -> str:
    return lines(f.t("⚙️ Game settings"), *settings_lines(p, f))


@text("game.begun")
def _game_begun(p: Params, f: Formatter) -> str:
    return f.n(
        "🚦 The game is on! Hiding order: {order}. {count} round in all.",
        "🚦 The game is on! Hiding order: {order}. {count} rounds in all.",
        p["rounds"],
        order=f.names(list(p["order"])),
    )


@text("game.paused")
def _game_paused(p: Params, f: Formatter) -> str:
    return f.t("⏸️ {by} paused the game. Every clock has stopped.", by=p["by"])


@text("game.resumed")
def _game_resumed(p: Params, f: Formatter) -> str:
    return f.t("▶️ {by} resumed the game. The clocks are running again.", by=p["by"])


@text("game.timer_up")
def _game_timer_up(p: Params, f: Formatter) -> str:
    return f.t("⏰ The end-of-game timer has run out: time's up!")


@text("rest.started")
def _rest_started(p: Params, f: Formatter) -> str:
    return f.t(
        "😴 Rest period: every clock stops until {time}. Enjoy the break!", time=f.clock(p["until"])
    )


@text("rest.ended")
def _rest_ended(p: Params, f: Formatter) -> str:
    return f.t("☀️ The rest period is over: the clocks are running again.")


# ----- rounds -----


@text("round.hiding_started")
def _hiding_started(p: Params, f: Formatter) -> str:
    return f.t(
        "🙈 Round {round} of {rounds}: {hider} hides! The hiding period lasts {duration}, "
        "until {time}. Seekers, get ready to set off then.",
        round=p["round"],
        rounds=p["rounds"],
        hider=p["hider"],
        duration=minutes(f, p["minutes"]),
        time=f.clock(p["ends_at"]),
    )


@text("round.you_hide")
def _you_hide(p: Params, f: Formatter) -> str:
    if p.get("street_end"):
        return f.t(
            "🏃 You're hiding this round! You have {duration}, until {time}, to get to a "
            "street end of your choice (where a street meets another or dead-ends): its "
            "surroundings become your hiding zone. Good luck!",
            duration=minutes(f, p["minutes"]),
            time=f.clock(p["ends_at"]),
        )
    return f.t(
        "🏃 You're hiding this round! You have {duration}, until {time}, to get to a station "
        "of your choice: its surroundings become your hiding zone. Good luck!",
        duration=minutes(f, p["minutes"]),
        time=f.clock(p["ends_at"]),
    )


@text("round.hiding_reminder")
def _hiding_reminder(p: Params, f: Formatter) -> str:
    if p.get("street_end"):
        return f.t(
            "⏰ {duration} of hiding time left. Be at the end of a street when it runs out!",
            duration=minutes(f, p["minutes"]),
        )
    return f.t(
        "⏰ {duration} of hiding time left. Be at your station when it runs out!",
        duration=minutes(f, p["minutes"]),
    )


@text("round.hiding_reminder_group")
def _hiding_reminder_group(p: Params, f: Formatter) -> str:
    return f.t(
        "⏰ Seekers, get ready: the hiding period ends in {duration}.",
        duration=minutes(f, p["minutes"]),
    )


@text("round.seeking_started")
def _seeking_started(p: Params, f: Formatter) -> str:
    if p.get("street_end"):
        return f.t(
            "🔎 Round {round}: seekers, off you go! The hider's zone reaches {distance} around "
            "a street end (where a street meets another or dead-ends). Ask your questions "
            "whenever you're ready.",
            round=p["round"],
            distance=f.distance(p["radius_m"]),
        )
    return f.t(
        "🔎 Round {round}: seekers, off you go! The hider's zone reaches {distance} around a "
        "station. Ask your questions whenever you're ready.",
        round=p["round"],
        distance=f.distance(p["radius_m"]),
    )


@text("zone.fixed")
def _zone_fixed(p: Params, f: Formatter) -> str:
    # The only text that names the station: it goes to the hider alone.
    if p.get("street_end"):
        return f.t(
            "📍 Your zone is set: everything within {distance} of the street end {station}. "
            "Stay inside it until you're found. Questions about your station's name are about "
            "this street's name.",
            distance=f.distance(p["radius_m"]),
            station=p["station"],
        )
    return f.t(
        "📍 Your zone is set: everything within {distance} of {station}. "
        "Stay inside it until you're found.",
        distance=f.distance(p["radius_m"]),
        station=p["station"],
    )


@text("move.started")
def _move_started(p: Params, f: Formatter) -> str:
    # The Move card reveals the station the hider leaves: the rules tell the seekers.
    if p.get("old_station"):
        return f.t(
            "🚚 The hider played a Move and leaves the zone around {station}! They have "
            "{duration}, until {time}, to reach a new zone, and their clock is stopped "
            "meanwhile. Seekers, stay where you are and ask nothing until then.",
            station=p["old_station"],
            duration=minutes(f, p["minutes"]),
            time=f.clock(p["ends_at"]),
        )
    return f.t(
        "🚚 The hider played a Move! They have {duration}, until {time}, to reach a new zone, "
        "and their clock is stopped meanwhile. Seekers, stay where you are and ask nothing "
        "until then.",
        duration=minutes(f, p["minutes"]),
        time=f.clock(p["ends_at"]),
    )


@text("move.hider")
def _move_hider(p: Params, f: Formatter) -> str:
    return f.t(
        "🚚 Move played: your hand is discarded, and you have {duration}, until {time}, to "
        "get to a new station. Your clock is stopped until then.",
        duration=minutes(f, p["minutes"]),
        time=f.clock(p["ends_at"]),
    )


@text("move.ended")
def _move_ended(p: Params, f: Formatter) -> str:
    return f.t("🔎 The Move is over: seekers, you may travel and ask questions again.")


@text("endgame.started")
def _endgame_started(p: Params, f: Formatter) -> str:
    if p.get("by"):
        return f.t(
            "🎯 {by} says the seekers are in the hider's zone: the end game begins! "
            "Hider, stay where you are now.",
            by=p["by"],
        )
    return f.t(
        "🎯 The seekers are in the hider's zone: the end game begins! "
        "Hider, stay where you are now."
    )


@text("endgame.hider")
def _endgame_hider(p: Params, f: Formatter) -> str:
    return f.t(
        "🎯 The seekers are in your zone. Stay exactly where you are: this is your hiding "
        "spot until they find you."
    )


@text("catch.claimed")
def _catch_claimed(p: Params, f: Formatter) -> str:
    # No distance here: with the claimer's pin, a far claim would tell where the hider is.
    return f.t(
        "🙋 {by} says they've found the hider. Waiting for the hider to confirm.", by=p["by"]
    )


@text("catch.confirm")
def _catch_confirm(p: Params, f: Formatter) -> str:
    if p.get("distance_m") is not None:
        return f.t(
            "🙋 {by} says they've found you; their pin is {distance} from yours. "
            "Have they really spotted you? Confirm or deny.",
            by=p["by"],
            distance=f.distance(p["distance_m"]),
        )
    return f.t(
        "🙋 {by} says they've found you. Have they really spotted you? Confirm or deny.",
        by=p["by"],
    )


@text("catch.denied")
def _catch_denied(p: Params, f: Formatter) -> str:
    return f.t("❌ The hider says {by} hasn't spotted them yet. The search goes on!", by=p["by"])


@text("catch.confirmed")
def _catch_confirmed(p: Params, f: Formatter) -> str:
    if p["team"] == p["by"]:
        return f.t("✅ Found! {by} caught the hider.", by=p["by"])
    return f.t("✅ Found! {by} of team {team} caught the hider.", by=p["by"], team=p["team"])


@text("catch.others_search")
def _catch_others_search(p: Params, f: Formatter) -> str:
    return f.t(
        "🔎 The round goes on until the hider is found by {teams} too. Hider, stay where you are.",
        teams=f.names(list(p["teams"])),
    )


def _result_header(p: Params, f: Formatter) -> str:
    if p["ending"] == "caught":
        return f.t(
            "🏁 Round {round} is over: {hider} has been found!", round=p["round"], hider=p["hider"]
        )
    if p["ending"] == "game_timer":
        return f.t(
            "🏁 Round {round} is over: the game timer ran out while {hider} was hiding.",
            round=p["round"],
            hider=p["hider"],
        )
    return f.t(
        "🏁 Round {round} was cut short while {hider} was hiding.",
        round=p["round"],
        hider=p["hider"],
    )


@text("round.result")
def _round_result(p: Params, f: Formatter) -> str:
    # The round is over, so the station is no longer a secret.
    where = (
        f.t("The hiding zone was around {station}.", station=p["station"])
        if p.get("station")
        else None
    )
    if p.get("mode", "standard") != "standard":
        rows = [
            f.t("{rank}. {team}: {time}", rank=i, team=r["team"], time=f.duration(r["seconds"]))
            for i, r in enumerate(p.get("seekers") or [], start=1)
        ]
        return lines(
            _result_header(p, f),
            where,
            f.t("Seeking times:") if rows else f.t("No seeker team found the hider."),
            *rows,
        )
    bonus, penalty = p.get("bonus_minutes") or 0, p.get("penalty_minutes") or 0
    total = p.get("total_seconds")
    return lines(
        _result_header(p, f),
        where,
        f.t("Time hidden: {time}", time=f.duration(p["hiding_seconds"] or 0)),
        _bonus_line(bonus, p.get("bonus_cards") or [], f) if bonus else None,
        f.t("Curse bonuses: +{time}", time=minutes(f, penalty)) if penalty else None,
        f.t("Total for this run: {time}", time=f.duration(total)) if total is not None else None,
    )


def _bonus_line(bonus: float, cards: list[float], f: Formatter) -> str:
    total = f.t("Time bonuses in hand: +{time}", time=minutes(f, bonus))
    if len(cards) < 2:
        return total
    each = " + ".join(minutes(f, m) for m in cards)
    return f.t("{total} ({cards})", total=total, cards=each)


@text("round.handover")
def _handover(p: Params, f: Formatter) -> str:
    return f.t(
        "🔄 Next to hide: {next_hider}. Their hiding period starts at {time} at the latest, "
        "or as soon as they're ready.",
        next_hider=p["next_hider"],
        time=f.clock(p["starts_at"]),
    )


@text("round.next_you_hide")
def _next_you_hide(p: Params, f: Formatter) -> str:
    return f.t(
        "🙈 You hide next! Plan your route: your hiding period starts at {time} at the latest, "
        "or sooner if you start it yourself.",
        time=f.clock(p["starts_at"]),
    )


def _score_row(rank: int, row: Params, mode: str, f: Formatter) -> str:
    score = row.get("score")
    team = team_label(f, str(row["team"]), row.get("members"))
    if mode == "teams_points":
        return f.n(
            "{rank}. {team}: {count} point",
            "{rank}. {team}: {count} points",
            int(score or 0),
            rank=rank,
            team=team,
        )
    if score is None:
        if mode == "teams_time":
            return f.t("{rank}. {team}: never found the hider", rank=rank, team=team)
        return f.t("{rank}. {team}: no finished run", rank=rank, team=team)
    runs = len(row.get("runs") or [])
    if runs > 1:
        line = f.n(
            "{rank}. {team}: {time} (best of {count} run)",
            "{rank}. {team}: {time} (best of {count} runs)",
            runs,
            rank=rank,
            team=team,
            time=f.duration(score),
        )
    else:
        line = f.t("{rank}. {team}: {time}", rank=rank, team=team, time=f.duration(score))
    return lines(line, _best_run_parts(row, f))


def _best_run_parts(row: Params, f: Formatter) -> str | None:
    """How a standard game's best run adds up, when cards added to the time hidden."""
    bonus, penalty = row.get("bonus_minutes") or 0.0, row.get("penalty_minutes") or 0.0
    if not (bonus or penalty):
        return None
    parts = [f.t("hidden {time}", time=f.duration(row.get("hidden_seconds") or 0.0))]
    if bonus:
        parts.append(f.t("time bonuses +{time}", time=f.duration(60 * bonus)))
    if penalty:
        parts.append(f.t("curse bonuses +{time}", time=f.duration(60 * penalty)))
    return f"   ({', '.join(parts)})"


@text("game.over")
def _game_over(p: Params, f: Formatter) -> str:
    winners = list(p.get("winners") or [])
    if p.get("aborted"):
        verdict = f.t("The admin ended the game early, so there is no winner.")
    elif len(winners) > 1:
        verdict = f.t("🏆 It's a tie between {teams}!", teams=f.names(winners))
    elif winners:
        verdict = f.t("🏆 {team} wins!", team=winners[0])
    else:
        verdict = f.t("Nobody finished a run, so there's no winner this time.")
    mode = p.get("mode", "standard")
    rows = [_score_row(i, row, mode, f) for i, row in enumerate(p.get("rows") or [], start=1)]
    if p.get("aborted"):
        return lines(
            f.t("🛑 Game aborted."), verdict, f.t("Scores so far:") if rows else None, *rows
        )
    return lines(f.t("🏁 Game over!"), verdict, f.t("Scores:") if rows else None, *rows)
