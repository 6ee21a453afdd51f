"""Setting a game up and running it: /newgame, joining and leaving, /begin, /settings,
/map and map uploads, /language, /pause, /resume, /abort and the next round."""

from __future__ import annotations

from dataclasses import replace

from hideseek_chat import geo
from hideseek_chat.chat import keyboards, texts
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.handlers import presence
from hideseek_chat.chat.i18n import LANGUAGES, language_name, supported_language
from hideseek_chat.chat.keyboards import Press
from hideseek_chat.chat.map_choice import NOTICE, map_chosen, map_pack
from hideseek_chat.chat.maps import (
    MAX_UPLOAD_BYTES,
    import_upload,
    map_facts,
    to_data,
    upload_name,
    use_map,
    version_name,
)
from hideseek_chat.chat.model import STATUS_SLOT, EditButtons, FileIn, Outbound, SendText
from hideseek_chat.chat.parsing import parse_newgame
from hideseek_chat.chat.texts import say
from hideseek_chat.chat.turn import Turn
from hideseek_chat.rules import new_game
from hideseek_chat.rules.decisions import GROUP, Notify
from hideseek_chat.rules.events import (
    GameAborted,
    GameBegun,
    GamePaused,
    GameResumed,
    NextRoundStarted,
    PlayerJoined,
    PlayerLeft,
    SettingsChanged,
    TeamChosen,
)
from hideseek_chat.rules.lifecycle import settings_summary
from hideseek_chat.rules.localtime import TimeZoneError, parse_time_zone
from hideseek_chat.rules.state import GameState, Mode, Phase, Transport

Args = tuple[str, ...]

#: Words people may type for a language besides its code (lower case).
LANGUAGE_NAMES = {
    "english": "en",
    "englisch": "en",
    "inglés": "en",
    "ingles": "en",
    "deutsch": "de",
    "german": "de",
    "alemán": "de",
    "aleman": "de",
    "español": "es",
    "espanol": "es",
    "castellano": "es",
    "spanish": "es",
    "spanisch": "es",
}


def require_admin(turn: Turn) -> None:
    """Refuse anyone but the game's admin."""
    player = turn.player()
    if player is None or player.id != turn.state.admin_player_id:
        raise ChatError("chat.only_admin")


def open_private_nudge(turn: Turn, names: list[str]) -> list[Outbound]:
    """Ask ``names`` to open a private chat with the bot (a deep-link button)."""
    if not names:
        return []
    fmt = turn.fmt
    text = say("chat.open_private", {"names": fmt.names(names)}, fmt)
    button = keyboards.open_private(say("chat.open_private_button", {}, fmt))
    return [turn.reply(text, ((button,),))]


# ----------------------------------------------------------------- a new game, players


def newgame(turn: Turn, args: Args) -> list[Outbound]:
    parsed = parse_newgame(args, turn.services.known_rulesets)
    msg = turn.msg
    if turn.has_game() and turn.state.phase != Phase.GAME_OVER:
        raise ChatError("chat.game_running")
    turn.uow.chats.met(msg.sender.ref, msg.sender.name, msg.at)
    adopt_language(turn)
    ruleset = turn.services.rulesets(parsed.ruleset or "metric")
    state, decisions = new_game(
        ruleset, parsed.size, turn.services.seeds(), msg.sender.ref, msg.sender.name, msg.at
    )
    turn.start_game(state, decisions)
    chats = turn.uow.chats
    chats.set_topic(msg.chat, msg.topic, msg.at)  # the game lives in the topic it began in
    chats.forget_message_ref(msg.chat, STATUS_SLOT)  # its status is a message of its own
    pack = map_pack(turn, chats.prefs(msg.chat).map_name)
    if pack is not None:  # the group's map (the default one too) sets the new game's clock
        map_chosen(turn, pack, quiet=True)
    return presence.privacy_notice(turn)


def adopt_language(turn: Turn) -> None:
    """Give a group that never chose a language its first admin's app language."""
    msg = turn.msg
    language = supported_language(msg.sender.language)
    chats = turn.uow.chats
    if language is None or chats.has_prefs(msg.chat):
        return
    chats.set_prefs(msg.chat, replace(chats.prefs(msg.chat), language=language), msg.at)


