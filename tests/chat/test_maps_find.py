"""/map find, /map refresh and /map: a map from OpenStreetMap, played through the
conversation layer with a fake geocoder and a fake fetcher (``maps_fakes``).

- The admin names a place, chooses it from buttons (a radius for a point), switches the
  transit modes and fetches; one message shows the progress, then the summary; the game
  plays on the fetched pack (its zone comes from it).
- A place not found, a geocoder or Overpass failure: a clear message, nothing stored, the
  old map in use; a kind whose download failed is reported and stays uncovered.
- A pack of the same area and modes fetched lately is used again; /map refresh fetches.
- Only the admin, only during setup; a stale press is refused and its keyboard removed.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from hideseek_chat.chat.drive import Capabilities
from hideseek_chat.chat.map_jobs import STALE_AFTER
from hideseek_chat.console.table import Line, Table, run_sync
from hideseek_chat.maps.errors import MapFetchError
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.mapjobs import MAX_ATTEMPTS
from tests.chat.maps_fakes import (
    KINDS,
    LIBRARY,
    STILLWATER,
    FakeFetcher,
    FakeGeocoder,
    clients,
    map_table,
)
from tests.chat.play import HIDER_SPOT, NAMES, STATION, labels, new_table, state_of

CITY_PACK = "osm-r123-subway-tram-bus"  # the small game's default modes
#: A fetch stores a version of it named by when (the table's clock starts 2026-05-02 09:00).
CITY_VERSION = f"{CITY_PACK}@20260502090000"


def setup_game(table: Table) -> None:
    table.send("Alice", "/newgame small metric")
    table.press("Bob", "Join the game")
    table.send("Carol", "/join")


def map_name(uow_factory: UnitOfWorkFactory, table: Table) -> str:
    with uow_factory() as uow:
        return uow.chats.prefs(table.group).map_name


def stored(uow_factory: UnitOfWorkFactory) -> list[str]:
    with uow_factory() as uow:
        return uow.maps.names()


def job_line(table: Table) -> Line:
    """The newest line kept in a map job's slot."""
    return next(x for x in reversed(table.lines) if x.slot and x.slot.startswith("map-job-"))


def fetch_city(table: Table, *, toggle: str | None = None) -> Line:
    table.send("Alice", "/map find Stillwater")
    table.press("Alice", "Stillwater · city · United States")
    if toggle is not None:
        table.press("Alice", toggle)
    table.press("Alice", "Fetch the map")
    return job_line(table)


