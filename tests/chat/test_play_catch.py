"""The end game and the catch played by the book, through the conversation layer, on both
databases (issue 16: the end game starts only off transit, the catch from the freshest pins,
no round without a way to end, the hider's staying put checked from the pins).

Every test also checks that nothing the group or a seeker reads names the hider's station,
their coordinates or a distance to them.
"""

from __future__ import annotations

import re
from datetime import timedelta

from hideseek_chat.console.table import Table
from hideseek_chat.rules.state import Phase
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.play import HIDER_SPOT, SEEKERS_START, STATION, begin, state_of

HIDER_MOVED = (36.12900, -97.06420)  # about 310 m north of the spot, still in the zone
OUTSIDE_ZONE = (36.13600, -97.06440)  # about 1 km north of the station
IN_ZONE = (36.12850, -97.06500)
IN_ZONE_TOO = (36.12800, -97.06470)  # 60 m from IN_ZONE: a walk
#: The secrets: the station, the hider's coordinates (any of their spots), any distance.
SECRETS = (STATION, "36.126", "97.064", "36.129", "36.136")
DISTANCE = re.compile(r"\d\s?(m|km|ft|mi)\b")


def spot_of(uow_factory: UnitOfWorkFactory, table: Table) -> tuple[float, float] | None:
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        spot = uow.chats.hiding_spot(loaded.id, 1)
        return None if spot is None else (spot.lat, spot.lon)


def seeking(
    table: Table, uow_factory: UnitOfWorkFactory, *, seeker_pins: bool = True
) -> tuple[str, list[str]]:
    """A small game whose hider shares a live location at HIDER_SPOT: seeking, zone fixed;
    the seekers share theirs far away (unless not ``seeker_pins``)."""
    hider, seekers = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True)
    for seeker in seekers if seeker_pins else ():
        table.pin(seeker, *SEEKERS_START)
    table.wait(timedelta(minutes=30, seconds=30))
    state = state_of(uow_factory, table)
    assert state.phase == Phase.SEEKING
    assert state.current_round is not None and state.current_round.zone is not None
    assert state.current_round.zone.station_name == STATION
    return hider, seekers


def walk_into_zone(table: Table, seeker: str, *, live: bool = True) -> None:
    """Two pins a minute apart inside the zone, at walking pace: live edits (or, unless
    ``live``, one-off pins)."""
    table.wait(timedelta(minutes=5))
    table.pin(seeker, *IN_ZONE, live=live)
    table.wait(timedelta(minutes=1))
    table.pin(seeker, *IN_ZONE_TOO, live=live)


def assert_secret(table: Table, hider: str, since: int = 0) -> None:
    """Nothing the group or a seeker read (before the round's result) gives the hider away."""
    seekers = [p.ref for key, p in table.people.items() if p.name != hider]
    for line in table.lines:
        if line.id <= since or line.author != "bot" or line.chat not in {table.group, *seekers}:
            continue
        if "Round 1 is over" in line.text:
            return  # the result names the station
        assert not any(secret in line.text for secret in SECRETS), line.text
        assert not DISTANCE.search(line.text.replace("500 m", "")), line.text


# ----------------------------------------------------------------- starting the end game


def test_a_single_sparse_pin_in_the_zone_asks_the_seekers_and_their_button_starts_it(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, s2) = seeking(table, uow_factory)
    table.wait(timedelta(minutes=10))
    table.pin(s1, *IN_ZONE)  # the first edit in ten minutes: its speed cannot be told
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    asked = [line for line in table.said() if "still on transit" in line.text]
    assert len(asked) == 1 and s1 in asked[0].text
    table.pin(s1, *IN_ZONE)  # again at once: still unknown, and asked once only
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    assert len([line for line in table.said() if "still on transit" in line.text]) == 1
    assert spot_of(uow_factory, table) is None, "the hider is free until the end game"

    # The hider cannot press it for them.
    table.press(hider, "off transit")
    assert state_of(uow_factory, table).phase == Phase.SEEKING

    table.press(s2, "We're off transit")
    assert state_of(uow_factory, table).phase == Phase.END_GAME
    started = next(line for line in table.said() if "end game begins" in line.text)
    assert s2 in started.text and "confirmed that they had left transit" in started.text
    assert spot_of(uow_factory, table) == HIDER_SPOT
    assert_secret(table, hider)


