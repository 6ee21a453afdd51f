"""The setup's screens: the teams, and the game's settings with what each one changes.

``settings_lines`` renders the settings the engine summarises (``rules.lifecycle.
settings_summary``) for the ``game.settings`` notice, /settings and /status; with
``variants_only`` it keeps the lines of rulebook section 6 and the rest periods (the
round's /status). ``team_lines``/``teams_text`` list the teams with their players.
"""

from __future__ import annotations

from hideseek_chat.chat.i18n import N_, Formatter, offset_text
from hideseek_chat.chat.texts.parts import minutes, size_word
from hideseek_chat.chat.texts.registry import Params, text
from hideseek_chat.rules.state import GameState


def zone_text(p: Params, f: Formatter) -> str:
    """The game's zone the summary ``p`` names, as ``Formatter.zone_name`` says it (a notice
    queued before zones had names carries ``utc_offset_min``)."""
    if "time_zone" not in p:
        return offset_text(int(p.get("utc_offset_min") or 0))
    name = str(p["time_zone"])
    if name == f.time_zone:
        return f.zone_name()
    return Formatter(time_zone=name, now=f.now).zone_name()


def country_name(f: Formatter, country: str) -> str:
    """A country's name in the chat's language, as CLDR names it (``US``: United States)."""
    return str(f.locale.territories.get(country.upper(), country.upper()))


@text("chat.map_time_zone")
def map_time_zone(p: Params, f: Formatter) -> str:
    """What a chosen map did to the clock and what its country suggests (``chat.map_choice``)."""
    lines = []
    if p.get("time_zone"):
        lines.append(f.t("🕰 Clock times are now in {zone}.", zone=zone_text(p, f)))
    elif p.get("map_zone"):
        lines.append(
            f.t(
                "🕰 This map is in {map_zone}; clock times stay in {zone} as you typed "
                "(/settings timezone map follows the map).",
                map_zone=zone_text({"time_zone": p["map_zone"]}, f),
                zone=zone_text({"time_zone": p.get("kept") or "UTC"}, f),
            )
        )
    if p.get("country") and (p.get("ruleset") or p.get("units")):
        lines.append(f.t("The map's country: {country}.", country=country_name(f, p["country"])))
        if p.get("ruleset"):
            lines.append(
                f.t(
                    "The {ruleset} ruleset suits it: /settings ruleset {ruleset}",
                    ruleset=p["ruleset"],
                )
            )
        if p.get("units") == "imperial":
            lines.append(f.t("Miles and feet suit it: /settings units imperial"))
        elif p.get("units") == "metric":
            lines.append(f.t("Kilometres and metres suit it: /settings units metric"))
    return "\n".join(lines)


def _transport(f: Formatter, transport: str) -> str:
    if transport == "car":
        return " ".join(
            (
                f.t("Getting around: by car."),
                f.t(
                    "Questions that need a ride on transit are left out; curses that stop "
                    "transit stop the car too."
                ),
            )
        )
    if transport == "foot":
        return " ".join(
            (
                f.t("Getting around: on foot only."),
                f.t("Questions that need transit and the transit curses are left out."),
            )
        )
    return f.t("Getting around: public transit and on foot.")


def _mode(f: Formatter, mode: str, teams: int | None) -> list[str]:
    if mode == "teams_points":
        lines = [
            f.t("Mode: two seeker teams; the team that finds the hider first scores a point."),
            f.t(
                "The hider is neutral: the team that did not ask draws the cards, and Veto and "
                "Randomize leave the deck."
            ),
        ]
    elif mode == "teams_time":
        lines = [
            f.t("Mode: two seeker teams race; the fastest single find wins."),
            f.t("The hider keeps the deck and may curse either team."),
        ]
    else:
        return [
            f.t("Mode: classic, one hider against everyone else."),
            f.t("The longest single hiding time wins."),
        ]
    if teams is not None and teams != 3:
        lines.append(
            f.n(
                "⚠️ Two seeker teams need exactly three teams; there is {count} now. Make "
                "teams with /team.",
                "⚠️ Two seeker teams need exactly three teams; there are {count} now. Make "
                "teams with /team.",
                teams,
            )
        )
    return lines


def _global(f: Formatter) -> str:
    if f.ruleset is None:
        return f.t("Global scale: hiding periods last a day, card times are multiplied.")
    factor = f"{f.ruleset.global_multiplier:g}"
    return f.t(
        "Global scale: the hiding period lasts {duration}; card times are the large game's "
        "×{factor}.",
        duration=minutes(f, f.ruleset.global_hiding_period_min),
        factor=factor,
    )


def _rests(f: Formatter, p: Params) -> str:
    rests = [f.t("{start}-{end}", start=a, end=b) for a, b in p.get("rest_periods") or []]
    if not rests:
        return f.t("No rest periods.")
    return " ".join(
        (
            f.t("Rest periods: {periods}.", periods=f.names(rests)),
            f.t(
                "Every clock stops then ({zone}).",
                zone=zone_text(p, f),
            ),
        )
    )


def settings_lines(p: Params, f: Formatter, *, variants_only: bool = False) -> list[str]:
    """The settings ``p`` (``settings_summary``), one line each, with their rule effects;
    with ``variants_only``, only the rest periods and the variants in play."""
    transport, mode = p.get("transport", "transit"), p.get("mode", "standard")
    if variants_only:
        return [
            *([_rests(f, p)] if p.get("rest_periods") else []),
            *([_transport(f, transport)] if transport != "transit" else []),
            *(_mode(f, mode, None) if mode != "standard" else []),
            *([_global(f)] if p.get("global_scale") else []),
        ]
    timer = p.get("end_timer_min")
    return [
        f.t("Size: {size}. Rules: {ruleset}.", size=size_word(f, p["size"]), ruleset=p["ruleset"]),
        f.n("Every team hides once.", "Every team hides {count} times.", p["rounds_per_team"]),
        f.t("The game ends {duration} after it begins.", duration=minutes(f, timer))
        if timer
        else f.t("No end-of-game timer."),
        _rests(f, p),
        f.t("Clock times are in {zone}.", zone=zone_text(p, f)),
        _transport(f, transport),
        *_mode(f, mode, p.get("teams")),
        *([_global(f)] if p.get("global_scale") else []),
    ]


def team_lines(state: GameState, f: Formatter) -> list[str]:
    """Each team with players, and its players (a player alone is a team of one)."""
    lines = []
    for team in state.teams:
        names = [p.name for p in state.team_players(team.id)]
        if not names:
            continue
        if names == [team.name]:
            lines.append(f.t(N_("👤 {name} (on their own)"), name=team.name))
        else:
            lines.append(f.t(N_("👥 {team}: {members}"), team=team.name, members=f.names(names)))
    return lines


def teams_text(state: GameState, f: Formatter) -> str:
    """The teams and how to make or join one (under ``/team``'s buttons)."""
    return "\n".join(
        [
            f.t(N_("Teams (a player not in a team plays on their own):")),
            *team_lines(state, f),
            f.t(N_("Join a team with its button, or make one with /team NAME.")),
        ]
    )