def test_find_choose_fetch_then_the_game_plays_on_the_fetched_pack(
    uow_factory: UnitOfWorkFactory,
) -> None:
    geocoder, fetcher = FakeGeocoder(), FakeFetcher()
    table = map_table(uow_factory, clients(geocoder, fetcher))
    setup_game(table)
    mark = table.mark()
    table.send("Alice", "/map find Stillwater")
    found = job_line(table)
    assert found.id > mark and geocoder.queries == ["Stillwater"]
    # One message: "Looking up" became the places, as buttons.
    assert "Stillwater" in found.text and "choose" in found.text
    assert labels(found) == [
        "Stillwater · city · United States",
        "Stillwater · city · Minnesota, United States",
    ]
    first = next(x for x in table.slot_log if x.slot == found.slot)
    assert first.text.startswith("🔎 Looking up")

    table.press("Alice", "Stillwater · city · United States")
    modes = table.said()[-1]
    assert "Which transit counts" in modes.text
    assert labels(modes)[:5] == [
        "▫️ Rail",
        "✓ Subway",
        "✓ Light rail / tram",
        "✓ Bus",
        "▫️ Ferry",
    ]
    table.press("Alice", "Rail")  # on
    table.press("Alice", "Rail")  # and off again: the keyboard is edited in place
    assert labels(table.said()[-1])[0] == "▫️ Rail"
    table.press("Alice", "Fetch the map")
    assert not table.said()[-2].buttons  # the modes' keyboard is spent

    summary = job_line(table)
    progress = [x.text for x in table.slot_log if x.slot == summary.slot]
    assert progress[0].startswith("⏳ Fetching “Stillwater”")
    assert "stations ✓ 171" in progress[2] and "parks ✓" in progress[2]
    assert len(progress) == 1 + len(KINDS)  # the reply, a step per kind but the last, summary
    assert "is ready: 171 stations (Subway, Light rail / tram, Bus)" in summary.text
    assert "© OpenStreetMap contributors, ODbL" in summary.text
    assert fetcher.calls[0]["modes"] == frozenset({"subway", "tram", "bus"})
    assert fetcher.calls[0]["boundary"].equals(STILLWATER.boundary)
    assert map_name(uow_factory, table) == CITY_VERSION
    assert CITY_VERSION in stored(uow_factory)

    # /map says what the game uses now.
    table.send("Alice", "/map")
    info = table.said()[-1].text
    assert f"“Stillwater” ({CITY_VERSION})" in info
    assert "Stations: 171." in info and "museums" in info
    assert "Fetched from OpenStreetMap on 2026-05-02 (Subway, Light rail / tram, Bus)" in info

    # The game plays on it: the zone comes from the fetched stations.
    table.send("Alice", "/begin")
    hider = next(n for n in NAMES if any("You're hiding" in x.text for x in table.said(n)))
    table.pin(hider, *HIDER_SPOT, private=True)
    table.wait(timedelta(minutes=30))
    current = state_of(uow_factory, table).current_round
    assert current is not None and current.zone is not None
    assert current.zone.station_name == STATION


def test_a_point_result_asks_for_a_radius_first(uow_factory: UnitOfWorkFactory) -> None:
    fetcher = FakeFetcher()
    table = map_table(uow_factory, clients(fetcher=fetcher))
    setup_game(table)
    table.send("Alice", "/map find library")
    table.press("Alice", LIBRARY.label)
    radii = table.said()[-1]
    assert "is a point on the map" in radii.text
    assert labels(radii) == ["1 km", "2 km", "5 km", "10 km", "25 km"]
    table.press("Alice", "2 km")
    table.press("Alice", "Fetch the map")
    call = fetcher.calls[0]
    assert call["name"] == "osm-n456-subway-tram-bus-2000m@20260502090000"
    assert call["boundary"].contains(call["boundary"].centroid)
    assert abs(call["boundary"].centroid.y - LIBRARY.lat) < 1e-3
    assert map_name(uow_factory, table) == "osm-n456-subway-tram-bus-2000m@20260502090000"


def test_a_place_nobody_knows_and_a_failed_search_say_so(uow_factory: UnitOfWorkFactory) -> None:
    geocoder = FakeGeocoder()
    table = map_table(uow_factory, clients(geocoder))
    setup_game(table)
    table.send("Alice", "/map find Atlantis")
    assert "OpenStreetMap knows no place called “Atlantis”" in job_line(table).text
    geocoder.error = MapFetchError("map.geocoder_failed", reason="HTTP 503")
    table.send("Alice", "/map find Stillwater")
    line = job_line(table)
    assert "The place search did not answer (HTTP 503)" in line.text
    assert not line.buttons
    assert map_name(uow_factory, table) == "stillwater"


def test_a_failed_fetch_stores_nothing_and_keeps_the_old_map(
    uow_factory: UnitOfWorkFactory,
) -> None:
    fetcher = FakeFetcher(error=MapFetchError("map.overpass_failed", reason="HTTP 504"))
    table = map_table(uow_factory, clients(fetcher=fetcher))
    setup_game(table)
    line = fetch_city(table)
    assert "could not be fetched (HTTP 504)" in line.text
    assert "“Stillwater”" in line.text
    assert stored(uow_factory) == []
    assert map_name(uow_factory, table) == "stillwater"
    fetcher.error, fetcher.no_stations = None, True
    assert "has no stations of the chosen kinds" in fetch_city(table).text
    assert stored(uow_factory) == []


