"""Where the hider's zone comes from, and the live locations the referee reads.

The engine's ``zone.fixed_late`` and ``live.share``; the rest are the chat layer's own
notices (``chat.*``), written to the outbox by the referee's jobs (``jobs``, ``liveness``)
and the pins handler.

Secrecy: ``chat.hiding_far_from_station`` names a station (in a car or on-foot game a
street terminus, with ``street_end``), and goes to the hiding team alone.
``chat.zone_pending`` and ``zone.fixed_late`` (the group) say nothing of where the hider is.
"""

from __future__ import annotations

from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.texts.parts import lines
from hideseek_chat.chat.texts.registry import Params, text

# ----- the zone at the end of the hiding period -----


@text("chat.zone_pending")
def _zone_pending(p: Params, f: Formatter) -> str:
    return f.t(
        "⏳ The hider's zone isn't fixed yet: I had no recent location of the hider when the "
        "hiding period ended. I've asked them for one and will tell you as soon as the zone "
        "is set."
    )


def by_text_steps(f: Formatter) -> str:
    """How an SMS player sends where they are (instead of Telegram's attachment menu): and,
    when the bot hands out tracker links, how to get one for a phone's GPS app."""
    if f.trackers:
        return f.t(
            "text me your coordinates, like 47.37690, 8.54170, or a map link; or text TRACKER "
            "for a link a GPS app on your phone can send your position to all along"
        )
    return f.t("text me your coordinates, like 47.37690, 8.54170, or a map link")


@text("chat.zone_pin_needed")
def _zone_pin_needed(p: Params, f: Formatter) -> str:
    if f.by_text:
        return lines(
            f.t(
                "⏰ Time's up, but I have no recent location of yours, so your zone isn't fixed "
                "and the seekers have been told it's pending."
            ),
            f.t(
                "Send your location now ({steps}): the first one you send fixes your zone "
                "around the place nearest to it.",
                steps=by_text_steps(f),
            ),
        )
    return lines(
        f.t(
            "⏰ Time's up, but I have no recent location of yours, so your zone isn't fixed "
            "and the seekers have been told it's pending."
        ),
        f.t(
            "Send your location now (the button below, or 📎 → Location): the first one you "
            "send fixes your zone around the street end nearest to it."
        )
        if p.get("street_end")
        else f.t(
            "Send your location now (the button below, or 📎 → Location): the first one you "
            "send fixes your zone around the station nearest to it."
        ),
    )


@text("zone.fixed_late")
def _zone_fixed_late(p: Params, f: Formatter) -> str:
    if p.get("street_end"):
        return f.t(
            "📍 The hider's zone is now fixed: it reaches {distance} around a street end.",
            distance=f.distance(p["radius_m"]),
        )
    return f.t(
        "📍 The hider's zone is now fixed: it reaches {distance} around a station.",
        distance=f.distance(p["radius_m"]),
    )


# ----- before the hiding period ends (the hider alone) -----


@text("chat.hiding_far_from_station")
def _far_from_station(p: Params, f: Formatter) -> str:
    # Names a station (or a street end): for the hiding team only.
    if p.get("street_end"):
        return lines(
            f.t(
                "⚠️ You're not near the end of any street of the map: the nearest is "
                "{street_end}, {distance} away.",
                street_end=p["station"],
                distance=f.distance(p["distance_m"]),
            ),
            f.t(
                "In this game your zone is centred on the street end (where a street meets "
                "another or dead-ends) nearest to you when the hiding period ends, and must "
                "hold you: be within {radius} of one by then.",
                radius=f.distance(p["radius_m"]),
            ),
        )
    return lines(
        f.t(
            "⚠️ You're not near any station of the map: the nearest is {station}, {distance} away.",
            station=p["station"],
            distance=f.distance(p["distance_m"]),
        ),
        f.t(
            "Your zone is centred on the station nearest to you when the hiding period ends, "
            "and must hold you: be within {radius} of a station by then.",
            radius=f.distance(p["radius_m"]),
        ),
    )


@text("chat.hiding_no_pin")
def _hiding_no_pin(p: Params, f: Formatter) -> str:
    if f.by_text:
        return f.t(
            "📍 I don't know where you are yet. Before the hiding period ends, {steps}: your "
            "zone is fixed from your last location at that moment.",
            steps=by_text_steps(f),
        )
    return f.t(
        "📍 I don't know where you are yet. Share your live location with me before the "
        "hiding period ends (📎 → Location → Share My Live Location → 8 hours): your zone is "
        "fixed from your location at that moment."
    )


# ----- live locations -----


@text("live.share")
def _live_share(p: Params, f: Formatter) -> str:
    if f.by_text:
        steps = by_text_steps(f)
    else:
        steps = f.t("📎 → Location → Share My Live Location → 8 hours")
    if p.get("hider"):
        first = f.t(
            "📡 Round {round}: share your live location with me, here in our private chat, "
            "for the whole round. Only I see it: it fixes your zone and checks your answers.",
            round=p["round"],
        )
    else:
        first = f.t(
            "📡 Round {round}: share your live location with me for the whole round: it "
            "starts the end game and measures thermometers.",
            round=p["round"],
        )
    if f.by_text:
        return lines(
            first,
            f.t(
                "By text: {steps}, whenever you move (each one counts from when it came).",
                steps=steps,
            ),
        )
    return lines(
        first,
        f.t("How: {steps}.", steps=steps),
        f.t("The button below sends where you are right now."),
    )


@text("chat.live_ended")
def _live_ended(p: Params, f: Formatter) -> str:
    if f.by_text:
        return f.t(
            "📡 Your location is out of date, and the round is still on. Please {steps}.",
            steps=by_text_steps(f),
        )
    return f.t(
        "📡 Your live location stopped, and the round is still on. Please share it again: "
        "📎 → Location → Share My Live Location → 8 hours."
    )


@text("chat.live_quiet")
def _live_quiet(p: Params, f: Formatter) -> str:
    if f.by_text:
        return f.t(
            "📡 I have had no location from you for {duration}, so it no longer counts. "
            "Please {steps}.",
            duration=f.duration(p["silent_s"]),
            steps=by_text_steps(f),
        )
    return f.t(
        "📡 Your live location has been silent for {duration}, so it no longer counts. Is it "
        "still on? Please share it again: 📎 → Location → Share My Live Location → 8 hours.",
        duration=f.duration(p["silent_s"]),
    )


def silent_seekers(names: list[str], f: Formatter) -> str:
    """For the hider's /track: the seekers whose location no longer counts."""
    return f.t(
        "🔕 Silent, their location too old to count: {names}. They can't start the end game "
        "until they share it again (I've asked them).",
        names=", ".join(names),
    )
