"""Locations: a live location, a one-off pin, or coordinates and map links typed as text.

Each is stored as a pin of the player who sent it; then the referee says what it
establishes (``referee``: the zone from the hider's first pin after the hiding period when
they had none then, the end game from a seeker's live location inside the zone, a
thermometer finished), and those facts are applied in the same turn. A hider's location
posted in the group is deleted at once. While hiding, a hider who sends a location far
from every station of the map is told privately which station is nearest. A live location
that stops during a round is asked for again.

A location names its message and version: a redelivered or late older edit changes nothing
(``store.pings``), so it can neither move the player back nor establish anything.
"""

from __future__ import annotations

from datetime import datetime

from hideseek_chat.chat import liveness, referee, sightings
from hideseek_chat.chat.focus import GameUnclear
from hideseek_chat.chat.handlers import endgame
from hideseek_chat.chat.model import (
    ChatKind,
    DeleteMessage,
    Inbound,
    LocationIn,
    Outbound,
    TextIn,
    TrackerIn,
)
from hideseek_chat.chat.texts import say
from hideseek_chat.chat.turn import Turn
from hideseek_chat.geo import Pin, PinRejected, parse_pin_text
from hideseek_chat.rules import pins
from hideseek_chat.rules.decisions import Notify, to_player
from hideseek_chat.rules.events import Event
from hideseek_chat.rules.state import GameState, Phase
from hideseek_chat.store import GameNotFound
from hideseek_chat.store.chats import PersonGame
from hideseek_chat.store.pings import Recorded
from hideseek_chat.store.trackers import Holder
from hideseek_chat.store.uow import UnitOfWork


def carries_begin(msg: Inbound) -> bool:
    """Whether ``msg``'s first write is its ping, which can carry its inbox row
    (``Inbox.defer``): a location that is neither forwarded nor the end of a live one."""
    return isinstance(msg, LocationIn) and not (msg.forwarded or msg.live_ended)


def location(turn: Turn, msg: LocationIn) -> list[Outbound]:
    """A shared location (live or not) from the chat's channel."""
    if msg.live_ended:
        _live_ended(turn)
        return []
    if not is_on_earth(msg):
        # No phone sends this: a forged or broken update. Said once in private, never for
        # each edit of a live location, and a group hears nothing of it.
        return [turn.reply(turn.say("chat.bad_pin"))] if turn.is_private and not msg.edited else []
    source = "live" if msg.live else "pin"
    return _record(turn, msg.lat, msg.lon, msg.accuracy_m, source, msg.forwarded)


def tracker(turn: Turn, msg: TrackerIn) -> list[Outbound]:
    """A tracker app's ping: a live location of the sender in their game (the newest when
    they play several and chose none). Said nothing back: a person outside any game, a
    ping that is not new, or one off the Earth changes nothing, quietly."""
    try:
        turn.game_chat()
    except GameUnclear:
        turn.follow(turn.person_games()[0].game_id)
    except GameNotFound:
        return []
    if not is_on_earth(msg):
        return []
    return _record(turn, msg.lat, msg.lon, msg.accuracy_m, tracker_source(msg), False)


def is_on_earth(msg: LocationIn) -> bool:
    """Whether ``msg``'s position is one a phone could send (on Earth, a sane accuracy)."""
    try:
        Pin(msg.lat, msg.lon, msg.at, msg.accuracy_m)
    except PinRejected:
        return False
    return True


def tracker_source(msg: TrackerIn) -> str:
    """What a tracker ping's pin records as its source: the tracker and its app."""
    return f"{pins.TRACKER}:{msg.app}" if msg.app else pins.TRACKER


def hear(uow: UnitOfWork, msg: TrackerIn, hashed: str) -> tuple[Holder | None, Recorded | None]:
    """Check a tracker ping's token (hashed ``hashed``) and note its app as heard: whose it
    is (None: no live token, nothing written) and, on PostgreSQL when its holder plays in
    one unfinished game, the ping stored in the same statement (else None: ``tracker``
    stores it). Raise ``ForgedToken`` when the token was found by a looser match than its
    hash (the caller rolls back what the statement wrote)."""
    if not is_on_earth(msg):  # heard, and nothing to store
        return uow.trackers.heard(hashed, msg.app, msg.sent_at or msg.at), None
    return uow.pings.record_tracked(
        hashed,
        msg.app,
        msg.sent_at or msg.at,
        msg.lat,
        msg.lon,
        msg.at,
        msg.accuracy_m,
        tracker_source(msg),
        msg.sent_at,
        msg.speed_kmh,
    )


