"""The map's time zone at the table: a new game on the Stillwater map reads Oklahoma's clock,
a chosen or uploaded map sets the zone and suggests its country's units and ruleset, and a
zone the admin typed stays until they follow the map again."""

from __future__ import annotations

import json
from datetime import timedelta

from shapely.geometry import box

from hideseek_chat.chat.map_choice import on_map_chosen, plan_map_choice
from hideseek_chat.chat.turn import Services
from hideseek_chat.console.table import Table
from hideseek_chat.geo import MapPack, load_map_pack
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.play import START, begin, state_of

ZURICH = [[8.45, 47.32], [8.62, 47.32], [8.62, 47.43], [8.45, 47.43], [8.45, 47.32]]
STILLWATER = [[-97.10, 36.10], [-97.00, 36.10], [-97.00, 36.20], [-97.10, 36.20], [-97.10, 36.10]]


def map_file(square: list[list[float]]) -> bytes:
    lon, lat = square[0][0] + 0.05, square[0][1] + 0.05
    features = [
        {
            "type": "Feature",
            "properties": {"kind": "boundary"},
            "geometry": {"type": "Polygon", "coordinates": [square]},
        },
        {
            "type": "Feature",
            "properties": {"kind": "station", "name": "Central", "id": "c1"},
            "geometry": {"type": "Point", "coordinates": [lon, lat]},
        },
    ]
    return json.dumps({"type": "FeatureCollection", "features": features}).encode()


def services(table: Table) -> Services:
    return table.conversation.services


def test_a_new_game_on_the_stillwater_map_reads_oklahomas_clock(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    table.send("Alice", "/newgame small metric")
    settings = state_of(uow_factory, table).settings
    assert (settings.time_zone, settings.time_zone_typed) == ("America/Chicago", False)
    assert "🕰" not in table.last(), "a new game takes the group's map quietly"
    table.send("Bob", "/status")
    assert "Clock times are in America/Chicago (CDT, UTC−5)." in table.last()


def test_clock_times_are_shown_on_the_maps_clock(table: Table) -> None:
    hider, _ = begin(table)
    # 09:00 UTC on 2 May is 04:00 in Oklahoma (CDT): the hiding period ends at 04:30 there.
    assert (START.hour, START.minute) == (9, 0)
    assert any("until 04:30" in x.text for x in table.said(hider))
    assert any("until 04:30" in x.text for x in table.said())
    assert not any("until 09:30" in x.text for x in table.said())


def test_a_typed_zone_stays_when_a_map_is_chosen_until_the_admin_follows_the_map(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    table.send("Alice", "/newgame small metric")
    table.send("Alice", "/settings timezone europe/zurich")
    assert "Clock times are in Europe/Zurich (CEST, UTC+2)." in table.last()
    table.send("Alice", "/map stillwater")
    notice = table.last()
    assert notice.startswith(
        "🕰 This map is in America/Chicago (CDT, UTC−5); clock times stay in "
        "Europe/Zurich (CEST, UTC+2) as you typed (/settings timezone map follows the map)."
    )
    settings = state_of(uow_factory, table).settings
    assert (settings.time_zone, settings.time_zone_typed) == ("Europe/Zurich", True)

    table.send("Alice", "/settings timezone map")
    assert table.last() == "🕰 Clock times are now in America/Chicago (CDT, UTC−5)."
    settings = state_of(uow_factory, table).settings
    assert (settings.time_zone, settings.time_zone_typed) == ("America/Chicago", False)

    mark = table.mark()
    table.send("Alice", "/map stillwater")  # the same map again: nothing new to say
    assert not any("🕰" in x.text or "country" in x.text for x in table.said(since=mark))


def test_an_uploaded_map_sets_the_zone_and_suggests_its_countrys_units_and_ruleset(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    table.send("Alice", "/newgame small metric")
    table.upload("Alice", "zurich.geojson", map_file(ZURICH))
    assert table.last() == "🕰 Clock times are now in Europe/Zurich (CEST, UTC+2)."
    assert state_of(uow_factory, table).settings.time_zone == "Europe/Zurich"

    table.upload("Alice", "stillwater.geojson", map_file(STILLWATER))
    assert table.last() == "\n".join(
        (
            "🕰 Clock times are now in America/Chicago (CDT, UTC−5).",
            "The map's country: United States.",
            "The us ruleset suits it: /settings ruleset us",
            "Miles and feet suit it: /settings units imperial",
        )
    )
    # Suggestions only: the admin takes them (or not) by typing them.
    table.send("Alice", "/settings ruleset us")
    state = state_of(uow_factory, table)
    assert state.ruleset == "us" and "Rules: us." in table.last()
    with uow_factory() as uow:  # the group chose no units: the ruleset's are used
        assert services(table).formatter(uow, table.group, state).units == "imperial"
    table.send("Alice", "/settings units metric")
    assert table.last() == "Distances will be shown in metric units."
    with uow_factory() as uow:
        assert uow.chats.prefs(table.group).units == "metric"
    table.send("Alice", "/settings ruleset nonsense")
    assert table.last() == (
        "I don't know the ruleset “nonsense”. Rulesets: metric, stillwater, us."
    )
    assert state_of(uow_factory, table).ruleset == "us"


def test_the_hook_runs_in_a_jobs_unit_of_work_without_a_turn(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    """``/map find`` fetches a map in a background job; it calls the hook in its own unit of
    work, and the notice reaches the group through the outbox."""
    table.send("Alice", "/newgame small metric")
    osaka = MapPack("osaka", box(135.4, 34.6, 135.6, 34.75), ())
    alice = table.person("Alice").ref
    with uow_factory() as uow:
        game_id = uow.games.current_id(table.group, for_update=True)
        assert game_id is not None
        state = uow.games.get(game_id)
        state, decisions = on_map_chosen(
            services(table), uow, game_id, state, table.group, osaka, by=alice, now=table.now
        )
        uow.commit()
    assert state.settings.time_zone == "Asia/Tokyo" and len(decisions) == 1
    assert state_of(uow_factory, table).settings.time_zone == "Asia/Tokyo"
    table.flush()
    assert table.last() == "🕰 Clock times are now in Asia/Tokyo (JST, UTC+9)."

    # Once the game is under way a map choice changes nothing.
    table.send("Bob", "/join")
    table.send("Alice", "/begin")
    table.wait(timedelta(minutes=1))
    with uow_factory() as uow:
        running = uow.games.get(game_id)
        choice = plan_map_choice(
            services(table), uow, running, table.group, load_map_pack("stillwater"), by=alice
        )
    assert choice.event is None and choice.notice is None


def test_a_stored_pack_keeps_its_country(uow_factory: UnitOfWorkFactory) -> None:
    from hideseek_chat.chat.maps import from_data, to_data

    osaka = MapPack("osaka", box(135.4, 34.6, 135.6, 34.75), (), country="JP", title="Osaka")
    with uow_factory() as uow:
        uow.maps.save(to_data(osaka), START)
        uow.commit()
    with uow_factory() as uow:
        stored = uow.maps.load("osaka")
    assert stored is not None and stored.country == "JP"
    assert from_data(stored) == osaka
