"""A Bot API that never touches the network, and a conversation that follows a script."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from telegram.request import BaseRequest, RequestData

from hideseek_chat.chat.clock import GameClock
from hideseek_chat.chat.model import Inbound, Outbound
from hideseek_chat.chat.pacing import Pacer
from hideseek_chat.telegram.limits import PacingLimiter
from tests.telegram.factories import BOT_ID, BOT_USERNAME, SENT_AT, chat
from tests.telegram.fake_botapi import admin_member

BOT_USER = {
    "id": BOT_ID,
    "is_bot": True,
    "first_name": "Referee",
    "username": BOT_USERNAME,
    "can_join_groups": True,
    "can_read_all_group_messages": False,
    "supports_inline_queries": False,
}

#: The bot as a group admin allowed everything the game uses (``getChatMember``).
ADMIN_MEMBER = admin_member(BOT_USER)
#: The bot as a plain member of a group (not an admin).
PLAIN_MEMBER: dict[str, Any] = {"status": "member", "user": BOT_USER}


class VirtualTime:
    """Seconds that pass only when someone waits: the send limits' clock in tests, so that
    pacing is exercised without waiting on the wall clock."""

    def __init__(self) -> None:
        self.now = 0.0
        self.waited: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waited.append(seconds)
        self.now += seconds


def virtual_limiter(time: VirtualTime | None = None) -> PacingLimiter:
    """The bot's own rate limiter on virtual time."""
    time = time or VirtualTime()
    return PacingLimiter(Pacer(time.clock), sleep=time.sleep)


@dataclass(frozen=True)
class Call:
    method: str
    params: dict[str, Any]


class FixedClock(GameClock):
    """A game clock that always says ``at``."""

    def __init__(self, at: datetime) -> None:
        super().__init__()
        self.at = at

    def now(self) -> datetime:
        return self.at


class RecordingRequest(BaseRequest):
    """Answer Bot API calls with canned successes and record them; refuse anything else.

    ``fail(method, code, description)`` makes the next call of ``method`` fail like Telegram
    does. A method without a canned answer is recorded in ``unexpected``, which the fixture
    asserts empty, so no test passes by accident while the bot calls something new.
    """

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.unexpected: list[str] = []
        self.files: dict[str, bytes] = {}
        self._failures: dict[str, list[tuple[int, str, int | None]]] = {}
        self._message_ids = itertools.count(9000)
        #: what ``getChatMember`` says of the bot: an admin with every right by default
        self.bot_member: dict[str, Any] = dict(ADMIN_MEMBER)

    @property
    def read_timeout(self) -> float | None:
        return None

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass

    def fail(self, method: str, code: int, description: str, chat_id: int | None = None) -> None:
        """Fail the next call of ``method`` (with ``chat_id``: the next one to that chat)."""
        self._failures.setdefault(method, []).append((code, description, chat_id))

    def sent(self, method: str) -> list[dict[str, Any]]:
        """The parameters of every call of ``method``, in order."""
        return [c.params for c in self.calls if c.method == method]

    @property
    def methods(self) -> list[str]:
        return [c.method for c in self.calls if c.method != "getMe"]

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = None,
        write_timeout: Any = None,
        connect_timeout: Any = None,
        pool_timeout: Any = None,
    ) -> tuple[int, bytes]:
        if "/file/bot" in url:
            path = url.split("/file/bot", 1)[1].split("/", 1)[1]
            self.calls.append(Call("download", {"path": path}))
            return 200, self.files[path]
        name = url.rsplit("/", 1)[-1]
        params = dict(request_data.parameters) if request_data is not None else {}
        if request_data is not None and request_data.multipart_data:
            # an uploaded file (a generated picture): keep its bytes for the test to read
            params["_uploads"] = {
                field: upload[1] for field, upload in request_data.multipart_data.items()
            }
        self.calls.append(Call(name, params))
        for failure in self._failures.get(name, []):
            code, description, chat_id = failure
            if chat_id is None or str(params.get("chat_id")) == str(chat_id):
                self._failures[name].remove(failure)
                body = {"ok": False, "error_code": code, "description": description}
                return code, json.dumps(body).encode()
        answer = getattr(self, f"_answer_{name}", None)
        if answer is None:
            self.unexpected.append(name)
            raise AssertionError(f"the bot called {name}, which no test expects")
        return 200, json.dumps({"ok": True, "result": answer(params)}).encode()

    # ----- canned answers, one per endpoint the adapter may call

    def _sent_message(self, params: dict[str, Any], **content: Any) -> dict[str, Any]:
        return {
            "message_id": next(self._message_ids),
            "date": int(SENT_AT.timestamp()),
            "chat": chat(int(params["chat_id"])),
            "from": BOT_USER,
            **content,
        }

    def _answer_getMe(self, params: dict[str, Any]) -> Any:
        return BOT_USER

    def _answer_sendMessage(self, params: dict[str, Any]) -> Any:
        return self._sent_message(params, text=params["text"])

    def _answer_sendPhoto(self, params: dict[str, Any]) -> Any:
        photo = params.get("photo") or "uploaded"  # an upload travels as multipart data
        size = {"file_id": photo, "file_unique_id": "p", "width": 1, "height": 1}
        return self._sent_message(params, photo=[size], caption=params.get("caption", ""))

    def _answer_sendDocument(self, params: dict[str, Any]) -> Any:
        document = {"file_id": "doc", "file_unique_id": "d", "file_name": "uploaded"}
        return self._sent_message(params, document=document, caption=params.get("caption", ""))

    def _answer_editMessageText(self, params: dict[str, Any]) -> Any:
        return self._sent_message(params, text=params["text"]) | {
            "message_id": int(params["message_id"])
        }

    def _answer_getFile(self, params: dict[str, Any]) -> Any:
        file_id = params["file_id"]
        return {
            "file_id": file_id,
            "file_unique_id": f"u-{file_id}",
            "file_size": len(self.files.get(f"documents/{file_id}", b"")),
            "file_path": f"documents/{file_id}",
        }

    def _answer_true(self, params: dict[str, Any]) -> Any:
        return True

    def _answer_getChatMember(self, params: dict[str, Any]) -> Any:
        return self.bot_member

    _answer_pinChatMessage = _answer_true
    _answer_unpinChatMessage = _answer_true
    _answer_deleteMessage = _answer_true
    _answer_answerCallbackQuery = _answer_true
    _answer_setMyCommands = _answer_true
    _answer_editMessageReplyMarkup = _answer_true


