"""The seekers' map and zone pictures, read back pixel by pixel at known places."""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops
from shapely.geometry import LineString, MultiPolygon, Polygon, box
from shapely.geometry.base import BaseGeometry

from hideseek_chat.geo.mappack import Feature, MapPack, Station
from hideseek_chat.geo.seeking import SeekerMap
from hideseek_chat.pictures import frame as fr
from hideseek_chat.pictures.seekmap import (
    ELIMINATED,
    ELIMINATED_ALPHA,
    PIN,
    REMAINING,
    STATION,
    ZONE,
    ZONE_ALPHA,
    seekers_frame,
    seekers_picture,
    zone_frame,
    zone_picture,
)
from hideseek_chat.pictures.tiles import TileClient
from hideseek_chat.rules.ruleset import HiderPosition
from tests.maps.fakes import Reply
from tests.pictures.fakes import USER_AGENT, FakeClock, FakeTiles

SIZE = 512
Colour = tuple[int, int, int]
BOUNDARY = box(8.0, 47.0, 8.2, 47.1)  # lon/lat: some 15 by 11 km
WEST = box(8.0, 47.0, 8.1, 47.1)
NORTH_WEST = Station("a", "Aplatz", 47.05, 8.05)
EAST = Station("b", "Bhof", 47.05, 8.15)
ROAD = Feature("road", "Hauptstrasse", LineString([(8.0, 47.09), (8.2, 47.09)]))
PACK = MapPack(
    name="test",
    boundary=BOUNDARY,
    stations=(NORTH_WEST, EAST),
    features=(ROAD,),
    attribution="Test data: the test suite",
)
TILE = (90, 160, 110)


def seeker_map(remaining: BaseGeometry, candidates: Sequence[Station] = ()) -> SeekerMap:
    return SeekerMap(
        boundary=BOUNDARY,
        drawn=remaining,
        candidates=tuple(candidates),
        applied=(),
        not_applied=(),
        zone_radius_m=400.0,
        basis=HiderPosition.LIVE,
    )


def decode(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.size == (SIZE, SIZE)
    return image.convert("RGB")


def at(image: Image.Image, frame: fr.Frame, lat: float, lon: float) -> Colour:
    x, y = frame.pixel(lat, lon)
    colour = image.getpixel((int(x), int(y)))
    assert isinstance(colour, tuple)
    return colour[0], colour[1], colour[2]


def colours(image: Image.Image) -> list[Colour]:
    data = image.tobytes()
    return [(data[i], data[i + 1], data[i + 2]) for i in range(0, len(data), 3)]


def blend(under: Colour, over: Colour, alpha: float) -> Colour:
    r, g, b = (round(u * (1 - alpha) + o * alpha) for u, o in zip(under, over, strict=True))
    return r, g, b


def near(got: Colour, want: Colour, tolerance: int = 2) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(got, want, strict=True))


@pytest.fixture
def tiles_server() -> Iterator[FakeTiles]:
    with FakeTiles(solid=TILE) as server:
        yield server


@pytest.fixture
def tiles(tiles_server: FakeTiles, tmp_path: Path) -> Iterator[TileClient]:
    clock = FakeClock()
    with TileClient(
        tiles_server.template,
        user_agent=USER_AGENT,
        cache_dir=tmp_path / "tiles",
        rate_per_s=1000.0,
        timeout_s=0.5,
        clock=clock,
        sleep=clock.sleep,
        now=clock,
    ) as client:
        yield client


