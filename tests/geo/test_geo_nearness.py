"""Measuring and matching answers keep stations without drawing their bands and cells: the
stations kept equal a brute force over every station, and the areas, drawn when first
read, equal the areas drawn at once."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime

import numpy as np
import pytest
import shapely

from hideseek_chat.geo import (
    HiderFix,
    MapIndex,
    Pin,
    answer_matching,
    answer_measuring,
    cells,
    nearness,
)
from hideseek_chat.geo.distance import WGS84
from hideseek_chat.geo.nearness import _bounds, _labels, _measured
from hideseek_chat.geo.regions import Region, clue_region
from hideseek_chat.geo.seeking import Clue, seeker_map, with_clue
from hideseek_chat.geo.stationtable import station_table
from hideseek_chat.rules.ruleset import HiderPosition
from tests.geo.synthetic import country_pack
from tests.geo.test_geo_seeking import _same_answer, _thin, _truthful

NOW = datetime(2025, 5, 1, 15, 0, tzinfo=UTC)
ZONE_M = 400.0
#: The kinds whose stations are decided without drawing (matching: with answers from the
#: station), and the cheap kinds that make the rest of a game.
DEFERRED = [
    "measuring:rail-station",
    "measuring:airport",
    "measuring:coastline",
    "matching:airport",
    "matching:park",
    "matching:museum",
]
CHEAP = ["radar", "thermometer", "transit-line", "matching:admin-1"]


@pytest.fixture(scope="module")
def country() -> MapIndex:
    return MapIndex(country_pack(stations=600, seed=5, places=True))


def _clue(index: MapIndex, kind: str, seed: int) -> tuple[Clue, HiderFix]:
    """A truthful clue of ``kind`` from a random station (answers from the station)."""
    rng = random.Random(seed)
    while True:
        station = rng.choice(index.pack.stations)
        fix = HiderFix(station.lat, station.lon, 0.0, HiderPosition.STATION, station.id)
        clue = _truthful(index, 0, kind, fix, station, rng)
        if clue is not None and clue.answer not in (None, "null"):
            return clue, fix


@pytest.mark.parametrize("kind", DEFERRED)
@pytest.mark.parametrize("seed", range(3))
def test_stations_kept_without_drawing_match_brute_force(
    country: MapIndex, kind: str, seed: int
) -> None:
    clue, _ = _clue(country, kind, seed)
    region = clue_region(country, clue)
    assert isinstance(region, Region)
    assert region.keep is None and region.draw is not None and region.at_stations is not None
    table = station_table(country)
    got = region.at_stations(table.lats, table.lons, table.xs, table.ys)
    want = [_same_answer(country, clue, s) for s in country.pack.stations]
    assert got.tolist() == want
    # Points that are not stations are answered one by one, as the hider's answer was.
    lats, lons = table.lats[:40] + 1e-4, table.lons[:40] - 1e-4
    xy = country.projection._project_array(np.column_stack([lons, lats]))
    moved = region.at_stations(lats, lons, xy[:, 0].copy(), xy[:, 1].copy())
    fixes = [HiderFix(a, b, 0.0, HiderPosition.STATION) for a, b in zip(lats, lons, strict=True)]
    assert moved.tolist() == [_answered(country, clue, f) for f in fixes]


def _answered(index: MapIndex, clue: Clue, fix: HiderFix) -> bool:
    assert clue.seeker is not None
    answer = answer_matching if clue.category == "matching" else answer_measuring
    return answer(index, clue.subject, clue.seeker, fix).answer == clue.answer


@pytest.mark.parametrize("kind", ["measuring:rail-station", "measuring:airport"])
def test_zone_answers_keep_every_station_whose_disc_reaches_the_band(
    country: MapIndex, kind: str
) -> None:
    # Answers from anywhere in the zone: a station stays when some point of its disc gets
    # the answer. Points on the disc's edge towards and away from the station's nearest
    # feature are the extremes of the distance to it.
    for seed in range(4):
        clue, _ = _clue(country, kind, seed)
        view = with_clue(country, seeker_map(country, [], ZONE_M), clue)
        kept = {s.id for s in view.candidates}
        for station in country.pack.stations[::7]:
            for lat, lon in _disc_edge(station.lat, station.lon, ZONE_M * 0.999):
                fix = HiderFix(lat, lon, 0.0, HiderPosition.LIVE)
                if _answered(country, clue, fix):
                    assert station.id in kept, (clue, station)
                    break


def _disc_edge(lat: float, lon: float, radius: float) -> Iterator[tuple[float, float]]:
    for azimuth in range(0, 360, 15):
        lon2, lat2, _ = WGS84.fwd(lon, lat, azimuth, radius)
        yield lat2, lon2


def test_bands_and_cells_are_drawn_only_when_the_area_is_read(
    country: MapIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    clues = [_clue(country, kind, seed)[0] for seed, kind in enumerate(DEFERRED + CHEAP + DEFERRED)]
    clues = [
        Clue(n, c.category, c.subject, c.answer, c.detail, c.distance_m, c.seeker, c.end)
        for n, c in enumerate(clues)
    ]
    drawn: list[str] = []
    band, cell = cells.distance_band, cells.place_cell

    def counted_band(*args: object, **kwargs: object) -> shapely.Geometry:
        drawn.append("band")
        return band(*args, **kwargs)  # type: ignore[arg-type]

    def counted_cell(*args: object, **kwargs: object) -> shapely.Geometry:
        drawn.append("cell")
        return cell(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cells, "distance_band", counted_band)
    monkeypatch.setattr(cells, "place_cell", counted_cell)
    view = seeker_map(country, [], ZONE_M, HiderPosition.STATION)
    for clue in clues:
        view = with_clue(country, view, clue)
    assert drawn == []
    area = view.remaining
    assert sorted(set(drawn)) == ["band", "cell"]
    # As if every area were drawn at once: each applied clue's own area, intersected.
    whole = country.pack.boundary
    for applied in view.applied:
        if applied.keep is not None:
            whole = shapely.intersection(whole, applied.keep)
    assert _thin(shapely.symmetric_difference(area, whole))
    consistent = tuple(
        s for s in country.pack.stations if all(_same_answer(country, c, s) for c in clues)
    )
    assert view.candidates == consistent


@pytest.mark.parametrize("basis", list(HiderPosition))
def test_reading_the_area_after_each_answer_gives_the_area_from_scratch(
    country: MapIndex, basis: HiderPosition
) -> None:
    rng = random.Random(7)
    kinds = DEFERRED + CHEAP
    clues = []
    for ref in range(10):
        clue, _ = _clue(country, rng.choice(kinds), rng.randrange(1000))
        clues.append(
            Clue(
                ref,
                clue.category,
                clue.subject,
                clue.answer,
                clue.detail,
                clue.distance_m,
                clue.seeker,
                clue.end,
            )
        )
    step = seeker_map(country, [], ZONE_M, basis)
    for clue in clues:
        step = with_clue(country, step, clue)
        _ = step.remaining  # a picture after each answer
    scratch = seeker_map(country, clues, ZONE_M, basis)
    assert step.candidates == scratch.candidates
    assert _thin(shapely.symmetric_difference(step.remaining, scratch.remaining))
    assert step.remaining is step.remaining  # read once, kept


def test_a_pin_outside_every_station_is_answered_exactly() -> None:
    # A seeker exactly as far from the nearest airport as a station is: the bounds cannot
    # settle the station, the answer does (strictly nearer is "closer").
    index = MapIndex(country_pack(stations=60, seed=3, places=True))
    station = index.pack.stations[0]
    near = index.nearest("airport", station.lat, station.lon)
    assert near is not None
    seeker = Pin(station.lat, station.lon, NOW)
    for answer in ("closer", "further"):
        clue = Clue(0, "measuring", "airport", answer, seeker=seeker)
        view = with_clue(index, seeker_map(index, [], ZONE_M, HiderPosition.STATION), clue)
        assert (station in view.candidates) == (answer == "further")


@pytest.mark.parametrize("kind", ["rail-station", "airport", "coastline", "park", "admin-1"])
def test_every_station_is_measured_as_map_index_measures_it(country: MapIndex, kind: str) -> None:
    measured = _measured(country, kind, np.arange(len(country.pack.stations)))
    for n, station in enumerate(country.pack.stations):
        hit = country.nearest(kind, station.lat, station.lon)
        assert hit is not None
        assert measured[n] == hit.distance_m, station


def test_stations_are_measured_and_looked_up_on_first_use_only() -> None:
    # Filled row by row as answers need them: a part first, then the rest, gives what
    # all at once gives.
    index = MapIndex(country_pack(stations=200, seed=11, places=True))
    every = np.arange(len(index.pack.stations))
    at_once = _measured(index, "airport", every)
    labels_at_once = _labels(MapIndex(index.pack), "airport", False, every)
    table = station_table(index)
    part = every[::3]
    lower, upper = _bounds(index, "airport", table.xs[part], table.ys[part])
    assert lower.tolist() == upper.tolist() == at_once[part].tolist()
    assert _bounds(index, "airport", table.xs, table.ys)[0].tolist() == at_once.tolist()
    assert _labels(index, "airport", False, part).tolist() == labels_at_once[part].tolist()
    assert _labels(index, "airport", False, every).tolist() == labels_at_once.tolist()


def test_prepare_measures_every_station_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    index = MapIndex(country_pack(stations=120, seed=13, places=True))
    nearness.prepare(index, ["airport"], ["park", "street"])
    # Everything was measured and looked up: answers now compute nothing more.
    monkeypatch.setattr(nearness, "_measured", _fail)
    monkeypatch.setattr(nearness, "_nearest_projected", _fail)
    table = station_table(index)
    every = np.arange(len(table.lats))
    lower, upper = _bounds(index, "airport", table.xs, table.ys)
    assert np.isfinite(upper).all() and (lower == upper).all()
    assert (_labels(index, "park", False, every) >= 0).all()
    assert (_labels(index, "road", True, every) >= 0).all()


def _fail(*args: object) -> np.ndarray:
    raise AssertionError("computed again")
