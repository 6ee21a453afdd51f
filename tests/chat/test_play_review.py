"""A reviewer's games through the conversation layer (issue 16): the interactions between
features built separately, each played as a group would, on both databases."""

from __future__ import annotations

from datetime import timedelta

from hideseek_chat.console.table import Table
from hideseek_chat.rules.state import Phase
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.play import HIDER_SPOT, NAMES, SEEKERS_START, begin, new_table, state_of

IN_ZONE = (36.12850, -97.06500)
IN_ZONE_TOO = (36.12800, -97.06470)


def seeking(table: Table, uow_factory: UnitOfWorkFactory) -> tuple[str, list[str]]:
    """A small game, the hider at HIDER_SPOT, the seekers far away: seeking, zone fixed."""
    hider, seekers = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True)
    for seeker in seekers:
        table.pin(seeker, *SEEKERS_START)
    table.wait(timedelta(minutes=30, seconds=30))
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    return hider, seekers


def end_game(table: Table, seeker: str) -> None:
    """The seeker walks into the zone: the end game begins."""
    table.wait(timedelta(minutes=5))
    table.pin(seeker, *IN_ZONE)
    table.wait(timedelta(minutes=1))
    table.pin(seeker, *IN_ZONE_TOO)


def test_an_abort_during_a_catch_claim_takes_the_hiders_confirm_buttons_away_once_pressed(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (seeker, _) = seeking(table, uow_factory)
    end_game(table, seeker)
    assert state_of(uow_factory, table).phase == Phase.END_GAME
    table.send(seeker, "/found")
    table.press(seeker, "spotted")  # the pins are far apart: the hider decides
    assert any(
        label == "✅ Yes, they found me" for _, b in table.buttons(hider) for label in [b.label]
    )
    table.send("Alice", "/abort")
    table.press("Alice", "Yes, end the game")
    assert state_of(uow_factory, table).phase == Phase.GAME_OVER

    replies = table.press(hider, "Yes, they found me")  # too late: the game is over
    assert state_of(uow_factory, table).phase == Phase.GAME_OVER
    assert any("not playing" in getattr(r, "text", "") for r in replies)
    assert not [
        b for _, b in table.buttons(hider) if "they found me" in b.label or b.label == "❌ No"
    ]


def test_a_zone_pending_when_the_seekers_send_endgame_waits_for_the_hider_and_is_fixed_by_their_first_pin(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, _ = begin(table)
    seeker = next(n for n in NAMES if n != hider)
    table.pin(seeker, *SEEKERS_START)
    table.wait(timedelta(minutes=30, seconds=30))  # no pin from the hider: the zone is pending
    assert any("isn't fixed yet" in line.text for line in table.said())
    table.send(seeker, "/endgame")
    # Nothing to check the claim against: it waits for the hider, and starts nothing yet.
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    decide = table.said(hider)[-1]
    assert "your zone isn't fixed yet" in decide.text, decide.text
    assert "zone isn't fixed yet" in table.said()[-1].text  # the group hears why it waits
    table.press(hider, "Accept")
    state = state_of(uow_factory, table)
    assert state.phase == Phase.END_GAME and state.current_round is not None
    assert state.current_round.zone is None

    since = table.mark()
    table.pin(hider, *HIDER_SPOT, private=True)  # "the first one you send fixes your zone"
    state = state_of(uow_factory, table)
    assert state.current_round is not None and state.current_round.zone is not None
    assert state.current_round.zone.station_name == "Gallagher-Iba"
    told = [line.text for line in table.said(since=since)]
    assert any("zone is now fixed" in text for text in told)  # the group, not where
    assert not any("Gallagher" in line.text for line in table.said(since=since))


def test_a_claim_the_hider_refuses_after_the_pins_started_the_end_game_is_spent(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, _ = begin(table)
    seeker = next(n for n in NAMES if n != hider)
    table.pin(hider, *HIDER_SPOT, private=True)
    table.wait(timedelta(minutes=30, seconds=30))
    table.send(seeker, "/endgame")  # no pin of theirs: the hider decides
    assert any("Refuse" in b.label for _, b in table.buttons(hider))
    end_game(table, seeker)  # meanwhile their live location starts it
    assert state_of(uow_factory, table).phase == Phase.END_GAME

    since = table.mark()
    table.press(hider, "Refuse")  # too late: the end game is on
    assert state_of(uow_factory, table).phase == Phase.END_GAME
    assert not any("search goes on" in line.text for line in table.said(since=since))
    assert not [b for _, b in table.buttons(hider) if "Refuse" in b.label or "Accept" in b.label]


def test_an_off_transit_button_of_an_earlier_round_goes_when_pressed(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (seeker, _) = seeking(table, uow_factory)
    table.wait(timedelta(minutes=10))
    table.pin(seeker, *IN_ZONE)  # a lone pin in the zone: are they off transit?
    assert any("off transit" in b.label for _, b in table.buttons(seeker))
    table.wait(timedelta(minutes=1))
    table.pin(seeker, *IN_ZONE_TOO)  # the next one tells: the end game begins
    table.send(seeker, "/found")
    table.press(seeker, "spotted")
    table.press(hider, "Yes, they found me")
    table.send("Alice", "/next")
    table.wait(timedelta(minutes=31))  # round 2 is seeking
    assert state_of(uow_factory, table).phase in (Phase.SEEKING, Phase.END_GAME)

    table.press(seeker, "off transit")  # round 1's question
    assert not [b for _, b in table.buttons(seeker) if "off transit" in b.label]


def test_with_two_seeker_teams_the_first_catch_says_the_round_goes_on(
    uow_factory: UnitOfWorkFactory,
) -> None:
    names = ("Alice", "Bob", "Carol", "Dave")
    table = new_table(uow_factory, names=names)
    table.send("Alice", "/newgame small metric")
    for name in names[1:]:
        table.send(name, "/join")
    table.send("Alice", "/settings")
    table.press("Alice", "Two seeker teams: points")
    table.send("Bob", "/team Owls")
    table.send("Carol", "/team Owls")
    table.send("Alice", "/begin")
    hiders = [n for n in names if any("You're hiding" in x.text for x in table.said(n))]
    assert hiders == ["Alice"]
    table.pin("Alice", *HIDER_SPOT, private=True)
    for seeker in ("Bob", "Carol", "Dave"):
        table.pin(seeker, *SEEKERS_START)
    table.wait(timedelta(minutes=30, seconds=30))
    end_game(table, "Bob")
    table.pin("Bob", HIDER_SPOT[0] + 0.00003, HIDER_SPOT[1])
    table.send("Bob", "/found")
    since = table.mark()
    table.press("Alice", "Yes, they found me")
    said = [line.text for line in table.said(since=since)]
    assert said[0] == "✅ Found! Bob of team Owls caught the hider."
    assert said[1] == (
        "🔎 The round goes on until the hider is found by Dave too. Hider, stay where you are."
    )
    assert state_of(uow_factory, table).phase == Phase.END_GAME
