"""A whole pack fetched from the fake Overpass for Stillwater answers like the shipped one."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from itertools import pairwise

import pytest

from hideseek_chat.geo import (
    HiderFix,
    MapIndex,
    MapPack,
    Pin,
    answer_matching,
    answer_station_name_length,
    answer_transit_line,
    distance_m,
)
from hideseek_chat.geo.mappack import pack_from_geojson, pack_to_geojson
from hideseek_chat.maps.build import OSM_ATTRIBUTION, normalize_name
from hideseek_chat.maps.errors import MapFetchError
from hideseek_chat.maps.fetch import (
    FetchedPack,
    KindProgress,
    area_filter,
    fetch_pack,
    kind_query,
    pack_name,
    stations_query,
)
from hideseek_chat.maps.overpass import Overpass
from hideseek_chat.maps.tags import SPECS
from hideseek_chat.rules.ruleset import HiderPosition
from tests.maps.fakes import FakeOverpass, Reply
from tests.maps.osm_data import shipped, stillwater_overpass

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
UA = "hideseek-chat-test/1.0"


def client(server: FakeOverpass, attempts: int = 1) -> Overpass:
    return Overpass([server.url], UA, attempts=attempts, sleep=lambda _: None, timeout=5.0)


def fetch(server: FakeOverpass, **kwargs) -> FetchedPack:
    reference = shipped()
    return fetch_pack(
        client(server),
        reference.boundary,
        name="osm-r1-bus",
        title="Stillwater",
        modes={"bus", "rail"},
        country_code="US",
        **kwargs,
    )


@pytest.fixture(scope="module")
def fetched() -> FetchedPack:
    with FakeOverpass(stillwater_overpass()) as server:
        return fetch(server)


def pins(pack: MapPack, count: int, seed: int) -> list[tuple[float, float]]:
    rng = random.Random(seed)
    west, south, east, north = pack.boundary.bounds
    index = MapIndex(pack)
    out = []
    while len(out) < count:
        lat, lon = rng.uniform(south, north), rng.uniform(west, east)
        if index.is_in_boundary(lat, lon):
            out.append((lat, lon))
    return out


def test_same_stations_within_30_m_after_grouping(fetched: FetchedPack):
    reference = shipped()
    pack = fetched.pack
    # The shipped pack keeps both sides of four streets as two stops of one name (25-93 m
    # apart); grouping by name within 100 m makes each pair one station: 171 - 4.
    assert len(pack.stations) == len(reference.stations) - 4 == 167
    fetched_index = MapIndex(pack)
    paired = 0
    for stop in reference.stations:
        twins = [
            s
            for s in reference.stations
            if s is not stop
            and normalize_name(s.name) == normalize_name(stop.name)
            and distance_m(s.lat, s.lon, stop.lat, stop.lon) <= 100
        ]
        hit = fetched_index.nearest_station(stop.lat, stop.lon)
        assert hit is not None
        assert hit.item.name == stop.name
        if twins:
            paired += 1
            assert hit.distance_m <= 50  # the middle of the two sides (93 m apart at most)
            assert set(stop.routes) <= set(hit.item.routes)
        else:
            assert hit.distance_m <= 30
            assert sorted(hit.item.routes) == sorted(stop.routes)
    assert paired == 8
    assert {s.name for s in pack.stations}.isdisjoint(
        {"Santa Fe Depot", "Stillwater Commuter", "Old Campus Loop"}
    )
    assert pack.routes == reference.routes


def test_stop_areas_give_the_station_id(fetched: FetchedPack):
    ids = [s.id for s in fetched.pack.stations]
    assert len(set(ids)) == len(ids)
    assert sum(i.startswith("r") for i in ids) == 57  # every third of the 171 stops
    assert all(i[0] in "rn" and i[1:].isdigit() for i in ids)


def matching(
    index: MapIndex, subject: str, seeker: tuple[float, float], hider: tuple[float, float]
) -> tuple[str | None, str]:
    result = answer_matching(
        index,
        subject,
        Pin(*seeker, at=NOW, accuracy_m=5),
        HiderFix(*hider, 5.0, HiderPosition.LIVE),
    )
    return result.answer, result.reason


def test_same_nearest_park_and_same_quadrant_for_many_pins(fetched: FetchedPack):
    reference, pack = MapIndex(shipped()), MapIndex(fetched.pack)
    spots = pins(shipped(), 40, seed=17)
    for lat, lon in spots:
        want, got = reference.nearest("park", lat, lon), pack.nearest("park", lat, lon)
        assert want is not None and got is not None
        assert got.item.name == want.item.name
        assert abs(got.distance_m - want.distance_m) < 25  # one park is a 30 m square now
        want_q = reference.containing("admin-4", lat, lon)[0]
        got_q = pack.containing("admin-4", lat, lon)[0]
        assert want_q is not None and got_q is not None and got_q.name == want_q.name
    for seeker, hider in zip(spots[::2], spots[1::2], strict=True):
        for subject in ("park", "admin-4", "school", "restaurant"):
            assert matching(pack, subject, seeker, hider) == matching(
                reference, subject, seeker, hider
            ), subject


def test_every_kind_was_asked_once_and_empty_kinds_are_covered(fetched: FetchedPack):
    pack = fetched.pack
    assert fetched.failed == ()
    assert fetched.counts["park"] == 31 and fetched.counts["admin-4"] == 4
    assert fetched.counts["zoo"] == 0 and pack.has_data_for("zoo")
    assert pack.has_data_for("airport") and not pack.features_of("airport")
    assert pack.attribution == OSM_ATTRIBUTION
    again = pack_from_geojson(pack_to_geojson(pack))  # storable as it is
    assert again.kinds == pack.kinds and len(again.stations) == len(pack.stations)


def test_progress_reports_each_kind_as_it_arrives_and_a_failed_kind_stays_uncovered():
    heard: list[KindProgress] = []
    with FakeOverpass(stillwater_overpass()) as server:
        server.script(
            Reply.json(server.by_kind["station"] and {"elements": server.by_kind["station"]})
        )
        server.script(*[Reply(504)] * 1)  # the first kind (airport) fails
        result = fetch(server, progress=heard.append, kinds={"airport", "park", "zoo"})
    assert [(p.kind, p.ok, p.done, p.total) for p in heard] == [
        ("station", True, 1, 4),
        ("airport", False, 2, 4),
        ("zoo", True, 3, 4),
        ("park", True, 4, 4),
    ]
    assert heard[0].count == 167 and heard[1].count is None and heard[3].count == 31
    assert result.failed == ("airport",)
    assert not result.pack.has_data_for("airport")  # unknown, never "none there"
    assert result.pack.has_data_for("zoo") and result.pack.kinds == {"park", "zoo"}


def test_a_failed_station_query_fails_the_whole_fetch():
    with FakeOverpass(stillwater_overpass()) as server:
        server.script(Reply(429), Reply(429))
        with pytest.raises(MapFetchError) as caught:
            fetch(server)
        assert caught.value.key == "map.overpass_failed"
        assert len(server.requests) == 1  # no kind is asked after that


def test_no_station_is_an_error_of_its_own():
    with FakeOverpass({"park": []}) as server, pytest.raises(MapFetchError) as caught:
        fetch(server)
    assert caught.value.key == "map.no_stations"
    assert caught.value.params == {"modes": "bus+rail"}


def test_queries_name_the_area_the_modes_and_the_kind():
    boundary = shipped().boundary
    ql = stations_query(boundary, {"bus"})
    assert ql.startswith("[out:json][timeout:180];/* hideseek:station */")
    assert 'nwr["highway"="bus_stop"](poly:"' in ql
    assert '"route"~"^(bus|trolleybus)$"' in ql and "stop_area" in ql
    assert 'nwr["leisure"="park"]' in kind_query(SPECS["park"], boundary)
    big = boundary.buffer(1.0)
    assert area_filter(big).startswith("(35.")  # a bounding box for a large area


def test_pack_names_are_keyed_by_area_modes_and_radius():
    assert pack_name("r123", {"rail", "bus"}) == "osm-r123-bus+rail"
    assert pack_name("n9", ["rail"], radius_m=2000) == "osm-n9-r2000-rail"
    long = pack_name("r" + "9" * 60, {"rail", "bus", "tram", "subway", "ferry"})
    assert len(long) == 64 and long.startswith("osm-r999")
    assert long == pack_name("r" + "9" * 60, {"ferry", "subway", "tram", "bus", "rail"})


def test_transit_line_and_name_length_answers_agree_at_the_stations(fetched: FetchedPack):
    reference, pack = MapIndex(shipped()), MapIndex(fetched.pack)
    hider = HiderFix(0.0, 0.0, 0.0, HiderPosition.STATION)
    compared = 0
    for (lat, lon), (lat2, lon2) in pairwise(pins(shipped(), 40, seed=4)):
        want, got = reference.nearest_station(lat, lon), pack.nearest_station(lat, lon)
        want2, got2 = reference.nearest_station(lat2, lon2), pack.nearest_station(lat2, lon2)
        assert want and got and want2 and got2
        if want.item.name != got.item.name or want2.item.name != got2.item.name:
            continue  # a pin between the two sides of a merged stop may see a neighbour
        compared += 1
        assert (
            answer_station_name_length(got.item, got2.item, hider).answer
            == answer_station_name_length(want.item, want2.item, hider).answer
        )
        if set(want.item.routes) == set(got.item.routes):  # not a merged pair
            for line in shipped().routes:
                assert (
                    answer_transit_line(line, got.item, hider).answer
                    == answer_transit_line(line, want.item, hider).answer
                )
    assert compared >= 30


def test_a_country_size_area_is_refused_before_any_query(fake_overpass: FakeOverpass):
    huge = shipped().boundary.buffer(3.0)
    with pytest.raises(MapFetchError) as caught:
        fetch_pack(client(fake_overpass), huge, name="x", title="x", modes={"rail"})
    assert caught.value.key == "map.area_too_large"
    assert caught.value.params["max_km"] == 300 and caught.value.params["km"] > 600
    assert not fake_overpass.requests