def test_a_kind_that_failed_is_reported_and_stays_uncovered(
    uow_factory: UnitOfWorkFactory,
) -> None:
    table = map_table(uow_factory, clients(fetcher=FakeFetcher(failing_kind="museum")))
    setup_game(table)
    summary = fetch_city(table)
    assert "museums ✗" in [x for x in table.slot_log if x.slot == summary.slot][-2].text
    assert "Not answered automatically (their download failed): museums." in summary.text
    with uow_factory() as uow:
        data = uow.maps.load(CITY_VERSION)
        assert data is not None
        assert "museum" not in data.kinds and "park" in data.kinds


def _dropped(uow_factory: UnitOfWorkFactory, table: Table, pack: str) -> frozenset[str]:
    with uow_factory() as uow:
        return uow.map_jobs.dropped(table.group, pack)


def test_a_pack_fetched_lately_is_used_again_and_refresh_fetches_anew(
    uow_factory: UnitOfWorkFactory,
) -> None:
    fetcher = FakeFetcher()
    table = map_table(uow_factory, clients(fetcher=fetcher))
    setup_game(table)
    fetch_city(table)
    table.send("Alice", "/map stillwater")
    table.now += timedelta(days=3)
    table.send("Alice", "/map find Stillwater")
    table.press("Alice", "Stillwater · city · United States")
    table.press("Alice", "Fetch the map")
    assert len(fetcher.calls) == 1
    assert "was already fetched on 2026-05-02: the game uses it now" in table.said()[-1].text
    assert map_name(uow_factory, table) == CITY_VERSION

    # A refresh stores a new version beside the old one (a game under way on the old one
    # keeps it), and the group's left-out station stays left out.
    table.send("Alice", "/map stations Gallagher")
    table.press("Alice", STATION)
    table.press("Alice", "🚫 Leave it out of the game")
    dropped = _dropped(uow_factory, table, CITY_VERSION)
    assert len(dropped) == 1
    table.send("Alice", "/map refresh")
    assert len(fetcher.calls) == 2
    assert "is ready" in job_line(table).text
    refreshed = "osm-r123-subway-tram-bus@20260505090000"
    assert map_name(uow_factory, table) == refreshed
    assert {CITY_VERSION, refreshed} <= set(stored(uow_factory))
    assert _dropped(uow_factory, table, refreshed) == dropped

    table.now += timedelta(days=31)  # older than the maximum age: fetched again
    fetch_city(table)
    assert len(fetcher.calls) == 3


def test_refresh_needs_a_map_from_openstreetmap(uow_factory: UnitOfWorkFactory) -> None:
    table = map_table(uow_factory, clients())
    setup_game(table)
    table.send("Alice", "/map refresh")
    assert "was not fetched from OpenStreetMap" in table.said()[-1].text


def test_only_the_admin_during_setup_and_only_when_configured(
    uow_factory: UnitOfWorkFactory,
) -> None:
    table = map_table(uow_factory, clients())
    setup_game(table)
    table.send("Bob", "/map find Stillwater")
    assert "admin" in table.said()[-1].text
    table.send("Alice", "/map find")
    assert "Name the place" in table.said()[-1].text
    table.send("Alice", "/map find Stillwater")
    table.send("Alice", "/begin")
    table.press("Alice", "Stillwater · city · United States")
    assert table.lines[-1].toast == "That can only be changed before the game begins."
    found = next(x for x in table.lines if x.slot and x.slot.startswith("map-job-"))
    assert not found.buttons  # the stale keyboard is gone
    table.send("Alice", "/map find Stillwater")
    assert table.said()[-1].text == "That can only be changed before the game begins."

    plain = new_table(uow_factory, seed=3)
    plain.group = "console:other"
    plain.send("Alice", "/newgame small metric")
    plain.send("Alice", "/map find Stillwater")
    assert "not configured on this bot" in plain.said()[-1].text


