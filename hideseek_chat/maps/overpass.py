"""A small Overpass API client: one method, retries, backoff, endpoint fallback.

``Overpass(endpoints, user_agent).query(ql)`` posts the query (form field ``data``) to the
first endpoint and returns the parsed JSON. The caller writes ``[out:json][timeout:N]``.

- 429, 502, 503, 504, timeouts and connection errors are retried with exponential backoff
  plus jitter; a ``Retry-After`` (seconds or an HTTP date) is honoured, capped by
  ``max_wait`` seconds;
- a 200 whose JSON carries an error ``remark`` ("runtime error: Query timed out ...") and
  a 200 that is not a JSON object are failures too, retried the same way;
- 400 (a bad query) is not retried: it would fail everywhere;
- after ``attempts`` tries on one endpoint the next endpoint (a mirror) gets its own tries;
- when every endpoint failed, :class:`MapFetchError` ``map.overpass_failed`` is raised with a
  short ``reason`` ("busy (429)", "timed out", "bad response", "server error (504)" ...).

Each failed attempt logs one line (endpoint host, attempt, reason), never the query.
"""

from __future__ import annotations

import email.utils
import functools
import json
import logging
import random
import ssl
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from hideseek_chat.maps.errors import MapFetchError

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 502, 503, 504})
_REMARK_ERRORS = ("error", "timed out", "out of memory")


class _Failure(Exception):
    """One failed attempt: its reason, whether to retry, and the server's wait if any."""

    def __init__(self, reason: str, *, retry: bool = True, wait: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry = retry
        self.wait = wait


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """Return a ``Retry-After`` header's wait in seconds (a number or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # Built once: reading the CA bundle takes some 40 ms, once per query otherwise.
    return httpx.create_ssl_context()


class Overpass:
    """An Overpass API client over one or more endpoints (the first is preferred)."""

    def __init__(
        self,
        endpoints: Sequence[str],
        user_agent: str,
        *,
        timeout: float = 180.0,
        attempts: int = 4,
        sleep: Callable[[float], None] = time.sleep,
        max_wait: float = 120.0,
        backoff: float = 2.0,
        jitter: Callable[[], float] = random.random,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not endpoints:
            raise ValueError("no Overpass endpoint configured")
        self.endpoints = tuple(endpoints)
        self.user_agent = user_agent
        self.timeout = timeout
        self.attempts = max(1, attempts)
        self.sleep = sleep
        self.max_wait = max_wait
        self.backoff = backoff
        self.jitter = jitter
        self._transport = transport

    def query(self, ql: str) -> dict[str, Any]:
        """Run one query; return its JSON. Raises ``MapFetchError("map.overpass_failed")``."""
        with httpx.Client(
            headers={"User-Agent": self.user_agent, "Accept": "application/json"},
            timeout=self.timeout,
            transport=self._transport,
            verify=_tls_context(),
        ) as client:
            return self._query(client, ql)

    def _query(self, client: httpx.Client, ql: str) -> dict[str, Any]:
        reason = "unreachable"
        for endpoint in self.endpoints:
            host = urlsplit(endpoint).netloc or endpoint
            for attempt in range(1, self.attempts + 1):
                try:
                    return self._attempt(client, endpoint, ql)
                except _Failure as failure:
                    reason = failure.reason
                    log.warning(
                        "overpass %s attempt %d/%d failed: %s",
                        host,
                        attempt,
                        self.attempts,
                        reason,
                    )
                    if not failure.retry:
                        if failure.reason.startswith("bad query"):
                            raise MapFetchError("map.overpass_failed", reason=reason) from None
                        break
                    if attempt < self.attempts:
                        self.sleep(self._wait(attempt, failure.wait))
        raise MapFetchError("map.overpass_failed", reason=reason)

    def _wait(self, attempt: int, server_wait: float | None) -> float:
        if server_wait is not None:
            return min(server_wait, self.max_wait)
        return min(self.backoff ** (attempt - 1) + self.jitter(), self.max_wait)

    def _attempt(self, client: httpx.Client, endpoint: str, ql: str) -> dict[str, Any]:
        try:
            response = client.post(endpoint, data={"data": ql})
        except httpx.TimeoutException:
            raise _Failure("timed out") from None
        except httpx.TransportError:
            raise _Failure("unreachable") from None
        status = response.status_code
        if status == 400:
            raise _Failure("bad query (400)", retry=False)
        wait = retry_after_seconds(response.headers.get("Retry-After"))
        if status == 429:
            raise _Failure("busy (429)", wait=wait)
        if status in RETRY_STATUSES:
            reason = "timed out (504)" if status == 504 else f"server error ({status})"
            raise _Failure(reason, wait=wait)
        if status != 200:
            raise _Failure(f"HTTP {status}", retry=False)
        try:
            data = json.loads(response.content)
        except ValueError:
            raise _Failure("bad response") from None
        if not isinstance(data, dict) or not isinstance(data.get("elements", []), list):
            raise _Failure("bad response")
        remark = str(data.get("remark") or "").lower()
        if any(word in remark for word in _REMARK_ERRORS):
            raise _Failure("timed out" if "timed out" in remark else "server error")
        return data
