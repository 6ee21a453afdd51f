"""A picture texted in (MMS), fetched from the gateway with its credentials.

Twilio's media URLs want HTTP basic auth (account SID, auth token) and redirect to storage
elsewhere; httpx drops the credentials on a redirect to another host. The picture must say
it is an image (JPEG, PNG, GIF, WebP), be at most ``MAX_BYTES`` (by its Content-Length and
while it streams) and arrive within ``TIMEOUT`` seconds per step. Failures are a
``MediaError`` whose ``reason`` is all a log line carries (never the URL).
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

#: The largest picture taken (Twilio's own MMS limit is 5 MB).
MAX_BYTES = 5 * 1024 * 1024
#: Seconds for connecting, and between two chunks of the body.
TIMEOUT = 10.0
IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


class MediaError(Exception):
    """The picture could not be taken: ``reason`` is one of ``unreachable``, ``refused``,
    ``too_large`` and ``not_an_image``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Media:
    content_type: str
    data: bytes


def fetch(
    url: str,
    account_sid: str,
    auth_token: str,
    *,
    max_bytes: int = MAX_BYTES,
    timeout: float = TIMEOUT,
) -> Media:
    """The picture at ``url`` (blocking: call it in a thread)."""
    try:
        with (
            httpx.Client(
                auth=(account_sid, auth_token),
                timeout=timeout,
                follow_redirects=True,
                max_redirects=3,
            ) as client,
            client.stream("GET", url) as response,
        ):
            if response.status_code != 200:
                raise MediaError("refused")
            kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if kind not in IMAGE_TYPES:
                raise MediaError("not_an_image")
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise MediaError("too_large")
            data = bytearray()
            for chunk in response.iter_bytes():
                data += chunk
                if len(data) > max_bytes:
                    raise MediaError("too_large")
    except httpx.HTTPError:
        raise MediaError("unreachable") from None
    return Media(kind, bytes(data))
