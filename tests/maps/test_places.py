"""The geocoder against a fake Nominatim: matches, nothing found, errors, the rate limit."""

from __future__ import annotations

import pytest
from shapely.geometry import Polygon, mapping

from hideseek_chat.geo import distance_m
from hideseek_chat.maps.errors import MapFetchError
from hideseek_chat.maps.places import Geocoder, RateLimiter, circle
from tests.maps.fakes import FakeNominatim, Reply
from tests.maps.osm_data import nominatim_row, shipped

UA = "hideseek-chat-test/1.0"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def geocoder(server: FakeNominatim, clock: Clock | None = None) -> Geocoder:
    clock = clock or Clock()
    return Geocoder(
        server.url, UA, timeout=2.0, limiter=RateLimiter(1.0, clock=clock, sleep=clock.sleep)
    )


def test_a_city_comes_back_with_its_polygon_and_a_button_label(fake_nominatim: FakeNominatim):
    outline = shipped().boundary
    fake_nominatim.results["Stillwater"] = [
        nominatim_row(
            "relation", 186_000, "Stillwater", 36.1156, -97.0584, geojson=dict(mapping(outline))
        ),
        nominatim_row("node", 151_000, "Stillwater", 45.05, -92.80, addresstype="town"),
    ]
    places = geocoder(fake_nominatim).search("Stillwater")
    city, town = places
    assert (city.key, city.label, city.country_code) == (
        "r186000",
        "Stillwater · city · United States",
        "US",
    )
    assert isinstance(city.boundary, Polygon) and city.boundary.equals(outline)
    assert town.key == "n151000" and town.boundary is None
    [request] = fake_nominatim.requests
    assert request.user_agent == UA
    assert request.query["q"] == "Stillwater"
    assert request.query["polygon_geojson"] == "1" and request.query["addressdetails"] == "1"
    assert request.query["accept-language"] == "en" and request.query["limit"] == "5"


def test_a_place_not_found_is_an_empty_list(fake_nominatim: FakeNominatim):
    assert geocoder(fake_nominatim).search("Nowhere at all") == []


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Reply(429, b"Too Many Requests"), "busy (429)"),
        (Reply(500, b"Internal Server Error"), "server error"),
        (Reply(502, b"bad gateway"), "server error"),
        (Reply(503, b"down"), "timed out"),  # geopy reads 503 as a timeout
        (Reply(200, b"{not json"), "bad response"),
    ],
)
def test_geocoder_failures_are_map_errors(fake_nominatim: FakeNominatim, reply, reason):
    fake_nominatim.script(reply)
    with pytest.raises(MapFetchError) as caught:
        geocoder(fake_nominatim).search("Stillwater")
    assert caught.value.key == "map.geocoder_failed"
    assert caught.value.params == {"reason": reason}


def test_a_stalled_geocoder_times_out(fake_nominatim: FakeNominatim):
    fake_nominatim.script(Reply(stall=True))
    slow = Geocoder(fake_nominatim.url, UA, timeout=0.2, limiter=RateLimiter(0.0))
    with pytest.raises(MapFetchError) as caught:
        slow.search("Stillwater")
    assert caught.value.params == {"reason": "timed out"}


def test_at_most_one_request_a_second(fake_nominatim: FakeNominatim):
    clock = Clock()
    client = geocoder(fake_nominatim, clock)
    client.search("a")
    clock.now += 0.25
    client.search("b")
    clock.now += 5.0
    client.search("c")
    assert clock.slept == [0.75]
    assert len(fake_nominatim.requests) == 3


def test_a_point_result_becomes_a_geodesic_circle():
    lat, lon = 36.1156, -97.0584
    ring = circle(lat, lon, 2000.0)
    assert ring.is_valid and len(ring.exterior.coords) == 65
    for x, y in ring.exterior.coords:
        assert abs(distance_m(lat, lon, y, x) - 2000.0) < 0.01
    assert ring.contains(ring.centroid)
    with pytest.raises(ValueError):
        circle(lat, lon, 0)