def join(turn: Turn, args: Args = ()) -> list[Outbound]:
    turn.apply(PlayerJoined(turn.by, turn.msg.sender.name))
    sender = turn.msg.sender
    if turn.uow.chats.can_message(sender.ref):
        return []
    turn.uow.chats.met(sender.ref, sender.name, turn.msg.at)
    return open_private_nudge(turn, [sender.name])


def press_join(turn: Turn, press: Press) -> list[Outbound]:
    return join(turn)


def leave(turn: Turn, args: Args) -> list[Outbound]:
    turn.apply(PlayerLeft(turn.by))
    return []


def begin(turn: Turn, args: Args) -> list[Outbound]:
    turn.apply(GameBegun(turn.by))
    chats = turn.uow.chats
    missing = [p.name for p in turn.state.players if p.active and not chats.can_message(p.ref)]
    return [*open_private_nudge(turn, missing), *presence.rights_notice(turn)]


def pause(turn: Turn, args: Args) -> list[Outbound]:
    turn.apply(GamePaused(turn.by))
    return []


def resume(turn: Turn, args: Args) -> list[Outbound]:
    turn.apply(GameResumed(turn.by))
    return []


def abort(turn: Turn, args: Args) -> list[Outbound]:
    """``/abort`` (admin): ask first, with a button; the game ends only when it is pressed."""
    require_admin(turn)
    if turn.state.phase == Phase.GAME_OVER:
        raise ChatError("chat.abort_nothing")
    fmt = turn.fmt
    buttons = keyboards.confirm_abort(
        turn.game_id, say("chat.abort_yes", {}, fmt), say("chat.abort_no", {}, fmt)
    )
    return [turn.reply(say("chat.abort_confirm", {}, fmt), buttons)]


def press_abort(turn: Turn, press: Press) -> list[Outbound]:
    require_admin(turn)
    if turn.state.phase == Phase.GAME_OVER:  # either answer comes too late
        raise ChatError("chat.abort_nothing")
    if press.arg(0) != "y":
        return [turn.to_group(turn.say("chat.abort_kept"))]
    turn.apply(GameAborted(turn.by))
    return []


def next_round(turn: Turn, args: Args = ()) -> list[Outbound]:
    turn.apply(NextRoundStarted(turn.by))
    return presence.rights_notice(turn)


def press_next_round(turn: Turn, press: Press) -> list[Outbound]:
    return next_round(turn)


# ----------------------------------------------------------------- settings


def settings(turn: Turn, args: Args) -> list[Outbound]:
    """``/settings`` (admin): the settings and their keyboard (the game's own settings only
    before the game begins); ``/settings rest 22:00-07:00``, ``/settings timezone +2`` (or
    ``Europe/Zurich``, or ``map`` for the map's), ``/settings ruleset us`` and ``/settings
    units imperial`` type what no button offers."""
    require_admin(turn)
    if not args:
        return [settings_screen(turn)]
    what, rest = args[0].lower(), " ".join(args[1:]).strip().lower()
    if what == "units" and rest in ("metric", "imperial"):
        return _set_units(turn, rest)
    if what in TIME_ZONE_WORDS and rest in ("map", "auto"):
        return _zone_of_map(turn)
    if what == "ruleset" and rest:
        if rest not in turn.services.known_rulesets:
            names = ", ".join(sorted(turn.services.known_rulesets))
            raise ChatError("chat.ruleset_unknown", word=rest[:32], rulesets=names)
        turn.apply(SettingsChanged(turn.by, ruleset=rest))
        turn.forget_formatter()  # the ruleset's units, when the chat chose none
        return []
    turn.apply(parse_setting(turn.by, args))
    return []


def _set_units(turn: Turn, units: str) -> list[Outbound]:
    """The group's units (a chat setting: the keyboard's button or typed)."""
    chat, chats = turn.game_chat(), turn.uow.chats
    chats.set_prefs(chat, replace(chats.prefs(chat), units=units), turn.msg.at)
    turn.wrote()
    turn.forget_formatter()
    fmt = turn.fmt
    label = fmt.t("metric units") if units == "metric" else fmt.t("imperial units")
    return [turn.to_group(say("chat.units_set", {"units": label}, fmt))]


