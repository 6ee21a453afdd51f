"""The seekers' map in words: the picture's caption, /stations, /seekmap and its settings.

Secrecy: ``picture.seekers`` and ``chat.seekmap_stations`` go to the group and say only
what the answers leave (a count, the candidate stations, or street ends in a car or
on-foot game, the answers not applied and why); ``picture.zone`` names the hider's
station and goes to the hiding team alone.
"""

from __future__ import annotations

from hideseek_chat.chat.i18n import N_, Formatter
from hideseek_chat.chat.texts.parts import lines
from hideseek_chat.chat.texts.registry import Params, plain_texts, text

#: Why an answer could not be drawn on the seekers' map, by reason code.
NOT_APPLIED: dict[str, str] = {
    "moved": N_("the hider moved zone since"),
    "vetoed": N_("vetoed"),
    "photo": N_("a photo says nothing the map can draw"),
    "cannot_answer": N_("the hider could not take the photo"),
    "null": N_("no answer was given"),
    "no_map_data": N_("the map has nothing of that kind"),
    "no_seeker_pin": N_("I had no location of the asking seeker"),
    "stale_seeker_pin": N_("the asking seeker's location was too old"),
    "unsupported_subject": N_("I cannot draw that question yet"),
    "unsupported_category": N_("I cannot draw that question yet"),
    "no_answer": N_("no answer was given"),
    "no_feature_in_boundary": N_("the map has nothing of that kind"),
    "not_in_any_division": N_("the asking seeker was in no such area of the map"),
    "unknown_place": N_("the place named is not on the map within reach"),
    "needs_line": N_("I don't know which line the asking seeker was on"),
    "unnamed_street": N_("the street end nearest the asking seeker has no name to count"),
    "not_far_enough": N_("the seekers' start and end were the same place"),
    "no_elevation_data": N_("the map has no heights"),
    "unreadable_answer": N_("the answer does not fit the question"),
}
#: The words for a reason code the list above does not know.
OTHER_REASON = N_("it cannot be drawn on the map")


def not_applied_reason(code: str, f: Formatter) -> str:
    """Why an answer was left off the seekers' map, in words."""
    return f.t(NOT_APPLIED.get(code, OTHER_REASON))


def _not_applied_lines(p: Params, f: Formatter) -> list[str]:
    skipped = p.get("not_applied") or []
    if not skipped:
        return []
    found = [f.t("Not applied:")]
    for question, distance, reason in skipped:
        name = f.question(str(question), distance) if question else "?"
        found.append(f"• {name}: {not_applied_reason(str(reason), f)}")
    return found


@text("picture.seekers")
def _ready(p: Params, f: Formatter) -> str:
    count = int(p["count"])
    number = f.number(count, 0)
    if p.get("street_ends"):
        head = f.n(
            "🗺 {number} street end still possible.",
            "🗺 {number} street ends still possible.",
            count,
            number=number,
        )
    else:
        head = f.n(
            "🗺 {number} station still possible.",
            "🗺 {number} stations still possible.",
            count,
            number=number,
        )
    names = " · ".join(str(name) for name in p.get("names") or [])
    return lines(
        head, f"📍 {names}" if names else None, *_contradicted(p, f), *_not_applied_lines(p, f)
    )


def _contradicted(p: Params, f: Formatter) -> list[str]:
    if not p.get("contradicted"):
        return []
    if p.get("street_ends"):
        return [f.t("No street end fits all the answers together: one of them must be wrong.")]
    return [f.t("No station fits all the answers together: one of them must be wrong.")]


@text("chat.seekmap_stations")
def _stations(p: Params, f: Formatter) -> str:
    count = int(p["count"])
    number = f.number(count, 0)
    if p.get("street_ends"):
        head = f.n(
            "🚗 {number} street end still possible:",
            "🚗 {number} street ends still possible:",
            count,
            number=number,
        )
    else:
        head = f.n(
            "🚉 {number} station still possible:",
            "🚉 {number} stations still possible:",
            count,
            number=number,
        )
    found = [head, *_contradicted(p, f)]
    for name, routes in p.get("stations") or []:
        found.append(f"• {name} ({', '.join(routes)})" if routes else f"• {name}")
    pages = int(p.get("pages", 1))
    if pages > 1:
        found.append(f.t("Page {page} of {pages}", page=int(p["page"]) + 1, pages=pages))
    return lines(*found)


@text("picture.zone")
def _zone_picture(p: Params, f: Formatter) -> str:
    return f.t(
        "🗺 Your zone: {radius} around {station}. Only you see this picture.",
        radius=f.distance(float(p["radius_m"])),
        station=p["station"],
    )


@text("chat.seekmap_geojson")
def _geojson(p: Params, f: Formatter) -> str:
    count = int(p["count"])
    if p.get("street_ends"):
        return f.n(
            "🗺 The seekers' map as GeoJSON: the area left and {number} street end.",
            "🗺 The seekers' map as GeoJSON: the area left and {number} street ends.",
            count,
            number=f.number(count, 0),
        )
    return f.n(
        "🗺 The seekers' map as GeoJSON: the area left and {number} station.",
        "🗺 The seekers' map as GeoJSON: the area left and {number} stations.",
        count,
        number=f.number(count, 0),
    )


plain_texts(
    {
        "chat.seekmap_drawing": N_("🗺 Drawing the seekers' map…"),
        "picture.failed": N_(
            "🗺 I could not draw the seekers' map this time. /stations lists the stations "
            "still possible."
        ),
        "chat.seekmap_no_round": N_(
            "There is no seeking under way: the seekers' map is drawn from the answers of the "
            "round being played."
        ),
        "chat.seekmap_no_map": N_("The game has no map with stations to draw the answers on."),
        "chat.seekmap_auto_on": N_(
            "🗺 I'll post the seekers' map after every answer (/seekmap off stops it)."
        ),
        "chat.seekmap_auto_off": N_(
            "🗺 I won't post the seekers' map after answers any more; /seekmap draws it "
            "whenever you ask."
        ),
        "chat.seekmap_usage": N_(
            "/seekmap draws the seekers' map now; /seekmap on or /seekmap off (admin): after "
            "every answer, or only when asked."
        ),
        "chat.no_files": N_("(This chat cannot receive files.)"),
    }
)
