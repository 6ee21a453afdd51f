"""Fetch a whole map pack from Overpass, one query per kind, reporting as kinds arrive.

``fetch_pack(overpass, boundary, name=..., title=..., modes=...)`` runs the station query
first (stop candidates of the modes, their ``stop_area`` relations and the route relations
that serve them); it must succeed and find a station, or :class:`MapFetchError`
(``map.overpass_failed`` / ``map.no_stations``) is raised and nothing is built. Then one
query per feature kind of the tag table (``tags.specs_for``), each limited to the
boundary's bounding box, or to the boundary polygon itself (``poly:``) for a small, simple
area. A kind whose query failed is left out of ``pack.kinds`` (the map does not know) and
listed in ``FetchedPack.failed``; it never reads as "none there".

``progress`` hears a :class:`KindProgress` after the stations and after each kind, so a
chat can edit one message (stations ✓ 412, park ✓ 88, airport ✗ ...).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from shapely.geometry import MultiPolygon, Polygon

from hideseek_chat.geo.distance import distance_m
from hideseek_chat.geo.mappack import STATION_KIND, Feature, MapPack
from hideseek_chat.maps import tags as osm
from hideseek_chat.maps.build import OSM_ATTRIBUTION, build_features, build_stations
from hideseek_chat.maps.errors import MapFetchError
from hideseek_chat.maps.modes import check_modes, modes_slug
from hideseek_chat.maps.overpass import Overpass

#: The server-side time limit written into each query (``[timeout:N]``), in seconds.
QUERY_TIMEOUT_S = 180
#: A boundary is sent as ``poly:`` when its bounding box spans less than this (degrees)
#: and its outline has at most :data:`POLY_MAX_POINTS` points; else as a bounding box.
POLY_MAX_SPAN_DEG = 0.5
POLY_MAX_POINTS = 200
MAX_NAME = 64
#: Areas wider than this (km, the bounding box's diagonal) are refused before any query:
#: Overpass would time out or answer with hundreds of megabytes. Build those from an
#: extract (``hideseek-chat map build``).
MAX_SPAN_KM = 300.0


@dataclass(frozen=True)
class KindProgress:
    """One kind arrived (``ok``) or failed; ``done`` of ``total`` queries have run."""

    kind: str
    count: int | None
    ok: bool
    done: int
    total: int


@dataclass(frozen=True)
class FetchedPack:
    """The pack, the number of features per kind (stations under "station"), the failures."""

    pack: MapPack
    counts: Mapping[str, int]
    failed: tuple[str, ...]


def pack_name(place_key: str, modes: Collection[str], radius_m: int | None = None) -> str:
    """Return the stored pack's name for an area and modes: "osm-r123-bus+rail"."""
    parts = ["osm", place_key]
    if radius_m is not None:
        parts.append(f"r{int(radius_m)}")
    parts.append(modes_slug(modes))
    name = "-".join(parts)
    if len(name) > MAX_NAME:
        digest = hashlib.sha1(name.encode()).hexdigest()[:10]
        name = f"{name[: MAX_NAME - 11]}-{digest}"
    return name


def area_filter(boundary: Polygon | MultiPolygon) -> str:
    """Return the Overpass area filter for the boundary: ``(poly:"...")`` or ``(s,w,n,e)``."""
    west, south, east, north = boundary.bounds
    if isinstance(boundary, Polygon) and max(east - west, north - south) < POLY_MAX_SPAN_DEG:
        outline = boundary.exterior
        tolerance = 0.0
        while len(outline.coords) > POLY_MAX_POINTS:
            tolerance = tolerance * 2 or 1e-5
            outline = boundary.simplify(tolerance).exterior  # type: ignore[attr-defined]
        if tolerance:
            # Simplifying may cut corners: fall back to the box rather than lose them.
            return f"({south:.7f},{west:.7f},{north:.7f},{east:.7f})"
        points = " ".join(f"{lat:.7f} {lon:.7f}" for lon, lat in outline.coords[:-1])
        return f'(poly:"{points}")'
    return f"({south:.7f},{west:.7f},{north:.7f},{east:.7f})"


def span_km(boundary: Polygon | MultiPolygon) -> float:
    """Return the diagonal of the boundary's bounding box, in kilometres."""
    west, south, east, north = boundary.bounds
    return distance_m(south, west, north, east) / 1000.0


def _header(timeout: int) -> str:
    # The settings come first; the comment after them names the kind (logs, fake servers).
    return f"[out:json][timeout:{timeout}];"