def _zone_of_map(turn: Turn) -> list[Outbound]:
    """``/settings timezone map``: the clock follows the map's zone again."""
    pack = map_pack(turn, turn.uow.chats.prefs(turn.game_chat()).map_name)
    zone = geo.pack_time_zone(pack) if pack is not None else None
    if zone is None:
        raise ChatError("chat.settings_usage")
    turn.apply(SettingsChanged(turn.by, time_zone=zone, time_zone_from_map=True))
    turn.announce([Notify(GROUP, NOTICE, {"time_zone": zone})])
    return []


def settings_screen(turn: Turn, *, reply: bool = True) -> Outbound:
    """The settings in the group's words, with the keyboard to change them."""
    fmt = turn.fmt
    state = turn.state
    automatic = turn.uow.chats.prefs(turn.game_chat()).auto_answer
    summary = " ".join(texts.settings_lines(settings_summary(state), fmt))
    toggle = say("chat.auto_turn_off" if automatic else "chat.auto_turn_on", {}, fmt)
    if state.phase == Phase.SETUP:
        text = "\n".join(
            (
                say("chat.settings_title", {"summary": summary}, fmt),
                say("chat.settings_typed", {}, fmt),
                say("chat.settings_zones", {}, fmt),
            )
        )
        rows = keyboards.settings(turn.game_id, fmt, toggle, automatic, current_settings(state))
    else:  # the game is under way: its settings are fixed, the chat's are not
        text = say("chat.settings_fixed", {"summary": summary}, fmt)
        rows = keyboards.settings(turn.game_id, fmt, toggle, automatic)
    return turn.reply(text, rows) if reply else turn.to_group(text, rows)


def current_settings(state: GameState) -> dict[str, str]:
    """Each game setting's value as the settings keyboard's buttons send it."""
    s = state.settings
    rest = next((k for k, v in keyboards.REST_PRESETS.items() if list(v) == s.rest_periods), "")
    return {
        "rounds": str(s.rounds_per_team),
        "timer": str(int(s.end_timer_min or 0)),
        "rest": rest,
        "transport": s.transport.value,
        "mode": s.mode.value,
        "global": "on" if s.global_scale else "off",
    }


def press_setting(turn: Turn, press: Press) -> list[Outbound]:
    require_admin(turn)
    what, value = press.arg(0), press.arg(1)
    chat = turn.game_chat()
    chats = turn.uow.chats
    if what == "units" and value in ("metric", "imperial"):
        return _set_units(turn, value)
    if what in ("lang", "units"):
        if what == "units" or value not in LANGUAGES:
            raise ChatError("chat.button_unknown")
        chats.set_prefs(chat, replace(chats.prefs(chat), language=value), turn.msg.at)
        turn.wrote()
        turn.forget_formatter()
        return [turn.to_group(say("chat.language_set", {}, turn.fmt))]
    if what == "auto" and value in ("on", "off"):
        chats.set_prefs(chat, replace(chats.prefs(chat), auto_answer=value == "on"), turn.msg.at)
        turn.wrote()
        key = "chat.auto_on" if value == "on" else "chat.auto_off"
        return [turn.to_group(say(key, {}, turn.fmt)), *_refreshed(turn)]
    if what == "map":
        return [map_list(turn, reply=False)]
    turn.apply(_setting_event(turn.by, what, value, press))
    return _refreshed(turn)


def _refreshed(turn: Turn) -> list[Outbound]:
    """The pressed settings keyboard again, its ticks moved to what is now chosen."""
    msg = turn.msg
    if msg.message_ref is None:
        return []
    screen = settings_screen(turn)
    assert isinstance(screen, SendText)
    rows = screen.buttons
    return [EditButtons(msg.chat, message_ref=msg.message_ref, buttons=rows)]


