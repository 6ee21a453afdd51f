"""Logging for the bot process: quiet libraries, one line per network failure, no personal data.

``setup()`` (the ``run`` and ``webhook`` commands) configures the root logger once:

- the level from ``HIDESEEK_LOG_LEVEL`` (default INFO); the libraries' chatter (httpx,
  python-telegram-bot, APScheduler's "Running job" every tick, uvicorn) at WARNING whatever
  that level, since at DEBUG they write whole requests: tokens, messages, locations;
- ``HIDESEEK_LOG_FORMAT=json``: one JSON object per line (``time``, ``level``, ``logger``,
  ``message``, ``exc`` for a traceback), else plain text;
- an expected network failure (a timeout, a connection refused, Telegram's
  ``NetworkError``) is one line with its reason, never a traceback;
- a number shaped like a coordinate (four or more decimals) is masked in every line, should
  one slip through an exception's message.

A log line names a person or a chat only as ``who(ref)``: a short salted hash, the same for
the same ref within one deployment (``HIDESEEK_LOG_SALT``), not the id itself.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import IO

#: Loggers that talk too much for an operator; kept at WARNING.
QUIET = ("httpx", "httpcore", "telegram", "apscheduler", "uvicorn", "hpack", "PIL", "alembic")
#: Exceptions (by class name, anywhere in their ancestry) that are an expected network
#: failure: logged as one line, without a traceback.
NETWORK_ERRORS = frozenset(
    {
        "NetworkError",  # telegram.error (TimedOut, BadRequest... are subclasses)
        "TransportError",  # httpx
        "TimeoutException",  # httpx
        "TimeoutError",
        "ConnectionError",
    }
)
#: A decimal with four or more decimals: a coordinate (36.1156, -97.0584) looks like this.
COORDINATE = re.compile(r"-?\b\d{1,3}\.\d{4,}")
PLAIN_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def who(ref: object) -> str:
    """A person or chat as a log line may name them: ``u:3fa9c1`` (a group: ``c:...``)."""
    text = str(ref)
    salt = os.environ.get("HIDESEEK_LOG_SALT", "hideseek-chat")
    digest = hashlib.sha256(f"{salt}\0{text}".encode()).hexdigest()[:6]
    number = text.rsplit(":", 1)[-1]
    return ("c:" if number.startswith(("-", "@")) else "u:") + digest


def is_network_error(err: BaseException) -> bool:
    """Whether ``err`` is an expected network failure (see ``NETWORK_ERRORS``)."""
    return any(cls.__name__ in NETWORK_ERRORS for cls in type(err).__mro__)


def one_line(err: BaseException) -> str:
    """``err`` as one short line: its class and the first line of its message."""
    text = str(err).splitlines()[0][:200] if str(err) else ""
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


class NetworkFailures(logging.Filter):
    """Turn a record carrying a network failure's traceback into one line with its reason."""

    def filter(self, record: logging.LogRecord) -> bool:
        info = record.exc_info
        if info and info[1] is not None and is_network_error(info[1]):
            record.msg = f"{record.getMessage()} ({one_line(info[1])})"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True


class _Masking(logging.Formatter):
    """A formatter that masks coordinate-shaped numbers in the finished line."""

    def format(self, record: logging.LogRecord) -> str:
        return COORDINATE.sub("<num>", super().format(record))


class JsonFormatter(_Masking):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message[, exc]."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exc"] = record.exc_text
        return COORDINATE.sub("<num>", json.dumps(entry, ensure_ascii=False))


class LogSettingsError(ValueError):
    """HIDESEEK_LOG_LEVEL or HIDESEEK_LOG_FORMAT is not one of the accepted values."""


def setup(
    env: Mapping[str, str] | None = None,
    *,
    stream: IO[str] | None = None,
    level: int | str | None = None,
) -> logging.Handler:
    """Configure the root logger from ``env`` (default the process's); return its handler.

    ``level`` overrides ``HIDESEEK_LOG_LEVEL``. Calling it again replaces the handler."""
    env = os.environ if env is None else env
    chosen = level if level is not None else env.get("HIDESEEK_LOG_LEVEL", "").strip() or "INFO"
    if isinstance(chosen, str):
        number = logging.getLevelNamesMapping().get(chosen.upper())
        if number is None:
            raise LogSettingsError(
                f"HIDESEEK_LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not {chosen!r}."
            )
        chosen = number
    form = env.get("HIDESEEK_LOG_FORMAT", "").strip().lower() or "text"
    if form not in ("text", "json"):
        raise LogSettingsError(f"HIDESEEK_LOG_FORMAT must be text or json, not {form!r}.")
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if form == "json" else _Masking(PLAIN_FORMAT))
    handler.addFilter(NetworkFailures())
    handler.set_name("hideseek")
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == "hideseek"]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(chosen)
    for name in QUIET:
        logging.getLogger(name).setLevel(max(logging.WARNING, int(chosen)))
    return handler