def test_the_next_pin_tells_the_speed_walking_starts_it_riding_does_not(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, s2) = seeking(table, uow_factory)
    # Riding through the zone: two edits 20 s and 400 m apart. Never the end game, and
    # nothing to ask (the speed is known).
    table.wait(timedelta(minutes=10))
    table.pin(s2, 36.1230, -97.0644)
    table.wait(timedelta(seconds=20))
    table.pin(s2, 36.1266, -97.0644)
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    asked = [line for line in table.said() if "still on transit" in line.text]
    assert len(asked) == 1  # only the first, sparse edit asked
    # Walking in: the second edit a minute later shows a walking pace.
    walk_into_zone(table, s1)
    assert state_of(uow_factory, table).phase == Phase.END_GAME
    # The question asked of s2 is moot now.
    table.press(s1, "We're off transit")
    assert state_of(uow_factory, table).phase == Phase.END_GAME
    assert_secret(table, hider)


def test_a_one_off_pin_in_the_zone_asks_and_never_starts_it_alone(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, _s2) = seeking(table, uow_factory)
    walk_into_zone(table, s1, live=False)
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    assert len([line for line in table.said() if "still on transit" in line.text]) == 1
    # Having left the zone by the time they press, the button no longer starts it.
    table.wait(timedelta(minutes=5))
    table.pin(s1, *SEEKERS_START, live=False)
    table.press(s1, "We're off transit")
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    toast = table.lines[-1].toast or ""
    assert "doesn't start the end game any more" in toast
    assert_secret(table, hider)


def test_endgame_without_any_pin_waits_for_the_hider_and_freezes_nothing(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, _s2) = seeking(table, uow_factory, seeker_pins=False)
    table.wait(timedelta(minutes=5))
    mark = table.mark()
    table.send(s1, "/endgame")
    state = state_of(uow_factory, table)
    assert state.phase == Phase.SEEKING, "a claim without a pin never freezes the hider"
    assert spot_of(uow_factory, table) is None
    assert any("no current location" in line.text for line in table.said(since=mark))
    asked = table.said(hider, since=mark)
    assert asked and "no current location" in asked[-1].text
    table.press(hider, "Refuse")
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    assert any("refused" in line.text for line in table.said(since=mark))

    # A second try; the hider accepts it this time.
    table.send(s1, "/endgame")
    table.press(hider, "Accept")
    assert state_of(uow_factory, table).phase == Phase.END_GAME
    assert spot_of(uow_factory, table) == HIDER_SPOT
    assert_secret(table, hider)

    # A seeker without any pin may still claim the catch: the hider decides, unmeasured.
    table.send(s1, "/found")
    confirm = table.said(hider)[-1]
    assert "says they've found you." in confirm.text and " m " not in confirm.text
    table.press(hider, "Yes, they found me")
    # /review, once the round is over, tells what the claims were.
    table.send("Alice", "/review")
    review = table.said()[-1].text
    assert "there was no current pin to check it by; the hider refused it" in review
    assert "there was no current pin to check it by; the hider accepted it" in review


# ----------------------------------------------------------------- the catch


