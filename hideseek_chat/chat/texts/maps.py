"""A group's map from OpenStreetMap and its stations: /map find, the progress of a fetch and
its summary (``map.*``, sent through the outbox), /map, /map stations and station lists
(``chat.*``, replies)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hideseek_chat.chat.i18n import N_, Formatter
from hideseek_chat.chat.texts.registry import Params, plain, plain_texts, text

#: What every map from OpenStreetMap shows (the ODbL asks for it).
OSM_ATTRIBUTION = "© OpenStreetMap contributors, ODbL"

#: The transit modes' names on their toggles.
MODE_LABELS = {
    "rail": N_("Rail"),
    "subway": N_("Subway"),
    "tram": N_("Light rail / tram"),
    "bus": N_("Bus"),
    "ferry": N_("Ferry"),
}

#: The kinds a fetch reports, in words: every kind of the tag table (``maps.tags``).
KIND_LABELS = {
    "station": N_("stations"),
    "park": N_("parks"),
    "museum": N_("museums"),
    "zoo": N_("zoos"),
    "aquarium": N_("aquariums"),
    "amusement-park": N_("amusement parks"),
    "golf-course": N_("golf courses"),
    "movie-theater": N_("cinemas"),
    "hospital": N_("hospitals"),
    "library": N_("libraries"),
    "consulate": N_("consulates"),
    "airport": N_("airports"),
    "mountain": N_("peaks"),
    "body-of-water": N_("bodies of water"),
    "coastline": N_("coastline"),
    "road": N_("streets"),
    "restaurant": N_("restaurants"),
    "school": N_("schools"),
    "place-of-worship": N_("places of worship"),
    "rail-station": N_("train stations"),
    "high-speed-rail": N_("high-speed lines"),
    "metro-line": N_("metro lines"),
    "admin-1": N_("1st-level divisions"),
    "admin-2": N_("2nd-level divisions"),
    "admin-3": N_("3rd-level divisions"),
    "admin-4": N_("4th-level divisions"),
    "admin-1-border": N_("1st-level borders"),
    "admin-2-border": N_("2nd-level borders"),
    "international-border": N_("international borders"),
}

#: What can be wrong with a row of a station list (``maps.stations``).
STATION_LIST_PROBLEMS = {
    "columns": N_("it needs a name, a latitude and a longitude"),
    "name": N_("the name is empty"),
    "number": N_("the latitude or longitude is not a number"),
    "range": N_("the latitude or longitude is out of range"),
    "empty": N_("there is no station in it"),
    "format": N_("it is not a CSV, KML or GeoJSON file I can read"),
    "too_many": N_("it has too many stations"),
}


def mode_label(mode: str, fmt: Formatter) -> str:
    msgid = MODE_LABELS.get(mode)
    return fmt.t(msgid) if msgid else mode


def modes_text(modes: Iterable[str], fmt: Formatter) -> str:
    return ", ".join(mode_label(m, fmt) for m in modes) or "—"


def kind_label(kind: str, fmt: Formatter) -> str:
    msgid = KIND_LABELS.get(kind)
    return fmt.t(msgid) if msgid else kind.replace("-", " ")


def _modes(p: Params, f: Formatter) -> Mapping[str, Any]:
    return {"modes": modes_text(p.get("modes", ()), f)}


def _reason(p: Params, f: Formatter) -> Mapping[str, Any]:
    return {"reason": str(p.get("reason", "?"))[:120]}


def _problem(p: Params, f: Formatter) -> Mapping[str, Any]:
    msgid = STATION_LIST_PROBLEMS.get(str(p.get("problem")))
    return {"problem": f.t(msgid) if msgid else str(p.get("problem", "?"))}


plain_texts(
    {
        "chat.map_find_usage": N_(
            "Name the place, like this: /map find Stillwater, Oklahoma. I show what "
            "OpenStreetMap finds, you choose, and I fetch its stations and places."
        ),
        "chat.map_not_configured": N_(
            "Maps from OpenStreetMap are not configured on this bot. Choose a map with /map, "
            "or send a map file (GeoJSON, GTFS zip or KML)."
        ),
        "chat.map_looking_up": N_("🔎 Looking up “{query}” on OpenStreetMap…"),
        "chat.map_busy": N_(
            "A map is being fetched for this game right now: wait for it to finish."
        ),
        "chat.map_radius_prompt": N_(
            "📍 “{name}” is a point on the map. How far around it should the game reach?"
        ),
        "chat.map_modes_prompt": N_(
            "🚆 Which transit counts for “{title}”? Tap a mode to switch it on or off, then "
            "fetch the map."
        ),
        "chat.map_fetch_button": N_("⬇️ Fetch the map"),
        "chat.map_no_modes": N_("Choose at least one kind of transit first."),
        "chat.map_not_osm": N_(
            "This game's map was not fetched from OpenStreetMap, so there is nothing to "
            "refresh. /map find PLACE fetches one."
        ),
        "chat.stations_none": N_("No station of this map is called anything like “{query}”."),
        "chat.station_drop_button": N_("🚫 Leave it out of the game"),
        "chat.station_restore_button": N_("↩️ Put it back in the game"),
        "chat.stations_back": N_("◀ All stations"),
        "chat.station_dropped": N_(
            "🚫 {name} is left out: no zone, answer or catch uses it. /map stations puts it back."
        ),
        "chat.station_restored": N_("↩️ {name} is back in the game."),
        "chat.station_last": N_(
            "This is the map's last station in the game: a game needs at least one to hide "
            "at. Put another one back first."
        ),
        "chat.map_no_current": N_(
            "The game has no map to change the stations of. Choose one with /map first."
        ),
    },
    partial=True,
)
plain("chat.map_fetching", N_("⏳ Fetching “{title}” from OpenStreetMap ({modes})…"), _modes, True)
plain(
    "chat.map_reused",
    N_(
        "🗺 “{title}” ({modes}) was already fetched on {date}: the game uses it now. "
        "/map refresh fetches it again."
    ),
    _modes,
    True,
)
plain(
    "chat.station_list_bad",
    N_("I could not read “{filename}” as a station list (row {row}: {problem}). Nothing changed."),
    _problem,
    True,
)
plain(
    "chat.station_list_unusable",
    N_("I could not read “{filename}” as a station list ({problem}). Nothing changed."),
    _problem,
    True,
)

# ----------------------------------------------------------------- the jobs' outcomes

plain_texts(
    {
        "map.places": N_("🔎 What OpenStreetMap knows as “{query}”: choose the game's area."),
        "map.not_found": N_(
            "🔎 OpenStreetMap knows no place called “{query}”. Try another spelling, or add "
            "the region or country: /map find Stillwater, Oklahoma."
        ),
        "map.no_stations": N_(
            "⚠️ OpenStreetMap has no stations of the chosen kinds in “{title}”. Nothing "
            "changed. Try more modes or a larger area."
        ),
        "map.gave_up": N_(
            "⚠️ Getting the map failed several times, so I stopped. Nothing changed; try "
            "again with /map find."
        ),
        "map.failed": N_("⚠️ Getting the map failed. Nothing changed; try again with /map find."),
        "map.area_too_large": N_(
            "⚠️ “{title}” is about {km} km across: more than OpenStreetMap's Overpass serves "
            "(up to {max_km} km). Nothing changed. Choose a smaller area, or have the bot's "
            "host build this one from an extract (hideseek-chat map build)."
        ),
    }
)
plain(
    "map.geocoder_failed",
    N_("🔎 The place search did not answer ({reason}). Nothing changed; try again in a minute."),
    _reason,
)
plain(
    "map.overpass_failed",
    N_(
        "⚠️ The map of “{title}” could not be fetched ({reason}). Nothing changed: the game "
        "keeps its map. Try again later."
    ),
    _reason,
)


def _kind_line(kinds: Iterable[Any], fmt: Formatter) -> str:
    parts = []
    for kind, count, ok in kinds:
        name = kind_label(str(kind), fmt)
        parts.append(f"{name} ✓ {fmt.number(int(count), 0)}" if ok else f"{name} ✗")
    return " · ".join(parts)


@text("map.progress")
def _progress(p: Params, fmt: Formatter) -> str:
    head = fmt.t(
        "⏳ Fetching “{title}” from OpenStreetMap… {done}/{total}",
        title=p["title"],
        done=p["done"],
        total=p["total"],
    )
    line = _kind_line(p.get("kinds", ()), fmt)
    return f"{head}\n{line}" if line else head


@text("map.fetched")
def _fetched(p: Params, fmt: Formatter) -> str:
    lines = [
        fmt.t(
            "✅ The map of “{title}” is ready: {stations} stations ({modes}).",
            title=p["title"],
            stations=fmt.number(int(p["stations"]), 0),
            modes=modes_text(p.get("modes", ()), fmt),
        )
    ]
    counts = [(k, n, True) for k, n in sorted(dict(p.get("counts", {})).items()) if k != "station"]
    if counts:
        lines.append(_kind_line(counts, fmt))
    failed = [kind_label(str(k), fmt) for k in p.get("failed", ())]
    if failed:
        lines.append(
            fmt.t(
                "Not answered automatically (their download failed): {kinds}.",
                kinds=", ".join(failed),
            )
        )
    if p.get("used", True):
        lines.append(fmt.t("The game uses it now. /map stations shows its stations."))
    else:
        lines.append(
            fmt.t(
                "The game has begun and keeps its map; the next game can use “{name}”.",
                name=p["name"],
            )
        )
    lines.append(OSM_ATTRIBUTION)
    return "\n".join(lines)


@text("chat.map_info")
def _map_info(p: Params, fmt: Formatter) -> str:
    lines = [fmt.t("🗺 This game uses the map “{name}”.", name=p["name"])]
    if p.get("title"):
        lines[0] = fmt.t("🗺 This game uses the map “{title}” ({name}).", **p)
    if p.get("stations") is not None:
        stations = fmt.number(int(p["stations"]), 0)
        if p.get("dropped"):
            lines.append(
                fmt.t(
                    "Stations: {stations} ({dropped} left out).",
                    stations=stations,
                    dropped=p["dropped"],
                )
            )
        else:
            lines.append(fmt.t("Stations: {stations}.", stations=stations))
    kinds = [kind_label(k, fmt) for k in p.get("kinds", ())]
    if kinds:
        lines.append(fmt.t("Places it knows: {kinds}.", kinds=", ".join(kinds)))
    if p.get("fetched"):
        lines.append(
            fmt.t(
                "Fetched from OpenStreetMap on {date} ({modes}); /map refresh fetches it again.",
                date=p["fetched"],
                modes=modes_text(p.get("modes", ()), fmt),
            )
        )
    attribution = str(p.get("attribution") or "")
    if p.get("fetched") and "OpenStreetMap" not in attribution:
        attribution = f"{attribution} {OSM_ATTRIBUTION}".strip()
    if attribution:
        lines.append(attribution)
    lines.append(fmt.t("/map find PLACE gets any place from OpenStreetMap, or choose a map:"))
    return "\n".join(lines)


@text("chat.stations_title")
def _stations_title(p: Params, fmt: Formatter) -> str:
    head = fmt.n(
        "🚉 “{title}” has {count} station.",
        "🚉 “{title}” has {count} stations.",
        int(p["count"]),
        title=p["title"],
    )
    if p.get("query"):
        head = fmt.n(
            "🚉 {count} station matches “{query}”.",
            "🚉 {count} stations match “{query}”.",
            int(p["count"]),
            query=p["query"],
        )
    rest = fmt.t(
        "Tap one to leave it out of the game or put it back (🚫: left out). "
        "/map stations NAME finds one; a CSV file (name,lat,lon,lines) replaces them all."
    )
    return f"{head}\n{rest}"


@text("chat.station_list_imported")
def _station_list_imported(p: Params, fmt: Formatter) -> str:
    return fmt.n(
        "🚉 {count} station from “{filename}” replaces the stations of “{title}”; its parks, "
        "museums and other places stay. The game now uses the map “{name}”.",
        "🚉 {count} stations from “{filename}” replace the stations of “{title}”; its parks, "
        "museums and other places stay. The game now uses the map “{name}”.",
        int(p["count"]),
        filename=p["filename"],
        title=p["title"],
        name=p["name"],
    )


@text("chat.station_screen")
def _station(p: Params, fmt: Formatter) -> str:
    lines = [f"🚉 {p['name']}"]
    if p.get("lines"):
        lines.append(fmt.t("Lines: {lines}", lines=", ".join(p["lines"])))
    lines.append(fmt.t("🚫 Left out of this game.") if p.get("dropped") else fmt.t("In the game."))
    return "\n".join(lines)
