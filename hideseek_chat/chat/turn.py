"""One inbound message, one unit of work: the game, its state, ruleset and formatters.

``Conversation.handle`` opens a ``Turn`` for each message after the one redelivery check,
hands it to the routed handler and commits it once. Handlers read the game through the
turn, apply engine events with ``Turn.apply`` (the same transaction: the game row locked,
timers that fell due first, the state, the event log and the outbox), and say what they
wrote with ``Turn.wrote``; a refusal raised anywhere rolls the whole turn back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from hideseek_chat.chat import focus
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.focus import GameUnclear
from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.lru import LRU
from hideseek_chat.chat.map_clients import MapClients
from hideseek_chat.chat.maps import Maps
from hideseek_chat.chat.model import Button, ChatKind, Inbound, SendText
from hideseek_chat.chat.painter import Painter, PicturesPainter
from hideseek_chat.chat.seekmap import ViewCache, view_cache
from hideseek_chat.chat.sightings import StartCache
from hideseek_chat.chat.texts import say
from hideseek_chat.rules import apply as engine_apply
from hideseek_chat.rules.decisions import Decision
from hideseek_chat.rules.errors import RuleViolation
from hideseek_chat.rules.events import Event
from hideseek_chat.rules.localtime import UTC_NAME
from hideseek_chat.rules.ruleset import Ruleset
from hideseek_chat.rules.state import GameState, Phase, Player
from hideseek_chat.store import GameNotFound, UnitOfWork, UnitOfWorkFactory, create_game
from hideseek_chat.store.chats import PersonGame
from hideseek_chat.store.sms import is_sms
from hideseek_chat.store.uow import RulesetLoader, fire_due, record_applied

#: Games whose state one process keeps in memory (about 30 KB each, 60 MB in all), finished
#: ones let go first.
MAX_STATES = 2048
#: Thermometer starts one process keeps in memory.
MAX_STARTS = 4096
#: Groups whose game topic one process keeps in memory, each for ``TOPIC_MEMORY`` seconds.
MAX_TOPICS = 4096
TOPIC_MEMORY = 10.0

StateCache = LRU[int, tuple[int | None, GameState]]


def state_cache(cap: int = MAX_STATES) -> StateCache:
    """Each game's state by its last event id; finished games are let go before the others."""
    return LRU(cap, spent=lambda entry: entry[1].phase == Phase.GAME_OVER)


