"""A Telegram group playing through the real python-telegram-bot stack, for end-to-end tests.

``Telegram`` builds updates with the factories, runs them through ``Application.process_update``
of an app made by ``build_application`` around the real ``Conversation`` and store, moves a
settable game clock and runs the app's own tick job, and reads back what the bot sent from a
recording Bot API (``BotApi``) that fails the test on any real network call. Any warning or
error the bot logs while doing so fails the test too.

``assert_keeps_secret`` checks a stretch of the recorded calls for the hider's station and
coordinates.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from telegram import Update

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.rules.state import CardZone, GameState
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.models import EventRow
from hideseek_chat.telegram.bot import TelegramApp, build_application, channel_of
from hideseek_chat.telegram.convert import LIVE_FOREVER, key
from tests.telegram.factories import (
    GROUP,
    SENT_AT,
    TOKEN,
    make_callback,
    make_command,
    make_live_edit,
    make_location,
    make_text,
)
from tests.telegram.fakes import FixedClock, RecordingRequest, VirtualTime, virtual_limiter

START = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)

#: Telegram users: three players and a stranger to the game.
USERS: dict[str, dict[str, Any]] = {
    name: {"id": user_id, "is_bot": False, "first_name": name}
    for name, user_id in (("Alice", 101), ("Bob", 102), ("Carol", 103), ("Mallory", 666))
}
PLAYERS = ("Alice", "Bob", "Carol")

#: What the bot sends that people read: a message, a photo's caption, an edit.
MESSAGE_METHODS = ("sendMessage", "sendPhoto", "editMessageText")


def user_id(name: str) -> int:
    return int(USERS[name]["id"])


@dataclass(frozen=True)
class Sent:
    """A message the bot sent or edited, with the id the Bot API gave it."""

    call: int  # its index in ``BotApi.calls``
    method: str
    chat_id: int
    message_id: int
    text: str
    #: every inline button as (label, callback_data or url), row after row
    buttons: tuple[tuple[str, str], ...] = ()


def _text_of(params: dict[str, Any]) -> str:
    return str(params.get("text") or params.get("caption") or "")


def _buttons_of(params: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    markup = params.get("reply_markup") or {}
    if isinstance(markup, str):
        markup = json.loads(markup)
    return tuple(
        (str(b["text"]), str(b.get("callback_data") or b.get("url") or ""))
        for row in markup.get("inline_keyboard", [])
        for b in row
    )


class BotApi(RecordingRequest):
    """The recording Bot API, also keeping each message it answered (for its message id)."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[Sent] = []

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: Any = None,
        read_timeout: Any = None,
        write_timeout: Any = None,
        connect_timeout: Any = None,
        pool_timeout: Any = None,
    ) -> tuple[int, bytes]:
        code, body = await super().do_request(
            url, method, request_data, read_timeout, write_timeout, connect_timeout, pool_timeout
        )
        name = self.calls[-1].method
        if name in MESSAGE_METHODS and code == 200:
            params = self.calls[-1].params
            result = json.loads(body)["result"]
            self.messages.append(
                Sent(
                    len(self.calls) - 1,
                    name,
                    int(params["chat_id"]),
                    int(result["message_id"]),
                    _text_of(params),
                    _buttons_of(params),
                )
            )
        return code, body


class SettableClock(FixedClock):
    """The game clock, moved only by the test."""

    def advance(self, span: timedelta) -> None:
        if span < timedelta(0):
            raise ValueError("the game clock never runs backwards")
        self.at += span


