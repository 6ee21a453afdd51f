"""Setting a game up and running it: /newgame, joining and leaving, /begin, /settings,
/map and map uploads, /language, /pause, /resume, /abort and the next round."""

from __future__ import annotations

from dataclasses import replace

from hideseek_chat.chat import keyboards
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.i18n import LANGUAGES, language_name, supported_language
from hideseek_chat.chat.keyboards import Press
from hideseek_chat.chat.maps import MAX_UPLOAD_BYTES, import_upload, to_data, upload_name
from hideseek_chat.chat.model import FileIn, Outbound
from hideseek_chat.chat.parsing import parse_newgame
from hideseek_chat.chat.texts import say
from hideseek_chat.chat.turn import Turn
from hideseek_chat.rules import new_game
from hideseek_chat.rules.events import (
    GameAborted,
    GameBegun,
    GamePaused,
    GameResumed,
    NextRoundStarted,
    PlayerJoined,
    PlayerLeft,
    SettingsChanged,
)
from hideseek_chat.rules.lifecycle import settings_summary
from hideseek_chat.rules.state import Phase

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
    return []


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
    return open_private_nudge(turn, missing)


def pause(turn: Turn, args: Args) -> list[Outbound]:
    turn.apply(GamePaused(turn.by))
    return []


def resume(turn: Turn, args: Args) -> list[Outbound]:
    turn.apply(GameResumed(turn.by))
    return []


def abort(turn: Turn, args: Args) -> list[Outbound]:
    turn.apply(GameAborted(turn.by))
    return []


def next_round(turn: Turn, args: Args = ()) -> list[Outbound]:
    turn.apply(NextRoundStarted(turn.by))
    return []


def press_next_round(turn: Turn, press: Press) -> list[Outbound]:
    return next_round(turn)


# ----------------------------------------------------------------- settings


def settings(turn: Turn, args: Args) -> list[Outbound]:
    require_admin(turn)
    fmt = turn.fmt
    automatic = turn.uow.chats.prefs(turn.game_chat()).auto_answer
    # The settings in the group's words: the lines of the game.settings notice, heading cut.
    summary = say("game.settings", settings_summary(turn.state), fmt).split("\n")[1:]
    text = say("chat.settings_title", {"summary": " ".join(summary)}, fmt)
    toggle = say("chat.auto_turn_off" if automatic else "chat.auto_turn_on", {}, fmt)
    return [turn.reply(text, keyboards.settings(turn.game_id, fmt, toggle, automatic))]


def press_setting(turn: Turn, press: Press) -> list[Outbound]:
    require_admin(turn)
    what, value = press.arg(0), press.arg(1)
    chat = turn.game_chat()
    chats = turn.uow.chats
    if what in ("lang", "units"):
        prefs = chats.prefs(chat)
        if what == "lang" and value in LANGUAGES:
            prefs = replace(prefs, language=value)
        elif what == "units" and value in ("metric", "imperial"):
            prefs = replace(prefs, units=value)
        else:
            raise ChatError("chat.button_unknown")
        chats.set_prefs(chat, prefs, turn.msg.at)
        turn.wrote()
        turn.forget_formatter()
        fmt = turn.fmt
        if what == "lang":
            return [turn.to_group(say("chat.language_set", {}, fmt))]
        label = fmt.t("metric units") if value == "metric" else fmt.t("imperial units")
        return [turn.to_group(say("chat.units_set", {"units": label}, fmt))]
    if what == "auto" and value in ("on", "off"):
        chats.set_prefs(chat, replace(chats.prefs(chat), auto_answer=value == "on"), turn.msg.at)
        turn.wrote()
        key = "chat.auto_on" if value == "on" else "chat.auto_off"
        return [turn.to_group(say(key, {}, turn.fmt))]
    if what == "map":
        return [map_list(turn, reply=False)]
    turn.apply(_setting_event(turn.by, what, value, press))
    return []


def _setting_event(by: str, what: str, value: str, press: Press) -> SettingsChanged:
    if what == "rounds":
        return SettingsChanged(by, rounds_per_team=press.int_arg(1))
    if what == "timer":
        minutes = press.int_arg(1)
        return SettingsChanged(by, end_timer_min=minutes or None, clear_end_timer=minutes == 0)
    if what == "rest":
        periods = (("22:00", "08:00"),) if value == "night" else ()
        return SettingsChanged(by, rest_periods=periods)
    raise ChatError("chat.button_unknown")


# ----------------------------------------------------------------- maps


def map_list(turn: Turn, *, reply: bool = True) -> Outbound:
    """The map in use and a button for each one the game could use."""
    names = turn.services.maps.names(turn.uow)
    current = turn.uow.chats.prefs(turn.game_chat()).map_name
    text = say("chat.map_list", {"name": current}, turn.fmt)
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
    chat = turn.game_chat()
    turn.uow.chats.set_prefs(chat, replace(turn.uow.chats.prefs(chat), map_name=name), turn.msg.at)
    turn.wrote()
    return say("chat.map_set", {"name": name}, turn.fmt)


def _require_setup_admin(turn: Turn) -> None:
    require_admin(turn)
    if turn.state.phase != Phase.SETUP:
        raise ChatError("chat.setup_only")


#: The file names a map upload may have; other files shared in the group are just chat.
MAP_FILES = (".geojson", ".json", ".zip", ".kml")


def upload(turn: Turn, msg: FileIn) -> list[Outbound]:
    """The admin sends a GeoJSON, GTFS zip or KML file to the group during setup: a map."""
    if turn.is_private or not msg.filename.lower().endswith(MAP_FILES):
        return []
    _require_setup_admin(turn)
    if msg.size > MAX_UPLOAD_BYTES or msg.content is None:
        raise ChatError("chat.map_too_big", limit=MAX_UPLOAD_BYTES)
    chat = turn.game_chat()
    name = upload_name(chat, msg.filename)
    pack = import_upload(msg.filename, msg.content, name)
    chats = turn.uow.chats
    turn.uow.maps.save(to_data(pack), msg.at)
    chats.set_prefs(chat, replace(chats.prefs(chat), map_name=name), msg.at)
    turn.wrote()
    turn.services.maps.forget(name)
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
        loaded = turn.uow.games.for_chat(msg.chat)
        if loaded is not None:  # without a game, anyone may choose
            player = loaded.state.player_by_ref(msg.sender.ref)
            if player is None or player.id != loaded.state.admin_player_id:
                raise ChatError("chat.only_admin")
        chats.set_prefs(msg.chat, replace(chats.prefs(msg.chat), language=chosen), msg.at)
        key = "chat.language_set"
    turn.wrote()
    turn.forget_formatter()
    return [turn.reply(turn.say(key))]
