"""The SMS gateway's webhooks (Twilio's form POSTs): an inbound text and a delivery status.

Each request must carry the gateway's signature over the public URL and the form
(``X-Twilio-Signature``, checked with twilio's ``RequestValidator``); a missing or wrong one
gets 403 and changes nothing. The body is capped (413), the form must be a proper one (400).
An inbound text is answered with an empty TwiML response once it is stored in the inbox; a
status is recorded before 200. Nothing in an answer or a log line echoes the request.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from twilio.request_validator import (
    HMAC_SHA1,
    HMAC_SHA256,
    SIGNATURE_HEADER,
    SIGNATURE_SETTINGS_HEADER,
    RequestValidator,
    get_signature_algorithm,
)

from hideseek_chat.web.server import capped_body

log = logging.getLogger(__name__)

#: The largest form accepted (a text is at most 1600 characters; Twilio adds ~30 fields).
MAX_BODY_BYTES = 32_000
#: Fields a form may have (Twilio sends about 30, and 10 media URLs at most).
MAX_FIELDS = 100
#: The longest text taken (Twilio's own limit on a concatenated message).
MAX_TEXT = 1600
#: A message id: Twilio's are "SM" or "MM" and 32 hex digits.
SID = re.compile(r"^[A-Za-z0-9]{2,64}$")
STATUS = re.compile(r"^[a-z_-]{1,24}$")
EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>'

#: ``receive(message_sid, from_number, body, photos, media_count)``: ``photos`` the URLs of
#: the MMS's images (the gateway's own), ``media_count`` how many media came in all
ReceiveSms = Callable[[str, str, str, tuple[str, ...], int], Awaitable[object]]
#: The longest media URL taken.
MAX_URL = 500
RecordStatus = Callable[[str, str], Awaitable[object]]
#: ``media(token)``: a texted picture's content type and bytes, None when unknown
Media = Callable[[str], Awaitable[tuple[str, bytes] | None]]
#: What a media token looks like (``secrets.token_urlsafe(24)``).
MEDIA_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


@dataclass(frozen=True)
class SmsWebhook:
    """Where the gateway posts: ``public_url`` is the base the gateway is given
    (``https://bot.example.org``); the routes are ``path`` and ``status_path`` under it."""

    public_url: str
    auth_token: str
    path: str = "/sms"
    status_path: str = "/sms/status"

    def url(self, path: str) -> str:
        return self.public_url.rstrip("/") + "/" + path.lstrip("/")


async def _signed_form(
    request: Request, url: str, validator: RequestValidator
) -> dict[str, str] | Response:
    """The request's form when its size, shape and signature are right, else the answer."""
    signature = request.headers.get(SIGNATURE_HEADER, "")
    if not signature or len(signature) > 200:
        return PlainTextResponse("forbidden", status_code=403)
    body = await capped_body(request, MAX_BODY_BYTES)
    if body is None:
        return PlainTextResponse("too large", status_code=413)
    try:
        pairs = parse_qsl(
            body.decode("utf-8"),
            keep_blank_values=True,
            strict_parsing=bool(body),
            max_num_fields=MAX_FIELDS,
        )
    except (ValueError, UnicodeDecodeError):
        return PlainTextResponse("not a form", status_code=400)
    form = dict(pairs)
    if len(form) != len(pairs):
        return PlainTextResponse("not a form", status_code=400)  # a field twice
    algorithm = get_signature_algorithm(request.headers.get(SIGNATURE_SETTINGS_HEADER, ""))
    if algorithm.upper() not in (HMAC_SHA1, HMAC_SHA256):
        return PlainTextResponse("forbidden", status_code=403)
    query = request.url.query  # the gateway signs the URL as it was given, query and all
    if not validator.validate(f"{url}?{query}" if query else url, form, signature, algorithm):
        return PlainTextResponse("forbidden", status_code=403)
    return form


def _media_count(form: dict[str, str]) -> int | None:
    raw = form.get("NumMedia", "0") or "0"
    if not raw.isdigit() or len(raw) > 2 or int(raw) > 10:
        return None
    return int(raw)


def _photos(form: dict[str, str], count: int) -> tuple[str, ...] | None:
    """The URLs of the images among the ``count`` media; None when one is malformed."""
    photos: list[str] = []
    for i in range(count):
        url = form.get(f"MediaUrl{i}", "")
        parts = urlsplit(url)
        if len(url) > MAX_URL or parts.scheme not in ("https", "http") or not parts.hostname:
            return None
        if form.get(f"MediaContentType{i}", "").lower().startswith("image/"):
            photos.append(url)
    return tuple(photos)


def sms_routes(
    webhook: SmsWebhook,
    receive: ReceiveSms,
    record_status: RecordStatus,
    media: Media | None = None,
) -> list[Route]:
    """The inbound text route and the delivery status route; with ``media``, the texted
    pictures at ``/sms/media/<token>`` (the gateway fetches them to forward an MMS)."""
    validator = RequestValidator(webhook.auth_token)
    inbound_url = webhook.url(webhook.path)
    status_url = webhook.url(webhook.status_path)

    async def inbound(request: Request) -> Response:
        form = await _signed_form(request, inbound_url, validator)
        if isinstance(form, Response):
            return form
        sid = form.get("MessageSid") or form.get("SmsSid") or ""
        sender = form.get("From", "")
        media = _media_count(form)
        photos = _photos(form, media) if media is not None else None
        if not SID.match(sid) or not sender or media is None or photos is None:
            return PlainTextResponse("not a message", status_code=400)
        body = form.get("Body", "")[:MAX_TEXT]
        await receive(sid, sender, body, photos, media)
        return Response(EMPTY_TWIML, media_type="text/xml")

    async def status(request: Request) -> Response:
        form = await _signed_form(request, status_url, validator)
        if isinstance(form, Response):
            return form
        sid = form.get("MessageSid") or form.get("SmsSid") or ""
        state = (form.get("MessageStatus") or form.get("SmsStatus") or "").lower()
        if not SID.match(sid) or not STATUS.match(state):
            return PlainTextResponse("not a status", status_code=400)
        await record_status(sid, state)
        return Response(status_code=204)

    async def picture(request: Request) -> Response:
        token = request.path_params["token"]
        found = await media(token) if media is not None and MEDIA_TOKEN.match(token) else None
        if found is None:
            return PlainTextResponse("not found", status_code=404)
        kind, data = found
        return Response(data, media_type=kind, headers={"Cache-Control": "private, max-age=3600"})

    routes = [
        Route("/" + webhook.path.lstrip("/"), inbound, methods=["POST"]),
        Route("/" + webhook.status_path.lstrip("/"), status, methods=["POST"]),
    ]
    if media is not None:
        routes.append(Route("/sms/media/{token}", picture, methods=["GET"]))
    return routes
