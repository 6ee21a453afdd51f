"""The conversation: the one entry a channel uses, whatever the channel.

::

    conversation = Conversation(uow_factory)
    replies = conversation.handle(inbound)          # answer the person right away
    for delivery in conversation.outgoing(now):     # then the game's announcements
        perform(delivery.actions)                   # send them
        conversation.delivered(delivery.id, now)    # ... and only then mark them sent
    conversation.tick(now)                          # every few seconds: timers

(``drive.Driver`` runs exactly this loop for a channel.) ``handle`` opens one ``Turn`` per
message: the redelivery check once, the routed handler, one commit. Everything the game
announces goes through the store's outbox, so nothing is lost when the process stops
between the state change and the message. Time is always an argument.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from hideseek_chat import metrics
from hideseek_chat.chat import edge, jobs, liveness, map_jobs, outbox, picture_jobs, routes
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.handlers import pins
from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.keyboards import open_private
from hideseek_chat.chat.map_clients import MapClients
from hideseek_chat.chat.maps import Maps
from hideseek_chat.chat.model import (
    STATUS_SLOT,
    ChatKind,
    CommandIn,
    Inbound,
    Outbound,
    Sender,
    SendText,
    TrackerIn,
    Unpin,
)
from hideseek_chat.chat.painter import Painter
from hideseek_chat.chat.refusals import refuse
from hideseek_chat.chat.texts import say
from hideseek_chat.chat.turn import Services, Turn
from hideseek_chat.rules.decisions import AudienceKind, Notify
from hideseek_chat.rules.errors import RuleViolation
from hideseek_chat.rules.ruleset import ruleset_paths
from hideseek_chat.rules.state import GameState, Phase
from hideseek_chat.store import GameNotFound, Scheduler, UnitOfWork, UnitOfWorkFactory
from hideseek_chat.store.inbox import Redelivered, Stored, Unsettled
from hideseek_chat.store.models import InboxStatus
from hideseek_chat.store.sms import is_sms
from hideseek_chat.store.trackers import ForgedToken, Holder
from hideseek_chat.store.uow import RulesetLoader, cached_ruleset

#: A process sending a game's outbox holds it this long (renewed as it goes); one that died
#: leaves it to the others after that.
OUTBOX_LEASE = timedelta(seconds=60)
#: ``handle``'s ``plan``: the replies' channel writes, in the turn's unit of work
Planner = Callable[[UnitOfWork, list[Outbound]], None]


@dataclass(frozen=True)
class Delivery:
    """One outbox entry rendered for its chats; mark it ``delivered`` once performed.

    ``id`` 0 is a courtesy action (the pinned status, a notice of the referee's) with
    nothing to mark.
    """

    id: int
    actions: tuple[Outbound, ...]


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
        map_clients: MapClients | None = None,
        map_max_age: timedelta = timedelta(days=30),
        painter: Painter | None = None,
        tracker_url: str | None = None,
    ) -> None:
        self.services = Services(
            uow_factory,
            maps or Maps(),
            rulesets,
            known_rulesets or tuple(sorted(ruleset_paths())),
            seeds or (lambda: secrets.randbits(31)),
            map_clients=map_clients,
            map_max_age=map_max_age,
            tracker_url=tracker_url,
        )
        if painter is not None:
            self.services.painter = painter
        # False only once the outbox was found empty and nothing was applied since; spares
        # the outbox query after each of the many live-location edits. ``tick`` sets it, so
        # messages queued by another process are still found within a tick. ``_news``
        # counts the times it was set, so a look that began before a commit in another
        # thread never clears it afterwards.
        self._news_lock = threading.Lock()
        self._news = 0
        self._pending = True
        self._quiet_checked_at: datetime | None = None

    @property
    def maybe_pending(self) -> bool:
        """Whether the outbox may hold unsent entries (see ``__init__``)."""
        return self._pending

    @maybe_pending.setter
    def maybe_pending(self, value: bool) -> None:
        with self._news_lock:
            self._news += 1
            self._pending = value

    def _found_quiet(self, news: int) -> None:
        """The outbox was found empty by a look that began at ``news``: clear
        ``maybe_pending`` unless something was queued since."""
        with self._news_lock:
            if self._news == news:
                self._pending = False

    @property
    def uow_factory(self) -> UnitOfWorkFactory:
        return self.services.uow_factory

    @property
    def maps(self) -> Maps:
        return self.services.maps

    # ------------------------------------------------------------------ inbound

    def handle(
        self,
        msg: Inbound,
        payload: str | None = None,
        plan: Planner | None = None,
        within: UnitOfWork | None = None,
    ) -> list[Outbound]:
        """Act on what a person did, in one unit of work; return the replies to send now.

        With an ``update_id`` the update is written to the inbox in that same transaction
        (``store.inbox``): a redelivery, or a second worker given the same update, returns
        ``[]`` and changes nothing. A refusal is remembered too, so it is said once. When a
        handler raises, the update is kept as failed with ``payload`` (the channel's raw
        update, for a look and a retry) and the exception propagates. Free texts are cut
        to what a platform allows first (``edge.bounded``). ``plan`` gets the replies of a
        message with an ``update_id`` in its unit of work before it commits (a channel's
        own writes for them, such as SMS's numbered choices). ``within``: see ``_within``.
        """
        msg = edge.bounded(msg)
        if within is not None:
            return self._within(within, msg, plan)
        update_id = msg.update_id
        with self.uow_factory() as uow:
            if update_id is not None:
                # A live edit's inbox row goes with its ping, in one statement (PostgreSQL).
                begin = uow.updates.defer if pins.carries_begin(msg) else uow.updates.begin
                if not begin(update_id, msg.chat, msg.at):
                    return []  # a redelivery: acted on before
            turn = Turn(self.services, msg, uow)
            try:
                replies = routes.dispatch(turn)
                if not uow.updates.begin_deferred():
                    return []  # a redelivery, found only now: nothing is committed
                if plan is not None and update_id is not None:  # finish commits it then
                    plan(uow, replies)
                turn.finish()
            except Redelivered:
                return []
            except (RuleViolation, ChatError, GameNotFound) as refusal:
                uow.rollback()
                if not uow.updates.begin_deferred():
                    return []
                replies = refuse(turn, refusal)
                if update_id is not None:
                    uow.updates.settle(update_id, InboxStatus.REFUSED, msg.at, msg.chat)
                    if plan is not None:
                        plan(uow, replies)
                    uow.commit()
                return replies
            except Exception:  # each ping is handled again alone, and raises there
                uow.rollback()
                if not uow.updates.begin_deferred():
                    return []
                uow.rollback()
                if update_id is not None:
                    self.settle(update_id, InboxStatus.FAILED, msg.at, msg.chat, payload)
                raise
        return self._turned(turn, replies)

    def _within(self, uow: UnitOfWork, msg: Inbound, plan: Planner | None) -> list[Outbound]:
        """``handle`` in ``uow``, which stored ``msg`` (it has an ``update_id``) and holds it
        uncommitted, so that both commit together (one transaction for the two). Anything
        but a turn that applies (a refusal, a failure, a redelivery) rolls all of ``uow``
        back and raises ``Unsettled``: the caller stores ``msg`` again and ``handle``s it
        alone, which writes the refusal or the failure as ever."""
        assert msg.update_id is not None
        try:
            if not uow.updates.begin(msg.update_id, msg.chat, msg.at):
                raise Redelivered(msg.update_id)
            turn = Turn(self.services, msg, uow)
            replies = routes.dispatch(turn)
            if plan is not None:
                plan(uow, replies)
            turn.finish()
        except Exception as err:
            uow.rollback()
            raise Unsettled(msg.update_id) from err
        return self._turned(turn, replies)

    def _turned(self, turn: Turn, replies: list[Outbound]) -> list[Outbound]:
        """After a turn that applied: the outbox may hold its news; a new game's topic."""
        msg = turn.msg
        if turn.applied:
            self.maybe_pending = True
        if isinstance(msg, CommandIn) and msg.kind == ChatKind.GROUP and msg.name == "newgame":
            self.services.topics.pop(msg.chat, None)  # the game's topic may have moved
        return replies

    def handle_tracker(self, msg: TrackerIn, hashed: str) -> list[Outbound] | None:
        """A tracker app's ping with the token hashed ``hashed``, in one unit of work: the
        token checked (and its app noted as heard), then the ping as its holder's pin
        (``msg``'s chat and sender are replaced by the holder's). None, with nothing
        written, for an unknown or revoked token; else the replies to send now."""
        with self.uow_factory() as uow:
            try:
                replies, applied = self._tracker_turn(uow, msg, hashed)
            except (RuleViolation, ChatError, GameNotFound):
                uow.rollback()  # nothing the ping could establish: it changes nothing
                return []
            except ForgedToken:
                uow.rollback()
                return None
            uow.commit()
        if applied:
            self.maybe_pending = True
        return replies

    def handle_trackers(
        self, pings: list[tuple[TrackerIn, str]]
    ) -> list[list[Outbound] | Exception | None]:
        """Several pings (``handle_tracker``'s arguments), in arrival order, in one unit of
        work: one commit for all, which is what a busy tracker server spends its time on.
        Each ping gets what ``handle_tracker`` would answer, or the exception it raised.
        When any of them is refused or fails, nothing of the batch is kept and each ping is
        handled again alone, so one ping's fate never depends on another's."""
        if len(pings) == 1:
            return [self._tracker_alone(*pings[0])]
        games: set[int] = set()
        try:
            with self.uow_factory() as uow:
                answers: list[list[Outbound] | Exception | None] = []
                applied = False
                for msg, hashed in pings:
                    replies, wrote = self._tracker_turn(uow, msg, hashed, games)
                    answers.append(replies)
                    applied = applied or wrote
                uow.commit()
        except Exception:  # each ping is handled again alone, and raises there
            for game_id in games:  # a state cached from what was rolled back
                self.services.states.pop(game_id, None)
            return [self._tracker_alone(msg, hashed) for msg, hashed in pings]
        if applied:
            self.maybe_pending = True
        return answers

    def _tracker_alone(self, msg: TrackerIn, hashed: str) -> list[Outbound] | Exception | None:
        try:
            return self.handle_tracker(msg, hashed)
        except Exception as failed:
            return failed

    def _tracker_turn(
        self, uow: UnitOfWork, msg: TrackerIn, hashed: str, games: set[int] | None = None
    ) -> tuple[list[Outbound] | None, bool]:
        """One ping in ``uow``: its replies (None: an unknown token) and whether it changed
        a game; the ids of the games it read are added to ``games``. A refusal raises."""
        holder, recorded = pins.hear(uow, msg, hashed)  # the token checked, noted as heard
        if holder is None:
            return None, False
        if holder.games == 0:  # in no running game: nothing to record
            return [], False
        person = holder.person_ref
        msg = replace(
            msg,
            chat=person,
            sender=Sender(person, ""),
            device_ref=f"trk:{holder.tracker_id}",
        )
        turn = Turn(self.services, msg, uow)
        if holder.games == 1 and holder.newest_chat is not None:
            turn.about(holder.newest_chat)
        try:
            if recorded is not None:
                return pins.tracked(turn, msg, recorded), bool(turn.applied)
            replies = routes.dispatch(turn)
        finally:
            if games is not None and turn.read_game_id is not None:
                games.add(turn.read_game_id)
        return replies, bool(turn.applied)

    def tracker_holder(self, hashed: str) -> Holder | None:
        """Whose live tracker token hashes to ``hashed``, writing nothing."""
        with self.uow_factory() as uow:
            return uow.trackers.holder(hashed)

    def tracker_encrypted(self, hashed: str) -> list[Outbound] | None:
        """What the holder of the token hashed ``hashed`` is told when their app encrypts its
        messages (in their private chat, in their language, else their game's); None for an
        unknown or revoked token. Writes nothing."""
        with self.uow_factory() as uow:
            holder = uow.trackers.holder(hashed)
            if holder is None:
                return None
            person = holder.person_ref
            language = uow.chats.reader_language(person)
        fmt = Formatter(language or "en", by_text=is_sms(person))
        text = say("chat.tracker_encrypted", {}, fmt)
        return [SendText(person, text=text, private=True)]

    def settle(
        self,
        update_id: str,
        status: InboxStatus,
        at: datetime,
        lane: str | None = None,
        payload: str | None = None,
    ) -> None:
        """Write how an update the conversation did not apply ended: failed, unreadable, or
        applied with nothing to do (a kind of update the bot does not read)."""
        with self.uow_factory() as uow:
            uow.updates.settle(update_id, status, at, lane, payload)
            uow.commit()

    def store_updates(self, updates: list[tuple[str, str | None, str]], at: datetime) -> set[str]:
        """Store ``(update_id, lane, payload)`` as pending (a polled batch, before the poll is
        confirmed); return the ids that were new. Apply each later with ``handle``."""
        with self.uow_factory() as uow:
            new = uow.updates.store(updates, at)
            uow.commit()
        return new

    def pending_updates(self, limit: int = 100) -> list[Stored]:
        """Stored updates not applied yet, the first of each lane, oldest first."""
        with self.uow_factory() as uow:
            return uow.updates.pending(limit)

    def next_pending(self, lane: str) -> Stored | None:
        """The oldest stored update of ``lane`` not applied yet."""
        with self.uow_factory() as uow:
            return uow.updates.next_in_lane(lane)

    # ------------------------------------------------------------------ outgoing

    def outbox_games(self) -> list[int]:
        """The games with unsent outbox entries, the longest waiting first."""
        if not self.maybe_pending:
            return []
        news = self._news
        with self.uow_factory() as uow:
            games = uow.outbox.pending_games()
        if not games:
            self._found_quiet(news)
        return games

    def claim_outbox(self, game_id: int, holder: str, wall: datetime) -> bool:
        """Take (or renew) the lease on sending ``game_id``'s outbox for ``holder``; False
        while another process holds it. ``wall`` is the real time, not the game's."""
        with self.uow_factory() as uow:
            taken = uow.leases.take(f"outbox:{game_id}", holder, wall, OUTBOX_LEASE)
            uow.commit()
        return taken

    def release_outbox(self, game_id: int, holder: str) -> None:
        with self.uow_factory() as uow:
            uow.leases.release(f"outbox:{game_id}", holder)
            uow.commit()

    def outgoing(
        self, now: datetime, limit: int = 50, game_id: int | None = None
    ) -> list[Delivery]:
        """The unsent outbox (of ``game_id`` only, whose lease the caller holds), rendered:
        one Delivery per entry, then the pinned statuses.

        The referee's jobs (``jobs``) run first, each committing on its own; rendering only
        reads.
        """
        if game_id is None and not self.maybe_pending:
            return []
        news = self._news
        deliveries: list[Delivery] = []
        status_chats: set[str] = set()
        states: dict[int, GameState] = {}
        rendered: set[int] = set()
        services = self.services
        for _ in range(100):  # jobs may queue more announcements
            progressed = False
            with self.uow_factory() as uow:
                pending = uow.outbox.pending(limit=limit + len(rendered), game_id=game_id)
            for message in pending:
                if message.id in rendered:
                    continue  # rendered in an earlier pass, before a job added more
                if len(rendered) >= limit:
                    break
                if jobs.is_job(message.decision):
                    jobs.carry_out(services, message, now)
                    states.clear()
                    progressed = True
                    continue
                if jobs.prepare(services, message, now):
                    progressed = True
                    states.clear()
                if picture_jobs.queue_for(services, message, now):
                    services.pictures_queued = True
                decision = message.decision
                assert isinstance(decision, Notify)
                with self.uow_factory() as uow:
                    if message.game_id not in states:
                        states[message.game_id] = uow.games.read(message.game_id)
                    state = states[message.game_id]
                    actions = outbox.render(services, uow, message, decision, state, now)
                deliveries.append(Delivery(message.id, tuple(actions)))
                rendered.add(message.id)
                if decision.to.kind == AudienceKind.GROUP and not _is_job_news(decision.key):
                    status_chats.add(message.chat_key)  # a job's news change no status
            if not progressed:
                break
        if not deliveries and game_id is None:
            self._found_quiet(news)
        for chat in sorted(status_chats):
            with self.uow_factory() as uow:
                loaded = uow.games.read_chat(chat)
                if loaded is None or loaded.state.phase == Phase.SETUP:
                    continue
                fmt = services.formatter(uow, chat, loaded.state, now=now)
                text = outbox.status(services, uow, loaded.id, loaded.state, fmt, now)
                over = loaded.state.phase == Phase.GAME_OVER
            status: tuple[Outbound, ...] = (SendText(chat, text=text, slot=STATUS_SLOT),)
            if over:  # the final status: it need not stay on top
                status = (*status, Unpin(chat, slot=STATUS_SLOT))
            deliveries.append(Delivery(0, status))
        return deliveries

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
            loaded = uow.games.read_chat(chat)
            state = loaded.state if loaded else None
            fmt = self.services.formatter(uow, chat, state)
            player = state.player_by_ref(ref) if state else None
            known_name = uow.chats.name_of(ref)
            uow.commit()
        name = player.name if player else (known_name or ref)
        return [_open_private_request(chat, name, fmt)]

    def tick(self, now: datetime, limit: int | None = None) -> int:
        """Fire due timers (at most ``limit``); their announcements land in the outbox.
        Return how many fired: ``limit`` of them means more may be due."""
        self.maybe_pending = True
        self.services.pictures_queued = True
        fired = Scheduler(self.uow_factory, self.services.rulesets).run_due(now, limit)
        if fired:
            self.maybe_pending = True  # again: a look at the outbox meanwhile saw none of it
        for result in fired:
            self.services.states.pop(result.game_id, None)
            metrics.timer_fired((now - result.due_at).total_seconds())
        checked = self._quiet_checked_at
        if checked is None or now - checked >= liveness.CHECK_EVERY:
            self._quiet_checked_at = now
            liveness.check(self.uow_factory, now)  # live locations gone quiet: ask again
        return len(fired)

    @property
    def has_map_jobs(self) -> bool:
        """Whether map jobs can run here (maps from OpenStreetMap are configured)."""
        return self.services.map_clients is not None

    def run_map_job(self, clock: Callable[[], datetime]) -> bool:
        """Run the oldest queued map job (a search, a fetch) to its end; False when none.

        Slow (network): a channel runs it off its update path, in a worker thread. What
        it has to say lands in the outbox."""
        ran = map_jobs.run_next(self.services, clock)
        if ran:
            self.maybe_pending = True
        return ran

    def run_picture_job(self, clock: Callable[[], datetime]) -> bool:
        """Draw the oldest queued picture (the seekers' map, a hider's zone); False when
        none was queued. Slow (drawing, tiles): a channel runs it off its update path."""
        ran = picture_jobs.run_next(self.services, clock)
        if ran:
            self.maybe_pending = True
        else:
            self.services.pictures_queued = False
        return ran

    @property
    def draws_pictures(self) -> bool:
        """Whether its channel shows pictures (else a seekers' map is only its caption)."""
        return self.services.draws_pictures

    @draws_pictures.setter
    def draws_pictures(self, value: bool) -> None:
        self.services.draws_pictures = value

    @property
    def pictures_queued(self) -> bool:
        """Whether a picture job may wait (queued here, or a tick came: another process
        may have queued one)."""
        return self.services.pictures_queued

    def topic_of(self, chat: str) -> str | None:
        """The thread of group ``chat`` its game lives in (None: the main thread)."""
        return self.services.topic_of(chat, lambda: self._read_topic(chat))

    def _read_topic(self, chat: str) -> str | None:
        with self.uow_factory() as uow:
            return uow.chats.topic(chat)

    def status_ref(self, chat: str, slot: str = STATUS_SLOT) -> str | None:
        """The channel's id of the message kept in ``slot`` of ``chat`` (see SendText.slot)."""
        with self.uow_factory() as uow:
            return uow.chats.message_ref(chat, slot)

    def remember_status(
        self, chat: str, message_ref: str, now: datetime, slot: str = STATUS_SLOT
    ) -> None:
        with self.uow_factory() as uow:
            uow.chats.set_message_ref(chat, slot, message_ref, now)
            uow.commit()


def _is_job_news(key: str) -> bool:
    """Whether ``key`` is what a map or picture job has to say (no game status changed)."""
    return key.startswith("map.") or key in picture_jobs.PICTURE_NOTICES


def _open_private_request(chat: str, names: str, fmt: Formatter) -> SendText:
    """Ask ``names``, in ``chat``, to open a private chat with the bot."""
    button = open_private(say("chat.open_private_button", {}, fmt))
    return SendText(
        chat, text=say("chat.open_private", {"names": names}, fmt), buttons=((button,),)
    )
