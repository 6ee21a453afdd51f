"""The SMS gateway's REST API through the twilio library: one method, ``send``.

``base_url`` points the client at another Twilio-compatible API (a fake one in tests). The
library's HTTP log lines would carry numbers and texts, so its logger is kept quiet.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from requests.adapters import HTTPAdapter
from requests.utils import get_environ_proxies
from twilio.base.exceptions import TwilioException, TwilioRestException
from twilio.http.http_client import TwilioHttpClient
from twilio.rest import Client

#: Seconds one request to the gateway may take.
TIMEOUT = 10.0
#: Connections to the gateway kept open (at least the sending threads).
POOL = 32

_QUIET = logging.getLogger("hideseek_chat.sms.gateway.http")
_QUIET.setLevel(logging.WARNING)
_QUIET.propagate = False


class GatewayError(Exception):
    """The gateway did not take the text: ``permanent`` when trying again cannot help (a
    number it refuses, an opted-out recipient), else a network or server failure."""

    def __init__(self, reason: str, *, permanent: bool) -> None:
        super().__init__(reason)
        self.permanent = permanent


@dataclass(frozen=True)
class GatewaySettings:
    account_sid: str
    auth_token: str
    sender: str  # the number (or messaging service) the texts come from
    status_url: str | None = None  # where the gateway reports each text's delivery
    base_url: str | None = None  # another API than Twilio's (tests: the fake gateway)


class Gateway:
    """Texts out through the gateway's Messages API (blocking: call it in a thread)."""

    def __init__(self, settings: GatewaySettings) -> None:
        self.settings = settings
        api = (settings.base_url or "https://api.twilio.com").rstrip("/")
        # The environment's proxy and CA bundle are read once here, not on every send
        # (requests scans the environment on every request otherwise).
        http = TwilioHttpClient(
            timeout=TIMEOUT, logger=_QUIET, proxy=get_environ_proxies(api) or None
        )
        session = http.session
        assert session is not None  # pool_connections: one session, its connections kept
        # What requests would read from the environment for this API (its CA bundle), once.
        session.verify = session.merge_environment_settings(api, {}, None, True, None)["verify"]
        session.trust_env = False
        for scheme in ("https://", "http://"):  # a kept connection for each sending thread
            session.mount(scheme, HTTPAdapter(pool_maxsize=POOL))
        self.client = Client(settings.account_sid, settings.auth_token, http_client=http)
        if settings.base_url:
            self.client.api.base_url = api

    def send(self, to: str, body: str, photo: str | None = None) -> str:
        """Send ``body`` to the E.164 number ``to`` (with the image at the URL ``photo``, as
        MMS); return the gateway's message id."""
        extra: dict[str, object] = {}
        if self.settings.status_url:
            extra["status_callback"] = self.settings.status_url
        if photo is not None:
            extra["media_url"] = [photo]
        try:
            message = self.client.messages.create(
                to=to, from_=self.settings.sender, body=body, **extra
            )
        except TwilioRestException as err:
            permanent = 400 <= err.status < 500 and err.status != 429
            raise GatewayError(f"HTTP {err.status} code {err.code}", permanent=permanent) from None
        except (TwilioException, OSError) as err:
            raise GatewayError(type(err).__name__, permanent=False) from None
        return str(message.sid or "")