def test_a_forged_place_button_is_refused(uow_factory: UnitOfWorkFactory) -> None:
    table = map_table(uow_factory, clients())
    setup_game(table)
    table.send("Alice", "/map find Stillwater")
    line, pressed = next(
        (x, b) for x, b in table.buttons("Alice") if b.label.startswith("Stillwater")
    )
    verb, game, job, _ = pressed.data.split(":")
    before = len(table.lines)
    table.press_data("Alice", f"{verb}:{game}:{job}:9", line)  # no ninth place
    assert table.lines[-1].toast == "That button no longer works."
    assert len(table.lines) == before + 1 and not line.buttons
    table.press_data("Alice", f"{verb}:{game}:{int(job) + 50}:0")  # nor such a search
    assert table.toasts[-1][1] == "That button no longer works."


def test_without_editing_only_the_outcome_is_sent(uow_factory: UnitOfWorkFactory) -> None:
    no_edits = Capabilities(pictures=False, location_button=False, edit_messages=False)
    table = map_table(uow_factory, clients(), capabilities=no_edits)
    setup_game(table)
    mark = table.mark()
    table.send("Alice", "/map find Stillwater")
    table.press("Alice", "Stillwater · city · United States")
    table.press("Alice", "Fetch the map")
    said = [x.text for x in table.said(since=mark)]
    assert any(t.startswith("⏳ Fetching “Stillwater”") for t in said)
    assert not any("✓" in t and "Fetching" in t for t in said)  # no progress messages
    assert sum("is ready" in t for t in said) == 1


def test_the_same_search_within_a_day_is_answered_without_asking_nominatim_again(
    uow_factory: UnitOfWorkFactory,
) -> None:
    geocoder = FakeGeocoder()
    table = map_table(uow_factory, clients(geocoder))
    setup_game(table)
    table.send("Alice", "/map find Stillwater")
    table.send("Alice", "/map find stillwater")  # another spelling of the same search
    again = job_line(table)
    assert labels(again)[0] == "Stillwater · city · United States"
    assert geocoder.queries == ["Stillwater"]
    table.press("Alice", "Stillwater · city · United States")  # the cached places work
    assert "Which transit counts" in table.said()[-1].text
    table.wait(timedelta(days=1, minutes=1))
    table.send("Alice", "/map find Stillwater")
    assert geocoder.queries == ["Stillwater", "Stillwater"]