class _Problems(logging.Handler):
    """Collect what the bot logs at WARNING and above (a failed handler, a refused call)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@dataclass
class Telegram:
    """Three people in a Telegram group with the bot, and their private chats with it."""

    app: TelegramApp
    api: BotApi
    clock: SettableClock
    uow_factory: UnitOfWorkFactory
    problems: _Problems
    #: the send limits' clock: it moves with the game's clock (and when the limiter waits)
    send_time: VirtualTime = field(default_factory=VirtualTime)
    tick_every: timedelta = timedelta(seconds=30)
    #: press ids by presser, in order
    presses: list[tuple[str, str]] = field(default_factory=list)
    _live: dict[tuple[int, int], int] = field(default_factory=dict)
    #: seconds after SENT_AT of the newest edit: each edit is dated later, as Telegram dates
    #: them (a version is known by its message and edit date)
    _edited_s: int = 0

    @property
    def bot(self) -> Any:
        return self.app.bot

    @property
    def chat(self) -> str:
        """The group's chat key in the store."""
        return key(GROUP)

    # ----- people doing things

    async def feed(self, update: Update) -> None:
        """Run ``update`` through the application like a polled update."""
        await self.app.process_update(update)
        await channel_of(self.app).settle()  # a picture it asked for is drawn and sent
        self.check()

    async def send(self, name: str, text: str, *, private: bool = False) -> Update:
        """``name`` writes ``text`` (a /command or plain text) in the group or privately."""
        chat_id = user_id(name) if private else GROUP
        factory = make_command if text.startswith("/") else make_text
        update = factory(self.bot, text, chat_id=chat_id, user=USERS[name])
        await self.feed(update)
        return update

    async def pin(
        self, name: str, lat: float, lon: float, *, private: bool = False, live: bool = True
    ) -> int:
        """``name`` shares a location; later live pins in that chat are edits of the first.

        Returns the id of the location message.
        """
        chat_id = user_id(name) if private else GROUP
        sharing = self._live.get((chat_id, user_id(name)))
        if live and sharing is not None:
            self._edited_s = max(
                self._edited_s + 1, int((self.clock.at - SENT_AT).total_seconds())
            )
            update = make_live_edit(
                self.bot,
                sharing,
                lat,
                lon,
                live_period=LIVE_FOREVER,
                edited_after_s=self._edited_s,
                chat_id=chat_id,
                user=USERS[name],
            )
            await self.feed(update)
            return sharing
        update = make_location(
            self.bot,
            lat,
            lon,
            live_period=LIVE_FOREVER if live else None,
            accuracy=10.0,
            chat_id=chat_id,
            user=USERS[name],
        )
        assert update.message is not None
        if live:
            self._live[(chat_id, user_id(name))] = update.message.message_id
        await self.feed(update)
        return update.message.message_id

    def buttons(self, name: str) -> list[tuple[Sent, str, str]]:
        """The callback buttons ``name`` sees (their private chat and the group), newest first."""
        chats = (user_id(name), GROUP)
        return [
            (sent, label, data)
            for sent in reversed(self.api.messages)
            if sent.chat_id in chats
            for label, data in sent.buttons
            if not data.startswith("https://")
        ]

    async def press(self, name: str, label: str) -> str:
        """``name`` presses the newest button whose label holds ``label``; return the press id."""
        for sent, shown, data in self.buttons(name):
            if label.lower() in shown.lower():
                return await self.press_data(name, data, sent)
        raise LookupError(f"{name} sees no button labelled {label!r}")

    async def press_data(self, name: str, data: str, under: Sent) -> str:
        """``name`` presses a button carrying ``data`` under the message ``under``."""
        update = make_callback(
            self.bot, data, message_id=under.message_id, chat_id=under.chat_id, user=USERS[name]
        )
        assert update.callback_query is not None
        self.presses.append((name, update.callback_query.id))
        await self.feed(update)
        return update.callback_query.id

    def answer(self, press_id: str) -> str:
        """The toast the press ``press_id`` was answered with (exactly one answer per press)."""
        answers = [
            params
            for params in self.api.sent("answerCallbackQuery")
            if params["callback_query_id"] == press_id
        ]
        assert len(answers) == 1, f"press {press_id} was answered {len(answers)} times"
        return str(answers[0].get("text") or "")

    # ----- time

    async def tick(self) -> None:
        """Run the app's own tick job once, as its JobQueue would."""
        assert self.app.job_queue is not None
        [job] = self.app.job_queue.get_jobs_by_name("tick")
        await job.run(self.app)
        await channel_of(self.app).settle()
        self.check()

    async def wait(self, span: timedelta) -> None:
        """Let ``span`` of game time pass, ticking as the job queue would meanwhile."""
        end = self.clock.at + span
        while self.clock.at < end:
            step = min(self.tick_every, end - self.clock.at)
            self.clock.advance(step)
            self.send_time.now += step.total_seconds()
            await self.tick()

    # ----- reading what the bot said

    def mark(self) -> int:
        """The number of Bot API calls so far, to read only what comes after."""
        return len(self.api.calls)

    def said(self, name: str | None = None, *, since: int = 0) -> list[Sent]:
        """New messages (not edits) to ``name``'s private chat, or to the group by default."""
        chat_id = GROUP if name is None else user_id(name)
        return [
            sent
            for sent in self.api.messages
            if sent.chat_id == chat_id and sent.call >= since and sent.method != "editMessageText"
        ]

    def texts(self, name: str | None = None, *, since: int = 0) -> str:
        """Everything ``said`` to a chat since a mark, as one text."""
        return "\n".join(sent.text for sent in self.said(name, since=since))

    def check(self) -> None:
        """Fail on anything the bot logged as a problem, and on any unexpected Bot API call."""
        problems = [f"{r.name}: {r.getMessage()}" for r in self.problems.records]
        assert problems == [], problems
        assert self.api.unexpected == [], self.api.unexpected

    # ----- the store

    def state(self) -> GameState:
        with self.uow_factory() as uow:
            loaded = uow.games.for_chat(self.chat)
            assert loaded is not None
            return loaded.state

    def events(self) -> int:
        """How many events the store has logged, over every game."""
        with self.uow_factory() as uow:
            return int(uow.session.scalar(select(func.count(EventRow.id))) or 0)

    def give_cards(self, team_id: int, *def_ids: str) -> None:
        """Stack the deck: move the named cards from the deck to the team's hand."""
        with self.uow_factory() as uow:
            loaded = uow.games.for_chat(self.chat)
            assert loaded is not None
            state = loaded.state
            for def_id in def_ids:
                card = next(c for c in state.cards_in(CardZone.DECK) if c.def_id == def_id)
                card.zone, card.holder_team_id = CardZone.HAND, team_id
                card.position = 100 + card.id
            uow.games.save(loaded.id, state)
            uow.commit()

    # ----- a game

    async def new_game(self) -> None:
        """Everyone opens a private chat with the bot; Alice creates a game, the others join."""
        for name in PLAYERS:
            await self.send(name, "/start", private=True)
        await self.send("Alice", "/newgame small metric")
        await self.press("Bob", "Join the game")
        await self.send("Carol", "/join")

    async def begin(self) -> tuple[str, list[str]]:
        """Begin the game; return the hider and the seekers, as the bot told them."""
        await self.send("Alice", "/begin")
        hider = next(n for n in PLAYERS if "You're hiding" in self.texts(n))
        return hider, [n for n in PLAYERS if n != hider]


