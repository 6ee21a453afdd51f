"""The seekers' map's buttons: its candidate stations, page by page, and its GeoJSON.

Built from values the caller read, like every keyboard (``keyboards``); nothing here reads
the database.
"""

from __future__ import annotations

from hideseek_chat.chat.i18n import N_, Formatter
from hideseek_chat.chat.keyboards import Rows, Verb, button


def under_picture(game_id: int, fmt: Formatter) -> Rows:
    """Under the seekers' map: the candidate stations, the map as GeoJSON."""
    return (
        (
            button(fmt.t(N_("🚉 Stations")), Verb.SEEKMAP_STATIONS, game_id, 0),
            button(fmt.t(N_("🗺 GeoJSON")), Verb.SEEKMAP_GEOJSON, game_id),
        ),
    )


def stations_pages(game_id: int, page: int, pages: int, fmt: Formatter) -> Rows:
    """Previous and Next under a page of candidate stations (naming the list: it is
    replaced, not repeated), and the GeoJSON."""
    nav = []
    if page > 0:
        nav.append(button(fmt.t(N_("◀ Previous")), Verb.SEEKMAP_STATIONS, game_id, page - 1, "l"))
    if page < pages - 1:
        nav.append(button(fmt.t(N_("Next ▶")), Verb.SEEKMAP_STATIONS, game_id, page + 1, "l"))
    geojson = (button(fmt.t(N_("🗺 GeoJSON")), Verb.SEEKMAP_GEOJSON, game_id),)
    return (tuple(nav), geojson) if nav else (geojson,)
