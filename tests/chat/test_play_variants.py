"""Playing with cars or on foot (rulebook section 6), played through the conversation layer
on the Stillwater map, on both databases.

- The zone is centred on the street terminus nearest the hider (where a street ends at
  another or dead-ends), not on a bus stop; the hider hears which, the group hears only
  that it is around a street end.
- A hider far from every street end hears, privately, the nearest one and how far it is.
- In a transit game nothing changes: the zone is on a station.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from hideseek_chat.console.table import Table
from hideseek_chat.rules.state import Phase, Transport, Zone
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.play import HIDER_SPOT, begin, public_text, state_of, text_of

STOP = "Gallagher-Iba"  # the bus stop 67 m from HIDER_SPOT
STREET_END = "West Miller Avenue (dead end)"  # 291 m from HIDER_SPOT
STREET_END_AT = (36.1237504, -97.0650915)
FAR = (36.084, -97.112)  # inside the map, 804 m from its nearest street end
FAR_END = "South Sangre Road (dead end)"


def zone_of(uow_factory: UnitOfWorkFactory, table: Table) -> Zone | None:
    current = state_of(uow_factory, table).current_round
    assert current is not None
    return current.zone


def secrets_of(zone: Zone) -> tuple[str, ...]:
    return (
        zone.station_name,
        zone.station_name.split(" (")[0],
        zone.station_ref,
        f"{zone.lat:.3f}",
        f"{zone.lon:.3f}",
    )


def test_a_car_game_centres_the_zone_on_the_nearest_street_end_not_a_stop(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, seekers = begin(table, transport="🚗 Car")
    assert state_of(uow_factory, table).settings.transport == Transport.CAR
    mark = table.mark()
    table.pin(hider, *HIDER_SPOT, private=True)  # a live location, 291 m from the street end
    assert "not near" not in text_of(table.said(hider, since=mark))
    table.wait(timedelta(minutes=31))
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    zone = zone_of(uow_factory, table)
    assert zone is not None
    assert zone.station_name == STREET_END and zone.station_ref.startswith("terminus:")
    assert (zone.lat, zone.lon) == pytest.approx(STREET_END_AT, abs=1e-6)
    told = text_of(table.said(hider))
    assert f"within 500 m of the street end {STREET_END}" in told
    assert "about this street's name" in told
    assert STOP not in told
    public = public_text(table, seekers)
    assert "The hider's zone reaches 500 m around a street end" in public
    assert "around a station" not in public
    for secret in (*secrets_of(zone), STOP, f"{HIDER_SPOT[0]:.3f}"):
        assert secret not in public, secret


def test_an_on_foot_hider_far_from_every_street_end_hears_the_nearest_privately(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, seekers = begin(table, transport="🚶 On foot")
    mark = table.mark()
    table.pin(hider, *FAR, private=True)
    told = text_of(table.said(hider, since=mark))
    assert "You're not near the end of any street of the map" in told
    assert f"the nearest is {FAR_END}, 804 m away" in told
    assert "be within 500 m of one by then" in told
    assert "station" not in told
    # The hider makes it near a street end in time: the zone is there, nothing was public.
    table.wait(timedelta(minutes=20))
    table.pin(hider, *HIDER_SPOT, private=True)
    table.wait(timedelta(minutes=11))
    zone = zone_of(uow_factory, table)
    assert zone is not None and zone.station_name == STREET_END
    public = public_text(table, seekers)
    assert FAR_END not in public and "not near" not in public
    for secret in secrets_of(zone):
        assert secret not in public, secret


def test_a_late_pin_in_a_car_game_fixes_the_zone_on_a_street_end(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, seekers = begin(table, transport="🚗 Car")
    table.wait(timedelta(minutes=30, seconds=30))
    assert zone_of(uow_factory, table) is None
    assert "fixes your zone around the street end nearest to it" in text_of(table.said(hider))
    mark = table.mark()
    table.pin(hider, *HIDER_SPOT, private=True, live=False)
    zone = zone_of(uow_factory, table)
    assert zone is not None and zone.station_name == STREET_END
    public = public_text(table, seekers, since=mark)
    assert "The hider's zone is now fixed: it reaches 500 m around a street end." in public
    for secret in secrets_of(zone):
        assert secret not in public_text(table, seekers), secret


def test_a_transit_game_still_centres_the_zone_on_a_stop(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, seekers = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True)
    table.wait(timedelta(minutes=31))
    zone = zone_of(uow_factory, table)
    assert zone is not None and zone.station_name == STOP
    assert not zone.station_ref.startswith("terminus:")
    assert "street end" not in public_text(table, seekers)


SEEKER_SPOT = (36.14000, -97.08000)  # nearest street end: North Airport Industrial Access Road


def test_the_station_name_question_of_a_car_game_counts_the_street_names(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, s2) = begin(table, transport="🚗 Car")
    table.pin(hider, *HIDER_SPOT, private=True)
    table.wait(timedelta(minutes=31))
    table.pin(hider, *HIDER_SPOT, private=True, edited=True)
    table.pin(s1, *SEEKER_SPOT, live=False)
    mark = table.mark()
    table.send(s1, "/ask matching station-name-length")
    incoming = table.said(hider)[-1].text
    # The hider's street, not the label of its end, and not a stop: 18 against 36 characters.
    assert "Suggested answer: No" in incoming, incoming
    assert (
        "Yours: West Miller Avenue (18 characters); "
        "theirs: North Airport Industrial Access Road (36 characters)." in incoming
    ), incoming
    assert STOP not in incoming and " m)" not in incoming
    table.press(hider, "No")
    public = public_text(table, [s1, s2], since=mark)
    assert "No" in public
    assert "West Miller" not in public and "18 characters" not in public


def test_the_station_name_question_of_a_transit_game_counts_characters_not_metres(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, _s2) = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True)
    table.wait(timedelta(minutes=31))
    table.pin(hider, *HIDER_SPOT, private=True, edited=True)
    table.pin(s1, *SEEKER_SPOT, live=False)
    table.send(s1, "/ask matching station-name-length")
    incoming = table.said(hider)[-1].text
    assert "Suggested answer: No" in incoming, incoming
    assert (
        "Yours: Gallagher-Iba (13 characters); theirs: University Estates Apts (23 characters)."
        in incoming
    ), incoming
