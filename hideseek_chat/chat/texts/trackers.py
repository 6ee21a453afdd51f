"""/tracker: a person's secret link for a GPS tracker app, and how to set each app up.

``tracker_text`` is the set-up screen (only ever sent to its owner's private chat: the link
moves their pin); ``source_label`` names where a pin came from on /status.
"""

from __future__ import annotations

from dataclasses import dataclass

from hideseek_chat.chat.i18n import N_, Formatter
from hideseek_chat.chat.texts.registry import plain_texts

plain_texts(
    {
        "chat.tracker_unavailable": N_(
            "📡 GPS tracker apps are not set up on this bot: its web address is not "
            "configured. Share your live location in Telegram instead."
        ),
        "chat.tracker_exists": N_(
            "📡 You have a tracker link already ({heard}). I only keep a fingerprint of it, "
            "so I cannot show it again. Press “New link” for a new one (the old one stops "
            "working at once), or “Turn off”."
        ),
        "chat.tracker_off": N_(
            "📡 Your tracker link is off: nothing sent to it counts any more. /tracker gives "
            "you a new one."
        ),
        "chat.tracker_none": N_("📡 You have no tracker link. /tracker gives you one."),
        "chat.tracker_qr": N_(
            "OwnTracks: scan this code with your phone's camera, or open the set-up link "
            "above on the phone itself."
        ),
        "chat.tracker_setup_link": N_(
            "OwnTracks: open this set-up link on the phone itself, and the app is set up:"
        ),
        "chat.tracker_encrypted": N_(
            "📡 Your OwnTracks app encrypts what it sends (an encryption key is set in its "
            "settings), so I cannot read your position and it does not count as your pin. "
            "Clear the encryption key in OwnTracks' settings, or open the set-up link from "
            "/tracker again on the phone: it clears the key."
        ),
        "chat.tracker_new_button": N_("🔄 New link"),
        "chat.tracker_off_button": N_("⛔ Turn off"),
    },
    partial=True,
)


@dataclass(frozen=True)
class TrackerLinks:
    """What each app is told: OwnTracks' URL and its set-up link, Traccar's and
    GPSLogger's URLs."""

    owntracks: str
    owntracks_setup: str
    traccar: str
    gpslogger: str


def tracker_text(links: TrackerLinks, fmt: Formatter) -> str:
    """The set-up screen for a new tracker link."""
    return "\n".join(
        [
            fmt.t(
                N_(
                    "📡 Your own tracker link. Keep it secret: whoever has it can move your "
                    "pin. A tracker app's pins count like a live location in Telegram, and "
                    "keep coming when Telegram's stop. If you hide, only the referee (this "
                    "bot) sees them."
                )
            ),
            "",
            fmt.t(
                N_(
                    "OwnTracks (Android, iPhone): open this set-up link on the phone, or scan "
                    "the code below:"
                )
            ),
            links.owntracks_setup,
            fmt.t(N_("Or by hand: Preferences → Connection → Mode “HTTP”, Host:")),
            links.owntracks,
            "",
            fmt.t(N_("Traccar Client: Settings → Server URL:")),
            links.traccar,
            fmt.t(N_("Set the frequency to 30 seconds or less and the accuracy to high.")),
            "",
            fmt.t(
                N_(
                    "GPSLogger (Android): Logging details → Log to custom URL, switch it on, "
                    "method GET, URL:"
                )
            ),
            links.gpslogger,
            "",
            fmt.t(
                N_(
                    "/tracker off turns the link off; /tracker reset gives you a new one "
                    "(the old one stops working)."
                )
            ),
        ]
    )


#: Each tracker app as /status names it (product names: not translated).
APPS = {"owntracks": "OwnTracks", "traccar": "Traccar", "gpslogger": "GPSLogger"}


def source_label(source: str, fmt: Formatter) -> str:
    """Where a pin came from, as /status names it: a live location, a tracker app, a pin."""
    if source == "live":
        return fmt.t(N_("live location"))
    if source.startswith("tracker"):
        app = source.partition(":")[2]
        return APPS.get(app, fmt.t(N_("tracker app")))
    return fmt.t(N_("pin"))


def heard_text(app: str | None, age_s: float | None, fmt: Formatter) -> str:
    """When the tracker was last heard from: "OwnTracks, 3 min ago" or "not heard yet"."""
    if app is None or age_s is None:
        return fmt.t(N_("not heard from yet"))
    return fmt.t(
        N_("last heard from {app} {age} ago"),
        app=APPS.get(app, app),
        age=fmt.duration(max(0.0, age_s)),
    )
