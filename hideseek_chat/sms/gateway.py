"""The SMS gateway's REST API through the twilio library: one method, ``send``.

``base_url`` points the client at another Twilio-compatible API (a fake one in tests). The
library's HTTP log lines would carry numbers and texts, so its logger is kept quiet.

The library's requests go through ``PooledHttp``, an ``HttpClient`` on urllib3's connection
pool (the one requests itself uses underneath): requests prepared each send anew, merged
settings and hooks, which cost more CPU than the rest of a reply's way out.
"""

from __future__ import annotations

import base64
import json
import logging
from dataclasses import dataclass
from urllib.parse import urlencode

import certifi
import urllib3
from requests import Session
from requests.utils import get_environ_proxies
from twilio.base.exceptions import TwilioException, TwilioRestException
from twilio.http import HttpClient
from twilio.http.response import Response
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


class PooledHttp(HttpClient):
    """twilio's ``HttpClient`` on one urllib3 pool: kept connections (``POOL``, one for
    each sending thread), the proxy and CA bundle requests would read from the environment
    for ``api``, read once. Blocking and thread-safe."""

    def __init__(self, api: str, timeout: float | None = None) -> None:
        super().__init__(_QUIET, False, timeout or TIMEOUT)
        verify = Session().merge_environment_settings(api, {}, None, True, None)["verify"]
        checks = "CERT_NONE" if verify is False else "CERT_REQUIRED"
        bundle = None if verify is False else _ca_bundle(verify)
        proxy = (get_environ_proxies(api) or {}).get(api.split(":", 1)[0])
        self.pool: urllib3.PoolManager = (
            urllib3.ProxyManager(proxy, maxsize=POOL, cert_reqs=checks, ca_certs=bundle)
            if proxy
            else urllib3.PoolManager(maxsize=POOL, cert_reqs=checks, ca_certs=bundle)
        )

    def request(
        self,
        method: str,
        uri: str,
        params: dict[str, object] | None = None,
        data: dict[str, object] | None = None,
        headers: dict[str, str] | None = None,
        auth: tuple[str, str] | None = None,
        timeout: float | None = None,
        allow_redirects: bool = False,
    ) -> Response:
        sent = dict(headers or {})
        if auth is not None:
            pair = f"{auth[0]}:{auth[1]}".encode()
            sent["Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
        if params:
            uri += ("&" if "?" in uri else "?") + urlencode(params, doseq=True)
        body: bytes | None = None
        if data is not None:
            if sent.get("Content-Type", "").endswith("json"):
                body = json.dumps(data).encode()
            else:
                body = urlencode(data, doseq=True).encode()
                sent.setdefault("Content-Type", "application/x-www-form-urlencoded")
        try:
            answer = self.pool.request(
                method.upper(),
                uri,
                body=body,
                headers=sent,
                timeout=timeout or self.timeout,
                redirect=allow_redirects,
                retries=False,
            )
        except urllib3.exceptions.HTTPError as err:  # refused, reset, timed out, bad TLS
            raise OSError(type(err).__name__) from None
        text = answer.data.decode("utf-8", errors="replace")
        return Response(answer.status, text, answer.headers)


def _ca_bundle(verify: object) -> str:
    """The CA bundle requests would use: its environment's, else certifi's."""
    return verify if isinstance(verify, str) else certifi.where()


class Gateway:
    """Texts out through the gateway's Messages API (blocking: call it in a thread)."""

    def __init__(self, settings: GatewaySettings) -> None:
        self.settings = settings
        api = (settings.base_url or "https://api.twilio.com").rstrip("/")
        self.client = Client(
            settings.account_sid, settings.auth_token, http_client=PooledHttp(api)
        )
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
