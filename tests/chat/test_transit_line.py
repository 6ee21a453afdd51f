"""The transit-line question names the line the seekers ride, on the Stillwater map.

The rulebook's transit-line question ("does the line we are riding stop at your station?")
needs the line: the /ask menu offers the lines stopping near the asking seeker as buttons,
or it is typed after the question. The question then names it to the group and the hider,
the bot computes the answer from the lines the map lists at the hider's station, and the
seekers' map applies it (the stations on the line, or off it). Without a line named, the
hider answers alone, as before.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from hideseek_chat.chat import referee, seekmap
from hideseek_chat.chat.parsing import parse_ask
from hideseek_chat.console.table import Table
from hideseek_chat.geo import MapIndex, Pin, Station, Zone, lines, load_map_pack
from hideseek_chat.geo.seeking import Clue, seeker_map
from hideseek_chat.rules.questions import TRANSIT_LINE
from hideseek_chat.rules.ruleset import HiderPosition, Size
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.uow import cached_ruleset
from tests.chat.play import SEEKERS_START, begin, labels, new_table, state_of
from tests.chat.test_seekmap import answer, seeking

#: Riding from the seekers' start towards the Orange and Gold stops at Monroe & McElroy
#: (183 m from the last pin): about 290 m each 30 s, some 35 km/h.
RIDE = [(36.1380, -97.0780), (36.1360, -97.0760), (36.1340, -97.0740), (36.1320, -97.0720)]
#: Gallagher-Iba, the hider's station, is on these lines; Black and Purple do not stop there.
HIDERS_LINES = ("Blue", "Gray", "Green", "Orange", "Gold")


@pytest.fixture(scope="module")
def stillwater() -> MapIndex:
    return MapIndex(load_map_pack("stillwater"))


def riding(table: Table) -> tuple[str, str]:
    """A small game begun, the hider at Gallagher-Iba, the first seeker riding: (hider,
    seeker)."""
    hider, seeker, _other = seeking(table)
    table.pin(seeker, *SEEKERS_START, edited=True)
    for lat, lon in RIDE:
        table.wait(timedelta(seconds=30))
        table.pin(seeker, lat, lon, edited=True)
    return hider, seeker


def line_menu(table: Table, seeker: str) -> None:
    """``seeker`` opens the transit-line question in the /ask menu."""
    table.send(seeker, "/ask")
    table.press(seeker, "Matching")
    table.press(seeker, "Transit line")


def asked_line(uow_factory: UnitOfWorkFactory, table: Table) -> str | None:
    [record] = [q for q in state_of(uow_factory, table).questions]
    return record.line


def suggested(table: Table, hider: str) -> str | None:
    text = table.said(hider)[-1].text
    marker = "Suggested answer: "
    return text.split(marker, 1)[1].split()[0] if marker in text else None


# ----------------------------------------------------------------- the menu


def test_the_menu_offers_the_lines_near_the_seeker_and_asks_with_the_one_pressed(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1 = riding(table)
    line_menu(table, s1)
    screen = table.said()[-1]
    assert "which line are you riding?" in screen.text
    offered = labels(screen)
    # Nearest stop's lines first; the way out and Back last.
    assert offered[:2] == ["Orange", "Gold"], offered
    assert offered[-2:] == ["Ask without naming the line", "⬅️ Back"]
    assert "Black" in offered and len(offered) - 2 <= lines.MOST_LINES
    table.press(s1, "Orange")
    group = [line.text for line in table.said()[-3:]]
    assert "❓ Asked: Matching: Transit line (riding Orange)" in group, group
    assert any("asks: Matching: Transit line (riding Orange)" in text for text in group), group
    assert asked_line(uow_factory, table) == "Orange"
    incoming = table.said(hider)[-1].text
    assert "Transit line (riding Orange)" in incoming
    # Gallagher-Iba is on the Orange line: the bot suggests yes to the hider alone.
    assert suggested(table, hider) == "Yes"
    assert not any("Suggested answer" in text for text in group)


def test_a_line_that_does_not_stop_at_the_hiders_station_is_a_no(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1 = riding(table)
    table.send(s1, "/ask matching transit line")  # typed without a line: the same screen
    assert "which line are you riding?" in table.said()[-1].text
    table.press(s1, "Black")
    assert asked_line(uow_factory, table) == "Black"
    assert suggested(table, hider) == "No"


def test_asking_without_naming_the_line_leaves_the_answer_to_the_hider(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1 = riding(table)
    line_menu(table, s1)
    table.press(s1, "Ask without naming the line")
    assert asked_line(uow_factory, table) is None
    assert "(riding" not in table.said(hider)[-1].text
    assert suggested(table, hider) is None


def test_back_returns_to_the_matching_questions(table: Table) -> None:
    _hider, s1 = riding(table)
    line_menu(table, s1)
    table.press(s1, "Back")
    assert "Transit line" in labels(table.said()[-1])


def test_a_forged_line_button_is_refused(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    _hider, s1 = riding(table)
    table.send(s1, "/ask matching transit line")
    line, button = next(x for x in table.buttons(s1) if x[1].label == "Orange")
    forged = button.data.rsplit(":", 1)[0] + ":l" + lines.line_key("Magenta")
    table.press_data(s1, forged, line)
    assert table.toasts[-1][1] == "That button no longer works."
    assert not state_of(uow_factory, table).questions


# ----------------------------------------------------------------- typed


def test_a_typed_line_is_taken_in_the_maps_spelling(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1 = riding(table)
    table.send(s1, "/ask matching transit line  gold ")
    assert asked_line(uow_factory, table) == "Gold"
    assert suggested(table, hider) == "Yes"


def test_a_typed_line_the_map_does_not_know_is_refused_with_the_lines_near(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    _hider, s1 = riding(table)
    table.send(s1, "/ask matching-transit-line Magenta")
    refusal = table.last()
    assert "This map knows no line called “Magenta”" in refusal
    assert "Lines stopping near you: Orange, Gold" in refusal
    assert not state_of(uow_factory, table).questions


# ----------------------------------------------------------------- the seekers' map


def test_the_seekers_map_keeps_the_stations_on_the_line(
    table: Table, uow_factory: UnitOfWorkFactory, stillwater: MapIndex
) -> None:
    hider, s1 = riding(table)
    table.send(s1, "/ask matching transit line Orange")
    answer(table, hider, "Yes")
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        ruleset = cached_ruleset("metric")
        found = seekmap.clues(uow, ruleset, loaded.id, loaded.state)
    [clue] = found
    assert clue.subject == TRANSIT_LINE and clue.detail == "Orange"
    view = seeker_map(stillwater, found, 500.0, ruleset.hider_position)
    assert not view.not_applied
    kept = {s.name for s in view.candidates}
    on_orange = {s.name for s in stillwater.pack.stations if s.serves("orange")}
    unrouted = {s.name for s in stillwater.pack.stations if not s.routes}
    assert "Gallagher-Iba" in kept and kept <= on_orange | unrouted
    assert not kept & {
        s.name for s in stillwater.pack.stations if s.routes and not s.serves("Orange")
    }


# ----------------------------------------------------------------- the parts


def test_parse_ask_reads_the_line_after_the_question() -> None:
    ruleset = cached_ruleset("metric")
    for typed, line in [
        ("matching transit line Red Line", "Red Line"),
        ("matching transit-line 14", "14"),
        ("matching-transit-line Blue", "Blue"),
        ("matching transit line", None),
    ]:
        asked = parse_ask(tuple(typed.split()), ruleset, Size.LARGE)
        assert (asked.question_id, asked.line) == ("matching-transit-line", line), typed
    assert parse_ask(("matching", "zoo"), ruleset, Size.LARGE).line is None


def test_the_referee_reads_the_lines_at_the_zones_station_from_the_map(
    stillwater: MapIndex,
) -> None:
    station = next(s for s in stillwater.pack.stations if s.name == "Gallagher-Iba")
    # A zone keeps its station without the lines: the map's record has them.
    zone = Zone(Station(station.id, station.name, station.lat, station.lon), 500.0)
    assert referee.map_station(stillwater, zone).routes == HIDERS_LINES
    gone = Zone(Station("nowhere", "Nowhere", 36.1, -97.1), 500.0)
    assert referee.map_station(stillwater, gone) is gone.station


def test_the_question_keeps_a_line_tidied_and_only_when_named() -> None:
    from hideseek_chat.rules.questions import _line

    assert _line("  Red   Line ") == "Red Line"
    assert _line("   ") is None and _line(None) is None
    assert _line("x" * 300) == "x" * 200


def test_lines_near_lists_the_nearest_stops_lines_first(stillwater: MapIndex) -> None:
    near = lines.lines_near(stillwater, *RIDE[-1])
    assert near[:2] == ["Orange", "Gold"] and len(near) == len(set(near))
    assert len(near) <= lines.MOST_LINES
    # Far from every stop: the nearest stop's lines all the same.
    assert lines.lines_near(stillwater, 36.30, -97.30)
    keys = lines.map_lines(stillwater)
    assert keys[lines.line_key(" ORANGE ")] == "Orange" and len(keys) == 10


# ----------------------------------------------------------------- review findings


def test_a_line_spelt_with_odd_spacing_still_matches_its_stations(stillwater: MapIndex) -> None:
    """The map may spell a line with two spaces; the question keeps one. Both must be the
    same line, or a truthful yes would remove the hider's station."""
    from hideseek_chat.rules.questions import _line

    spaced = "Orange  Express"
    stations = [
        replace(s, routes=(*s.routes, spaced)) if s.name == "Gallagher-Iba" else s
        for s in stillwater.pack.stations
    ]
    index = MapIndex(stillwater.pack.with_stations(stations))
    kept = _line(spaced)
    assert kept == "Orange Express"
    hiders = next(s for s in index.pack.stations if s.name == "Gallagher-Iba")
    assert hiders.serves(kept) and hiders.serves("ORANGE EXPRESS ")
    assert lines.line_key(spaced) == lines.line_key(kept)
    assert lines.map_lines(index)[lines.line_key(kept)] == spaced
    seeker = Pin(*RIDE[-1], datetime(2026, 5, 2, 9, 0, tzinfo=UTC))
    clue = Clue(1, "matching", TRANSIT_LINE, "yes", detail=kept, seeker=seeker)
    view = seeker_map(index, [clue], 500.0, HiderPosition.STATION)
    assert "Gallagher-Iba" in {s.name for s in view.candidates}
    assert len(view.candidates) < 10


