"""The seekers' map of a car or on-foot game: the zones are centred on street ends.

The rulebook (section 6) centres a car or on-foot game's zone on a street end, not a
station, and the referee does so when the map has streets. The seekers' map then keeps
the street ends whose zone still meets what the answers leave, and says so: "N street ends
still possible", /stations lists them, the GeoJSON holds them. Counting bus stops there
would tell the seekers about places the hider cannot be centred on.
"""

from __future__ import annotations

import json
import math
from datetime import timedelta

import numpy as np
import pytest

from hideseek_chat.chat import seekmap
from hideseek_chat.chat.maps import Maps
from hideseek_chat.console.table import Table
from hideseek_chat.geo import MapIndex, load_map_pack, nearness
from hideseek_chat.geo.cells import distance_band
from hideseek_chat.geo.termini import Terminus, counted_name
from hideseek_chat.geo.voronoi import kind_diagram
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.play import HIDER_SPOT, SEEKERS_START, begin, new_table, state_of
from tests.chat.test_seekmap import PICTURES, answer, pictures, seeking


def car_game(table: Table) -> tuple[str, str]:
    """A car game begun, the hider hidden at ``HIDER_SPOT``, a seeker at the start."""
    hider, (s1, _s2) = begin(table, transport="🚗 Car")
    table.pin(hider, *HIDER_SPOT, private=True)
    table.wait(timedelta(minutes=31))
    table.pin(hider, *HIDER_SPOT, private=True, edited=True)
    table.pin(s1, *SEEKERS_START)
    return hider, s1


def view_of(table: Table, uow_factory: UnitOfWorkFactory) -> seekmap.SeekersView:
    services = table.conversation.services
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        ruleset = services.ruleset(loaded.state)
        found = seekmap.seekers_view(
            uow, services.maps, ruleset, services.seekmaps, loaded.id, loaded.state
        )
    assert found is not None
    return found


def test_a_car_games_map_keeps_street_ends_and_the_hiders_stays(
    uow_factory: UnitOfWorkFactory,
) -> None:
    table = new_table(uow_factory, capabilities=PICTURES)
    hider, s1 = car_game(table)
    zone = state_of(uow_factory, table).current_round.zone  # type: ignore[union-attr]
    assert zone is not None and zone.station_ref.startswith("terminus:")
    mark = table.mark()
    table.send(s1, "/ask radar 1km")  # the hider is 2.1 km away
    answer(table, hider, "No")
    table.send(s1, "/ask radar 5km")
    answer(table, hider, "Yes")
    drawn = pictures(table, mark)
    assert [line.text.split(" still possible")[0].split()[-2:] for line in drawn] == [
        ["street", "ends"],
        ["street", "ends"],
    ]
    seekers = view_of(table, uow_factory)
    assert seekers.street_ends
    kept = {s.id for s in seekers.view.candidates}
    assert zone.station_ref in kept  # truthful answers never lose the hider's street end
    assert all(ref.startswith("terminus:") for ref in kept)
    index = MapIndex(load_map_pack("stillwater"))
    assert 0 < len(kept) < len(index.street_ends())
    # /stations lists them under their own heading, and the GeoJSON counts them.
    table.send(s1, "/stations")
    listed = table.said()[-1].text
    assert listed.startswith(f"🚗 {len(kept)} street ends still possible:"), listed
    table.press(s1, "GeoJSON")
    document = table.said()[-1]
    assert document.kind == "file" and document.content is not None
    assert f"{len(kept)} street ends" in document.text
    features = json.loads(document.content)["features"]
    assert len([f for f in features if f["geometry"]["type"] == "Point"]) == len(kept)


def test_a_transit_games_map_still_counts_stations(uow_factory: UnitOfWorkFactory) -> None:
    table = new_table(uow_factory, capabilities=PICTURES)
    hider, s1, _s2 = seeking(table)
    mark = table.mark()
    table.send(s1, "/ask radar 5km")
    answer(table, hider, "Yes")
    [drawn] = pictures(table, mark)
    assert " stations still possible" in drawn.text
    assert not view_of(table, uow_factory).street_ends