def stations_query(
    boundary: Polygon | MultiPolygon, modes: Collection[str], timeout: int = QUERY_TIMEOUT_S
) -> str:
    """Return the query for stop candidates, their stop areas and their route relations."""
    area = area_filter(boundary)
    selectors = "".join(f"{s}{area};" for s in osm.station_selectors(modes))
    routes = "|".join(osm.route_values(modes))
    return (
        f"{_header(timeout)}/* hideseek:{STATION_KIND} */"
        f"({selectors})->.stops;.stops out center;"
        "(rel(bn.stops);rel(bw.stops);)->.up;"
        'rel.up["public_transport"="stop_area"]->.areas;.areas out body;'
        "(node(r.areas);way(r.areas);)->.inarea;"
        "(rel(bn.stops);rel(bw.stops);rel(bn.inarea);rel(bw.inarea);)->.all;"
        f'rel.all["type"="route"]["route"~"^({routes})$"];out body;'
    )


def kind_query(
    spec: osm.KindSpec, boundary: Polygon | MultiPolygon, timeout: int = QUERY_TIMEOUT_S
) -> str:
    """Return the query for one kind's objects with their geometry."""
    area = area_filter(boundary)
    selectors = "".join(f"{s}{area};" for s in spec.selectors)
    head = f"{_header(timeout)}/* hideseek:{spec.kind} */"
    if spec.shape == "border":
        # The member ways near the game, not the whole country's outline.
        return f"{head}({selectors})->.b;way(r.b){area};out geom;"
    return f"{head}({selectors});out geom;"


def _ignore(_: KindProgress) -> None:
    return None


def fetch_pack(
    overpass: Overpass,
    boundary: Polygon | MultiPolygon,
    *,
    name: str,
    title: str,
    modes: Collection[str],
    country_code: str = "",
    admin_levels: Mapping[str, int] | None = None,
    progress: Callable[[KindProgress], None] = _ignore,
    kinds: Collection[str] | None = None,
    timeout: int | None = None,
    max_span_km: float | None = MAX_SPAN_KM,
) -> FetchedPack:
    """Fetch and build a pack for ``boundary`` (see the module doc); ``kinds`` limits it.

    ``timeout`` is the server's limit per query (``[timeout:N]``); by default a little
    under the client's own, so a slow query ends in Overpass's remark, not a cut connection.
    An area wider than ``max_span_km`` raises ``map.area_too_large`` (``km``, ``max_km``).
    """
    chosen = check_modes(modes)
    span = span_km(boundary)
    if max_span_km is not None and span > max_span_km:
        raise MapFetchError("map.area_too_large", km=round(span), max_km=round(max_span_km))
    if timeout is None:
        timeout = int(min(QUERY_TIMEOUT_S, max(5.0, overpass.timeout - 10)))
    levels = osm.admin_levels(country_code, admin_levels)
    specs = osm.specs_for(levels)
    wanted = [spec for kind, spec in specs.items() if kinds is None or kind in kinds]
    total = len(wanted) + 1

    data = overpass.query(stations_query(boundary, chosen, timeout))
    stations = build_stations(_elements(data), boundary, chosen)
    if not stations:
        raise MapFetchError("map.no_stations", modes=modes_slug(chosen))
    counts: dict[str, int] = {STATION_KIND: len(stations)}
    progress(KindProgress(STATION_KIND, len(stations), True, 1, total))

    features: list[Feature] = []
    covered: set[str] = set()
    failed: list[str] = []
    for done, spec in enumerate(wanted, start=2):
        try:
            data = overpass.query(kind_query(spec, boundary, timeout))
        except MapFetchError:
            failed.append(spec.kind)
            progress(KindProgress(spec.kind, None, False, done, total))
            continue
        got = build_features(
            {spec.kind: _elements(data)}, boundary, covered={spec.kind}, levels=levels
        )
        features.extend(got)
        covered.add(spec.kind)
        counts[spec.kind] = len(got)
        progress(KindProgress(spec.kind, len(got), True, done, total))

    pack = MapPack(
        name=name,
        title=title,
        attribution=OSM_ATTRIBUTION,
        boundary=boundary,
        stations=stations,
        features=tuple(features),
        kinds=frozenset(covered),
        country=country_code,
    )
    return FetchedPack(pack, counts, tuple(failed))


def _elements(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    elements = data.get("elements") or []
    return [e for e in elements if isinstance(e, dict)]
