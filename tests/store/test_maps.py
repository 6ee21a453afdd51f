"""Map packs as rows: a pack from plain data comes back equal; indexed range queries."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime

from hideseek_chat.store import FeatureData, MapPackData, StationData, UnitOfWorkFactory

NOW = datetime(2026, 5, 2, tzinfo=UTC)
BOUNDARY = json.dumps(
    {
        "type": "Polygon",
        "coordinates": [
            [[-97.2, 36.0], [-96.9, 36.0], [-96.9, 36.3], [-97.2, 36.3], [-97.2, 36.0]]
        ],
    }
)


def _point(lat: float, lon: float) -> str:
    return json.dumps({"type": "Point", "coordinates": [lon, lat]})


PACK = MapPackData(
    name="stillwater",
    title="Stillwater, OK",
    attribution="© OpenStreetMap contributors",
    boundary_geojson=BOUNDARY,
    stations=(
        StationData("s1", "Hester & 4th", 36.12, -97.06, ("Red", "Blue")),
        StationData("s2", "Library", 36.13, -97.05, ("Red",)),
        StationData("s3", "Far Away", 36.29, -96.95),
    ),
    features=(
        FeatureData("park", "Couch Park", _point(36.121, -97.07), 36.121, -97.07),
        FeatureData("museum", "Sheerar", _point(36.118, -97.058), 36.118, -97.058),
        FeatureData(
            "road",
            "Main Street",
            json.dumps({"type": "LineString", "coordinates": [[-97.06, 36.10], [-97.06, 36.20]]}),
        ),
    ),
    kinds=frozenset({"park", "museum", "road", "zoo"}),
    routes=("Red", "Blue"),
    country="US",
)


def test_a_pack_comes_back_as_it_was_stored(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        uow.maps.save(PACK, NOW)
        uow.commit()
    with uow_factory() as uow:
        loaded = uow.maps.load("stillwater")
        assert uow.maps.names() == ["stillwater"]
        assert uow.maps.load("nowhere") is None
    assert loaded is not None
    road = loaded.features[2]
    assert road.lat == (36.10 + 36.20) / 2 and road.lon == -97.06  # the middle of its box
    assert loaded.features[:2] == PACK.features[:2]
    assert replace(loaded, features=()) == replace(PACK, features=())


def test_saving_a_pack_again_replaces_it(uow_factory: UnitOfWorkFactory) -> None:
    smaller = MapPackData("stillwater", BOUNDARY, stations=PACK.stations[:1])
    for pack in (PACK, smaller):
        with uow_factory() as uow:
            uow.maps.save(pack, NOW)
            uow.commit()
    with uow_factory() as uow:
        assert uow.maps.load("stillwater") == smaller


def test_stations_and_features_near_a_point(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        uow.maps.save(PACK, NOW)
        box = (36.11, -97.08, 36.14, -97.04)
        assert [s.ref for s in uow.maps.stations_in("stillwater", box)] == ["s1", "s2"]
        assert uow.maps.stations_in("stillwater", box)[0].routes == ("Red", "Blue")
        assert [f.name for f in uow.maps.features_in("stillwater", "park", box)] == ["Couch Park"]
        assert uow.maps.features_in("stillwater", "zoo", box) == []
        # a road crossing the box counts although none of its ends is inside
        assert [f.name for f in uow.maps.features_in("stillwater", "road", box)] == ["Main Street"]
        far = (36.25, -97.0, 36.3, -96.9)
        assert uow.maps.features_in("stillwater", "road", far) == []


def test_summaries_count_each_packs_stations_and_features(uow_factory: UnitOfWorkFactory) -> None:
    empty = MapPackData("empty", BOUNDARY, title="Nothing")
    with uow_factory() as uow:
        uow.maps.save(PACK, NOW)
        uow.maps.save(empty, NOW)
        uow.commit()
    with uow_factory() as uow:
        summaries = uow.maps.summaries()
    assert [(s.name, s.title, s.stations, s.features) for s in summaries] == [
        ("empty", "Nothing", 0, 0),
        ("stillwater", "Stillwater, OK", 3, 3),
    ]
    assert summaries[0].imported_at.replace(tzinfo=UTC) == NOW


def test_the_newest_version_of_a_pack_is_found_by_its_base_name(
    uow_factory: UnitOfWorkFactory,
) -> None:
    from datetime import timedelta

    base = "osm-r1_2%-rail"  # LIKE's own characters in it match only themselves
    with uow_factory() as uow:
        assert uow.maps.newest_version(base) is None
        for name, days in (
            (f"{base}@20260502000000", 0),
            (f"{base}@20260509000000", 7),
            ("osm-r1x2y-rail@20260601000000", 30),  # what _ and % would match as wildcards
            (f"{base}-other@20260701000000", 60),  # another base that starts alike
        ):
            uow.maps.save(replace(PACK, name=name), NOW + timedelta(days=days))
        uow.commit()
    with uow_factory() as uow:
        assert uow.maps.newest_version(base) == (f"{base}@20260509000000", NOW + timedelta(days=7))
