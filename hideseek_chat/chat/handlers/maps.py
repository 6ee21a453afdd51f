"""The game's map: /map (what it uses, the maps to choose), /map find PLACE (a map from
OpenStreetMap: the place, a radius for a point, the transit modes, then a fetch in the
background), /map refresh, /map stations (browse, search, leave out, put back) and the
files a group sends: a whole map, or a station list that replaces the map's stations.

The searches and fetches are map jobs (``chat.map_jobs``): a handler only queues one and
answers at once; its outcome arrives as a message.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import replace

from hideseek_chat.chat import keyboards
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.handlers import setup
from hideseek_chat.chat.keyboards import Press
from hideseek_chat.chat.map_choice import map_chosen, map_pack
from hideseek_chat.chat.map_clients import MapClients
from hideseek_chat.chat.map_jobs import job_slot
from hideseek_chat.chat.maps import to_data, upload_name, use_map, version_name
from hideseek_chat.chat.model import EditButtons, FileIn, Outbound, SendText
from hideseek_chat.chat.texts import say
from hideseek_chat.chat.texts.maps import mode_label
from hideseek_chat.chat.turn import Turn
from hideseek_chat.geo import MapPack
from hideseek_chat.geo.mappack import geometry_to_geojson
from hideseek_chat.maps.stations import StationListError, is_station_list, read_station_list
from hideseek_chat.store.mapjobs import FetchRequest, PlaceData
from hideseek_chat.store.models import MapJobKind

Args = tuple[str, ...]

#: The radii offered around a point result, in metres (metric and imperial games).
RADII_KM = (1, 2, 5, 10, 25)
RADII_MI = (1, 2, 5, 10, 15)
METRES_PER_MILE = 1609.344
#: Stations on one page of /map stations.
PAGE = 8
#: The files a group may send: a whole map, or a station list (CSV, or points only).
MAP_FILES = (*setup.MAP_FILES, ".csv")


def map_command(turn: Turn, args: Args) -> list[Outbound]:
    """``/map``: what the game uses and the maps to choose; ``/map find PLACE``,
    ``/map refresh``, ``/map stations [NAME]``; ``/map NAME`` chooses a map."""
    word = args[0].lower() if args else ""
    if word == "find":
        return find(turn, args[1:])
    if word == "refresh":
        return refresh(turn)
    if word == "stations":
        return stations(turn, args[1:])
    return setup.choose_map(turn, args)


def _clients(turn: Turn) -> MapClients:
    clients = turn.services.map_clients
    if clients is None:
        raise ChatError("chat.map_not_configured")
    return clients


def _edit(turn: Turn, text: str, rows: keyboards.Rows = ()) -> SendText:
    """The pressed message replaced by ``text`` and ``rows`` (a new one where it cannot)."""
    return SendText(turn.msg.chat, text=text, buttons=rows, edit_ref=turn.msg.message_ref)


# ----------------------------------------------------------------- /map find


def find(turn: Turn, words: Args) -> list[Outbound]:
    """Queue a search for the place ``words`` name; its places come as buttons."""
    setup.require_setup_admin(turn)
    query = " ".join(words).strip()[:200]
    if not query:
        raise ChatError("chat.map_find_usage")
    _clients(turn)
    msg = turn.msg
    job_id = turn.uow.map_jobs.add_search(
        turn.game_id, turn.game_chat(), query, turn.fmt.language, msg.at
    )
    turn.wrote()
    reply = turn.reply(turn.say("chat.map_looking_up", query=query))
    return [replace(reply, slot=job_slot(job_id), opens_slot=True)]


def _place(turn: Turn, press: Press) -> tuple[int, int, PlaceData]:
    """The place a button names (its search job must be this game's)."""
    setup.require_setup_admin(turn)
    job_id, position = press.int_arg(0), press.int_arg(1)
    job = turn.uow.map_jobs.get(job_id)
    place = turn.uow.map_jobs.place(job_id, position)
    if job is None or job.game_id != turn.game_id or job.kind != MapJobKind.SEARCH or not place:
        raise ChatError("chat.button_unknown")
    return job_id, position, place


def press_place(turn: Turn, press: Press) -> list[Outbound]:
    """A place was chosen: the radius for a point, else the modes."""
    job_id, position, place = _place(turn, press)
    clients = _clients(turn)
    if place.boundary_geojson is not None:
        return [_modes_screen(turn, clients, job_id, position, 0, None)]
    fmt = turn.fmt
    imperial = fmt.units == "imperial"
    radii = [
        (fmt.distance(r * (METRES_PER_MILE if imperial else 1000)), _radius_m(r, imperial))
        for r in (RADII_MI if imperial else RADII_KM)
    ]
    rows = keyboards.map_radii(turn.game_id, job_id, position, radii)
    return [_edit(turn, turn.say("chat.map_radius_prompt", name=place.name), rows)]


def _radius_m(value: int, imperial: bool) -> int:
    return round(value * METRES_PER_MILE) if imperial else value * 1000


def _radius(press: Press, place: PlaceData) -> int:
    """The radius a button carries: one offered for a point, 0 for an area (a forged press
    must not fetch a circle of a thousand kilometres)."""
    radius = press.int_arg(2)
    offered = {_radius_m(r, False) for r in RADII_KM} | {_radius_m(r, True) for r in RADII_MI}
    if radius not in (offered if place.boundary_geojson is None else {0}):
        raise ChatError("chat.button_unknown")
    return radius


def press_radius(turn: Turn, press: Press) -> list[Outbound]:
    job_id, position, place = _place(turn, press)
    radius = _radius(press, place)
    return [_modes_screen(turn, _clients(turn), job_id, position, radius, None)]


def _modes_screen(
    turn: Turn,
    clients: MapClients,
    job_id: int,
    position: int,
    radius_m: int,
    chosen: frozenset[str] | None,
) -> SendText:
    """The transit modes as toggles (the game size's default ticked) and Fetch."""
    place = turn.uow.map_jobs.place(job_id, position)
    assert place is not None
    fmt = turn.fmt
    if chosen is None:
        chosen = clients.default_modes(turn.state.size)
    modes = [(mode, mode_label(mode, fmt)) for mode in clients.modes]
    rows = keyboards.map_modes(
        turn.game_id,
        job_id,
        position,
        radius_m,
        modes,
        chosen,
        turn.say("chat.map_fetch_button"),
    )
    return _edit(turn, turn.say("chat.map_modes_prompt", title=place.name), rows)


def press_mode(turn: Turn, press: Press) -> list[Outbound]:
    """A mode switched on or off: the same keyboard, its ticks moved."""
    job_id, position, place = _place(turn, press)
    clients = _clients(turn)
    radius, bits, toggled = _radius(press, place), press.int_arg(3), press.int_arg(4)
    if not 0 <= toggled < len(clients.modes):
        raise ChatError("chat.button_unknown")
    chosen = keyboards.modes_of(clients.modes, bits ^ (1 << toggled))
    screen = _modes_screen(turn, clients, job_id, position, radius, chosen)
    if turn.msg.message_ref is None:
        return [screen]
    return [EditButtons(turn.msg.chat, message_ref=turn.msg.message_ref, buttons=screen.buttons)]


def press_fetch(turn: Turn, press: Press) -> list[Outbound]:
    """Fetch the chosen place's map with the chosen modes (or use one fetched lately)."""
    _, _, place = _place(turn, press)
    clients = _clients(turn)
    radius, bits = _radius(press, place), press.int_arg(3)
    modes = tuple(m for m in clients.modes if m in keyboards.modes_of(clients.modes, bits))
    if not modes:
        raise ChatError("chat.map_no_modes")
    if place.boundary_geojson is not None:
        boundary = place.boundary_geojson
    else:
        area = clients.circle(place.lat, place.lon, radius)
        boundary = json.dumps(geometry_to_geojson(area))
    request = FetchRequest(
        place.place_key,
        place.name,
        boundary,
        modes,
        place.country_code,
        radius if place.boundary_geojson is None else None,
    )
    return _start_fetch(turn, clients, request)


def _start_fetch(turn: Turn, clients: MapClients, request: FetchRequest) -> list[Outbound]:
    """Queue a fetch of ``request``, or use the pack of the same area and modes stored
    within ``Services.map_max_age`` (unless it is a refresh)."""
    uow, msg = turn.uow, turn.msg
    if any(j.kind == MapJobKind.FETCH for j in uow.map_jobs.active(turn.game_id)):
        raise ChatError("chat.map_busy")
    modes = frozenset(request.modes)
    stored = uow.maps.newest_version(clients.pack_name(request.place_key, modes, request.radius_m))
    shown = {"title": request.title, "modes": list(request.modes)}
    if (
        not request.refresh
        and stored is not None
        and msg.at - stored[1] <= turn.services.map_max_age
    ):
        name, stored_at = stored
        use_map(uow, turn.services.maps, turn.game_chat(), name, msg.at)
        turn.wrote()
        reused = map_pack(turn, name)
        if reused is not None:
            map_chosen(turn, reused)
        date = stored_at.date().isoformat()
        return [turn.to_group(say("chat.map_reused", {**shown, "date": date}, turn.fmt))]
    job_id = uow.map_jobs.add_fetch(
        turn.game_id, turn.game_chat(), request, turn.fmt.language, msg.at
    )
    turn.wrote()
    text = say("chat.map_fetching", shown, turn.fmt)
    return [replace(turn.to_group(text), slot=job_slot(job_id), opens_slot=True)]


def refresh(turn: Turn) -> list[Outbound]:
    """``/map refresh``: fetch the game's map from OpenStreetMap again (same area, modes)."""
    setup.require_setup_admin(turn)
    clients = _clients(turn)
    name = turn.uow.chats.prefs(turn.game_chat()).map_name
    job = turn.uow.map_jobs.fetched(name)
    if job is None or job.fetch is None:
        raise ChatError("chat.map_not_osm")
    return _start_fetch(turn, clients, replace(job.fetch, refresh=True))


# ----------------------------------------------------------------- /map stations


def pack_tag(name: str) -> str:
    """A short mark of a map's name in station buttons: a press made for another map
    (the group changed it since) is refused."""
    return format(zlib.crc32(name.encode()) & 0xFFFFFF, "x")


def _current_pack(turn: Turn) -> tuple[str, MapPack, frozenset[str]]:
    setup.require_setup_admin(turn)
    chat = turn.game_chat()
    name = turn.uow.chats.prefs(chat).map_name
    pack = turn.services.maps.pack(turn.uow, name)
    if pack is None:
        raise ChatError("chat.map_no_current")
    return name, pack, turn.uow.map_jobs.dropped(chat, name)


def stations(turn: Turn, words: Args) -> list[Outbound]:
    """``/map stations``: the map's stations, a page at a time; ``/map stations NAME``:
    the ones whose name contains NAME."""
    name, pack, dropped = _current_pack(turn)
    query = " ".join(words).strip()
    if not query:
        text, rows = _stations_page(turn, name, pack, dropped, 0)
        return [turn.reply(text, rows)]
    wanted = query.casefold()
    found = [(i, s) for i, s in enumerate(pack.stations) if wanted in s.name.casefold()]
    if not found:
        raise ChatError("chat.stations_none", query=query[:40])
    items = [(("🚫 " if s.id in dropped else "") + s.name, i) for i, s in found[:PAGE]]
    params = {"title": pack.title or name, "count": len(found), "query": query[:40]}
    rows = keyboards.stations_page(turn.game_id, pack_tag(name), items)
    return [turn.reply(say("chat.stations_title", params, turn.fmt), rows)]


def _stations_page(
    turn: Turn, name: str, pack: MapPack, dropped: frozenset[str], page: int
) -> tuple[str, keyboards.Rows]:
    pages = max(1, -(-len(pack.stations) // PAGE))
    page = min(max(page, 0), pages - 1)
    shown = list(enumerate(pack.stations))[page * PAGE : (page + 1) * PAGE]
    items = [(("🚫 " if s.id in dropped else "") + s.name, i) for i, s in shown]
    params = {"title": pack.title or name, "count": len(pack.stations)}
    rows = keyboards.stations_page(turn.game_id, pack_tag(name), items, page, pages)
    return say("chat.stations_title", params, turn.fmt), rows


def press_stations_page(turn: Turn, press: Press) -> list[Outbound]:
    name, pack, dropped = _current_pack(turn)
    if press.arg(0) != pack_tag(name):
        raise ChatError("chat.button_unknown")
    text, rows = _stations_page(turn, name, pack, dropped, press.int_arg(1))
    return [_edit(turn, text, rows)]


def _station(turn: Turn, press: Press) -> tuple[str, MapPack, frozenset[str], int]:
    name, pack, dropped = _current_pack(turn)
    position = press.int_arg(1)
    if press.arg(0) != pack_tag(name) or not 0 <= position < len(pack.stations):
        raise ChatError("chat.button_unknown")
    return name, pack, dropped, position


def _station_screen(
    turn: Turn, name: str, pack: MapPack, dropped: frozenset[str], position: int
) -> SendText:
    station = pack.stations[position]
    is_dropped = station.id in dropped
    fmt = turn.fmt
    params = {"name": station.name, "lines": list(station.routes), "dropped": is_dropped}
    action = "chat.station_restore_button" if is_dropped else "chat.station_drop_button"
    rows = keyboards.station_actions(
        turn.game_id,
        pack_tag(name),
        position,
        is_dropped,
        say(action, {}, fmt),
        say("chat.stations_back", {}, fmt),
    )
    return _edit(turn, say("chat.station_screen", params, fmt), rows)


def press_station(turn: Turn, press: Press) -> list[Outbound]:
    return [_station_screen(turn, *_station(turn, press))]


def press_drop(turn: Turn, press: Press) -> list[Outbound]:
    """Leave a station out of the game (``d``), or put it back (``r``)."""
    name, pack, dropped, position = _station(turn, press)
    station = pack.stations[position]
    chat = turn.game_chat()
    if press.arg(2) == "d":
        if {s.id for s in pack.stations} <= dropped | {station.id}:
            raise ChatError("chat.station_last")  # a game with no station has no zone
        turn.uow.map_jobs.drop(chat, name, station.id, turn.msg.at)
        dropped, key = dropped | {station.id}, "chat.station_dropped"
    elif press.arg(2) == "r":
        turn.uow.map_jobs.restore(chat, name, station.id)
        dropped, key = dropped - {station.id}, "chat.station_restored"
    else:
        raise ChatError("chat.button_unknown")
    turn.wrote()
    return [
        _station_screen(turn, name, pack, dropped, position),
        turn.to_group(say(key, {"name": station.name}, turn.fmt)),
    ]


# ----------------------------------------------------------------- files


def upload(turn: Turn, msg: FileIn) -> list[Outbound]:
    """A file in the group: a station list replaces the map's stations; a whole map
    (GeoJSON with a boundary, GTFS, KML with a polygon) becomes the game's map."""
    if turn.is_private or not msg.filename.lower().endswith(MAP_FILES) or not turn.has_game():
        return []  # in a group that never had a game, a file is just chat
    if setup.too_big(msg) or not is_station_list(msg.filename, msg.content or b""):
        return setup.upload(turn, msg)
    name, pack, _ = _current_pack(turn)
    assert msg.content is not None
    filename = msg.filename[:60]
    try:
        listed = read_station_list(msg.filename, msg.content)
    except StationListError as error:
        key = "chat.station_list_bad" if error.row else "chat.station_list_unusable"
        raise ChatError(key, filename=filename, row=error.row, problem=error.problem) from None
    chat = turn.game_chat()
    new_name = version_name(upload_name(chat, "stations"), msg.at)
    title = pack.title or name
    replaced = MapPack(
        name=new_name,
        boundary=pack.boundary,
        stations=listed,
        features=pack.features,
        kinds=pack.kinds,
        title=f"{title} + {filename}",
        attribution=pack.attribution,
        country=pack.country,
    )
    turn.uow.maps.save(to_data(replaced), msg.at)
    use_map(turn.uow, turn.services.maps, chat, new_name, msg.at)
    turn.wrote()
    map_chosen(turn, replaced)
    params = {"count": len(listed), "filename": filename, "title": title, "name": new_name}
    return [turn.reply(say("chat.station_list_imported", params, turn.fmt))]