def test_the_street_ends_index_is_built_once_per_map_and_forgotten_with_it(
    uow_factory: UnitOfWorkFactory,
) -> None:
    maps = Maps()
    with uow_factory() as uow:
        ends = maps.street_ends(uow, "stillwater")
        assert ends is not None and ends is maps.street_ends(uow, "stillwater")
        whole = maps.index(uow, "stillwater")
        assert whole is not None
        expected = whole.street_ends()
        assert [s.id for s in ends.pack.stations] == [t.id for t in expected]
        assert ends.pack.boundary is whole.pack.boundary
        # One street end per point: where several streets end together, the zone's own.
        points = {(s.lat, s.lon) for s in ends.pack.stations}
        assert len(points) == len(ends.pack.stations)
        for station in ends.pack.stations:
            nearest = whole.nearest_terminus(station.lat, station.lon)
            assert nearest is not None and nearest.item.id == station.id
        # The features' lookups are the whole map's, not a second copy of them.
        ends.nearest("road", *SEEKERS_START)
        assert ends._layers is whole._layers and "road" in whole._layers
        assert ends._termini is whole._termini
        assert ends.projection is whole.projection
        hit = whole.nearest_station(*SEEKERS_START)
        assert hit is not None and hit.item in whole.pack.stations  # each its own stations
        own = ends.nearest_station(*SEEKERS_START)
        assert own is not None and own.item in ends.pack.stations
        assert own.item not in whole.pack.stations
        # Each pack looks up its own stations by id only (the whole map's is shared by
        # every game on it: a street end must not become one of its stations).
        assert not whole.pack.has_station(own.item.id)
        assert not ends.pack.has_station(hit.item.id)
        assert len(whole.pack._stations_by_id) == len(whole.pack.stations)
        # What is built from the features alone is built once for both; what depends on
        # the stations (each one's distance to the nearest school) is each index's own.
        assert ends.features_index is whole
        assert kind_diagram(ends, "school") is kind_diagram(whole, "school")
        assert distance_band(ends, "school", 500.0) is distance_band(whole, "school", 500.0)
        rows = np.arange(3)
        mine = nearness._per_station(ends, ("t",), rows, math.nan, lambda n: n * 1.0)
        theirs = nearness._per_station(whole, ("t",), rows, math.nan, lambda n: n * 2.0)
        assert list(mine) == [0.0, 1.0, 2.0] and list(theirs) == [0.0, 2.0, 4.0]
        maps.forget("stillwater")
        assert maps.street_ends(uow, "stillwater") is not ends
        assert maps.street_ends(uow, "no-such-map") is None


def test_the_pictures_scale_bar_follows_the_groups_units(
    uow_factory: UnitOfWorkFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = new_table(uow_factory, capabilities=PICTURES)
    painter = table.conversation.services.painter
    drawn: list[str] = []
    seekers, zone = painter.seekers, painter.zone

    def seekers_in_units(view: seekmap.SeekersView) -> bytes:
        drawn.append(view.units)
        return seekers(view)

    def zone_in_units(*args: object) -> bytes:
        drawn.append(str(args[-1]))
        return zone(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(painter, "seekers", seekers_in_units)
    monkeypatch.setattr(painter, "zone", zone_in_units)
    table.send("Alice", "/newgame small metric")
    table.send("Alice", "/settings units imperial")
    assert "imperial" in table.last().lower() or "miles" in table.last().lower(), table.last()
    table.send("Alice", "/abort")
    table.press("Alice", "Yes")
    hider, s1, _s2 = seeking(table)
    table.send(s1, "/ask radar 1km")
    answer(table, hider, "No")
    assert drawn == ["imperial", "imperial"]  # the hider's zone, then the seekers' map
    assert view_of(table, uow_factory).units == "imperial"


def test_a_car_games_name_length_answer_is_drawn_on_street_names(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """In a car game the referee compares street names (rulebook section 6): the street of
    the hider's street end against the street of the one nearest the asking seeker. The
    seekers' map keeps the street ends whose street's name has that length (or not)."""
    table = new_table(uow_factory, capabilities=PICTURES)
    hider, s1 = car_game(table)
    zone = state_of(uow_factory, table).current_round.zone  # type: ignore[union-attr]
    assert zone is not None
    mark = table.mark()
    table.send(s1, "/ask matching station-name-length")
    said = table.said(hider)[-1].text
    suggested = said.split("Suggested answer: ", 1)[1].split()[0]
    answer(table, hider, suggested)
    [drawn] = pictures(table, mark)
    assert "Not applied" not in drawn.text
    seekers = view_of(table, uow_factory)
    index = MapIndex(load_map_pack("stillwater"))
    nearest = index.nearest_terminus(*SEEKERS_START)
    assert nearest is not None and nearest.item.street
    wanted = len(nearest.item.street)
    kept = seekers.view.candidates
    assert zone.station_ref in {s.id for s in kept}
    same = suggested == "Yes"
    for end in kept:
        street = counted_name(end)
        assert street is None or (len(street) == wanted) == same, (end, wanted)
    assert len(kept) < len(index.street_ends())


def test_the_name_counted_is_a_stations_or_a_street_ends_street() -> None:
    index = MapIndex(load_map_pack("stillwater"))
    station = index.pack.stations[0]
    assert counted_name(station) == station.name
    named = next(t for t in index.street_ends() if t.street and t.crossing)
    assert counted_name(named.as_station()) == named.street != named.label
    unnamed = Terminus("", 36.1, -97.1)
    assert counted_name(unnamed.as_station()) is None


def test_an_unnamed_streets_end_stays_whatever_the_name_length_answer(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """An unnamed street has no name to count, so neither answer rules its end out (the
    hider's zone may be one)."""
    from datetime import UTC, datetime

    from hideseek_chat.geo import Pin
    from hideseek_chat.geo.seeking import Clue, seeker_map
    from hideseek_chat.rules.ruleset import HiderPosition

    with uow_factory() as uow:
        ends = Maps().street_ends(uow, "stillwater")
    assert ends is not None
    unnamed = {s.id for s in ends.pack.stations if counted_name(s) is None}
    assert unnamed
    seeker = Pin(*SEEKERS_START, datetime(2026, 5, 2, 9, 0, tzinfo=UTC))
    for word in ("yes", "no"):
        clue = Clue(1, "matching", "station-name-length", word, seeker=seeker)
        view = seeker_map(ends, [clue], 500.0, HiderPosition.STATION)
        kept = {s.id for s in view.candidates}
        assert unnamed <= kept and len(kept) < len(ends.pack.stations), word
