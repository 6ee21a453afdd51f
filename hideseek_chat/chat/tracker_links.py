"""Where each tracker app sends its pings: the URLs /tracker hands out and ``web.trackers``
serves, made in one place so the two always agree.

``{base}/trackers/{token}/owntracks`` (OwnTracks, HTTP mode: JSON), ``.../traccar`` (the
OsmAnd protocol of Traccar Client: query or form parameters, or Traccar Client 9's JSON)
and ``.../gpslogger`` (GPSLogger's custom URL, its placeholders filled in by the app).
"""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

from hideseek_chat.chat.texts import TrackerLinks

#: The path every tracker URL starts with.
PREFIX = "/trackers"
#: The apps, by the last part of their path.
APPS = ("owntracks", "traccar", "gpslogger")
#: GPSLogger's custom URL's query: its placeholders (``%LAT``...) are filled in by the app;
#: ``%SPD`` is in m/s, ``%TIMESTAMP`` in seconds since 1970.
GPSLOGGER_QUERY = "lat=%LAT&lon=%LON&acc=%ACC&spd=%SPD&time=%TIMESTAMP&batt=%BATT"


def links(base_url: str, token: str) -> TrackerLinks:
    """Each app's URL for the secret ``token`` on the server at ``base_url``."""
    root = f"{base_url.rstrip('/')}{PREFIX}/{token}"
    owntracks = f"{root}/owntracks"
    return TrackerLinks(
        owntracks=owntracks,
        owntracks_setup=owntracks_setup(owntracks),
        traccar=f"{root}/traccar",
        gpslogger=f"{root}/gpslogger?{GPSLOGGER_QUERY}",
    )


def owntracks_setup(url: str) -> str:
    """OwnTracks' configuration link: HTTP mode (``mode`` 3) posting to ``url``, without
    payload encryption (an encryption key set in the app makes its messages unreadable
    here)."""
    config = {"_type": "configuration", "mode": 3, "url": url, "encryptionKey": ""}
    inline = base64.b64encode(json.dumps(config, separators=(",", ":")).encode()).decode()
    return f"owntracks:///config?inline={quote(inline, safe='')}"
