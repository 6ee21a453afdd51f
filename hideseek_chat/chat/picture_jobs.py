"""Picture jobs: the seekers' map after an answer, the hider's zone once it is fixed.

A picture never runs on the update path. ``queue_for`` looks at each outbox entry before it
is rendered (``Conversation.outgoing``): an answer (or a veto) in the group queues the
seekers' map, the hider's ``zone.fixed`` queues their zone's picture. ``run_next`` claims
the oldest queued job (one process runs it, see ``store.pictures``), draws it from the
state at that moment and writes the notice that carries it (``picture.seekers`` to the
group, ``picture.zone`` to the hiding team); the PNG stays with the job, and the notice
names it. Two answers in quick succession make one picture: while a job of the game
waits, no other is queued, and the one that runs draws the newest state.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from hideseek_chat.chat import seekmap, sightings
from hideseek_chat.chat.turn import Services
from hideseek_chat.rules.decisions import GROUP, HIDERS, AudienceKind, Notify
from hideseek_chat.rules.state import Phase
from hideseek_chat.store import OutboxMessage, UnitOfWork
from hideseek_chat.store.models import PictureKind
from hideseek_chat.store.pictures import PictureJob

log = logging.getLogger(__name__)

#: A job running this long is taken to have lost its process.
STALE_AFTER = timedelta(minutes=2)
#: Phases in which the seekers' map means something: a round's seeking.
SEEKING_PHASES = frozenset({Phase.SEEKING, Phase.MOVING, Phase.END_GAME})
#: Group notices after which the seekers' map is drawn again.
ANSWER_NOTICES = frozenset({"question.answered", "question.vetoed"})
#: Notices that carry a picture (``picture_id``: its job).
PICTURE_NOTICES = frozenset({"picture.seekers", "picture.zone"})

Clock = Callable[[], datetime]


def queue_for(services: Services, message: OutboxMessage, now: datetime) -> bool:
    """Queue the picture ``message`` calls for, if any (once per entry); True when one
    was queued."""
    notify = message.decision
    if not isinstance(notify, Notify):
        return False
    if notify.key in ANSWER_NOTICES and notify.to.kind == AudienceKind.GROUP:
        kind = PictureKind.SEEKERS
    elif notify.key == "zone.fixed":
        kind = PictureKind.ZONE
    else:
        return False
    with services.uow_factory() as uow:
        if kind == PictureKind.SEEKERS and not uow.chats.prefs(message.chat_key).auto_pictures:
            return False
        queued = uow.pictures.queue(
            message.game_id, kind, message.round_number, f"outbox:{message.id}", now
        )
        uow.commit()
    return queued is not None


def run_next(services: Services, clock: Clock) -> bool:
    """Claim and draw the oldest queued picture; False when there was none. Never raises:
    a picture that fails is logged and left out."""
    with services.uow_factory() as uow:
        job = uow.pictures.claim_next(clock(), STALE_AFTER)
        uow.commit()
    if job is None:
        return False
    try:
        if job.kind == PictureKind.SEEKERS:
            _seekers(services, job, clock)
        else:
            _zone(services, job, clock)
    except Exception:  # one broken picture must not stop the bot
        log.exception("picture job %s failed", job.id)
        now = clock()
        with services.uow_factory() as uow:
            uow.pictures.finish(job.id, now, error_key="picture.failed")
            if job.kind == PictureKind.SEEKERS:  # the group waits for it: say so
                failed = Notify(GROUP, "picture.failed", {})
                uow.outbox.add(job.game_id, [failed], now, job.round_number)
            uow.commit()
    return True


def _nothing(services: Services, job: PictureJob, now: datetime) -> None:
    """End ``job`` with nothing to show (its round is over, no map)."""
    with services.uow_factory() as uow:
        uow.pictures.finish(job.id, now)
        uow.commit()


def _current(uow: UnitOfWork, job: PictureJob) -> tuple[bool, int | None]:
    """Whether the job's round is still played, and its number."""
    state = uow.games.read(job.game_id)
    current = state.current_round
    if current is None or state.phase not in SEEKING_PHASES:
        return False, None
    if job.round_number is not None and current.number != job.round_number:
        return False, None
    return True, current.number


def _seekers(services: Services, job: PictureJob, clock: Clock) -> None:
    with services.uow_factory() as uow:
        state = uow.games.read(job.game_id)
        playing, round_number = _current(uow, job)
        view = None
        if playing:
            ruleset = services.ruleset(state)
            view = seekmap.seekers_view(
                uow, services.maps, ruleset, services.seekmaps, job.game_id, state
            )
    if view is None:
        _nothing(services, job, clock())
        return
    picture = services.painter.seekers(view) if services.draws_pictures else None
    now = clock()
    with services.uow_factory() as uow:
        uow.pictures.finish(job.id, now, picture=picture)
        params = {"picture_id": job.id, **seekmap.caption_params(view)}
        uow.outbox.add(job.game_id, [Notify(GROUP, "picture.seekers", params)], now, round_number)
        uow.commit()


def _zone(services: Services, job: PictureJob, clock: Clock) -> None:
    with services.uow_factory() as uow:
        state = uow.games.read(job.game_id)
        playing, round_number = _current(uow, job)
        current = state.current_round
        zone = current.zone if playing and current is not None else None
        index = sightings.map_index(uow, services.maps, job.game_id) if zone else None
        units = uow.chats.prefs(uow.games.chat_key(job.game_id)).units
        units = units or services.ruleset(state).units
    if zone is None or index is None or not services.draws_pictures:
        _nothing(services, job, clock())
        return
    picture = services.painter.zone(
        index.pack, zone.lat, zone.lon, zone.radius_m, zone.station_name, units
    )
    now = clock()
    with services.uow_factory() as uow:
        uow.pictures.finish(job.id, now, picture=picture)
        params = {"picture_id": job.id, "station": zone.station_name, "radius_m": zone.radius_m}
        uow.outbox.add(job.game_id, [Notify(HIDERS, "picture.zone", params)], now, round_number)
        uow.commit()
