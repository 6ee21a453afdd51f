"""A whole round's end game and catch driven by GPS tracker apps only (issue 20), through the
real web server on 127.0.0.1, on both databases: the hider's OwnTracks fixes the zone, the
seekers' Traccar Client and GPSLogger start the end game (the device's speed tells walking
from riding), and the catch is checked against the trackers' pins. Nothing the group or a
seeker reads gives the hider away."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import httpx
import pytest

from hideseek_chat.console.table import Table
from hideseek_chat.rules.state import Phase
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.play import HIDER_SPOT, SEEKERS_START, STATION, begin, state_of
from tests.chat.test_play_catch import IN_ZONE, assert_secret, spot_of
from tests.web.trackers_server import Tracker, listening, serving, token_of, tracker_table


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10) as http:
        yield http


def test_a_round_ends_by_tracker_pings_only(
    uow_factory: UnitOfWorkFactory, client: httpx.Client
) -> None:
    sock, port = listening()
    table = tracker_table(uow_factory, port)
    hider, (s1, s2) = begin(table)
    apps = {hider: "owntracks", s1: "traccar", s2: "gpslogger"}
    with serving(table, sock) as base:
        trackers = {
            name: Tracker(base, token_of(table, name), app, client) for name, app in apps.items()
        }
        # Hiding: the hider's tracker only; the referee hears it, the group nothing.
        mark = table.mark()
        answer = trackers[hider].ping(*HIDER_SPOT, table.now)
        assert answer.status_code == 200 and answer.json() == []
        for seeker in (s1, s2):
            assert trackers[seeker].ping(*SEEKERS_START, table.now).status_code == 200
        assert not table.said(table.group, since=mark), "a tracker's ping is never announced"
        table.wait(timedelta(minutes=30, seconds=30))
        state = state_of(uow_factory, table)
        assert state.phase == Phase.SEEKING
        assert state.current_round is not None and state.current_round.zone is not None
        assert state.current_round.zone.station_name == STATION

        # /status names where each seeker's pin came from; never the hider.
        table.send(s1, "/status")
        status = table.said()[-1].text
        assert "(Traccar)" in status and "(GPSLogger)" in status and "OwnTracks" not in status

        # Riding through the zone: the device says 40 km/h, so no end game.
        table.wait(timedelta(minutes=5))
        trackers[s2].ping(*IN_ZONE, table.now, speed_kmh=40.0)
        assert state_of(uow_factory, table).phase == Phase.SEEKING
        # Walking in: one ping at 4 km/h is enough, the speed is measured.
        table.wait(timedelta(minutes=1))
        trackers[s1].ping(*IN_ZONE, table.now, speed_kmh=4.0)
        assert state_of(uow_factory, table).phase == Phase.END_GAME
        assert spot_of(uow_factory, table) == HIDER_SPOT

        # The catch: s1's tracker next to the hider, whose tracker keeps reporting.
        table.wait(timedelta(minutes=5))
        trackers[hider].ping(*HIDER_SPOT, table.now)
        trackers[s1].ping(HIDER_SPOT[0] + 0.0002, HIDER_SPOT[1], table.now, speed_kmh=2.0)
        table.send(s1, "/found")
        asked = table.said(hider)[-1]
        assert "says they've found you; their pin is 22 m from yours" in asked.text
        table.press(hider, "Yes, they found me")
        assert any("✅ Found!" in line.text for line in table.said())
    assert_secret(table, hider)


def test_a_late_ping_never_moves_a_player_back_and_a_replay_is_stored_once(
    uow_factory: UnitOfWorkFactory, client: httpx.Client
) -> None:
    sock, port = listening()
    table = tracker_table(uow_factory, port)
    _hider, (s1, _s2) = begin(table)
    with serving(table, sock) as base:
        tracker = Tracker(base, token_of(table, s1), "owntracks", client)
        first = table.now
        table.wait(timedelta(minutes=2))
        assert tracker.ping(*SEEKERS_START, table.now).status_code == 200
        assert tracker.ping(*SEEKERS_START, table.now).status_code == 200  # replayed
        assert tracker.ping(*IN_ZONE, first).status_code == 200  # buffered, older
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        player = loaded.state.player_by_ref(table.people[s1.lower()].ref)
        assert player is not None
        pings = uow.pings.last(loaded.id, player.id, 10)
    assert len(pings) == 1, "the replay and the older ping are not stored"
    assert (pings[0].lat, pings[0].lon) == SEEKERS_START
    assert pings[0].source == "tracker:owntracks"


def test_someone_in_no_game_is_answered_200_and_nothing_happens(
    uow_factory: UnitOfWorkFactory, client: httpx.Client
) -> None:
    sock, port = listening()
    table = tracker_table(uow_factory, port)
    with serving(table, sock) as base:
        tracker = Tracker(base, token_of(table, "Bob"), "gpslogger", client)
        mark = table.mark()
        answer = tracker.ping(*SEEKERS_START, table.now)
        assert answer.status_code == 200 and answer.text == "OK"
        assert not table.said(since=mark, bot_only=True)
        assert not [line for line in table.lines if line.id > mark]


def test_the_link_is_shown_once_and_off_or_reset_revoke_it(
    uow_factory: UnitOfWorkFactory, client: httpx.Client
) -> None:
    sock, port = listening()
    table: Table = tracker_table(uow_factory, port)
    with serving(table, sock) as base:
        token = token_of(table, "Carol")
        old = Tracker(base, token, "owntracks", client)
        assert old.ping(*SEEKERS_START, table.now).status_code == 200
        # Asked again: a fingerprint only, so the screen offers a new link or none.
        table.send("Carol", "/tracker", private=True)
        again = table.said("Carol")[-1]
        assert token not in again.text and "last heard from OwnTracks" in again.text
        table.press("Carol", "New link", chat=again.chat)
        new = Tracker(base, token_of_last(table, "Carol"), "owntracks", client)
        assert new.token != token
        assert old.ping(*SEEKERS_START, table.now).status_code == 401
        assert new.ping(*SEEKERS_START, table.now).status_code == 200
        table.send("Carol", "/tracker off", private=True)
        assert "off" in table.said("Carol")[-1].text
        assert new.ping(*SEEKERS_START, table.now).status_code == 401


def token_of_last(table: Table, name: str) -> str:
    from tests.web.trackers_server import LINK

    for line in reversed(table.said(name)):
        found = LINK.search(line.text)
        if found:
            return found.group(1)
    raise AssertionError("no tracker link")