def test_a_hider_who_moved_is_warned_and_caught_where_they_are(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, s2) = seeking(table, uow_factory)
    walk_into_zone(table, s1)
    assert state_of(uow_factory, table).phase == Phase.END_GAME
    assert spot_of(uow_factory, table) == HIDER_SPOT

    # A wobble within the GPS accuracy is no move.
    mark = table.mark()
    table.wait(timedelta(minutes=1))
    table.pin(hider, HIDER_SPOT[0] + 0.0001, HIDER_SPOT[1], private=True)
    assert not [line for line in table.said(hider, since=mark) if "⚠️" in line.text]

    # The hider walks 310 m: told privately how far, the group only that they moved.
    table.wait(timedelta(minutes=1))
    table.pin(hider, *HIDER_MOVED, private=True)
    warned = [line for line in table.said(hider, since=mark) if "⚠️" in line.text]
    assert len(warned) == 1 and "stay put" in warned[0].text and " m " in warned[0].text
    group = [line for line in table.said(since=mark) if "Rule check" in line.text]
    assert len(group) == 1 and "moving during the end game" in group[0].text
    # Further pins of the same move are not warned again.
    table.wait(timedelta(minutes=1))
    table.pin(hider, HIDER_MOVED[0] + 0.0001, HIDER_MOVED[1], private=True)
    assert len([line for line in table.said(since=mark) if "Rule check" in line.text]) == 1

    # The seeker finds them where they are now, 310 m from the frozen spot: the claim goes
    # to the hider, who confirms.
    table.wait(timedelta(minutes=3))
    table.pin(s2, HIDER_MOVED[0] + 0.00001, HIDER_MOVED[1])
    table.send(s2, "/found")
    confirm = table.said(hider)[-1]
    assert "says they've found you" in confirm.text
    table.press(hider, "Yes, they found me")
    state = state_of(uow_factory, table)
    assert state.rounds[0].ended_at is not None and state.catches
    assert_secret(table, hider)


def test_a_claim_the_pins_put_far_off_can_still_be_sent_as_spotted(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, _s2) = seeking(table, uow_factory)
    walk_into_zone(table, s1)
    mark = table.mark()
    table.send(s1, "/found")  # s1 is 230 m from the hider
    far = table.said(since=mark)
    assert len(far) == 1 and "nowhere near" in far[0].text
    assert not [line for line in table.said(hider, since=mark) if "found you" in line.text]
    assert state_of(uow_factory, table).pending_catch is None
    # GPS inside a building is far off: they have spotted the hider all the same.
    table.press(s1, "We've spotted them")
    assert state_of(uow_factory, table).pending_catch is not None
    confirm = table.said(hider)[-1]
    assert "says they've found you" in confirm.text and " m " in confirm.text
    assert any("Waiting for the hider" in line.text for line in table.said(since=mark))
    table.press(hider, "Yes, they found me")
    assert state_of(uow_factory, table).rounds[0].ended_at is not None
    assert_secret(table, hider)


def test_the_admin_decides_when_the_hider_does_not_answer(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, s2) = seeking(table, uow_factory)
    admin = "Alice"
    # Not before the end game.
    table.send(admin, f"/found @{s1.lower()}")
    assert "during the end game" in table.said()[-1].text
    assert state_of(uow_factory, table).phase == Phase.SEEKING

    walk_into_zone(table, s1)
    table.pin(s1, HIDER_SPOT[0] + 0.00001, HIDER_SPOT[1])
    table.send(s1, "/found")
    assert state_of(uow_factory, table).pending_catch is not None  # the hider never answers
    table.wait(timedelta(minutes=20))

    someone = next(n for n in (s1, s2) if n != admin)
    table.send(someone, "/found @Alice")
    assert "Only the admin names who found them" in table.said()[-1].text
    assert state_of(uow_factory, table).phase == Phase.END_GAME

    # A name the admin mistypes gets a button per seeker.
    table.send(admin, "/found @nobody")
    chooser = table.said()[-1]
    assert "Which seeker found the hider?" in chooser.text
    assert {b.label for row in chooser.buttons for b in row} == {s1, s2}
    if someone != admin:
        table.press(someone, s1, chat=table.group)  # only the admin decides
        assert state_of(uow_factory, table).phase == Phase.END_GAME
    table.press(admin, s1, chat=table.group)
    state = state_of(uow_factory, table)
    assert state.rounds[0].ended_at is not None and state.pending_catch is None
    assert any("decided that" in line.text and s1 in line.text for line in table.said())
    table.send(s2, "/review")
    review = table.said()[-1].text
    assert f"the admin, {admin}, decided that {s1} found the hider" in review
    assert "the seekers were asked whether they had left transit" in review
    assert_secret(table, hider)