def tracked(turn: Turn, msg: TrackerIn, recorded: Recorded) -> list[Outbound]:
    """A tracker's ping that ``Pings.record_tracked`` stored already (with its token's
    check): what it establishes, as ``tracker`` would after storing it."""
    return _after_record(turn, recorded, msg.lat, msg.lon)


def text(turn: Turn, msg: TextIn) -> list[Outbound]:
    """Coordinates or a map link typed as text count as a pin; other chatter is ignored."""
    try:
        pin = parse_pin_text(msg.text, msg.at)
    except PinRejected as rejected:
        if turn.is_private and rejected.reason != "no_coordinates":
            return [turn.reply(turn.say("chat.bad_pin"))]
        return []
    return _record(turn, pin.lat, pin.lon, pin.accuracy_m, "text", False)


def _record(
    turn: Turn, lat: float, lon: float, accuracy: float | None, source: str, forwarded: bool
) -> list[Outbound]:
    msg = turn.msg
    uow = turn.uow
    sent_at = msg.sent_at if isinstance(msg, LocationIn) else None
    # A tracker's pings are versions of the device's one "message": its ref and time.
    version = msg.device_ref if isinstance(msg, TrackerIn) else msg.message_ref
    speed = msg.speed_kmh if isinstance(msg, TrackerIn) else None
    recorded = None
    if turn.is_private and not forwarded and not turn.knows_game():
        # A hider's live location comes in private: the game and the ping in one statement
        # when the sender plays in one game only (PostgreSQL), the hot path of their edits.
        recorded = uow.pings.record_alone(
            msg.sender.ref, lat, lon, msg.at, accuracy, source, version, sent_at, uow.updates, speed
        )
        if recorded is not None:
            assert recorded.chat is not None
            target = recorded.target
            found = PersonGame(target.game_id, *recorded.chat, target.last_event_id)
            turn.found_alone(found)
    if recorded is None:
        in_chat = _record_in_chat(turn, lat, lon, accuracy, source, forwarded, version, sent_at)
        if isinstance(in_chat, list):
            return in_chat
        recorded = in_chat
    return _after_record(turn, recorded, lat, lon)


def _after_record(turn: Turn, recorded: Recorded, lat: float, lon: float) -> list[Outbound]:
    """What a recorded pin establishes, and the replies to it."""
    msg = turn.msg
    uow = turn.uow
    if not recorded.stored:
        return []  # this version was stored already, or a newer one was: nothing changes
    target = recorded.target
    turn.wrote()
    state = turn.services.state_at(uow, target.game_id, target.last_event_id)
    turn.use_state(target.game_id, state)
    is_hider = state.is_hider(target.player_id) and state.phase not in (
        Phase.SETUP,
        Phase.GAME_OVER,
    )
    for event in facts(turn, state, target.player_id, msg.at, (lat, lon)):
        turn.establish(event)
    replies: list[Outbound] = endgame.after_pin(turn, target.player_id, msg.at, (lat, lon))
    if (
        is_hider
        and state.phase == Phase.HIDING
        and not (isinstance(msg, LocationIn) and msg.edited)
    ):
        replies.extend(_station_advice(turn, state, lat, lon))
    if is_hider and msg.kind == ChatKind.GROUP:
        if msg.message_ref:
            replies.append(DeleteMessage(msg.chat, message_ref=msg.message_ref))
        replies.append(turn.to_group(turn.say("chat.hider_pin_in_group")))
    if not isinstance(msg, LocationIn) or (not msg.live and turn.is_private):
        replies.append(turn.reply(turn.say("chat.pin_saved")))
    return replies


