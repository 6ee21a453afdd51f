"""/map find over the real clients: geopy's Nominatim and the Overpass client talking HTTP to
the fake servers on 127.0.0.1 (``tests/maps/fakes.py``), which serve Stillwater as
OpenStreetMap elements built from the shipped pack.

The admin finds the town, fetches it, and the game plays on what was fetched (the zone's
station); a Stillwater whose Overpass is down ends in one clear message, nothing stored and
the shipped map still in use; a busy Overpass (429, Retry-After) is waited for.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from functools import partial

import pytest
from shapely.geometry import mapping

from hideseek_chat.chat.map_clients import MapClients
from hideseek_chat.console.table import Table
from hideseek_chat.maps import fetch, modes, places
from hideseek_chat.maps.overpass import Overpass
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.maps_fakes import map_table
from tests.chat.play import HIDER_SPOT, NAMES, STATION, state_of
from tests.maps.fakes import FakeNominatim, FakeOverpass, Reply
from tests.maps.osm_data import nominatim_row, shipped, stillwater_overpass

USER_AGENT = "hideseek_chat-tests/1 (+https://example.org/hideseek)"
LABEL = "Stillwater · city · United States"


@pytest.fixture
def servers() -> Iterator[tuple[FakeNominatim, FakeOverpass]]:
    town = nominatim_row(
        "relation", 129041, "Stillwater", 36.1156, -97.0584,
        geojson=mapping(shipped().boundary),
    )  # fmt: skip
    with (
        FakeNominatim({"Stillwater": [town]}) as nominatim,
        FakeOverpass(stillwater_overpass()) as overpass,
    ):
        yield nominatim, overpass


def live_clients(
    nominatim: FakeNominatim, overpass: FakeOverpass, waits: list[float]
) -> MapClients:
    """The clients ``app.build_map_clients`` makes, pointed at the fakes, sleeping into a list."""
    limiter = places.RateLimiter(0.0)
    geocoder = places.Geocoder(nominatim.url, USER_AGENT, timeout=5.0, limiter=limiter)
    client = Overpass([overpass.url], USER_AGENT, timeout=5.0, attempts=2, sleep=waits.append)
    return MapClients(
        geocoder=geocoder,
        fetch=partial(fetch.fetch_pack, client),
        pack_name=fetch.pack_name,
        circle=places.circle,
        modes=modes.MODES,
        default_modes=modes.default_modes,
    )


def start(uow_factory: UnitOfWorkFactory, clients: MapClients) -> Table:
    table = map_table(uow_factory, clients)
    table.send("Alice", "/newgame small metric")
    table.press("Bob", "Join the game")
    table.send("Carol", "/join")
    return table


def map_in_use(uow_factory: UnitOfWorkFactory, table: Table) -> str:
    with uow_factory() as uow:
        return uow.chats.prefs(table.group).map_name


def test_a_town_found_and_fetched_over_http_is_the_game_s_map(
    uow_factory: UnitOfWorkFactory, servers: tuple[FakeNominatim, FakeOverpass]
) -> None:
    nominatim, overpass = servers
    waits: list[float] = []
    table = start(uow_factory, live_clients(nominatim, overpass, waits))
    table.send("Alice", "/map find Stillwater")
    table.press("Alice", LABEL)
    table.press("Alice", "Fetch the map")
    summary = table.said()[-1].text
    assert "is ready: 167 stations" in summary, summary
    assert "© OpenStreetMap contributors, ODbL" in summary
    assert map_in_use(uow_factory, table).startswith("osm-r129041-bus+ferry+rail+subway+tram@")
    # Both services were told who asks; Nominatim once, Overpass once per kind.
    assert all(r.user_agent == USER_AGENT for r in nominatim.requests)
    assert all(r.user_agent == USER_AGENT for r in overpass.requests)
    assert len(nominatim.requests) == 1 and len(overpass.requests) > 10 and waits == []

    table.send("Alice", "/begin")
    hider = next(n for n in NAMES if any("You're hiding" in x.text for x in table.said(n)))
    table.pin(hider, *HIDER_SPOT, private=True)
    table.wait(timedelta(minutes=30))
    current = state_of(uow_factory, table).current_round
    assert current is not None and current.zone is not None
    assert current.zone.station_name == STATION


def test_overpass_down_ends_in_one_message_and_the_old_map_stays(
    uow_factory: UnitOfWorkFactory, servers: tuple[FakeNominatim, FakeOverpass]
) -> None:
    nominatim, overpass = servers
    waits: list[float] = []
    table = start(uow_factory, live_clients(nominatim, overpass, waits))
    before = map_in_use(uow_factory, table)
    overpass.script(Reply(504), Reply(504))
    table.send("Alice", "/map find Stillwater")
    table.press("Alice", LABEL)
    table.press("Alice", "Fetch the map")
    said = table.said()[-1].text
    assert "could not be fetched" in said and "(504)" in said, said
    assert map_in_use(uow_factory, table) == before
    with uow_factory() as uow:
        assert not [n for n in uow.maps.names() if n.startswith("osm-")]
    assert len(waits) == 1  # one backoff between the two attempts


def test_a_busy_overpass_is_waited_for_as_it_asks(
    uow_factory: UnitOfWorkFactory, servers: tuple[FakeNominatim, FakeOverpass]
) -> None:
    nominatim, overpass = servers
    waits: list[float] = []
    table = start(uow_factory, live_clients(nominatim, overpass, waits))
    overpass.script(Reply(429, headers={"Retry-After": "3"}))
    table.send("Alice", "/map find Stillwater")
    table.press("Alice", LABEL)
    table.press("Alice", "Fetch the map")
    assert "is ready: 167 stations" in table.said()[-1].text
    assert waits == [3.0]
