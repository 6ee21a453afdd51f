"""The commands around the game: maps and uploads, settings, photos, /hand, /track, pauses."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from hideseek_chat.console.table import Table
from hideseek_chat.rules.state import Phase
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.play import HIDER_SPOT, SEEKERS_START, START, begin, events_count, state_of

SQUARE = [[-97.10, 36.10], [-97.00, 36.10], [-97.00, 36.20], [-97.10, 36.20], [-97.10, 36.10]]


def geojson_map() -> bytes:
    features = [
        {
            "type": "Feature",
            "properties": {"kind": "boundary"},
            "geometry": {"type": "Polygon", "coordinates": [SQUARE]},
        },
        {
            "type": "Feature",
            "properties": {"kind": "station", "name": "North Stop", "id": "n1"},
            "geometry": {"type": "Point", "coordinates": [-97.05, 36.18]},
        },
        {
            "type": "Feature",
            "properties": {"kind": "station", "name": "South Stop", "id": "s1"},
            "geometry": {"type": "Point", "coordinates": [-97.05, 36.12]},
        },
        {
            "type": "Feature",
            "properties": {"kind": "park", "name": "Big Park"},
            "geometry": {"type": "Point", "coordinates": [-97.06, 36.15]},
        },
    ]
    return json.dumps({"type": "FeatureCollection", "features": features}).encode()


def test_the_admin_uploads_a_map_and_the_zone_uses_it(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    table.send("Alice", "/newgame")
    table.upload("Alice", "town.geojson", geojson_map())
    assert "2 stations" in table.last()
    with uow_factory() as uow:
        assert uow.chats.prefs(table.group).map_name.startswith("upload-")
    table.send("Bob", "/join")
    table.send("Carol", "/join")
    table.send("Alice", "/begin")
    hider = begin_hider(table)
    table.pin(hider, 36.121, -97.051, private=True)
    table.wait(timedelta(minutes=31))
    assert any("South Stop" in line.text for line in table.said(hider))


def begin_hider(table: Table) -> str:
    return next(
        name
        for name in ("Alice", "Bob", "Carol")
        if any("You're hiding" in line.text for line in table.said(name))
    )


@pytest.mark.parametrize(
    ("filename", "content", "expected"),
    [
        ("town.geojson", b"{not json", "could not use"),
        ("town.kml", b"<kml><nothing/></kml>", "could not use"),
        ("town.zip", b"PK not really a zip", "could not use"),
    ],
)
def test_a_bad_map_file_gets_a_clear_error(
    table: Table, filename: str, content: bytes, expected: str
) -> None:
    table.send("Alice", "/newgame")
    table.upload("Alice", filename, content)
    assert expected in table.last().lower()
    assert "_" not in table.last(), "the reason is told in words, not as a code"
    with table.conversation.uow_factory() as uow:
        assert uow.chats.prefs(table.group).map_name == "stillwater"


def test_only_the_admin_uploads_maps_and_only_in_setup(table: Table) -> None:
    table.send("Alice", "/newgame")
    table.send("Bob", "/join")
    table.upload("Bob", "town.geojson", geojson_map())
    assert "admin" in table.last().lower()
    table.upload("Alice", "holiday.jpg.zip", b"x" * 10)
    assert "could not use" in table.last().lower()
    table.send("Alice", "/map nowhere")
    assert "stillwater" in table.last()
    table.send("Alice", "/map stillwater")
    assert "stillwater" in table.last()


def test_settings_are_for_the_admin(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    table.send("Alice", "/newgame")
    table.send("Bob", "/join")
    table.send("Bob", "/settings")
    assert "admin" in table.last().lower()
    table.send("Alice", "/settings")
    before = events_count(uow_factory)
    table.press("Bob", "2 rounds each")
    assert "admin" in table.toasts[-1][1].lower()
    assert events_count(uow_factory) == before
    table.press("Alice", "2 rounds each")
    assert state_of(uow_factory, table).settings.rounds_per_team == 2
    table.press("Alice", "Imperial")
    assert "imperial" in table.last().lower()


def test_a_photo_answer_is_relayed_to_the_group(table: Table) -> None:
    hider, (s1, _s2) = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True)
    table.wait(timedelta(minutes=31))
    table.send(s1, "/ask photo tree")
    assert "photo" in table.said(hider)[-1].text.lower()
    table.photo(s1, "not-the-hider", private=True)
    assert "only the hider" in table.last(s1).lower()
    table.photo(hider, "tg-file-123")
    relayed = [line for line in table.said() if line.photo_ref == "tg-file-123"]
    assert relayed, "the photo reaches the group"


def test_hand_and_track_are_private(table: Table) -> None:
    hider, (s1, s2) = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True)
    table.pin(s1, *SEEKERS_START)
    table.send(hider, "/hand")
    assert "privately" in table.last().lower()
    assert "hand" in table.last(hider).lower()
    table.send(hider, "/track")
    assert "private" in table.last().lower()
    table.send(hider, "/track", private=True)
    track = table.last(hider)
    assert s1 in track and "km" in track and s2 in track
    table.send(s1, "/track", private=True)
    assert "only the hider" in table.last(s1).lower()


def test_pause_resume_status_score_help(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    begin(table)
    table.send("Alice", "/pause")
    assert state_of(uow_factory, table).is_paused
    table.send("Alice", "/status")
    assert "Paused" in table.last()
    table.send("Alice", "/resume")
    assert not state_of(uow_factory, table).is_paused
    table.send("Bob", "/score")
    assert "Scores" in table.last()
    table.send("Carol", "/help")
    assert "/ask" in table.last() and "/found" in table.last()


def test_a_player_who_never_opened_a_private_chat_is_asked_to(table: Table) -> None:
    table.person("Dave", private_open=False)
    table.send("Alice", "/newgame")
    table.send("Dave", "/join")
    nudge = [line for line in table.said()[-2:] if "private" in line.text.lower()]
    assert nudge and "Dave" in nudge[0].text
    assert any(b.private_link for row in nudge[0].buttons for b in row)
    notice = table.conversation.unreachable("console:bob", START)
    assert notice == []  # Bob plays no game: nothing to say


def test_the_status_message_is_kept_current_not_reposted(table: Table) -> None:
    hider, (s1, _s2) = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True)
    table.wait(timedelta(minutes=31))
    table.pin(s1, *SEEKERS_START)
    table.send(s1, "/ask radar 1km")
    status = [line for line in table.lines if line.slot == "status"]
    assert len(status) == 1
    assert "Radar 1 km" in status[0].text
    assert state_of(table.conversation.uow_factory, table).phase == Phase.SEEKING


def seeking(table: Table) -> tuple[str, str, str]:
    hider, (s1, s2) = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True)
    table.pin(s1, *SEEKERS_START)
    table.pin(s2, *SEEKERS_START)
    table.wait(timedelta(minutes=31))
    return hider, s1, s2


def test_any_seeker_can_carry_a_thermometer(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    hider, s1, s2 = seeking(table)
    table.send(s1, "/ask thermometer 1km")
    for lat, lon in [(36.1370, -97.0770), (36.1330, -97.0730), (36.1300, -97.0700)]:
        table.wait(timedelta(minutes=2))
        table.pin(s2, lat, lon, edited=True)
    incoming = table.said(hider)[-1].text
    assert "Suggested answer: Hotter" in incoming


def test_a_dropped_pin_does_not_start_the_end_game(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    _hider, s1, _s2 = seeking(table)
    table.pin(s1, HIDER_SPOT[0] + 0.001, HIDER_SPOT[1], live=False)
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    table.wait(timedelta(minutes=1))
    table.pin(s1, HIDER_SPOT[0] + 0.001, HIDER_SPOT[1])
    table.wait(timedelta(minutes=1))
    table.pin(s1, HIDER_SPOT[0] + 0.0011, HIDER_SPOT[1], edited=True)
    assert state_of(uow_factory, table).phase == Phase.END_GAME


def test_a_catch_claimed_from_far_away_is_refused_without_the_distance(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1, _s2 = seeking(table)
    before = events_count(uow_factory)
    table.send(s1, "/found")
    reply = table.last()
    assert "nowhere near" in reply and "km" not in reply and " m " not in reply
    assert events_count(uow_factory) == before
    assert not any("found you" in line.text for line in table.said(hider))