@dataclass
class Services:
    """What every turn and job shares: the store, maps, rulesets and per-process caches."""

    uow_factory: UnitOfWorkFactory
    maps: Maps
    rulesets: RulesetLoader
    known_rulesets: tuple[str, ...]
    seeds: Callable[[], int]
    #: each game's state by its last event id, so live-location edits need not reload it
    #: (the most recently used ``MAX_STATES``; any other is read from the store)
    states: StateCache = field(default_factory=state_cache)
    thermometer_starts: StartCache = field(default_factory=lambda: LRU(MAX_STARTS))
    #: the geocoder and the map fetcher; None: maps from OpenStreetMap are not configured
    map_clients: MapClients | None = None
    #: a pack fetched for the same area and modes this recently is used, not fetched again
    map_max_age: timedelta = timedelta(days=30)
    #: a map job's progress message is edited at most this often (seconds of its own time,
    #: read from ``monotonic``): Telegram allows about 20 messages a minute in a group
    map_progress_every: float = 6.0
    monotonic: Callable[[], float] = time.monotonic
    #: draws the seekers' map and the hider's zone (in picture jobs, never in a turn)
    painter: Painter = field(default_factory=PicturesPainter)
    #: the newest seekers' maps, so that /stations and the next answer start from them
    seekmaps: ViewCache = field(default_factory=view_cache)
    #: a picture job may be waiting: set when one is queued (or a tick comes), cleared
    #: when the runner finds none, so a channel looks for one only then
    pictures_queued: bool = True
    #: the channel shows pictures (``drive.Capabilities.pictures``): without, a seekers' map
    #: is only its caption (the count, what was not applied) and a zone gets none
    draws_pictures: bool = True
    #: each group's game topic with when it was read (``time.monotonic``): ``topic_of``
    topics: dict[str, tuple[str | None, float]] = field(default_factory=dict)

    def topic_of(self, chat: str, read: Callable[[], str | None]) -> str | None:
        """The thread of group ``chat`` its game lives in (None: the main thread), from
        memory when read less than ``TOPIC_MEMORY`` seconds ago: a game started through
        another process is found in its topic after at most that long."""
        clock = time.monotonic()
        remembered = self.topics.get(chat)
        if remembered is not None and clock - remembered[1] < TOPIC_MEMORY:
            return remembered[0]
        topic = read()  # the store's ``chats.topic``
        if len(self.topics) >= MAX_TOPICS:
            self.topics.clear()
        self.topics[chat] = (topic, clock)
        return topic

    #: the public address tracker apps reach the web server at (``/tracker``); None: no
    #: tracker links are handed out
    tracker_url: str | None = None

    def ruleset(self, state: GameState) -> Ruleset:
        return self.rulesets(state.ruleset)

    def formatter(
        self,
        uow: UnitOfWork,
        chat: str,
        state: GameState | None,
        person: str | None = None,
        *,
        now: datetime | None = None,
    ) -> Formatter:
        """How to speak in ``chat``; with ``person``, in that person's private chat instead
        (their own language if they chose one, else the group's). Clock times are the game's
        zone's; ``now`` dates the zone's name (``CDT`` or ``CST``)."""
        prefs = uow.chats.prefs(chat)
        ruleset = self.ruleset(state) if state is not None else None
        units = prefs.units or (ruleset.units if ruleset else "metric")
        zone = state.settings.time_zone if state is not None else UTC_NAME
        language = (uow.chats.language(person) if person else None) or prefs.language
        by_text = is_sms(person or chat)  # an SMS player, an SMS game
        trackers = self.tracker_url is not None
        return Formatter(
            language, units, zone, ruleset, now=now, by_text=by_text, trackers=trackers
        )

    def state_at(self, uow: UnitOfWork, game_id: int, stamp: int | None) -> GameState:
        """The game's state, from memory when nothing happened since (``stamp``)."""
        cached = self.states.get(game_id)
        if cached is not None and stamp is not None and cached[0] == stamp:
            return cached[1]
        state = uow.games.read(game_id)
        if stamp is not None:
            self.states[game_id] = (stamp, state)
        return state


