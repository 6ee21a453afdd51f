"""The conversation service: one entry point per thing a channel needs.

Channel adapters use exactly this::

    conversation = Conversation(uow_factory)
    replies = conversation.handle(inbound)          # answer the person right away
    for delivery in conversation.outgoing(now):     # then the game's announcements
        perform(delivery.actions)                   # send them
        conversation.delivered(delivery.id, now)    # ... and only then mark them sent
    conversation.tick(now)                          # every few seconds: timers

``handle`` returns direct replies (errors, menus, /status); everything the game announces
goes through the store's outbox so that nothing is lost when the process stops between
the state change and the message. Time is always an argument: ``Inbound.at`` or ``now``.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from hideseek_chat.chat import referee
from hideseek_chat.chat.buttons import encode
from hideseek_chat.chat.commands import ChatError
from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.maps import Maps
from hideseek_chat.chat.messages import render_error
from hideseek_chat.chat.model import (
    AnswerButton,
    Button,
    ButtonIn,
    ChatKind,
    CommandIn,
    FileIn,
    Inbound,
    LocationIn,
    Outbound,
    PhotoIn,
    SendText,
    TextIn,
)
from hideseek_chat.chat.views import chat_text
from hideseek_chat.rules.errors import RuleViolation
from hideseek_chat.rules.events import (
    EndGameStarted,
    Event,
    ThermometerFinished,
    ZoneFixed,
)
from hideseek_chat.rules.ruleset import Ruleset, ruleset_paths
from hideseek_chat.rules.state import GameState, Mode, Phase, QuestionStatus
from hideseek_chat.store import GameNotFound, Ping, UnitOfWork, UnitOfWorkFactory, handle
from hideseek_chat.store.uow import RulesetLoader, cached_ruleset

#: An outbox entry handed to a channel is not handed out again for this long.
IN_FLIGHT = timedelta(seconds=60)


@dataclass(frozen=True)
class Delivery:
    """One outbox entry rendered for its chats; mark it ``delivered`` once performed.

    ``id`` 0 is a courtesy action (the pinned status) with nothing to mark.
    """

    id: int
    actions: tuple[Outbound, ...]


def reader(msg: Inbound) -> str | None:
    """Who reads the reply to ``msg`` in a chat of their own: the sender of a private one."""
    return msg.sender.ref if msg.kind == ChatKind.PRIVATE else None


class Conversation:
    """The whole conversation, for any channel: see the module docstring."""

    def __init__(
        self,
        uow_factory: UnitOfWorkFactory,
        *,
        maps: Maps | None = None,
        rulesets: RulesetLoader = cached_ruleset,
        known_rulesets: tuple[str, ...] | None = None,
        seeds: Callable[[], int] | None = None,
    ) -> None:
        self.uow_factory = uow_factory
        self.maps = maps or Maps()
        self.rulesets = rulesets
        self.known_rulesets = known_rulesets or tuple(sorted(ruleset_paths()))
        self.seeds = seeds or (lambda: secrets.randbits(31))
        self._states: dict[int, tuple[int | None, GameState]] = {}
        self._in_flight: dict[int, datetime] = {}
        # Where each thermometer's asker stood when asking: read once, not on every edit.
        self._thermometer_starts: dict[tuple[int, int, datetime], Ping] = {}
        # False only once the outbox was found empty and nothing was applied since; spares
        # the outbox query after each of the many live-location edits. ``tick`` sets it, so
        # messages queued by another process are still found within a tick.
        self.maybe_pending = True

    # ------------------------------------------------------------------ inbound

    def handle(self, msg: Inbound) -> list[Outbound]:
        """Act on what a person did; return the replies to send at once."""
        from hideseek_chat.chat import actions

        try:
            if isinstance(msg, CommandIn):
                return actions.command(self, msg)
            if isinstance(msg, ButtonIn):
                return actions.button(self, msg)
            if isinstance(msg, LocationIn):
                return actions.location(self, msg)
            if isinstance(msg, TextIn):
                return actions.text(self, msg)
            if isinstance(msg, PhotoIn):
                return actions.photo(self, msg)
            if isinstance(msg, FileIn):
                return actions.document(self, msg)
            return []
        except RuleViolation as violation:
            return self.refuse(msg, violation.key, violation.params, engine=True)
        except ChatError as error:
            return self.refuse(msg, error.key, error.params)
        except GameNotFound:
            key = "chat.no_game" if msg.kind == ChatKind.GROUP else "chat.not_in_game"
            return self.refuse(msg, key, {})

    def refuse(
        self,
        msg: Inbound,
        key: str,
        params: dict[str, object],
        engine: bool = False,
        fmt: Formatter | None = None,
    ) -> list[Outbound]:
        """A clear refusal where the person acted (a toast for a button press), in ``fmt``
        or else the language of the chat the message came from."""
        fmt = fmt or self.formatter_for(msg)
        text = render_error(key, params, fmt) if engine else chat_text(key, params, fmt)
        if isinstance(msg, ButtonIn):
            return [AnswerButton(msg.sender.ref, text=text, press_ref=msg.press_ref)]
        return [
            SendText(
                msg.chat, text=text, reply_to=msg.message_ref, private=msg.kind == ChatKind.PRIVATE
            )
        ]

    def reply(
        self, msg: Inbound, text: str, buttons: tuple[tuple[Button, ...], ...] = ()
    ) -> SendText:
        return SendText(
            msg.chat,
            text=text,
            buttons=buttons,
            reply_to=msg.message_ref,
            private=msg.kind == ChatKind.PRIVATE,
        )

    # ------------------------------------------------------------------ context

    def game_chat(self, msg: Inbound) -> str:
        """The group whose game ``msg`` is about; raise GameNotFound when there is none."""
        if msg.kind == ChatKind.GROUP:
            return msg.chat
        with self.uow_factory() as uow:
            chat = uow.chats.game_chat_for(msg.sender.ref)
        if chat is None:
            raise GameNotFound(msg.sender.ref)
        return chat

    def load(self, uow: UnitOfWork, chat: str) -> tuple[int, GameState]:
        loaded = uow.games.for_chat(chat)
        if loaded is None:
            raise GameNotFound(chat)
        return loaded.id, loaded.state

    def state_at(self, uow: UnitOfWork, game_id: int, stamp: int | None) -> GameState:
        """The game's state, from memory when nothing happened since (``stamp``)."""
        cached = self._states.get(game_id)
        if cached is not None and stamp is not None and cached[0] == stamp:
            return cached[1]
        state = uow.games.get(game_id)
        if stamp is not None:
            self._states[game_id] = (stamp, state)
        return state

    def ruleset(self, state: GameState) -> Ruleset:
        return self.rulesets(state.ruleset)

    def formatter(
        self, uow: UnitOfWork, chat: str, state: GameState | None, person: str | None = None
    ) -> Formatter:
        """How to speak in ``chat``; with ``person``, in that person's private chat instead
        (their own language if they chose one, else the group's)."""
        prefs = uow.chats.prefs(chat)
        ruleset = self.ruleset(state) if state is not None else None
        units = prefs.units or (ruleset.units if ruleset else "metric")
        offset = state.settings.utc_offset_min if state is not None else 0
        language = (uow.chats.language(person) if person else None) or prefs.language
        return Formatter(language, units, offset, ruleset)

    def formatter_for(self, msg: Inbound) -> Formatter:
        """The formatter of the chat a message came from (private: the person's language)."""
        person = reader(msg)
        try:
            chat = self.game_chat(msg)
        except GameNotFound:
            with self.uow_factory() as uow:
                language = uow.chats.language(person) if person else None
            return Formatter(language or "en")
        with self.uow_factory() as uow:
            loaded = uow.games.for_chat(chat)
            return self.formatter(uow, chat, loaded.state if loaded else None, person)

    def apply(self, chat: str, event: Event, at: datetime, update_id: str | None) -> None:
        """Apply an engine event to the chat's game (its messages land in the outbox)."""
        self.maybe_pending = True
        handle(self.uow_factory, chat, event, at, update_id, rulesets=self.rulesets)

    # ------------------------------------------------------------------ pins

    def pins_of(self, uow: UnitOfWork, game_id: int, player_id: int, n: int = 20) -> list[Ping]:
        return uow.pings.last(game_id, player_id, n)

    def hider_ping(self, uow: UnitOfWork, game_id: int, state: GameState) -> Ping | None:
        """The newest pin of any member of the hiding team."""
        hider = state.hider_team_id()
        if hider is None:
            return None
        newest: Ping | None = None
        for player in state.team_players(hider):
            pings = uow.pings.last(game_id, player.id, 1)
            if pings and (newest is None or pings[0].at > newest.at):
                newest = pings[0]
        return newest

    def after_pin(
        self,
        uow: UnitOfWork,
        game_id: int,
        state: GameState,
        player_id: int,
        now: datetime,
        where: tuple[float, float] | None = None,
    ) -> list[Event]:
        """Facts a new pin establishes: the zone, the end game, a finished thermometer."""
        current = state.current_round
        if current is None or state.phase not in (Phase.SEEKING, Phase.END_GAME):
            return []
        if state.is_hider(player_id):
            if current.zone is None and state.phase == Phase.SEEKING:
                event = self.zone_event(uow, state, game_id, now)
                return [event] if event else []
            return []
        events: list[Event] = []
        player = state.player(player_id)
        if (
            state.phase == Phase.SEEKING
            and current.zone is not None
            and not state.is_paused
            and (where is None or referee.may_be_in_zone(current.zone, *where))
        ):
            track = self.pins_of(uow, game_id, player_id, 10)
            # Only a live location starts it: a one-off pin can be dropped anywhere on a map.
            if (
                track
                and track[0].source == "live"
                and referee.starts_end_game(current.zone, track, now)
            ):
                events.append(EndGameStarted(None))
        pending = state.pending_question()
        if (
            pending is not None
            and pending.status == QuestionStatus.TRAVELLING
            and (pending.team_id == player.team_id or state.settings.mode == Mode.STANDARD)
            and not events
        ):
            start = self.thermometer_start(uow, game_id, state, pending.asked_by, pending.asked_at)
            latest = self.pins_of(uow, game_id, player_id, 1)
            if start is not None and latest:
                moved = referee.travelled_m(start, latest[0])
                if moved >= (pending.distance_m or 0.0):
                    events.append(ThermometerFinished(player.ref, moved))
        return events

    def seekers_ping_before(
        self, uow: UnitOfWork, game_id: int, state: GameState, team_id: int, at: datetime
    ) -> Ping | None:
        """The newest seeker pin taken by ``at``: any seeker in the standard game, else
        a member of the asking team."""
        standard = state.settings.mode == Mode.STANDARD
        teams = state.seeker_team_ids() if standard else [team_id]
        newest: Ping | None = None
        for team in teams:
            for player in state.team_players(team):
                ping = referee.latest_before(self.pins_of(uow, game_id, player.id, 50), at)
                if ping is not None and (newest is None or ping.at > newest.at):
                    newest = ping
        return newest

    def thermometer_start(
        self, uow: UnitOfWork, game_id: int, state: GameState, asker_id: int, asked_at: datetime
    ) -> Ping | None:
        """Where the asking seeker was when the thermometer was asked."""
        key = (game_id, asker_id, asked_at)
        if key not in self._thermometer_starts:
            start = referee.latest_before(self.pins_of(uow, game_id, asker_id, 200), asked_at)
            if start is None:
                return None
            self._thermometer_starts[key] = start
        return self._thermometer_starts[key]

    def zone_event(
        self, uow: UnitOfWork, state: GameState, game_id: int, now: datetime
    ) -> ZoneFixed | None:
        """The zone from the hider's newest pin, or None when it cannot be fixed yet."""
        from hideseek_chat import geo
        from hideseek_chat.rules.scale import size_rules

        ping = self.hider_ping(uow, game_id, state)
        if ping is None or not referee.is_current(ping, now):
            return None
        chat = uow.games.chat_key(game_id)
        index = self.maps.index(uow, uow.chats.prefs(chat).map_name)
        if index is None:
            return None
        radius = size_rules(state, self.ruleset(state)).zone_radius_m
        try:
            zone = referee.choose_zone(index, referee.pin_of(ping), radius)
        except geo.ZoneError:
            return None
        station = zone.station
        return ZoneFixed(None, station.id, station.name, station.lat, station.lon)

    # ------------------------------------------------------------------ outgoing

    def outgoing(self, now: datetime, limit: int = 50) -> list[Delivery]:
        """Render the unsent outbox: what to send, one Delivery per outbox entry."""
        from hideseek_chat.chat import outgoing

        if not self.maybe_pending:
            return []
        return outgoing.collect(self, now, limit)

    def delivered(self, delivery_id: int, now: datetime) -> None:
        """Mark a Delivery sent (after its actions were performed)."""
        if delivery_id <= 0:
            return
        with self.uow_factory() as uow:
            try:
                uow.outbox.mark_sent(delivery_id, now)
            except LookupError:
                return
            uow.commit()
        self._in_flight.pop(delivery_id, None)

    def unreachable(self, ref: str, now: datetime) -> list[Outbound]:
        """A private message to ``ref`` bounced: remember it and ask them, in their group."""
        self.maybe_pending = True
        with self.uow_factory() as uow:
            uow.chats.met(ref, "", now, private_ok=False)
            chat = uow.chats.game_chat_for(ref)
            if chat is None:  # not in a Hide+Seek game: perhaps in a botnet match
                matches = uow.botnet.active_for_person(ref)
                chat = matches[0].chat_key if matches else None
            if chat is None:
                uow.commit()
                return []
            loaded = uow.games.for_chat(chat)
            state = loaded.state if loaded else None
            fmt = self.formatter(uow, chat, state)
            player = state.player_by_ref(ref) if state else None
            known_name = uow.chats.name_of(ref)
            uow.commit()
        name = player.name if player else (known_name or ref)
        return [
            SendText(
                chat,
                text=chat_text("chat.open_private", {"names": name}, fmt),
                buttons=(
                    (
                        Button(
                            fmt.t(chat_text("chat.open_private_button", {}, fmt)), private_link=True
                        ),
                    ),
                ),
            )
        ]

    def tick(self, now: datetime) -> None:
        """Fire every due timer; their announcements land in the outbox."""
        from hideseek_chat.store import Scheduler

        self.maybe_pending = True
        fired = Scheduler(self.uow_factory, self.rulesets).run_due(now)
        for result in fired:
            self._states.pop(result.game_id, None)

    def status_ref(self, chat: str) -> str | None:
        with self.uow_factory() as uow:
            return uow.chats.message_ref(chat, "status")

    def remember_status(self, chat: str, message_ref: str, now: datetime) -> None:
        with self.uow_factory() as uow:
            uow.chats.set_message_ref(chat, "status", message_ref, now)
            uow.commit()

    # ------------------------------------------------------------------ helpers

    def join_buttons(self, fmt: Formatter, game_id: int) -> tuple[tuple[Button, ...], ...]:
        return (
            (Button(chat_text("chat.join_button", {}, fmt), encode("join", game_id)),),
            (Button(chat_text("chat.open_private_button", {}, fmt), private_link=True),),
        )