def _setting_event(by: str, what: str, value: str, press: Press) -> SettingsChanged:
    if what == "rounds":
        return SettingsChanged(by, rounds_per_team=press.int_arg(1))
    if what == "timer":
        minutes = press.int_arg(1)
        return SettingsChanged(by, end_timer_min=minutes or None, clear_end_timer=minutes == 0)
    if what == "rest" and value in keyboards.REST_PRESETS:
        return SettingsChanged(by, rest_periods=keyboards.REST_PRESETS[value])
    if what == "transport" and value in set(Transport):
        return SettingsChanged(by, transport=Transport(value))
    if what == "mode" and value in set(Mode):
        return SettingsChanged(by, mode=Mode(value))
    if what == "global" and value in ("on", "off"):
        return SettingsChanged(by, global_scale=value == "on")
    raise ChatError("chat.button_unknown")


#: The words for the game's time zone after /settings.
TIME_ZONE_WORDS = ("timezone", "tz", "zone", "time_zone")


def parse_setting(by: str, args: Args) -> SettingsChanged:
    """``rest 22:00-07:00`` (or ``none``, several windows apart by commas) and ``timezone
    +2`` (``UTC-5:30``, ``Europe/Zurich``): the settings typed after /settings; raise
    ChatError otherwise."""
    what, rest = args[0].lower(), " ".join(args[1:]).strip()
    if what in ("rest", "rests") and rest:
        if rest.lower() in ("none", "off", "no"):
            return SettingsChanged(by, rest_periods=())
        periods = []
        for part in rest.replace(" ", "").split(","):
            start, dash, end = part.replace("–", "-").partition("-")
            if not dash:
                raise ChatError("chat.settings_usage")
            periods.append((start, end))
        return SettingsChanged(by, rest_periods=tuple(periods))
    if what in TIME_ZONE_WORDS and rest:
        return SettingsChanged(by, time_zone=parse_zone(rest))
    raise ChatError("chat.settings_usage")


def parse_zone(text: str) -> str:
    """``+2``, ``-5:30``, ``UTC+1``, ``GMT``, ``Europe/Zurich``, ``america/chicago`` as the
    stored zone name (``rules.localtime``); raise ChatError for anything else."""
    try:
        return parse_time_zone(text)
    except TimeZoneError:  # (an offset beyond ±14 h is the engine's to refuse)
        raise ChatError("error.time_zone", text=text.strip()[:40]) from None


# ----------------------------------------------------------------- teams


def team(turn: Turn, args: Args) -> list[Outbound]:
    """``/team NAME`` makes or joins the team NAME; ``/team`` lists the teams with buttons."""
    if args:
        nudge = _join_first(turn)
        turn.apply(TeamChosen(turn.by, name=" ".join(args)))
        return nudge
    if turn.state.phase != Phase.SETUP:
        raise ChatError("chat.setup_only")
    return [teams_screen(turn)]


def teams_screen(turn: Turn) -> Outbound:
    fmt, state = turn.fmt, turn.state
    choices = [
        (say("chat.team_join_button", {"team": t.name}, fmt), t.id)
        for t in state.teams
        if state.team_players(t.id)
    ]
    rows = keyboards.teams(turn.game_id, choices, say("chat.team_alone_button", {}, fmt))
    return turn.reply(texts.teams_text(state, fmt), rows)


def press_team(turn: Turn, press: Press) -> list[Outbound]:
    team_id = press.int_arg(0)
    nudge = _join_first(turn)
    turn.apply(TeamChosen(turn.by, team_id=team_id or None))
    return nudge


def _join_first(turn: Turn) -> list[Outbound]:
    """Someone choosing a team before they joined the game joins it first (same turn)."""
    if turn.player() is not None or turn.state.phase != Phase.SETUP:
        return []
    return join(turn)


# ----------------------------------------------------------------- maps


def map_list(turn: Turn, *, reply: bool = True) -> Outbound:
    """The map in use and a button for each one the game could use."""
    facts = map_facts(turn.uow, turn.services.maps, turn.game_chat())
    names = turn.services.maps.offered(turn.uow, facts["name"])
    text = say("chat.map_info", facts, turn.fmt)
    buttons = keyboards.map_choices(turn.game_id, names)
    return turn.reply(text, buttons) if reply else turn.to_group(text, buttons)


