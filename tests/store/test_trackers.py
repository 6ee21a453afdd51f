"""Tracker tokens in the store (``store.trackers``), on SQLite and PostgreSQL: only a hash
is kept, one live token a person, revoked tokens are unknown, ``heard`` notes the app."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from hideseek_chat.store import UnitOfWorkFactory, delete_player_data
from hideseek_chat.store.models import TrackerRow
from hideseek_chat.store.trackers import token_hash

NOW = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)


def test_a_token_is_stored_as_its_hash_only(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        token = uow.trackers.issue("tg:42", NOW)
        uow.commit()
    with uow_factory() as uow:
        rows = list(uow.session.scalars(select(TrackerRow)))
        assert [r.token_hash for r in rows] == [token_hash(token)]
        assert all(token not in str(value) for r in rows for value in vars(r).values())
        holder = uow.trackers.holder(token_hash(token))
        assert holder is not None and holder.person_ref == "tg:42"
        assert uow.trackers.holder(token_hash(token + "x")) is None


def test_reset_revokes_the_old_token_and_off_revokes_all(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        old = uow.trackers.issue("tg:42", NOW)
        new = uow.trackers.issue("tg:42", NOW + timedelta(minutes=1))
        other = uow.trackers.issue("tg:7", NOW)
        uow.commit()
    with uow_factory() as uow:
        assert uow.trackers.heard(token_hash(old), "owntracks", NOW) is None
        assert uow.trackers.heard(token_hash(new), "owntracks", NOW) is not None
        assert uow.trackers.revoke("tg:42", NOW) is True
        assert uow.trackers.revoke("tg:42", NOW) is False
        uow.commit()
    with uow_factory() as uow:
        assert uow.trackers.holder(token_hash(new)) is None
        assert uow.trackers.active("tg:42") is None
        assert uow.trackers.holder(token_hash(other)) is not None


def test_heard_notes_the_app_and_the_time(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        token = uow.trackers.issue("tg:42", NOW)
        uow.commit()
    with uow_factory() as uow:
        holder = uow.trackers.heard(token_hash(token), "gpslogger", NOW + timedelta(minutes=3))
        assert holder is not None
        uow.commit()
    with uow_factory() as uow:
        active = uow.trackers.active("tg:42")
        assert active is not None and active.id == holder.tracker_id
        assert active.last_app == "gpslogger"
        assert active.last_heard_at == NOW + timedelta(minutes=3)


def test_erasure_forgets_the_persons_tracker_links(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        old = uow.trackers.issue("tg:42", NOW)
        new = uow.trackers.issue("tg:42", NOW)
        kept = uow.trackers.issue("tg:7", NOW)
        uow.commit()
    delete_player_data(uow_factory, "tg:42")
    with uow_factory() as uow:
        refs = list(uow.session.scalars(select(TrackerRow.person_ref)))
        assert refs == ["tg:7"]
        assert uow.trackers.holder(token_hash(new)) is None
        assert uow.trackers.holder(token_hash(old)) is None
        assert uow.trackers.holder(token_hash(kept)) is not None