def test_a_forged_radius_on_the_modes_or_fetch_button_is_refused(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """Only the radii offered are fetched: a forged press must not fetch a circle of a
    thousand kilometres (nor give an area place a radius)."""
    fetcher = FakeFetcher()
    table = map_table(uow_factory, clients(fetcher=fetcher))
    setup_game(table)
    table.send("Alice", "/map find library")
    table.press("Alice", LIBRARY.label)
    table.press("Alice", "2 km")
    line, fetch = next((x, b) for x, b in table.buttons("Alice") if "Fetch" in b.label)
    verb, game, job, place, radius, bits = fetch.data.split(":")
    assert radius == "2000"
    for forged in (
        f"{verb}:{game}:{job}:{place}:5000000:{bits}",
        f"mmode:{game}:{job}:{place}:5000000:{bits}:0",
    ):
        table.press_data("Alice", forged, line)
        assert table.lines[-1].toast == "That button no longer works."
    assert fetcher.calls == []

    table.send("Alice", "/map find Stillwater")
    table.press("Alice", "Stillwater · city · United States")
    line, fetch = next((x, b) for x, b in table.buttons("Alice") if "Fetch" in b.label)
    verb, game, job, place, radius, bits = fetch.data.split(":")
    assert radius == "0"
    table.press_data("Alice", f"mmode:{game}:{job}:{place}:7000:{bits}:0", line)
    assert table.lines[-1].toast == "That button no longer works."
    assert fetcher.calls == []


def test_a_job_whose_process_kept_dying_is_given_up_and_the_group_is_told(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """A fetch that took its process down every time (a country too big for memory) ends
    after ``MAX_ATTEMPTS`` claims: the group's "Fetching…" message must say so, not wait
    for ever."""
    table = map_table(uow_factory, clients())
    setup_game(table)
    table.driver.jobs_inline, table.driver.max_map_jobs = False, 0  # nothing runs by itself
    table.send("Alice", "/map find Stillwater")
    at = table.now
    for _ in range(MAX_ATTEMPTS):  # claimed, and its process died
        with uow_factory() as uow:
            assert uow.map_jobs.claim_next(at, STALE_AFTER) is not None
            uow.commit()
        at += STALE_AFTER + timedelta(seconds=1)
    assert table.conversation.run_map_job(lambda: at)  # given up, not run...
    run_sync(table.driver.drain())
    told = job_line(table)
    assert "failed several times" in told.text  # ... and the group heard why


def test_a_slow_fetch_that_still_reports_is_not_claimed_again_by_another_runner(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """Overpass slow (a kind a few minutes): the whole fetch outlasts ``STALE_AFTER``, but
    it is alive while kinds arrive; a second runner must not take it for a dead process's
    and fetch it again beside it (twice the load on Overpass, two summaries)."""
    table = map_table(uow_factory, clients())
    setup_game(table)
    table.driver.jobs_inline, table.driver.max_map_jobs = False, 0
    table.send("Alice", "/map find Stillwater")
    table.conversation.run_map_job(lambda: table.now)
    run_sync(table.driver.drain())
    table.press("Alice", "Stillwater · city · United States")
    table.press("Alice", "Fetch the map")
    clock = [table.now]
    claimed_beside: list[object] = []

    conversation = table.conversation
    assert conversation.services.map_clients is not None
    real = conversation.services.map_clients.fetch

    def fetch(*args: object, progress: Any = None, **kwargs: Any) -> Any:
        def both(step: object) -> None:
            progress(step)
            clock[0] += timedelta(minutes=6)  # the next kind takes a while
            with uow_factory() as uow:  # another runner looks for work meanwhile
                claimed_beside.append(uow.map_jobs.claim_next(clock[0], STALE_AFTER))

        return real(*args, progress=both, **kwargs)

    conversation.services.map_clients = replace(conversation.services.map_clients, fetch=fetch)
    assert conversation.run_map_job(lambda: clock[0])
    assert clock[0] - table.now > STALE_AFTER
    assert claimed_beside == [None] * len(KINDS)


def test_a_database_blip_during_a_fetchs_progress_does_not_fail_the_fetch(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """The progress edit and heartbeat are best effort: the database away for a moment
    while a kind arrives must not throw away minutes of downloading."""
    table = map_table(uow_factory, clients())
    setup_game(table)
    services = table.conversation.services
    blips = iter([False, False, True, False, False, False, False, False, False, False])
    real_fetch = services.map_clients.fetch  # type: ignore[union-attr]

    def flaky() -> Any:
        if in_fetch and next(blips, False):
            raise ConnectionError("database restarting")
        return uow_factory()

    def fetch(*args: Any, **kwargs: Any) -> Any:
        nonlocal in_fetch
        in_fetch = True
        try:
            return real_fetch(*args, **kwargs)
        finally:
            in_fetch = False

    in_fetch = False
    services.uow_factory = flaky
    services.map_clients = replace(services.map_clients, fetch=fetch)  # type: ignore[type-var]
    line = fetch_city(table)
    assert "is ready: 171 stations" in line.text
    assert map_name(uow_factory, table) == CITY_VERSION


def test_a_forged_press_with_a_huge_number_is_refused_not_a_database_error(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """A job id, place or game beyond the database's integers (PostgreSQL: out of range;
    SQLite: too large) reads as a button that no longer works."""
    table = map_table(uow_factory, clients())
    setup_game(table)
    table.send("Alice", "/map find Stillwater")
    huge = "99999999999999999999"
    for data in (f"mplace:1:{huge}:0", "mplace:1:2147483648:0", f"mplace:{huge}:1:0"):
        table.press_data("Alice", data)
        assert table.toasts[-1][1] == "That button no longer works."