def test_the_eliminated_area_is_shaded_and_the_remaining_is_not() -> None:
    view = seeker_map(WEST)  # no candidate: the whole map is shown
    image = decode(seekers_picture(view, [], size=SIZE))
    frame = seekers_frame(view, SIZE)
    assert at(image, frame, 47.03, 8.03) == fr.LAND
    assert near(at(image, frame, 47.03, 8.17), blend(fr.LAND, ELIMINATED, ELIMINATED_ALPHA))
    assert image.getpixel((3, SIZE // 2)) == fr.OUTSIDE  # beyond the boundary: not shaded
    assert at(image, frame, 47.03, 8.1) == REMAINING  # the remaining area's outline


def test_a_hole_and_an_island_in_it_are_drawn_right() -> None:
    hole = box(8.02, 47.02, 8.08, 47.08)
    island = box(8.04, 47.04, 8.06, 47.06)
    remaining = MultiPolygon([island, Polygon(WEST.exterior.coords, [hole.exterior.coords])])
    image = decode(seekers_picture(seeker_map(remaining), [], size=SIZE))
    frame = seekers_frame(seeker_map(remaining), SIZE)
    shaded = blend(fr.LAND, ELIMINATED, ELIMINATED_ALPHA)
    assert at(image, frame, 47.01, 8.01) == fr.LAND
    assert near(at(image, frame, 47.03, 8.03), shaded)  # in the hole
    assert at(image, frame, 47.05, 8.05) == fr.LAND  # on the island inside the hole


def test_candidates_are_dots_and_pins_are_labelled_markers() -> None:
    view = seeker_map(WEST, [NORTH_WEST])
    pins = [("Ann", 47.02, 8.17), ("Bo", 47.08, 8.02)]
    image = decode(seekers_picture(view, pins, size=SIZE))
    frame = seekers_frame(view, SIZE, pins)
    assert at(image, frame, NORTH_WEST.lat, NORTH_WEST.lon) == STATION
    assert at(image, frame, EAST.lat, EAST.lon) != STATION  # not a candidate: no dot
    for _, lat, lon in pins:
        assert at(image, frame, lat, lon) == PIN
    x, y = frame.pixel(47.02, 8.17)
    beside = image.crop((int(x) + 10, int(y) - 8, int(x) + 45, int(y) + 8))
    assert any(max(p) < 80 for p in colours(beside))  # dark letters of "Ann"


def test_a_pack_gives_roads_and_its_attribution() -> None:
    view = seeker_map(BOUNDARY)
    plain = decode(seekers_picture(view, [], size=SIZE))
    with_pack = decode(seekers_picture(view, [], size=SIZE, pack=PACK))
    frame = seekers_frame(view, SIZE)
    assert at(plain, frame, 47.09, 8.05) == fr.LAND
    assert at(with_pack, frame, 47.09, 8.05) == fr.ROAD
    corner = (SIZE - 120, SIZE - 14, SIZE - 4, SIZE - 4)
    assert all(p == fr.OUTSIDE for p in colours(plain.crop(corner)))
    assert any(max(p) < 80 for p in colours(with_pack.crop(corner)))


def test_tiles_are_the_basemap_and_cached_for_the_next_picture(
    tiles: TileClient, tiles_server: FakeTiles
) -> None:
    view = seeker_map(WEST)
    first = seekers_picture(view, [], size=SIZE, tiles=tiles, pack=PACK)
    asked = len(tiles_server.requests)
    assert asked > 0 and all(r.user_agent == USER_AGENT for r in tiles_server.requests)
    second = seekers_picture(view, [], size=SIZE, tiles=tiles, pack=PACK)
    assert len(tiles_server.requests) == asked  # every tile came from the cache
    assert first == second
    image, frame = decode(first), seekers_frame(view, SIZE)
    washed = blend(TILE, fr.HALO, fr.TILE_WASH)
    assert near(at(image, frame, 47.03, 8.03), washed)
    assert near(at(image, frame, 47.03, 8.17), blend(washed, ELIMINATED, ELIMINATED_ALPHA), 3)
    assert at(image, frame, 47.09, 8.05) != fr.ROAD  # the pack's roads are not drawn on tiles


@pytest.mark.parametrize(
    "failure",
    [
        Reply(504),
        Reply(429, headers={"Retry-After": "120"}),
        Reply(stall=True),
        Reply(200, b"GIF89a garbage"),
    ],
)
def test_a_failing_tile_server_gives_the_vector_picture(
    tiles: TileClient, tiles_server: FakeTiles, failure: Reply
) -> None:
    view = seeker_map(WEST, [NORTH_WEST])
    tiles_server.script(failure)
    got = seekers_picture(view, [("Ann", 47.02, 8.17)], size=SIZE, tiles=tiles, pack=PACK)
    assert got == seekers_picture(view, [("Ann", 47.02, 8.17)], size=SIZE, pack=PACK)


def test_identical_inputs_give_identical_bytes() -> None:
    view = seeker_map(WEST, [NORTH_WEST])
    again = dataclasses.replace(view, drawn=box(8.0, 47.0, 8.1, 47.1))
    pins = [("Ann", 47.02, 8.17)]
    first = seekers_picture(view, pins, size=SIZE, pack=PACK)
    assert first == seekers_picture(again, list(pins), size=SIZE, pack=PACK)
    assert first != seekers_picture(view, [("Ann", 47.02, 8.16)], size=SIZE, pack=PACK)
    for chunk in (b"tIME", b"tEXt", b"iTXt", b"zTXt"):
        assert chunk not in first


def test_nothing_left_and_nothing_eliminated_are_drawn() -> None:
    empty = decode(seekers_picture(seeker_map(Polygon()), [], size=SIZE))
    whole = decode(seekers_picture(seeker_map(BOUNDARY), [], size=SIZE))
    frame = seekers_frame(seeker_map(BOUNDARY), SIZE)
    assert near(at(empty, frame, 47.03, 8.03), blend(fr.LAND, ELIMINATED, ELIMINATED_ALPHA))
    assert at(whole, frame, 47.03, 8.03) == fr.LAND


def test_the_zone_picture_shows_the_disc_its_station_and_roads() -> None:
    lat, lon, radius = 47.05, 8.1, 500.0
    image = decode(zone_picture(PACK, lat, lon, radius, "Zentrum", size=SIZE))
    frame = zone_frame(lat, lon, radius, SIZE)
    assert at(image, frame, lat, lon) == ZONE  # the zone's station
    assert near(at(image, frame, lat - 0.003, lon + 0.002), blend(fr.LAND, ZONE, ZONE_ALPHA))
    assert image.getpixel((8, 8)) == fr.LAND  # beyond the disc
    x, y = frame.pixel(lat, lon)
    beside = image.crop((int(x) + 12, int(y) - 8, int(x) + 60, int(y) + 8))
    assert any(max(p) < 80 for p in colours(beside))  # the station's name


def test_the_zone_picture_on_tiles(tiles: TileClient) -> None:
    image = decode(zone_picture(PACK, 47.05, 8.1, 500.0, "Zentrum", size=SIZE, tiles=tiles))
    assert near(image.getpixel((8, 8)), blend(TILE, fr.HALO, fr.TILE_WASH))


def test_a_real_seekers_map_is_drawn() -> None:
    from datetime import UTC, datetime

    from hideseek_chat.geo import MapIndex, Pin, distance_m, load_map_pack
    from hideseek_chat.geo.seeking import Clue, seeker_map

    pack = load_map_pack("stillwater")
    centre = pack.stations[0]
    pin = Pin(centre.lat, centre.lon, datetime(2026, 5, 1, 12, tzinfo=UTC))
    radar = Clue(1, "radar", answer="yes", distance_m=1_500.0, seeker=pin)
    view = seeker_map(MapIndex(pack), [radar], 400.0)
    assert view.candidates and len(view.candidates) < len(pack.stations)
    data = seekers_picture(view, [("Ann", pin.lat, pin.lon)], size=SIZE, pack=pack)
    assert data == seekers_picture(view, [("Ann", pin.lat, pin.lon)], size=SIZE, pack=pack)
    image, frame = decode(data), seekers_frame(view, SIZE, [("Ann", pin.lat, pin.lon)])
    assert at(image, frame, pin.lat, pin.lon) == PIN
    farthest = max(view.candidates, key=lambda s: distance_m(pin.lat, pin.lon, s.lat, s.lon))
    assert at(image, frame, farthest.lat, farthest.lon) == STATION

    def shown(station: Station) -> bool:
        x, y = frame.pixel(station.lat, station.lon)
        return 0 <= x < SIZE and 0 <= y < SIZE

    gone = next(
        s for s in pack.stations if distance_m(pin.lat, pin.lon, s.lat, s.lon) > 1_950 and shown(s)
    )  # a station beyond the radar and its zone: shaded, no dot
    shaded = at(image, frame, gone.lat, gone.lon)
    assert any(
        near(shaded, blend(under, ELIMINATED, ELIMINATED_ALPHA)) for under in (fr.LAND, fr.ROAD)
    )


def test_a_label_near_the_right_edge_goes_left_of_its_pin() -> None:
    view = seeker_map(WEST)
    frame = seekers_frame(view, SIZE)
    pin = ("Annabel", 47.05, 8.199)
    image = decode(seekers_picture(view, [pin], size=SIZE))
    x, y = frame.pixel(pin[1], pin[2])
    assert x > SIZE - 40
    left = image.crop((int(x) - 60, int(y) - 6, int(x) - 12, int(y) + 6))
    assert any(max(p) < 80 for p in colours(left))


@settings(max_examples=25, deadline=None)
@given(
    west=st.floats(8.0, 8.15),
    south=st.floats(47.0, 47.07),
    width=st.floats(0.02, 0.05),
    height=st.floats(0.015, 0.03),
)
def test_inside_any_remaining_box_is_clear_and_around_it_is_shaded(
    west: float, south: float, width: float, height: float
) -> None:
    remaining = box(west, south, west + width, south + height)
    view = seeker_map(remaining)
    image, frame = decode(seekers_picture(view, [], size=SIZE)), seekers_frame(view, SIZE)
    assert at(image, frame, south + height / 2, west + width / 2) == fr.LAND
    shaded = blend(fr.LAND, ELIMINATED, ELIMINATED_ALPHA)
    # Points of the boundary a few pixels outside the box, where there is room.
    for lat, lon in ((south + height / 2, west - 0.006), (south + height + 0.005, west)):
        if 8.003 < lon < 8.197 and 47.003 < lat < 47.097:
            assert near(at(image, frame, lat, lon), shaded)


# ----------------------------------------------------------------- the scale bar's units


@pytest.mark.parametrize(
    ("per_pixel", "units", "expected"),
    [
        (1.0, "metric", (200.0, "m")),  # a fifth of 1024 px: 204.8 m
        (600.0, "metric", (100.0, "km")),  # 122.9 km
        (3.0, "metric", (500.0, "m")),  # 614.4 m
        (1.0, "imperial", (500.0, "ft")),  # 671.9 ft
        (3.0, "imperial", (2000.0, "ft")),  # 0.38 mi: feet until a whole mile fits
        (600.0, "imperial", (50.0, "mi")),  # 76.4 mi
    ],
)
def test_the_scale_bar_is_a_round_length_in_the_groups_units(
    per_pixel: float, units: str, expected: tuple[float, str]
) -> None:
    count, unit, pixels = fr.scale_length(per_pixel, 1024, units)
    assert (count, unit) == expected
    metres = count * {"m": 1.0, "km": 1000.0, "ft": 0.3048, "mi": 1609.344}[unit]
    assert pixels == pytest.approx(metres / per_pixel)
    assert 1024 / 10 < pixels <= 1024 / 5  # between half and all of a fifth of the picture


def test_an_imperial_scale_bar_changes_only_the_bottom_left_corner() -> None:
    view = seeker_map(WEST, [NORTH_WEST])
    metric = decode(seekers_picture(view, [], size=SIZE))
    imperial = decode(seekers_picture(view, [], size=SIZE, units="imperial"))
    changed = ImageChops.difference(metric.convert("RGB"), imperial.convert("RGB")).getbbox()
    assert changed is not None  # another length, another label
    _left, top, right, _bottom = changed
    assert right <= SIZE * 0.45 and top >= SIZE * 0.85, changed
    zone = zone_picture(PACK, 47.05, 8.1, 500.0, "Zentrum", size=SIZE, units="imperial")
    assert zone != zone_picture(PACK, 47.05, 8.1, 500.0, "Zentrum", size=SIZE)


# ----------------------------------------------------------------- where the picture looks


def test_the_picture_zooms_in_on_where_the_hider_can_still_be() -> None:
    whole = seekers_frame(seeker_map(WEST), SIZE)
    view = seeker_map(WEST, [NORTH_WEST])
    frame = seekers_frame(view, SIZE)
    assert frame.scale > 5 * whole.scale  # a 400 m zone, not the 15 km map
    # The candidate's whole zone disc is in the picture, with a margin.
    for bearing_lat, bearing_lon in ((0.0037, 0.0), (-0.0037, 0.0), (0.0, 0.0054), (0.0, -0.0054)):
        x, y = frame.pixel(NORTH_WEST.lat + bearing_lat, NORTH_WEST.lon + bearing_lon)
        assert SIZE * 0.05 < x < SIZE * 0.95 and SIZE * 0.05 < y < SIZE * 0.95
    assert frame.metres_per_pixel() * SIZE >= 1_500.0  # never closer than 1.5 km across
    # A seeker on the map is shown too; one off the map does not zoom it out.
    near_pin = ("Ann", 47.02, 8.17)
    with_pin = seekers_frame(view, SIZE, [near_pin])
    x, y = with_pin.pixel(47.02, 8.17)
    assert 0 < x < SIZE and 0 < y < SIZE and with_pin.scale < frame.scale
    far_pin = ("Bo", 46.0, 7.0)
    assert seekers_frame(view, SIZE, [far_pin]).scale == frame.scale
    # Candidates far apart: never wider than the whole map.
    spread = seekers_frame(seeker_map(BOUNDARY, [NORTH_WEST, EAST]), SIZE)
    assert spread.scale >= whole.scale * 0.99


def _letters(image: Image.Image, frame: fr.Frame, station: Station) -> bool:
    x, y = frame.pixel(station.lat, station.lon)
    beside = image.crop((int(x) + 8, int(y) - 6, int(x) + 40, int(y) + 6))
    return any(max(p) < 80 for p in colours(beside))


def test_a_few_candidates_are_named_and_many_are_not() -> None:
    few = seeker_map(BOUNDARY, [NORTH_WEST, EAST])
    image = decode(seekers_picture(few, [], size=SIZE))
    frame = seekers_frame(few, SIZE)
    assert _letters(image, frame, NORTH_WEST) and _letters(image, frame, EAST)
    grid = [
        Station(f"s{i}", f"Stop {i}", 47.005 + 0.09 * (i // 5) / 3, 8.01 + 0.18 * (i % 5) / 5)
        for i in range(20)
    ]
    many = seeker_map(BOUNDARY, grid)
    image = decode(seekers_picture(many, [], size=SIZE))
    frame = seekers_frame(many, SIZE)
    assert not any(_letters(image, frame, station) for station in grid)


def test_a_few_candidates_zones_are_outlined() -> None:
    few = seeker_map(BOUNDARY, [NORTH_WEST])
    image = decode(seekers_picture(few, [], size=SIZE))
    frame = seekers_frame(few, SIZE)
    # 400 m north of the station: on its zone's outline (within a pixel), clear inside it.
    edge = [at(image, frame, NORTH_WEST.lat + d, NORTH_WEST.lon) for d in (0.00355, 0.0036)]
    assert STATION in edge, edge
    assert at(image, frame, NORTH_WEST.lat + 0.002, NORTH_WEST.lon) != STATION