def test_the_admin_names_the_seeker_in_the_command(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, _s2) = seeking(table, uow_factory)
    walk_into_zone(table, s1)
    table.send("Alice", f"/found @{s1.upper()}")
    state = state_of(uow_factory, table)
    assert state.rounds[0].ended_at is not None
    assert any("decided that" in line.text for line in table.said())
    assert_secret(table, hider)


# ----------------------------------------------------------------- staying in the zone


def test_a_hider_outside_the_zone_while_seeking_is_warned_once_per_excursion(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, _seekers = seeking(table, uow_factory)
    mark = table.mark()
    table.wait(timedelta(minutes=5))
    table.pin(hider, *OUTSIDE_ZONE, private=True)
    private = [line for line in table.said(hider, since=mark) if "outside your zone" in line.text]
    assert len(private) == 1 and " m " in private[0].text
    group = [line for line in table.said(since=mark) if "Rule check" in line.text]
    assert len(group) == 1 and "outside their zone" in group[0].text
    table.wait(timedelta(minutes=1))
    table.pin(hider, OUTSIDE_ZONE[0] + 0.001, OUTSIDE_ZONE[1], private=True)
    assert len([line for line in table.said(since=mark) if "Rule check" in line.text]) == 1
    # Back in, then out again: a new excursion.
    table.wait(timedelta(minutes=1))
    table.pin(hider, *HIDER_SPOT, private=True)
    table.wait(timedelta(minutes=1))
    table.pin(hider, *OUTSIDE_ZONE, private=True)
    assert len([line for line in table.said(since=mark) if "Rule check" in line.text]) == 2
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    assert_secret(table, hider)


def test_endgame_without_a_zone_or_a_pin_waits_for_the_hider_too(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, s2) = begin(table)
    table.wait(timedelta(minutes=30, seconds=30))  # the hider never shares a location
    state = state_of(uow_factory, table)
    assert state.phase == Phase.SEEKING and state.current_round is not None
    assert state.current_round.zone is None
    table.send(s1, "/endgame")
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    assert "no current location" in table.said(hider)[-1].text
    # A current pin is no better: there is no zone to check it against, so the hider decides.
    table.pin(s2, *IN_ZONE)
    table.send(s2, "/endgame")
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    assert "zone isn't fixed yet" in table.said(hider)[-1].text
    table.press(hider, "Accept")
    assert state_of(uow_factory, table).phase == Phase.END_GAME
    # No pin of the hider at all: a catch claim goes to them unmeasured, never refused.
    table.send(s2, "/found")
    assert not any("nowhere near" in line.text for line in table.said())
    table.press(hider, "Yes, they found me")
    assert state_of(uow_factory, table).rounds[0].ended_at is not None


def test_the_hiders_buttons_answer_their_own_claim_not_a_newer_one(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, s2) = seeking(table, uow_factory)
    walk_into_zone(table, s1)
    table.pin(s1, HIDER_SPOT[0] + 0.00001, HIDER_SPOT[1])
    table.send(s1, "/found")
    table.pin(s2, HIDER_SPOT[0] - 0.00001, HIDER_SPOT[1])
    table.send(s2, "/found")
    yes = [(line, b) for line, b in table.buttons(hider) if "Yes, they found me" in b.label]
    assert len(yes) == 2 and s2 in yes[0][0].text and s1 in yes[1][0].text
    older_line, older = yes[1]
    table.press_data(hider, older.data, older_line)
    assert f"{s2} has claimed the catch since" in (table.lines[-1].toast or "")
    state = state_of(uow_factory, table)
    assert state.pending_catch is not None and state.rounds[0].ended_at is None
    table.press(hider, "Yes, they found me")  # the newest: s2's claim
    found = next(line for line in table.said() if "✅ Found!" in line.text)
    assert s2 in found.text