@asynccontextmanager
async def telegram(
    uow_factory: UnitOfWorkFactory, *, at: datetime = START
) -> AsyncIterator[Telegram]:
    """A ``Telegram`` on the test database, initialized and shut down around the block."""
    api = BotApi()
    clock = SettableClock(at)
    send_time = VirtualTime()
    # Telegram allows a group 20 messages a minute: the limiter stays in the path, on
    # virtual time, so that the test never waits for real.
    app = build_application(
        TOKEN,
        clock,
        lambda bot_name: Conversation(uow_factory, seeds=lambda: 11),
        request=api,
        limiter=virtual_limiter(send_time),
    )
    problems = _Problems()
    root = logging.getLogger()
    root.addHandler(problems)
    await app.initialize()
    try:
        yield Telegram(app, api, clock, uow_factory, problems, send_time)
    finally:
        await app.shutdown()
        root.removeHandler(problems)
    assert api.unexpected == [], f"unexpected Bot API calls: {api.unexpected}"


# ----------------------------------------------------------------------------- secrecy


@dataclass(frozen=True)
class Secret:
    """What seekers must not learn before the rules reveal it: the station and the spot."""

    station: str
    station_id: str
    coordinates: tuple[float, ...]

    def fragments(self) -> list[str]:
        """Every substring that would give a secret away.

        A coordinate printed with three or more decimals starts with its value cut, or
        rounded, to three decimals (the sign and a leading minus aside).
        """
        found = {self.station.casefold()}
        for value in self.coordinates:
            whole = abs(value)
            found.add(f"{int(whole * 1000) / 1000:.3f}")
            found.add(f"{whole:.3f}")
        return sorted(found)

    def leaks(self, text: str) -> list[str]:
        """The secrets ``text`` holds (empty when none)."""
        folded = text.casefold()
        found = [fragment for fragment in self.fragments() if fragment in folded]
        # The id is short, so only a standalone number counts (not 10:33, 2.33 km or 133).
        if re.search(rf"(?<![\w.:,]){re.escape(self.station_id)}(?![\w:]|[.,]\d)", text):
            found.append(f"station id {self.station_id}")
        return found


def assert_keeps_secret(
    api: BotApi, chat_ids: Iterable[int], secret: Secret, *, start: int = 0, end: int | None = None
) -> int:
    """Assert no message or edit to ``chat_ids`` in calls ``start:end`` gives ``secret`` away.

    Texts, captions and button labels are read. Returns how many messages were checked, so
    a caller can tell the check was not vacuous.
    """
    chats = set(chat_ids)
    checked = 0
    for sent in api.messages:
        if sent.chat_id not in chats or sent.call < start or (end is not None and sent.call >= end):
            continue
        checked += 1
        shown = "\n".join([sent.text, *(label for label, _ in sent.buttons)])
        leaks = secret.leaks(shown)
        assert not leaks, f"{sent.method} to {sent.chat_id} gives away {leaks}:\n{shown}"
    return checked


def chat_ids_of(names: Sequence[str]) -> list[int]:
    """The group and the private chats of ``names``."""
    return [GROUP, *(user_id(n) for n in names)]
