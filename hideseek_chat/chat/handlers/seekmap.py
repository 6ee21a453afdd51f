"""The seekers' map: /seekmap (draw it now, or after every answer), /stations (the
candidate stations, page by page) and the GeoJSON button.

The picture is drawn by a job (``picture_jobs``) and arrives as a message; the lists and
the GeoJSON are geometry, read from the seekers' map that job left in memory (or worked out
once). Everything here is computed from what the seekers know (``chat.seekmap``).
"""

from __future__ import annotations

import json
from dataclasses import replace

from hideseek_chat.chat import seekmap, seekmap_keys
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.handlers.setup import require_admin
from hideseek_chat.chat.keyboards import Press
from hideseek_chat.chat.model import Outbound, SendFile
from hideseek_chat.chat.picture_jobs import SEEKING_PHASES
from hideseek_chat.chat.turn import Turn
from hideseek_chat.geo.seeking import to_geojson
from hideseek_chat.store.models import PictureKind

Args = tuple[str, ...]


def seekmap_command(turn: Turn, args: Args) -> list[Outbound]:
    """``/seekmap``: draw the seekers' map now; ``/seekmap on|off`` (admin): after every
    answer, or only when asked."""
    if args:
        return _switch(turn, args[0].lower())
    _playing(turn)
    state = turn.state
    current = state.current_round
    cause = f"cmd:{turn.msg.update_id or turn.msg.at.isoformat()}"
    turn.uow.pictures.queue(
        turn.game_id, PictureKind.SEEKERS, current.number if current else None, cause, turn.msg.at
    )
    turn.wrote()
    turn.services.pictures_queued = True
    return [turn.reply(turn.say("chat.seekmap_drawing"))]


def _switch(turn: Turn, value: str) -> list[Outbound]:
    if value not in ("on", "off"):
        raise ChatError("chat.seekmap_usage")
    require_admin(turn)
    chat = turn.game_chat()
    chats = turn.uow.chats
    chats.set_prefs(chat, replace(chats.prefs(chat), auto_pictures=value == "on"), turn.msg.at)
    turn.wrote()
    return [turn.reply(turn.say(f"chat.seekmap_auto_{value}"))]


def _playing(turn: Turn) -> None:
    """Refuse when no round is being sought (nothing to draw)."""
    if turn.state.phase not in SEEKING_PHASES:
        raise ChatError("chat.seekmap_no_round")


def _view(turn: Turn) -> seekmap.SeekersView:
    _playing(turn)
    services = turn.services
    found = seekmap.seekers_view(
        turn.uow, services.maps, turn.ruleset, services.seekmaps, turn.game_id, turn.state
    )
    if found is None:
        raise ChatError("chat.seekmap_no_map")
    return found


def stations_command(turn: Turn, args: Args) -> list[Outbound]:
    """``/stations``: the stations the answers leave, a page at a time."""
    text, rows = _stations_page(turn, 0)
    return [turn.reply(text, rows)]


def press_stations(turn: Turn, press: Press) -> list[Outbound]:
    """A page of the candidate stations: in place of the list whose Previous or Next was
    pressed, or a new list (the picture's Stations button)."""
    text, rows = _stations_page(turn, press.int_arg(0))
    screen = turn.reply(text, rows)
    on_list = len(press.args) > 1  # Previous and Next name the list they are under
    if on_list and turn.msg.message_ref is not None:
        screen = replace(screen, edit_ref=turn.msg.message_ref, reply_to=None)
    return [screen]


def _stations_page(turn: Turn, page: int) -> tuple[str, seekmap_keys.Rows]:
    seekers = _view(turn)
    view = seekers.view
    shown, number, pages = seekmap.page_of(view, page)
    params = {
        "count": len(view.candidates),
        "contradicted": seekmap.contradicted(seekers),
        "stations": [[name, list(routes)] for name, routes in shown],
        "page": number,
        "pages": pages,
        "street_ends": seekers.street_ends,
    }
    text = turn.say("chat.seekmap_stations", **params)
    return text, seekmap_keys.stations_pages(turn.game_id, number, pages, turn.fmt)


def press_geojson(turn: Turn, press: Press) -> list[Outbound]:
    """The seekers' map as a GeoJSON document, where the button was pressed."""
    seekers = _view(turn)
    view = seekers.view
    content = json.dumps(to_geojson(view), sort_keys=True, separators=(",", ":")).encode()
    count = len(view.candidates)
    caption = turn.say("chat.seekmap_geojson", count=count, street_ends=seekers.street_ends)
    document = SendFile(
        turn.msg.chat,
        filename="seekers-map.geojson",
        content=content,
        caption=caption,
        mime_type="application/geo+json",
        fallback=f"{caption}\n{turn.say('chat.no_files')}",
        private=turn.is_private,
    )
    return [document]
