"""The bot as real processes against the fake Bot API (``fake_botapi``): a script of
updates, starting, killing and stopping processes, and reading what they stored.

Shared by the crash tests (``test_kill``) and the several-workers test (``test_workers``).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, select

from hideseek_chat.store.models import EventRow, InboxRow, InboxStatus
from tests.telegram.fake_botapi import TOKEN, FakeBotApi

GROUP = -1_009_000_000_001
PLAYERS = [
    {"id": 501, "is_bot": False, "first_name": "Ana"},
    {"id": 502, "is_bot": False, "first_name": "Ben"},
    {"id": 503, "is_bot": False, "first_name": "Cai"},
]
SECRET = "chaos-s3cret"
#: How long the bot may take to start, or to apply what it was given (seconds).
PATIENCE = 45.0
#: How long the last process may take to apply a backlog the kills left it (seconds).
CATCH_UP = 240.0


def script(count: int) -> list[dict[str, Any]]:
    """``count`` updates of a group setting up a game: commands, texts and pins."""
    ids = itertools.count(70_000)
    messages = itertools.count(1)
    now = int(time.time())

    def message(user: dict[str, Any], **fields: Any) -> dict[str, Any]:
        return {
            "update_id": next(ids),
            "message": {
                "message_id": next(messages),
                "date": now,
                "chat": {"id": GROUP, "type": "supergroup", "title": "Chaos night"},
                "from": user,
                **fields,
            },
        }

    def command(user: dict[str, Any], text: str) -> dict[str, Any]:
        head = len(text.split()[0])
        return message(
            user, text=text, entities=[{"type": "bot_command", "offset": 0, "length": head}]
        )

    first = [
        command(PLAYERS[0], "/newgame small metric"),
        command(PLAYERS[1], "/join"),
        command(PLAYERS[2], "/join"),
    ]
    rotation = [
        lambda i: command(PLAYERS[i % 3], "/status"),
        lambda i: message(PLAYERS[i % 3], text=f"on my way, stop {i}"),
        lambda i: message(
            PLAYERS[i % 3], location={"latitude": 36.115 + i / 1e4, "longitude": -97.058}
        ),
        lambda i: command(PLAYERS[i % 3], "/help"),
    ]
    updates = first[:count]
    for i in range(max(0, count - len(first))):
        updates.append(rotation[i % len(rotation)](i))
    return updates


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Bot:
    """The bot as a process of its own, started and killed like a real deployment."""

    mode: str  # "run" (long polling) or "webhook"
    env: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0
    port: int = field(default_factory=free_port)

    def start(self) -> None:
        env = {**self.env, "PORT": str(self.port), "HOST": "127.0.0.1"}
        if self.mode == "run":  # long polling refuses to start where a webhook is configured
            env.pop("WEBHOOK_URL", None)
            env.pop("WEBHOOK_SECRET", None)
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "hideseek_chat", self.mode],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        self.starts += 1

    def kill(self) -> None:
        """SIGKILL: nothing runs after it, no clean-up, no flush."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=PATIENCE)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()

    @property
    def webhook(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook/chaos"


def inbox(url: str) -> dict[str, InboxStatus]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(select(InboxRow.update_id, InboxRow.status)).all()
    finally:
        engine.dispose()
    return {update_id: InboxStatus(status) for update_id, status in rows}


def events(url: str) -> list[tuple[str, str | None]]:
    """The games' events as (type, update) in the order they were applied."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                select(EventRow.type, EventRow.update_id).order_by(EventRow.id)
            ).all()
    finally:
        engine.dispose()
    return [(kind, update) for kind, update in rows]


def wait_until(
    condition: Any, what: str, bot: Bot | None = None, patience: float = PATIENCE
) -> None:
    deadline = time.monotonic() + patience
    while not condition():
        if bot is not None and not bot.alive:
            bot.start()
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def all_applied(url: str, ids: list[str]) -> bool:
    try:
        statuses = inbox(url)
    except Exception:
        return False  # not migrated yet
    return all(statuses.get(i) not in (None, InboxStatus.PENDING) for i in ids)


def bot_env(api: FakeBotApi, database_url: str, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIDESEEK_", "TELEGRAM_"))}
    env.update(
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_BASE_URL=api.base_url,
        DATABASE_URL=database_url,
        HIDESEEK_DATA_DIR=str(tmp_path),
        WEBHOOK_URL="https://bot.example.org/hook/chaos",
        WEBHOOK_SECRET=SECRET,
        PYTHONPATH=str(Path(__file__).resolve().parents[2]),
    )
    return env


def finish(bot: Bot, url: str, updates: list[dict[str, Any]]) -> None:
    """Let the (last) process apply what it holds, then stop it cleanly."""
    ids = [f"tg:{u['update_id']}" for u in updates]
    if not bot.alive:
        bot.start()
    with contextlib.suppress(AssertionError):  # ``check`` names what is missing
        # A process that resumes a backlog sends its replies at the group's 20 a minute.
        wait_until(lambda: all_applied(url, ids), "every update applied", bot, CATCH_UP)
    bot.stop()