class Turn:
    """The unit of work of one inbound message, and what handlers read through it."""

    def __init__(self, services: Services, msg: Inbound, uow: UnitOfWork) -> None:
        self.services = services
        self.msg = msg
        self.uow = uow
        self.applied: list[Decision] = []
        self._wrote = False
        self._marked = False
        self._chat: str | None = None
        self._person_games: list[PersonGame] | None = None
        self._game: tuple[int, GameState] | None = None
        self._locked = False
        self._fmt: Formatter | None = None

    # ------------------------------------------------------------------ who and where

    @property
    def by(self) -> str:
        """The sender's ref, as engine events name people."""
        return self.msg.sender.ref

    @property
    def is_private(self) -> bool:
        return self.msg.kind == ChatKind.PRIVATE

    @property
    def reader(self) -> str | None:
        """Who reads the replies in a chat of their own: the sender of a private message."""
        return self.msg.sender.ref if self.is_private else None

    def game_chat(self) -> str:
        """The group whose game the message is about; raise GameNotFound when there is none,
        GameUnclear (a GameNotFound) when a private message could mean several (``focus``)."""
        if self._chat is None:
            if not self.is_private:
                self._chat = self.msg.chat
            else:
                self._chat = self.private_game().chat_key
        return self._chat

    def knows_game(self) -> bool:
        """Whether the game of the message, or the sender's games, were looked up."""
        return self._chat is not None or self._person_games is not None

    def found_alone(self, game: PersonGame) -> None:
        """The sender's only unfinished game, found by a statement that also wrote for it
        (``Pings.record_alone``): a private message is about it."""
        self._person_games = [game]
        self._chat = game.chat_key

    def person_games(self) -> list[PersonGame]:
        """The sender's unfinished games, newest first."""
        if self._person_games is None:
            self._person_games = self.uow.chats.games_of(self.by)
        return self._person_games

    def person_states(self) -> list[GameState]:
        """The states of ``person_games``, in the same order."""
        states = self.services.state_at
        return [states(self.uow, g.game_id, g.last_event_id) for g in self.person_games()]

    def private_game(self) -> PersonGame:
        """The game a private message of the sender is about (see ``focus``)."""
        games = self.person_games()
        if not games:
            raise GameNotFound(self.by)
        if len(games) == 1:
            return games[0]
        states = self.person_states()
        chosen = self.uow.chats.focus(self.by).game_id
        found = focus.settle(self.by, games, states, chosen)
        if found is None:
            raise GameUnclear(self.by, games, states)
        return found

    def settle_game(self) -> None:
        """Decide now which game a private message is about, before its handler writes
        anything: raise GameUnclear when nobody can tell (no game at all is the
        handler's to answer)."""
        try:
            self.game_chat()
        except GameUnclear:
            raise
        except GameNotFound:
            pass

    def about(self, chat: str) -> None:
        """Take ``chat``'s game as the one the message is about: the caller knows (a tracker's
        holder plays in that one game only), so no query looks for it."""
        self._chat = chat

    def follow(self, game_id: int) -> None:
        """Take the game a button pressed in private names, when the presser plays in it and
        it is not over; refuse the press otherwise."""
        for game in self.person_games():
            if game.game_id == game_id:
                if self._chat != game.chat_key:
                    self._chat, self._game, self._fmt = game.chat_key, None, None
                return
        if not self.person_games():
            raise GameNotFound(self.by)
        raise ChatError("chat.button_old_game")

    # ------------------------------------------------------------------ the game

    def game(self) -> tuple[int, GameState]:
        """The chat's current game and its state; raise GameNotFound when there is none."""
        if self._game is None:
            chat = self.game_chat()
            # Read afresh, as plain rows (found and read in one round trip on PostgreSQL),
            # never a cached state: handlers may change what they are given, and a test or
            # an admin may change a game's rows without an event.
            loaded = self.uow.games.read_chat(chat)
            if loaded is None:
                raise GameNotFound(chat)
            self._game = (loaded.id, loaded.state)
        return self._game

    def use_state(self, game_id: int, state: GameState) -> None:
        """Take the game's state read elsewhere in this turn (a cached one, for pins)."""
        if self._game is None:
            self._game = (game_id, state)

    @property
    def read_game_id(self) -> int | None:
        """The game this turn has read or changed so far, if any (looking nothing up)."""
        return None if self._game is None else self._game[0]

    def has_game(self) -> bool:
        try:
            self.game()
        except GameNotFound:
            return False
        return True

    @property
    def game_id(self) -> int:
        return self.game()[0]

    @property
    def state(self) -> GameState:
        return self.game()[1]

    @property
    def ruleset(self) -> Ruleset:
        return self.services.ruleset(self.state)

    def player(self) -> Player | None:
        """The sender as a player of the game, if they are one."""
        return self.state.player_by_ref(self.by)

    # ------------------------------------------------------------------ changing it

    def apply(self, event: Event) -> list[Decision]:
        """Apply ``event`` to the game in this turn; its announcements reach the outbox.

        The first event locks the game row and reads the state afresh, so two processes
        never apply events to the same state. A ``RuleViolation`` propagates.
        """
        if not self._locked:
            chat = self.game_chat()
            game_id = self.uow.games.current_id(chat, for_update=True)
            if game_id is None:
                raise GameNotFound(chat)
            self._game = (game_id, self.uow.games.get(game_id))
            self._locked = True
        game_id, state = self.game()
        ruleset = self.services.ruleset(state)
        state, fired = fire_due(self.uow, game_id, state, ruleset, self.msg.at)
        if fired:
            self._game = (game_id, state)
            self._note_applied(fired)
        new_state, decisions = engine_apply(ruleset, state, event, self.msg.at)
        update_id = None if self._marked else self.msg.update_id
        record_applied(self.uow, game_id, new_state, event, decisions, self.msg.at, update_id)
        self._marked = self._marked or update_id is not None
        self._game = (game_id, new_state)
        self._note_applied(decisions)
        return fired + decisions

    def _note_applied(self, decisions: list[Decision]) -> None:
        self._wrote = True
        self.applied.extend(decisions)
        self.services.states.pop(self.game_id, None)

    def start_game(self, state: GameState, decisions: list[Decision]) -> int:
        """Store a game ``rules.new_game`` made as the chat's current game, in this turn."""
        msg = self.msg
        game_id = create_game(self.uow, msg.chat, state, decisions, msg.at, msg.update_id)
        if msg.chat_title:  # how players in several games tell them apart in private
            self.uow.chats.set_title(msg.chat, msg.chat_title[:128], msg.at)
        self._marked = self._marked or msg.update_id is not None
        self._game = (game_id, state)
        self._locked = True
        self._note_applied(decisions)
        return game_id

    def establish(self, event: Event) -> bool:
        """Apply a fact the referee derived (a zone, the end game); False when the rules no
        longer allow it (another message got there first), which changes nothing."""
        try:
            self.apply(event)
        except RuleViolation:  # refused before anything of it was written
            return False
        return True

    def announce(self, decisions: list[Decision]) -> None:
        """Write notices the chat layer decided (no engine event) to the game's outbox in
        this turn."""
        current = self.state.current_round
        self.uow.outbox.add(
            self.game_id, decisions, self.msg.at, current.number if current else None
        )
        self._wrote = True
        self.applied.extend(decisions)

    def wrote(self) -> None:
        """Say that the handler wrote to the store: the turn commits and remembers the update."""
        self._wrote = True

    def finish(self) -> None:
        """Commit what the turn wrote, with its update's inbox row (``Conversation.handle``
        wrote it first, so even a turn that changed nothing is remembered as handled)."""
        if self._wrote or self.msg.update_id is not None:
            self.uow.commit()

    # ------------------------------------------------------------------ speaking

    def formatter(self, person: str | None = None) -> Formatter:
        """How to speak in the game's group; with ``person``, in their private chat."""
        state = self.state if self.has_game() else None
        return self.services.formatter(self.uow, self.game_chat(), state, person, now=self.msg.at)

    @property
    def fmt(self) -> Formatter:
        """How to speak where the message came from (in private, in the person's language)."""
        if self._fmt is None:
            try:
                self._fmt = self.formatter(self.reader)
            except GameUnclear as unclear:  # in several games: speak as in the newest one
                chat, state = unclear.games[0].chat_key, unclear.states[0]
                self._fmt = self.services.formatter(
                    self.uow, chat, state, self.reader, now=self.msg.at
                )
            except GameNotFound:
                language = self.uow.chats.language(self.reader) if self.reader else None
                by_text = bool(self.reader and is_sms(self.reader))
                trackers = self.services.tracker_url is not None
                self._fmt = Formatter(language or "en", by_text=by_text, trackers=trackers)
        return self._fmt

    def speak_as(self, fmt: Formatter) -> None:
        """Speak with ``fmt`` where the message came from, refusals included."""
        self._fmt = fmt

    def forget_formatter(self) -> None:
        """Speak anew after the chat's language or units changed in this turn."""
        self._fmt = None

    def say(self, key: str, **params: Any) -> str:
        """The text ``key`` where the message came from."""
        return say(key, params, self.fmt)

    def reply(self, text: str, buttons: tuple[tuple[Button, ...], ...] = ()) -> SendText:
        """A message in the chat the message came from, answering it."""
        return SendText(
            self.msg.chat,
            text=text,
            buttons=buttons,
            reply_to=self.msg.message_ref,
            private=self.is_private,
            topic=self.msg.topic,  # in the topic it came from (None: the game's)
        )

    def to_group(self, text: str, buttons: tuple[tuple[Button, ...], ...] = ()) -> SendText:
        """A message in the game's group."""
        return SendText(self.game_chat(), text=text, buttons=buttons)

    def to_person(
        self, ref: str, text: str, buttons: tuple[tuple[Button, ...], ...] = ()
    ) -> SendText:
        """A message in ``ref``'s private chat with the bot."""
        return SendText(ref, text=text, buttons=buttons, private=True)
