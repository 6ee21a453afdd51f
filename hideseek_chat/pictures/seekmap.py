"""The seekers' map and the hider's zone as PNG pictures.

:func:`seekers_picture` draws a :class:`~hideseek_chat.geo.seeking.SeekerMap`: the boundary,
the eliminated area shaded (boundary minus remaining), the remaining area outlined, the
candidate stations as dots (named, with their zones, when few are left) and the seekers'
pins as labelled markers, zoomed in on where the hider can still be. :func:`zone_picture`
draws the hider's own zone: the disc, its station, the stations and roads around.

Both lie on OpenStreetMap tiles when a :class:`TileClient` is given and every tile comes,
else on a plain drawing from the map pack. The only words are the names the caller gives
and the attribution line, so captions (in the chat's language) stay the chat's job. The same
values give byte-identical PNGs: a picture shows only what it is given.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageDraw

from hideseek_chat.geo.mappack import ROAD_KIND, MapPack, Station
from hideseek_chat.geo.mercator import (
    bounds_world,
    geodesic_circle_world,
    lines_world,
    metres_per_world_unit,
    point_world,
    polygons_world,
    stations_world,
)
from hideseek_chat.geo.seeking import SeekerMap
from hideseek_chat.pictures import frame as fr
from hideseek_chat.pictures.tiles import TileClient

ELIMINATED = (60, 62, 75)  # laid over the eliminated area at ELIMINATED_ALPHA
ELIMINATED_ALPHA = 0.45
REMAINING = (214, 69, 65)  # the remaining area's outline
STATION = (32, 98, 196)  # a candidate station
OTHER_STATION = (120, 128, 140)  # a station near the zone
PIN = (240, 140, 20)  # a seeker's pin
PIN_RING = (80, 45, 0)
ZONE = (214, 69, 65)
ZONE_ALPHA = 0.2
#: Part of the picture left around the boundary (seekers) and around the zone's disc.
MARGIN = 0.04
ZONE_MARGIN = 0.18
#: ... and around where the hider can still be, when the seekers' map zooms in on it.
ZOOM_MARGIN = 0.08
#: The seekers' map shows at least this many metres across.
MIN_SPAN_M = 1_500.0
#: Candidates are named on the seekers' map when at most this many are left.
NAMED_CANDIDATES = 12


def seekers_picture(
    view: SeekerMap,
    pins: Sequence[tuple[str, float, float]],
    *,
    size: int = 1024,
    tiles: TileClient | None = None,
    pack: MapPack | None = None,
    units: str = "metric",
) -> bytes:
    """Return the seekers' map as a PNG; ``pins`` are ``(short name, lat, lon)``.

    ``pack`` (the game's map) adds its roads to a vector basemap and its attribution;
    ``units`` ("metric" or "imperial") are the scale bar's.
    """
    frame = seekers_frame(view, size, pins)
    boundary = polygons_world(view.boundary)
    inside = fr.area_mask(frame, boundary)
    image, credit = _basemap(frame, boundary, tiles, pack, road_width=1)
    remaining = polygons_world(view.remaining)
    image = fr.shade(
        image, fr.without(inside, fr.area_mask(frame, remaining)), ELIMINATED, ELIMINATED_ALPHA
    )
    draw = ImageDraw.Draw(image)
    fr.outline(draw, frame, lines_world([view.boundary]), fr.BOUNDARY, 2)
    fr.outline(draw, frame, [ring for rings in remaining for ring in rings], REMAINING, 3)
    candidates = stations_world([(s.lat, s.lon) for s in view.candidates])
    dot = _dot_radius(len(candidates), size)
    image = fr.dots(image, frame, candidates, dot, STATION, fr.HALO)
    draw = ImageDraw.Draw(image)
    if len(view.candidates) <= NAMED_CANDIDATES:
        # Few left: each one's zone, where the hider may be, and its name.
        discs = [geodesic_circle_world(s.lat, s.lon, view.zone_radius_m) for s in view.candidates]
        fr.outline(draw, frame, discs, STATION, 1)
        for station in view.candidates:
            at = frame.pixel(station.lat, station.lon)
            fr.label(draw, frame, at, dot + 4, station.name, max(11, size // 75))
    _pins(draw, frame, pins)
    fr.scale_bar(draw, frame, units)
    fr.attribution(draw, frame, credit)
    return fr.png(image)


def seekers_frame(
    view: SeekerMap, size: int = 1024, pins: Sequence[tuple[str, float, float]] = ()
) -> fr.Frame:
    """Return where :func:`seekers_picture` draws things (``frame.pixel(lat, lon)``).

    It shows where the hider can still be: every candidate's zone disc, with the seekers'
    pins within the map's bounds, at least ``MIN_SPAN_M`` across and never more than the
    whole map; the whole map when no candidate is left (the answers contradict)."""
    whole = bounds_world(view.boundary)
    if not view.candidates:
        return fr.Frame.fit(whole, size, MARGIN)
    points = stations_world([(s.lat, s.lon) for s in view.candidates])
    x0, y0 = points.min(axis=0)
    x1, y1 = points.max(axis=0)
    lat = float(np.mean([s.lat for s in view.candidates]))
    per_unit = metres_per_world_unit(lat)
    reach = view.zone_radius_m / per_unit
    x0, y0, x1, y1 = x0 - reach, y0 - reach, x1 + reach, y1 + reach
    west, south, east, north = view.boundary.bounds
    on_map = [(la, lo) for _, la, lo in pins if west <= lo <= east and south <= la <= north]
    if on_map:
        seen = stations_world(on_map)
        x0, y0 = min(x0, seen[:, 0].min()), min(y0, seen[:, 1].min())
        x1, y1 = max(x1, seen[:, 0].max()), max(y1, seen[:, 1].max())
    shortest = MIN_SPAN_M / per_unit
    widest = max(whole[2] - whole[0], whole[3] - whole[1])
    span = min(max(x1 - x0, y1 - y0, shortest), widest)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    half = span / 2
    box = (float(cx - half), float(cy - half), float(cx + half), float(cy + half))
    return fr.Frame.fit(box, size, ZOOM_MARGIN)


def zone_frame(lat: float, lon: float, radius_m: float, size: int = 768) -> fr.Frame:
    """Return where :func:`zone_picture` draws things."""
    disc = geodesic_circle_world(lat, lon, radius_m)
    x0, y0 = disc.min(axis=0)
    x1, y1 = disc.max(axis=0)
    return fr.Frame.fit((float(x0), float(y0), float(x1), float(y1)), size, ZONE_MARGIN)


def zone_picture(
    pack: MapPack,
    lat: float,
    lon: float,
    radius_m: float,
    station_name: str,
    *,
    size: int = 768,
    tiles: TileClient | None = None,
    units: str = "metric",
) -> bytes:
    """Return the hider's zone as a PNG: the disc of ``radius_m`` around the station at
    ``lat``/``lon``, the station named, the stations and roads around (the scale bar in
    ``units``)."""
    disc = geodesic_circle_world(lat, lon, radius_m)
    frame = zone_frame(lat, lon, radius_m, size)
    image, credit = _basemap(frame, polygons_world(pack.boundary), tiles, pack, road_width=2)
    image = fr.shade(image, fr.area_mask(frame, [[disc]]), ZONE, ZONE_ALPHA)
    draw = ImageDraw.Draw(image)
    fr.outline(draw, frame, lines_world([pack.boundary]), fr.BOUNDARY, 2)
    fr.outline(draw, frame, [disc], ZONE, 3)
    image = fr.dots(image, frame, _stations(pack), max(3, size // 200), OTHER_STATION, fr.HALO)
    here = np.array([point_world(lat, lon)])
    image = fr.dots(image, frame, here, max(6, size // 90), ZONE, fr.HALO)
    draw = ImageDraw.Draw(image)
    fr.label(draw, frame, frame.pixel(lat, lon), max(10, size // 70), station_name,
             max(14, size // 45))
    fr.scale_bar(draw, frame, units)
    fr.attribution(draw, frame, credit)
    return fr.png(image)


def _basemap(
    frame: fr.Frame,
    boundary: Sequence[Sequence[np.ndarray]],
    tiles: TileClient | None,
    pack: MapPack | None,
    road_width: int,
) -> tuple[Image.Image, str]:
    """Return the basemap and whose data it shows: tiles when all come, else vectors."""
    if tiles is not None:
        image = fr.tile_basemap(frame, tiles)
        if image is not None:
            return image, tiles.attribution
    roads = _roads(pack) if pack is not None else None
    credit = pack.attribution if pack is not None else ""
    return fr.vector_basemap(frame, boundary, roads, road_width), credit


def _pins(
    draw: ImageDraw.ImageDraw, frame: fr.Frame, pins: Sequence[tuple[str, float, float]]
) -> None:
    radius = max(7, frame.size // 110)
    # Markers first, then every label, so no marker hides another seeker's name.
    for _, lat, lon in pins:
        x, y = frame.pixel(lat, lon)
        draw.ellipse(
            (x - radius, y - radius, x + radius, y + radius), fill=PIN, outline=PIN_RING, width=2
        )
    for name, lat, lon in pins:
        fr.label(draw, frame, frame.pixel(lat, lon), radius + 4, name, max(13, frame.size // 55))


def _dot_radius(count: int, size: int) -> float:
    # Thousands of candidates would merge into one blot with the dots a few are drawn with.
    scale = size / 1024
    if count <= 300:
        return max(2.5, 5 * scale)
    if count <= 2000:
        return max(2.0, 3.5 * scale)
    return max(1.5, 2.5 * scale)


# A pack's roads and stations in world units, worked out once per pack: a big map has
# thousands of roads, and the pack is immutable.
_PROJECTED: dict[int, tuple[weakref.ref[MapPack], fr.Lines, np.ndarray]] = {}


def _projected(pack: MapPack) -> tuple[fr.Lines, np.ndarray]:
    key = id(pack)
    found = _PROJECTED.get(key)
    if found is not None and found[0]() is pack:
        return found[1], found[2]
    roads = fr.Lines(lines_world(f.geometry for f in pack.features_of(ROAD_KIND)))
    stations = _station_points(pack.stations)
    _PROJECTED[key] = (weakref.ref(pack, lambda _: _PROJECTED.pop(key, None)), roads, stations)
    return roads, stations


def _roads(pack: MapPack) -> fr.Lines:
    return _projected(pack)[0]


def _stations(pack: MapPack) -> np.ndarray:
    return _projected(pack)[1]


def _station_points(stations: Sequence[Station]) -> np.ndarray:
    return stations_world([(s.lat, s.lon) for s in stations])
