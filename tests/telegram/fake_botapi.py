"""A fake Telegram Bot API on 127.0.0.1 that behaves like Telegram where delivery is concerned.

- Long polling: ``getUpdates`` answers the queued updates from ``offset`` on; an ``offset``
  confirms every earlier update, which is then gone for good. Unconfirmed updates come
  again with every call. ``on_confirm`` runs at the moment of a confirmation, before the
  answer (a test kills the bot there).
- Webhook: ``deliver`` POSTs an update to the bot's webhook with the secret header and
  counts it delivered on a 2xx only; anything else (refused, 5xx, timeout) is delivered
  again later, as Telegram does. ``on_ack`` runs at the moment of a 2xx.
- Every other method answers like Telegram (a Message for sends, True for the rest) and is
  recorded, so a test can count what the bot sent.

It is a real HTTP server (the standard library's, threaded) that the bot reaches through
its ordinary HTTP client (``TELEGRAM_BASE_URL``).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl

BOT_ID = 7_000_002
TOKEN = f"{BOT_ID}:AAE-chaos_token_0123456789abcdefghijklmno"
BOT_USER = {
    "id": BOT_ID,
    "is_bot": True,
    "first_name": "Referee",
    "username": "HideSeekChaosBot",
    "can_join_groups": True,
    "can_read_all_group_messages": True,
    "supports_inline_queries": False,
}


def admin_member(user: dict[str, Any]) -> dict[str, Any]:
    """``user`` as a group admin allowed everything the game uses (``getChatMember``)."""
    return {
        "status": "administrator",
        "user": user,
        "can_be_edited": False,
        "is_anonymous": False,
        "can_manage_chat": True,
        "can_delete_messages": True,
        "can_manage_video_chats": False,
        "can_restrict_members": False,
        "can_promote_members": False,
        "can_change_info": False,
        "can_invite_users": True,
        "can_post_stories": False,
        "can_edit_stories": False,
        "can_delete_stories": False,
        "can_pin_messages": True,
    }


#: The bot as a group admin allowed everything the game uses.
ADMIN_MEMBER = admin_member(BOT_USER)
#: The bot as a plain member of a group (not an admin).
PLAIN_MEMBER: dict[str, Any] = {"status": "member", "user": BOT_USER}
SENDS = frozenset({"sendMessage", "sendPhoto", "sendDocument", "sendLocation"})


@dataclass
class Sent:
    """A call the bot made: its method and parameters (JSON values decoded)."""

    method: str
    params: dict[str, Any]


@dataclass
class FakeBotApi:
    """See the module docstring; ``start`` serves it, ``stop`` ends it."""

    calls: list[Sent] = field(default_factory=list)
    queue: list[dict[str, Any]] = field(default_factory=list)
    confirmed: list[int] = field(default_factory=list)
    on_confirm: Callable[[list[int]], None] | None = None
    poll_wait: float = 0.2  # how long an empty getUpdates waits (Telegram: up to timeout)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _message_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _server: ThreadingHTTPServer | None = None
    polls: int = 0
    #: what ``getMe`` says of the bot (privacy mode off by default)
    me: dict[str, Any] = field(default_factory=lambda: dict(BOT_USER))
    #: what ``getChatMember`` says of the bot (an admin allowed everything by default)
    bot_member: dict[str, Any] = field(default_factory=lambda: dict(ADMIN_MEMBER))
    base_url: str = ""  # set by ``start``

    # ------------------------------------------------------------------ serving

    def start(self) -> str:
        """Serve on a free port of 127.0.0.1; return the base URL for TELEGRAM_BASE_URL."""
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                method = self.path.rsplit("/", 1)[-1]
                params = _params(self.headers.get("content-type", ""), body)
                result = api.answer(method, params)
                if result is _DIED:
                    self.close_connection = True
                    return
                data = json.dumps({"ok": True, "result": result}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/bot"
        return self.base_url

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # ------------------------------------------------------------------ the API

    def answer(self, method: str, params: dict[str, Any]) -> Any:
        if method == "getUpdates":
            return self._get_updates(params)
        with self._lock:
            self.calls.append(Sent(method, params))
            message_id = next(self._message_ids)
        if method == "getMe":
            return self.me
        if method in SENDS or method == "editMessageText":
            chat_id = int(params.get("chat_id", 0))
            kind = "supergroup" if chat_id < 0 else "private"
            return {
                "message_id": message_id,
                "date": int(time.time()),
                "chat": {"id": chat_id, "type": kind, "title": "Chaos"}
                if chat_id < 0
                else {"id": chat_id, "type": kind, "first_name": "P"},
                "text": str(params.get("text", "")),
            }
        if method == "getChatMember":
            return self.bot_member
        return True

    def _get_updates(self, params: dict[str, Any]) -> Any:
        offset = params.get("offset")
        with self._lock:
            self.polls += 1
            newly: list[int] = []
            if offset is not None:
                newly = [u["update_id"] for u in self.queue if u["update_id"] < int(offset)]
                self.queue = [u for u in self.queue if u["update_id"] >= int(offset)]
                self.confirmed.extend(newly)
            waiting = list(self.queue[:100])
        if newly and self.on_confirm is not None:
            self.on_confirm(newly)  # the bot may be dead from here on
            return _DIED
        if not waiting:
            time.sleep(self.poll_wait)
        return waiting

    def sent(self, method: str | None = None) -> list[Sent]:
        with self._lock:
            return [c for c in self.calls if method is None or c.method == method]

    def messages(self) -> list[tuple[int, str]]:
        """``(chat_id, text)`` of every message the bot sent, in order."""
        return [
            (int(c.params.get("chat_id", 0)), str(c.params.get("text", "")))
            for c in self.sent()
            if c.method == "sendMessage"
        ]

    def put(self, updates: list[dict[str, Any]]) -> None:
        """Queue updates for getUpdates."""
        with self._lock:
            self.queue.extend(updates)


_DIED = object()


def _params(content_type: str, body: bytes) -> dict[str, Any]:
    """The call's parameters: form fields (JSON-encoded values decoded) or a JSON body."""
    if not body:
        return {}
    if content_type.startswith("application/json"):
        loaded = json.loads(body)
        return loaded if isinstance(loaded, dict) else {}
    if content_type.startswith("multipart/"):
        return {}  # an uploaded picture: its parameters are not needed here
    params: dict[str, Any] = {}
    for key, value in parse_qsl(body.decode(), keep_blank_values=True):
        try:
            params[key] = json.loads(value)
        except ValueError:
            params[key] = value
    return params


def post_update(url: str, secret: str, update: dict[str, Any], timeout: float = 10.0) -> int:
    """POST ``update`` to a webhook like Telegram; the HTTP status, or 0 when unreachable."""
    request = urllib.request.Request(
        url,
        data=json.dumps(update).encode(),
        headers={
            "content-type": "application/json",
            "X-Telegram-Bot-Api-Secret-Token": secret,
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as err:
        return int(err.code)
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return 0