def choose_map(turn: Turn, args: Args) -> list[Outbound]:
    """``/map`` lists the maps; ``/map NAME`` chooses one (admin, during setup)."""
    if not args:
        turn.game()
        return [map_list(turn)]
    return [turn.reply(_set_map(turn, args[0].lower()))]


def press_map(turn: Turn, press: Press) -> list[Outbound]:
    return [turn.to_group(_set_map(turn, press.arg(0)))]


def _set_map(turn: Turn, name: str) -> str:
    _require_setup_admin(turn)
    names = turn.services.maps.names(turn.uow)
    if name not in names:
        raise ChatError("chat.map_unknown", name=name[:40], names=", ".join(names))
    use_map(turn.uow, turn.services.maps, turn.game_chat(), name, turn.msg.at)
    turn.wrote()
    pack = map_pack(turn, name)
    if pack is not None:
        map_chosen(turn, pack)
    return say("chat.map_set", {"name": name}, turn.fmt)


def require_setup_admin(turn: Turn) -> None:
    """Refuse anyone but the admin, and anything once the game has begun."""
    _require_setup_admin(turn)


def _require_setup_admin(turn: Turn) -> None:
    require_admin(turn)
    if turn.state.phase != Phase.SETUP:
        raise ChatError("chat.setup_only")


#: The file names a map upload may have; other files shared in the group are just chat.
MAP_FILES = (".geojson", ".json", ".zip", ".kml")


def too_big(msg: FileIn) -> bool:
    """Whether a file is over the upload limit, by what the channel says or what came (a
    channel leaves the content out of a file it would not download)."""
    return msg.content is None or max(msg.size, len(msg.content)) > MAX_UPLOAD_BYTES


def upload(turn: Turn, msg: FileIn) -> list[Outbound]:
    """The admin sends a GeoJSON, GTFS zip or KML file to the group during setup: a map."""
    if turn.is_private or not msg.filename.lower().endswith(MAP_FILES):
        return []
    _require_setup_admin(turn)
    if too_big(msg):
        raise ChatError("chat.map_too_big", limit=MAX_UPLOAD_BYTES)
    assert msg.content is not None
    chat = turn.game_chat()
    name = version_name(upload_name(chat, msg.filename), msg.at)
    pack = import_upload(msg.filename, msg.content, name)
    turn.uow.maps.save(to_data(pack), msg.at)
    use_map(turn.uow, turn.services.maps, chat, name, msg.at)
    turn.wrote()
    map_chosen(turn, pack)
    values = {"title": msg.filename, "stations": len(pack.stations), "features": len(pack.features)}
    return [turn.reply(say("chat.map_imported", values, turn.fmt))]


# ----------------------------------------------------------------- languages


def parse_language(word: str) -> str | None:
    """The shipped language ``word`` names (``de``, ``Deutsch``, ``es-MX``), or None."""
    lowered = word.strip().lower()
    return LANGUAGE_NAMES.get(lowered) or supported_language(lowered)


def language_choices() -> str:
    return ", ".join(f"/language {code} ({language_name(code)})" for code in LANGUAGES)


def language(turn: Turn, args: Args) -> list[Outbound]:
    """``/language [code]``: show or set the language of this chat (a group's: its game's
    admin decides; in private, the person's own)."""
    if not args:
        return [turn.reply(turn.say("chat.language_now", choices=language_choices()))]
    chosen = parse_language(args[0])
    if chosen is None:
        raise ChatError("chat.language_unknown", word=args[0][:32], choices=language_choices())
    msg = turn.msg
    chats = turn.uow.chats
    if turn.is_private:
        chats.set_language(msg.sender.ref, msg.sender.name, chosen, msg.at)
        key = "chat.language_set_private"
    else:
        loaded = turn.uow.games.read_chat(msg.chat)
        if loaded is not None:  # without a game, anyone may choose
            player = loaded.state.player_by_ref(msg.sender.ref)
            if player is None or player.id != loaded.state.admin_player_id:
                raise ChatError("chat.only_admin")
        chats.set_prefs(msg.chat, replace(chats.prefs(msg.chat), language=chosen), msg.at)
        key = "chat.language_set"
    turn.wrote()
    turn.forget_formatter()
    return [turn.reply(turn.say(key))]