@dataclass(frozen=True)
class Delivery:
    """Shaped like ``hideseek_chat.chat.conversation.Delivery``: all the adapter reads."""

    id: int
    actions: tuple[Outbound, ...]


@dataclass
class FakeConversation:
    """Record what the adapter hands over; answer with scripted replies and outbox entries."""

    replies: list[list[Outbound]] = field(default_factory=list)
    outbox: list[Delivery] = field(default_factory=list)
    notices: list[Outbound] = field(default_factory=list)
    statuses: dict[str, str] = field(default_factory=dict)
    #: the forum topic each group's game lives in (``topic_of``)
    topics: dict[str, str] = field(default_factory=dict)
    inbound: list[Inbound] = field(default_factory=list)
    delivered_ids: list[int] = field(default_factory=list)
    ticks: list[datetime] = field(default_factory=list)
    unreachable_refs: list[str] = field(default_factory=list)
    bot_names: list[str] = field(default_factory=list)
    #: no map jobs here (the drive loop starts none), nor pictures to draw
    has_map_jobs: bool = False
    pictures_queued: bool = False
    draws_pictures: bool = True

    def named(self, bot_name: str) -> FakeConversation:
        """The factory the adapter calls with the bot's username."""
        self.bot_names.append(bot_name)
        return self

    def handle(self, msg: Inbound, payload: str | None = None) -> list[Outbound]:
        self.inbound.append(msg)
        return self.replies.pop(0) if self.replies else []

    def outbox_games(self) -> list[int]:
        """One game, while anything is undelivered."""
        return [1] if any(d.id not in self.delivered_ids for d in self.outbox) else []

    def claim_outbox(self, game_id: int, holder: str, wall: datetime) -> bool:
        return True

    def release_outbox(self, game_id: int, holder: str) -> None:
        pass

    def outgoing(
        self, now: datetime, limit: int = 50, game_id: int | None = None
    ) -> list[Delivery]:
        return [d for d in self.outbox if d.id not in self.delivered_ids][:limit]

    def delivered(self, delivery_id: int, now: datetime) -> None:
        self.delivered_ids.append(delivery_id)

    def unreachable(self, ref: str, now: datetime) -> list[Outbound]:
        self.unreachable_refs.append(ref)
        return list(self.notices)

    def tick(self, now: datetime, limit: int | None = None) -> int:
        self.ticks.append(now)
        return 0

    def run_picture_job(self, clock: Callable[[], datetime]) -> bool:
        return False

    def status_ref(self, chat: str, slot: str = "status") -> str | None:
        return self.statuses.get(chat if slot == "status" else f"{chat} {slot}")

    def topic_of(self, chat: str) -> str | None:
        return self.topics.get(chat)

    def remember_status(
        self, chat: str, message_ref: str, now: datetime, slot: str = "status"
    ) -> None:
        self.statuses[chat if slot == "status" else f"{chat} {slot}"] = message_ref
