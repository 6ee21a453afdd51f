"""A whole small game through the conversation layer on the Stillwater map, on both databases.

Three players; a radar, a thermometer finished by live-location edits, a matching question
answered from map data, a veto, a late answer, a curse cast and cleared, the end game
started by a seeker walking into the zone, a catch and the round result. Every message
to the group or a seeker is checked for the hider's station and coordinates.
"""

from __future__ import annotations

from datetime import timedelta

from hideseek_chat.console.table import Table
from hideseek_chat.rules.state import Phase
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.play import (
    HIDER_SPOT,
    SEEKERS_START,
    START,
    STATION,
    begin,
    events_count,
    give_cards,
    public_lines,
    state_of,
)


def test_a_whole_round(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    hider, (s1, s2) = begin(table)
    give_cards(uow_factory, table, "veto", "zoologist")

    # Hiding period: the hider heads to a station, sharing a live location privately.
    table.pin(hider, 36.1300, -97.0700, private=True)
    table.pin(s1, *SEEKERS_START)
    table.pin(s2, SEEKERS_START[0] + 0.0001, SEEKERS_START[1])
    table.wait(timedelta(minutes=20))
    table.pin(hider, *HIDER_SPOT, private=True, edited=True)
    table.wait(timedelta(minutes=10, seconds=30))
    assert "seekers, off you go" in "\n".join(line.text for line in table.said()).lower()
    assert any(STATION in line.text for line in table.said(hider)), "the hider learns the zone"

    # Radar: the seeker is about 2 km away, so the bot suggests No.
    table.send(s1, "/ask radar 1km")
    incoming = table.said(hider)[-1]
    assert "Radar 1 km" in incoming.text and "Suggested answer: No" in incoming.text
    assert "2.0" in incoming.text or "2.1" in incoming.text  # the numbers behind it
    labels = [b.label for row in incoming.buttons for b in row]
    assert any("Yes" in label for label in labels) and any("No" in label for label in labels)
    table.press(hider, "👉 No")
    assert any("Radar 1 km: No" in line.text for line in table.said()[-3:])
    table.press(hider, "🃏")  # keep the first card offered

    # Thermometer: live-location edits carry the seeker 1.4 km closer; the bot notices.
    table.send(s1, "/ask thermometer 1km")
    assert any(
        b.label.endswith("We've arrived") for row in table.said()[-1].buttons for b in row
    ) or any(
        "arrived" in b.label for line in table.said()[-3:] for row in line.buttons for b in row
    )
    path = [(36.1380, -97.0780), (36.1350, -97.0750), (36.1320, -97.0720), (36.1300, -97.0700)]
    for lat, lon in path:
        table.wait(timedelta(minutes=2))
        table.pin(s1, lat, lon, edited=True)
    incoming = table.said(hider)[-1]
    assert "Thermometer 1 km" in incoming.text and "Suggested answer: Hotter" in incoming.text
    table.press(hider, "Hotter")
    assert any("Hotter" in line.text for line in table.said()[-3:])
    table.press(hider, "🃏")

    # Matching from map data: is the hider's nearest park the seeker's nearest park?
    table.send(s2, "/ask matching park")
    incoming = table.said(hider)[-1]
    assert "Suggested answer" in incoming.text
    table.press(hider, "👉")
    table.press(hider, "🃏")

    # A veto.
    table.send(s1, "/ask radar 2km")
    table.press(hider, "Veto")
    assert any("veto" in line.text.lower() for line in table.said()[-3:])

    # A late answer: the window passes, the group is told, the hider answers late.
    table.send(s1, "/ask radar 5km")
    table.wait(timedelta(minutes=6))
    overdue = [line.text for line in table.said()[-4:]]
    assert any("Radar 5 km is overdue" in text for text in overdue)
    table.press(hider, "👉")
    assert any("late" in line.text.lower() for line in table.said(hider)[-3:])

    # A curse: played from the hand, confirmed, announced, then cleared by a seeker.
    table.send(hider, "/hand", private=True)
    table.press(hider, "▶️ Curse of the Zoologist")
    table.press(hider, "Condition met")
    cast = [line for line in table.said() if "Zoologist" in line.text]
    assert cast, "the curse is announced in the group"
    table.press(s2, "Curse done")
    assert any("Zoologist" in line.text for line in table.said()[-3:])
    assert state_of(uow_factory, table).round_curses()[0].cleared_at is not None

    # End game: a seeker walks into the zone.
    table.wait(timedelta(minutes=1))
    table.pin(s1, 36.1285, -97.0650, edited=True)
    table.wait(timedelta(minutes=1))
    table.pin(s1, 36.1275, -97.0645, edited=True)
    assert state_of(uow_factory, table).phase == Phase.END_GAME
    assert any("end game" in line.text.lower() for line in table.said()[-4:])

    # The catch: the seeker stands next to the hider and claims it; the hider confirms.
    table.wait(timedelta(minutes=3))
    table.pin(s1, HIDER_SPOT[0] + 0.00001, HIDER_SPOT[1], edited=True)
    table.send(s1, "/found")
    table.press(hider, "Yes, they found me")
    result = state_of(uow_factory, table)
    assert result.phase in (Phase.HANDOVER, Phase.HIDING)
    assert result.rounds[0].ended_at is not None

    # Nothing public named the station or the hider's coordinates before the result.
    lines = public_lines(table, [s1, s2])
    reveal = next(
        (
            i
            for i, line in enumerate(lines)
            if "found" in line.text.lower() and line.chat == table.group
        ),
        len(lines),
    )
    for line in lines[:reveal]:
        assert STATION not in line.text, line.text
        assert "36.126" not in line.text and "97.064" not in line.text, line.text
        assert "36.130" not in line.text, line.text


def test_a_hider_pin_in_the_group_is_refused_and_deleted(table: Table) -> None:
    hider, _seekers = begin(table)
    table.pin(hider, *HIDER_SPOT)
    pinned = [line for line in table.lines if line.author == hider and line.text.startswith("📍")][
        -1
    ]
    assert pinned.deleted
    assert (
        "privately" in table.said()[-1].text.lower() or "private" in table.said()[-1].text.lower()
    )


def test_bad_input_gets_a_clear_reply_and_changes_nothing(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    table.send("Alice", "/newgame small metric")
    table.send("Bob", "/join")
    before = events_count(uow_factory)
    table.send("Bob", "/frobnicate")
    assert "/help" in table.last()
    table.send("Bob", "/ask radar 1km")  # in setup
    assert table.last()
    table.person("Mallory")
    table.send("Mallory", "/begin")  # a stranger
    assert "not playing" in table.last().lower()
    table.send("Bob", "/newgame")  # a game is running
    assert "/abort" in table.last()
    table.send("Bob", "36.1, 500", private=True)  # garbage coordinates
    assert "location" in table.last("Bob").lower()
    table.send("Bob", "/ask teleport now")
    assert "category" in table.last().lower()
    table.press_data("Bob", "ans:999:1:yes")  # a forged button of another game
    assert table.toasts[-1][1]
    table.press_data("Bob", "nonsense")
    assert table.toasts[-1][1]
    assert events_count(uow_factory) == before


def test_only_the_hider_may_press_the_answer_buttons(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, s2) = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True)
    table.wait(timedelta(minutes=29))
    table.pin(hider, *HIDER_SPOT, private=True, edited=True)
    table.wait(timedelta(minutes=2))
    table.pin(s1, *SEEKERS_START)
    table.send(s1, "/ask radar 1km")
    button = next(b for row in table.said(hider)[-1].buttons for b in row if "Yes" in b.label)
    before = events_count(uow_factory)
    table.press_data(s2, button.data)
    assert "hider" in table.toasts[-1][1].lower()
    assert events_count(uow_factory) == before


def test_a_redelivered_update_is_applied_once(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    table.send("Alice", "/newgame")
    from hideseek_chat.chat.model import ChatKind, CommandIn, Sender

    join = CommandIn(
        chat=table.group,
        kind=ChatKind.GROUP,
        sender=Sender("console:bob", "Bob"),
        at=START,
        update_id="console:dup",
        name="join",
    )
    table.deliver(join)
    table.deliver(join)
    players = [p for p in state_of(uow_factory, table).players if p.active]
    assert [p.name for p in players] == ["Alice", "Bob"]
