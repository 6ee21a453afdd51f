"""Every action the Bot API is asked to perform is counted by its result, each 429 once,
and each handled update by its kind (``hideseek_chat.metrics``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from telegram.request import RequestData

from hideseek_chat import metrics
from hideseek_chat.chat.model import SendText
from hideseek_chat.telegram.bot import build_application
from tests.telegram.conftest import GAME_NOW
from tests.telegram.factories import GROUP, TOKEN, make_command, make_location
from tests.telegram.fakes import FakeConversation, FixedClock, RecordingRequest, virtual_limiter

G = f"tg:{GROUP}"


class FloodingApi(RecordingRequest):
    """A recording Bot API that answers the next ``floods`` sendMessage calls with 429."""

    floods = 0

    async def do_request(
        self, url: str, method: str, request_data: RequestData | None = None, **kw: Any
    ) -> tuple[int, bytes]:
        if url.endswith("/sendMessage") and self.floods > 0:
            self.floods -= 1
            body = {
                "ok": False,
                "error_code": 429,
                "description": "Too Many Requests: retry after 3",
                "parameters": {"retry_after": 3},
            }
            return 429, json.dumps(body).encode()
        return await super().do_request(url, method, request_data, **kw)


def count(fresh: metrics.Metrics, name: str, **labels: str) -> float:
    value = fresh.registry.get_sample_value(name, labels)
    return 0.0 if value is None else value


async def test_sends_are_counted_by_result(
    fresh_metrics: metrics.Metrics, monkeypatch: pytest.MonkeyPatch
) -> None:
    # python-telegram-bot's opt-in to its next RetryAfter (a timedelta), without its warning
    monkeypatch.setenv("PTB_TIMEDELTA", "1")
    api = FloodingApi()
    conversation = FakeConversation()
    app = build_application(
        TOKEN, FixedClock(GAME_NOW), conversation.named, request=api, limiter=virtual_limiter()
    )
    await app.initialize()
    try:
        api.fail("sendMessage", 400, "Bad Request: message to reply not found")
        api.fail("sendMessage", 403, "Forbidden: bot was blocked by the user", chat_id=42)
        conversation.replies.append(
            [
                SendText(G, text="refused", reply_to="999"),
                SendText("tg:42", text="your hand", private=True),
                SendText(G, text="fine"),
                SendText("sms:+15550100", text="another channel"),
            ]
        )
        await app.process_update(make_command(app.bot, "/status"))
        assert count(fresh_metrics, "hideseek_sends_total", result="refused") == 1
        assert count(fresh_metrics, "hideseek_sends_total", result="unreachable") == 1
        assert count(fresh_metrics, "hideseek_sends_total", result="failed") == 1
        assert count(fresh_metrics, "hideseek_sends_total", result="ok") == 1

        api.fail("sendMessage", 502, "Bad Gateway")
        conversation.replies.append([SendText(G, text="network"), SendText(G, text="later")])
        await app.process_update(make_command(app.bot, "/status"))
        assert count(fresh_metrics, "hideseek_sends_total", result="retry") == 1

        api.floods = 4  # the first try and 3 retries: the limiter gives up
        conversation.replies.append([SendText(G, text="flood")])
        await app.process_update(make_command(app.bot, "/status"))
        assert count(fresh_metrics, "hideseek_sends_total", result="429") == 1
        assert count(fresh_metrics, "hideseek_telegram_429_total") == 4

        await app.process_update(make_location(app.bot, 36.1, -97.1))
        assert count(fresh_metrics, "hideseek_updates_handled_total", kind="command") == 3
        assert count(fresh_metrics, "hideseek_updates_handled_total", kind="location") == 1
        assert count(fresh_metrics, "hideseek_update_seconds_count", kind="location") == 1
    finally:
        await app.shutdown()
