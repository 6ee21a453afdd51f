"""What the fuzzer (``test_fuzz``) and issue 18 found, one test each: hostile input gets a
clear refusal, or silence where a group should hear nothing, and changes nothing."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from hideseek_chat.chat.model import ChatKind, CommandIn, Sender
from hideseek_chat.console.table import Table
from hideseek_chat.rules.state import Phase
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.models import EventRow, GameRow, OutboxRow, PingRow
from tests.chat.play import HIDER_SPOT, SEEKERS_START, begin, events_count, state_of

CANT_READ = "I can't read"
BAD_PIN = "I could not read that as a location."


def seeking(table: Table, uow_factory: UnitOfWorkFactory) -> tuple[str, list[str]]:
    hider, seekers = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True)
    for seeker in seekers:
        table.pin(seeker, *SEEKERS_START)
    table.wait(timedelta(minutes=31))
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    return hider, seekers


def pings(uow_factory: UnitOfWorkFactory) -> int:
    with uow_factory() as uow:
        return int(uow.session.scalar(select(func.count(PingRow.id))) or 0)


def last_reply(table: Table, chat: str) -> str:
    return table.said(chat)[-1].text


@pytest.mark.parametrize("distance", ["1/0 mi", "0/0 km", "1" * 400 + " m"])
def test_a_distance_that_is_no_number_is_refused(
    table: Table, uow_factory: UnitOfWorkFactory, distance: str
) -> None:
    """``/ask thermometer 1/0 mi`` raised ZeroDivisionError."""
    _, (seeker, _) = seeking(table, uow_factory)
    before = events_count(uow_factory)
    table.send(seeker, f"/ask thermometer {distance}")
    reply = last_reply(table, table.group)
    assert reply.startswith(CANT_READ) and len(reply) < 200  # a long word is cut short
    assert events_count(uow_factory) == before


@pytest.mark.parametrize(
    ("lat", "lon", "accuracy"),
    [
        (math.nan, -97.07, 10.0),
        (36.13, math.inf, 10.0),
        (91.0, -97.07, 10.0),
        (36.13, -181.0, 10.0),
        (36.13, -97.07, math.nan),
        (36.13, -97.07, math.inf),
        (36.13, -97.07, -5.0),
    ],
)
def test_a_location_off_the_earth_is_refused_and_not_stored(
    table: Table, uow_factory: UnitOfWorkFactory, lat: float, lon: float, accuracy: float
) -> None:
    """A NaN coordinate was stored (and crashed the insert on a NOT NULL column, or the
    referee later): now a private pin is refused once, a group hears nothing."""
    _, (seeker, _) = seeking(table, uow_factory)
    before, lines = pings(uow_factory), len(table.lines)
    table.pin(seeker, lat, lon, accuracy_m=accuracy, live=False)  # in the group
    assert [x for x in table.lines[lines:] if x.author == "bot"] == []
    table.pin(seeker, lat, lon, accuracy_m=accuracy, live=False, private=True)
    assert last_reply(table, table.person(seeker).ref).startswith(BAD_PIN)
    lines = len(table.lines)
    table.pin(seeker, lat, lon, accuracy_m=accuracy, live=True, edited=True, private=True)
    assert [x for x in table.lines[lines:] if x.author == "bot"] == []  # not for each edit
    assert pings(uow_factory) == before
    assert state_of(uow_factory, table).phase == Phase.SEEKING


def test_a_forged_thermometer_button_is_refused(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    """``arrive:<game>:0`` (no such question) raised KeyError."""
    _, (seeker, _) = seeking(table, uow_factory)
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        game = loaded.id
    before = events_count(uow_factory)
    for data in (f"arrive:{game}:0", f"arrive:{game}:{2**31 - 1}", f"arrive:{game}:-7"):
        table.press_data(seeker, data)
        assert table.toasts[-1][1] == "That button no longer works."
    assert events_count(uow_factory) == before


@pytest.mark.parametrize("distance", ["1e300", "inf", "nan", "-5", "0"])
def test_a_forged_distance_in_an_ask_button_is_refused(
    table: Table, uow_factory: UnitOfWorkFactory, distance: str
) -> None:
    _, (seeker, _) = seeking(table, uow_factory)
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        game = loaded.id
    before = events_count(uow_factory)
    table.press_data(seeker, f"ask:{game}:radar-custom:{distance}")
    assert table.toasts[-1][1] == "That button no longer works."
    assert events_count(uow_factory) == before


def test_a_file_in_a_group_without_a_game_gets_no_answer(table: Table) -> None:
    for name in ("map.geojson", "stations.csv", "huge.zip", "holiday.jpg"):
        lines = len(table.lines)
        table.upload("Bob", name, b'{"type": "FeatureCollection", "features": []}')
        assert [x for x in table.lines[lines:] if x.author == "bot"] == []


def test_a_file_larger_than_it_says_is_too_big(table: Table) -> None:
    """The limit holds for what came, not only for the size the channel reported."""
    table.send("Alice", "/newgame")
    from hideseek_chat.chat.maps import MAX_UPLOAD_BYTES
    from hideseek_chat.chat.model import FileIn

    alice = table.person("Alice")
    content = b"x" * (MAX_UPLOAD_BYTES + 1)
    replies = table.deliver(
        FileIn(
            table.group,
            ChatKind.GROUP,
            Sender(alice.ref, "Alice"),
            table.now,
            "console:big",
            "901",
            filename="map.geojson",
            size=10,
            content=content,
        )
    )
    assert "too big" in " ".join(getattr(r, "text", "") for r in replies).lower()


def rows(uow_factory: UnitOfWorkFactory) -> tuple[int, ...]:
    """How many games, events and queued announcements the store holds."""
    with uow_factory() as uow:
        return tuple(
            int(uow.session.scalar(select(func.count()).select_from(model)) or 0)
            for model in (GameRow, EventRow, OutboxRow)
        )


@pytest.mark.parametrize("command", ["start", "newgame"])
def test_a_redelivered_command_is_answered_once(
    table: Table, uow_factory: UnitOfWorkFactory, command: str
) -> None:
    """A /start or /newgame Telegram delivers twice is acted on, and answered, once."""
    alice = table.person("Alice")
    private = command == "start"
    msg = CommandIn(
        alice.ref if private else table.group,
        ChatKind.PRIVATE if private else ChatKind.GROUP,
        Sender(alice.ref, "Alice"),
        table.now,
        f"console:again-{command}",
        "902",
        name=command,
    )
    before = rows(uow_factory)
    first = table.conversation.handle(msg)
    after = rows(uow_factory)
    assert first != [] or after != before  # a reply now, or a game and its announcements
    assert table.conversation.handle(msg) == []
    assert rows(uow_factory) == after