def test_typing_the_question_when_it_is_not_on_offer_says_why(
    uow_factory: UnitOfWorkFactory,
) -> None:
    table = new_table(uow_factory)
    hider, (s1, _s2) = begin(table, transport="🚗 Car")
    table.pin(hider, 36.12622, -97.06401, private=True)
    table.wait(timedelta(minutes=31))  # seeking: the question is not played in a car game
    table.send(s1, "/ask matching transit line")
    refusal = table.last()
    assert "no longer works" not in refusal and "isn't played in this game" in refusal


def test_an_old_pin_names_no_lines_near(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    _hider, s1 = riding(table)
    table.pin(s1, *RIDE[-1], live=False)  # a one-off pin counts for 15 minutes
    table.wait(timedelta(minutes=30))
    table.send(s1, "/ask matching-transit-line Magenta")
    assert "Lines stopping near you: none that I know of" in table.last()
    assert not state_of(uow_factory, table).questions


def test_a_line_forged_onto_another_question_is_refused(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    _hider, s1 = riding(table)
    table.send(s1, "/ask matching transit line")
    line, button = next(x for x in table.buttons(s1) if x[1].label == "Orange")
    verb, game, _question, key = button.data.split(":")
    table.press_data(s1, ":".join((verb, game, "radar-1km", key)), line)
    assert table.toasts[-1][1] == "That button no longer works."
    assert not state_of(uow_factory, table).questions