def _record_in_chat(
    turn: Turn,
    lat: float,
    lon: float,
    accuracy: float | None,
    source: str,
    forwarded: bool,
    version: str | None,
    sent_at: datetime | None,
) -> Recorded | list[Outbound]:
    """Store the ping in the game of the message's chat (or the sender's chosen game): what
    it recorded, or the replies when nothing is stored (no game; not a player; forwarded)."""
    msg = turn.msg
    try:
        chat = turn.game_chat()
    except GameUnclear:
        raise  # asked which game, before anything is written (``routes.dispatch``)
    except GameNotFound:
        # In a group a location is just chat; in private it needs a game.
        return [turn.reply(turn.say("chat.not_in_game"))] if turn.is_private else []
    uow = turn.uow
    if forwarded:
        if uow.pings.target(chat, msg.sender.ref) is None:
            return []  # not a player: a location in the group is just chat
        edited = isinstance(msg, LocationIn) and msg.edited
        return [] if edited else [turn.reply(turn.say("chat.forwarded_pin"))]
    # The target and the insert in one statement (PostgreSQL): the hot path of live edits.
    recorded = uow.pings.record(
        chat,
        msg.sender.ref,
        lat,
        lon,
        msg.at,
        accuracy,
        source,
        False,
        version,
        sent_at,
        uow.updates,
        speed_kmh=msg.speed_kmh if isinstance(msg, TrackerIn) else None,
    )
    return [] if recorded is None else recorded  # None: not a player, just chat


def _station_advice(turn: Turn, state: GameState, lat: float, lon: float) -> list[Outbound]:
    """Tell the hiding team, privately, when this pin is not near any station of the map."""
    services = turn.services
    advice = sightings.station_advice(
        turn.uow, services.maps, services.ruleset(state), turn.game_id, state, lat, lon
    )
    if advice is None:
        return []
    hider_team = state.hider_team_id()
    assert hider_team is not None
    return [
        turn.to_person(p.ref, say("chat.hiding_far_from_station", advice, turn.formatter(p.ref)))
        for p in state.team_players(hider_team)
    ]


def _live_ended(turn: Turn) -> None:
    """A player stopped sharing their live location during a round: ask them to share it
    again (through the outbox, which also keeps ``liveness`` from asking twice)."""
    try:
        chat = turn.game_chat()
    except GameNotFound:
        return
    target = turn.uow.pings.target(chat, turn.msg.sender.ref)
    if target is None:
        return
    state = turn.services.state_at(turn.uow, target.game_id, target.last_event_id)
    turn.use_state(target.game_id, state)
    if liveness.is_round_running(state):
        turn.announce([Notify(to_player(target.player_id), "chat.live_ended")])


def facts(
    turn: Turn, state: GameState, player_id: int, now: datetime, where: tuple[float, float]
) -> list[Event]:
    """What a new pin of ``player_id`` at ``where`` establishes: the zone, the end game, a
    finished thermometer (read from the stored pins, judged by the referee)."""
    current = state.current_round
    if current is None or state.phase not in (Phase.SEEKING, Phase.END_GAME):
        return []
    uow, game_id = turn.uow, turn.game_id
    if state.is_hider(player_id):
        if current.zone is not None:  # a pending zone is fixed in the end game too
            return []
        services = turn.services
        fixed = sightings.zone_fixed(
            uow, services.maps, services.ruleset(state), game_id, state, now
        )
        return [fixed] if fixed else []
    events: list[Event] = []
    if (
        state.phase == Phase.SEEKING
        and current.zone is not None
        and not state.is_paused
        and referee.may_be_in_zone(current.zone, *where)
    ):
        track = sightings.last_pins(uow, game_id, player_id, 10)
        started = referee.end_game_started(current.zone, track, now)
        if started is not None:
            return [started]
    pending = state.pending_question()
    if pending is not None and pins.can_carry_thermometer(state, player_id, pending):
        start = sightings.thermometer_start(
            uow, turn.services.thermometer_starts, game_id, pending.asked_by, pending.asked_at
        )
        latest = sightings.last_pin(uow, game_id, player_id)
        by = state.player(player_id).ref
        finished = referee.thermometer_finished(by, start, latest, pending.distance_m)
        if finished is not None:
            events.append(finished)
    return events
