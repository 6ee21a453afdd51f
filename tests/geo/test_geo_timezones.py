"""A map's time zone and country, offline: tzfpy for the zone, zone.tab for its country."""

from __future__ import annotations

import json

import pytest
from shapely.geometry import box

from hideseek_chat.geo import (
    MapPack,
    country_of_time_zone,
    load_map_pack,
    pack_country,
    pack_from_geojson,
    pack_time_zone,
    pack_to_geojson,
    time_zone_at,
)


@pytest.mark.parametrize(
    ("lat", "lon", "zone"),
    [
        (36.1156, -97.0584, "America/Chicago"),  # Stillwater, Oklahoma
        (47.3769, 8.5417, "Europe/Zurich"),  # Zürich
        (34.6937, 135.5023, "Asia/Tokyo"),  # Osaka
        (51.5072, -0.1276, "Europe/London"),
        (22.5726, 88.3639, "Asia/Kolkata"),  # Kolkata
        (-43.95, -176.55, "Pacific/Chatham"),
    ],
)
def test_the_zone_at_a_city(lat: float, lon: float, zone: str) -> None:
    assert time_zone_at(lat, lon) == zone


def test_no_zone_at_sea_or_off_the_earth() -> None:
    assert time_zone_at(0.0, -150.0) is None  # the Pacific: only a nautical Etc/ zone
    assert time_zone_at(95.0, 0.0) is None


@pytest.mark.parametrize(
    ("zone", "country"),
    [
        ("America/Chicago", "US"),
        ("Europe/Zurich", "CH"),
        ("Asia/Tokyo", "JP"),
        ("Europe/London", "GB"),
        ("UTC", ""),
        ("Etc/GMT-2", ""),
    ],
)
def test_the_country_of_a_zone(zone: str, country: str) -> None:
    assert country_of_time_zone(zone) == country


def test_the_shipped_stillwater_pack_is_in_the_us_on_chicagos_clock() -> None:
    pack = load_map_pack("stillwater")
    assert pack.country == "US"
    assert pack_time_zone(pack) == "America/Chicago"
    assert pack_country(pack) == "US"


def test_a_pack_without_a_country_takes_its_zones() -> None:
    zurich = MapPack("zurich", box(8.45, 47.32, 8.62, 47.43), ())
    assert zurich.country == ""
    assert (pack_time_zone(zurich), pack_country(zurich)) == ("Europe/Zurich", "CH")
    tagged = MapPack("zurich", box(8.45, 47.32, 8.62, 47.43), (), country="ch")
    assert tagged.country == "CH"  # upper case, whatever was given


def test_the_country_survives_the_geojson_round_trip() -> None:
    pack = MapPack("osaka", box(135.4, 34.6, 135.6, 34.75), (), country="JP", title="Osaka")
    again = pack_from_geojson(json.loads(json.dumps(pack_to_geojson(pack))))
    assert again.country == "JP" and again == pack
    old = pack_to_geojson(pack)
    del old["hideseek_map"]["country"]  # a pack written before packs had countries
    assert pack_from_geojson(old).country == ""
