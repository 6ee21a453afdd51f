"""python-telegram-bot's rate limiter, on the chat layer's sliding windows (``chat.pacing``).

Every Bot API call goes through ``process_request``: a call to a chat waits until the chat's
window (20 a minute in a group, about one a second in a private chat) and the overall one
(30 a second) have room; a 429 (``RetryAfter``) waits as long as Telegram asks and tries
again, at most ``max_retries`` times. ``getUpdates`` and the like are never held back.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

from hideseek_chat import metrics
from hideseek_chat.chat.pacing import Pacer

log = logging.getLogger(__name__)

#: Calls that are not messages: never paced.
UNPACED = frozenset(
    {
        "getUpdates",
        "getMe",
        "getFile",
        "setMyCommands",
        "setWebhook",
        "deleteWebhook",
        "getWebhookInfo",
        "close",
        "logOut",
    }
)
#: The longest 429 wait honoured before the call is given up (seconds).
MAX_RETRY_WAIT = 120.0


class PacingLimiter(BaseRateLimiter[int]):
    """See the module docstring. ``sleep`` and the pacer's clock are injectable (tests)."""

    def __init__(
        self,
        pacer: Pacer | None = None,
        *,
        max_retries: int = 3,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.pacer = pacer or Pacer()
        self.max_retries = max_retries
        self.sleep = sleep
        #: how many 429s Telegram answered (metrics)
        self.flood_waits = 0

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to tear down."""

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        """Wait for room, make the call; after a 429, wait as told and try again."""
        retries = self.max_retries if rate_limit_args is None else rate_limit_args
        chat, group = _chat_of(data)
        attempt = 0
        while True:
            if endpoint not in UNPACED:
                while (delay := self.pacer.reserve(chat, group)) > 0:
                    await self.sleep(delay)
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as flood:
                self.flood_waits += 1
                metrics.rate_limited()
                wait = retry_seconds(flood.retry_after)
                if attempt >= retries or wait > MAX_RETRY_WAIT:
                    raise
                attempt += 1
                log.warning("Telegram asked to wait %.0f s (%s); trying again", wait, endpoint)
                await self.sleep(wait)


def _chat_of(data: dict[str, Any]) -> tuple[str | None, bool]:
    """The chat a call goes to, and whether it is a group (a negative id or a @name)."""
    chat_id = data.get("chat_id")
    if chat_id is None:
        return None, False
    text = str(chat_id)
    return text, text.startswith(("-", "@"))


def retry_seconds(retry_after: Any) -> float:
    """``RetryAfter.retry_after`` as seconds (an int, or a timedelta in newer releases)."""
    seconds = getattr(retry_after, "total_seconds", None)
    return float(seconds() if callable(seconds) else retry_after)
