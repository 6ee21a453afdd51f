"""The tag table: which OpenStreetMap objects are which question subject, station or line.

One table serves the Overpass path (its ``selectors`` become ``nwr[...]`` filters) and the
extract path (``kinds_of(tags)`` on every object read), so both build the same pack.

Feature kinds are the question subject slugs (``geo.answers``), ``road`` for named streets
and ``admin-1`` .. ``admin-4`` for divisions. Each :class:`KindSpec` says how its objects
are drawn: ``point`` (a place: nodes, or an area's shape when mapped as one), ``area``
(closed ways and multipolygons become polygons), ``line`` (ways and the member ways of
relations stay lines) or ``border`` (the member ways of boundary relations, as lines).

Choices worth knowing (see docs/maps.md):

- airports count only with an IATA code (``aeroway=aerodrome`` + ``iata``): airfields and
  heliports are not what the question means;
- consulates include embassies (``office=diplomatic`` / ``amenity=embassy``): most
  embassies hold the consular section, and players count them;
- mountains (``natural=peak|volcano``) need a name: the unnamed bumps of the hills
  answer no question a player would ask;
- bodies of water need a name (``natural=water``, ``natural=bay``, ``natural=strait``), so
  pools and unnamed ponds do not answer "nearest body of water";
- ``metro-line`` is a subway route relation, drawn as its member ways;
- ``rail-station`` is a train station (``railway=station|halt``), not a subway or tram stop;
- ``high-speed-rail`` is ``railway=rail`` + ``highspeed=yes``;
- admin divisions and borders depend on the country's admin levels (:func:`admin_levels`);
  ``international-border`` is the member ways of ``admin_level=2`` boundaries.

Lifecycle objects (``disused:`` / ``abandoned:`` / ``proposed:`` / ``construction:`` ...
prefixes, ``railway=disused`` ...) are never stations, lines or features.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from hideseek_chat.rules.ruleset import ADMIN_DIVISIONS

Tags = Mapping[str, str]

#: Key prefixes (``disused:railway=station``) and values (``railway=proposed``) that say an
#: object is not in service.
LIFECYCLE = frozenset(
    {
        "disused",
        "abandoned",
        "proposed",
        "construction",
        "razed",
        "demolished",
        "removed",
        "was",
        "planned",
        "destroyed",
    }
)
#: The keys whose lifecycle-prefixed form makes the object a lifecycle object.
_MAIN_KEYS = frozenset(
    {
        "railway",
        "public_transport",
        "highway",
        "amenity",
        "station",
        "aeroway",
        "leisure",
        "tourism",
        "building",
        "shop",
        "office",
        "natural",
        "waterway",
        "route",
        "boundary",
        "historic",
    }
)

#: Admin levels (OSM ``admin_level``) of admin-1 .. admin-4, by ISO country code.
DEFAULT_ADMIN_LEVELS: dict[str, int] = {"admin-1": 4, "admin-2": 6, "admin-3": 8, "admin-4": 10}
ADMIN_LEVELS: dict[str, tuple[int, int, int, int]] = {
    "US": (4, 6, 8, 10),  # state, county, city/town, neighbourhood
    "GB": (4, 6, 8, 10),  # nation, county/unitary, district/borough, parish
    "DE": (4, 6, 8, 9),  # Land, Kreis, Gemeinde, Stadtbezirk
    "CH": (4, 6, 8, 10),  # canton, district, commune, quarter
    "FR": (4, 6, 7, 8),  # région, département, arrondissement, commune
    "JP": (4, 7, 8, 9),  # prefecture, city/special ward, ward, town (chōme block group)
    "CA": (4, 6, 8, 10),  # province, county/region, municipality, neighbourhood
    "AU": (4, 6, 9, 10),  # state, local government area, suburb, neighbourhood
    "NL": (4, 8, 10, 11),  # province, gemeente, wijk, buurt
    "ES": (4, 6, 8, 9),  # comunidad autónoma, provincia, municipio, distrito
    "IT": (4, 6, 8, 10),  # regione, provincia, comune, quartiere
    "AT": (4, 6, 8, 9),  # Bundesland, Bezirk, Gemeinde, Gemeindebezirk
}
ADMIN_KINDS = ADMIN_DIVISIONS
#: Border kinds drawn from the boundary relations of one admin division kind.
BORDER_KINDS: dict[str, str] = {"admin-1-border": "admin-1", "admin-2-border": "admin-2"}
INTERNATIONAL_BORDER = "international-border"

ROAD_HIGHWAYS = frozenset(
    {
        "motorway",
        "trunk",
        "primary",
        "secondary",
        "tertiary",
        "unclassified",
        "residential",
        "living_street",
        "pedestrian",
        "road",
        "service",
        "motorway_link",
        "trunk_link",
        "primary_link",
        "secondary_link",
        "tertiary_link",
        "busway",
        "footway",
        "path",
        "cycleway",
        "steps",
        "track",
    }
)


@dataclass(frozen=True, slots=True)
class KindSpec:
    """One feature kind: its Overpass filters, its tag predicate and how it is drawn."""

    kind: str
    selectors: tuple[str, ...]
    matches: Callable[[Tags], bool]
    shape: str = "point"  # point | area | line | border


def _is(key: str, *values: str) -> Callable[[Tags], bool]:
    wanted = frozenset(values)
    return lambda tags: tags.get(key) in wanted


def _airport(tags: Tags) -> bool:
    return tags.get("aeroway") == "aerodrome" and bool(tags.get("iata", "").strip())


def _zoo(tags: Tags) -> bool:
    return tags.get("tourism") == "zoo" and tags.get("zoo") != "aquarium"


def _aquarium(tags: Tags) -> bool:
    return tags.get("tourism") == "aquarium" or (
        tags.get("tourism") == "zoo" and tags.get("zoo") == "aquarium"
    )


def _consulate(tags: Tags) -> bool:
    diplomatic = tags.get("diplomatic", "")
    if tags.get("office") == "diplomatic":
        return diplomatic in ("", "consulate", "consulate_general", "embassy")
    return tags.get("amenity") == "embassy" and diplomatic not in ("liaison", "delegation")


def _water(tags: Tags) -> bool:
    return tags.get("natural") in ("water", "bay", "strait") and bool(tags.get("name"))


def _mountain(tags: Tags) -> bool:
    return tags.get("natural") in ("peak", "volcano") and bool(tags.get("name", "").strip())


def _rail_station(tags: Tags) -> bool:
    return tags.get("railway") in ("station", "halt") and tags.get("station") not in (
        "subway",
        "light_rail",
        "monorail",
        "funicular",
        "tram",
        "miniature",
    )


def _high_speed(tags: Tags) -> bool:
    return tags.get("railway") == "rail" and tags.get("highspeed") == "yes"


def _metro_line(tags: Tags) -> bool:
    return tags.get("type") == "route" and tags.get("route") == "subway"


def _road(tags: Tags) -> bool:
    return tags.get("highway") in ROAD_HIGHWAYS and bool(tags.get("name", "").strip())


def _nwr(key: str, *values: str) -> tuple[str, ...]:
    return tuple(f'nwr["{key}"="{value}"]' for value in values)


_ROAD_RE = "|".join(sorted(ROAD_HIGHWAYS))

#: The tag table. Admin divisions and borders are added per country by :func:`specs_for`.
KINDS: tuple[KindSpec, ...] = (
    KindSpec("airport", ('nwr["aeroway"="aerodrome"]["iata"]',), _airport),
    KindSpec("amusement-park", _nwr("tourism", "theme_park"), _is("tourism", "theme_park")),
    KindSpec(
        "aquarium",
        (*_nwr("tourism", "aquarium"), 'nwr["tourism"="zoo"]["zoo"="aquarium"]'),
        _aquarium,
    ),
    KindSpec("zoo", _nwr("tourism", "zoo"), _zoo),
    KindSpec("golf-course", _nwr("leisure", "golf_course"), _is("leisure", "golf_course")),
    KindSpec("hospital", _nwr("amenity", "hospital"), _is("amenity", "hospital")),
    KindSpec("library", _nwr("amenity", "library"), _is("amenity", "library")),
    KindSpec("consulate", ('nwr["office"="diplomatic"]', *_nwr("amenity", "embassy")), _consulate),
    KindSpec("mountain", ('nwr["natural"~"^(peak|volcano)$"]["name"]',), _mountain),
    KindSpec("movie-theater", _nwr("amenity", "cinema"), _is("amenity", "cinema")),
    KindSpec("museum", _nwr("tourism", "museum"), _is("tourism", "museum")),
    KindSpec("park", _nwr("leisure", "park"), _is("leisure", "park"), "area"),
    KindSpec("restaurant", _nwr("amenity", "restaurant"), _is("amenity", "restaurant")),
    KindSpec("school", _nwr("amenity", "school"), _is("amenity", "school")),
    KindSpec(
        "place-of-worship", _nwr("amenity", "place_of_worship"), _is("amenity", "place_of_worship")
    ),
    KindSpec("rail-station", ('nwr["railway"~"^(station|halt)$"]',), _rail_station),
    KindSpec("body-of-water", ('nwr["natural"~"^(water|bay|strait)$"]["name"]',), _water, "area"),
    KindSpec("coastline", ('way["natural"="coastline"]',), _is("natural", "coastline"), "line"),
    KindSpec("high-speed-rail", ('way["railway"="rail"]["highspeed"="yes"]',), _high_speed, "line"),
    KindSpec("metro-line", ('rel["type"="route"]["route"="subway"]',), _metro_line, "line"),
    KindSpec("road", (f'way["highway"~"^({_ROAD_RE})$"]["name"]',), _road, "line"),
)
SPECS: dict[str, KindSpec] = {spec.kind: spec for spec in KINDS}


def admin_levels(country_code: str, override: Mapping[str, int] | None = None) -> dict[str, int]:
    """Return ``admin-1`` .. ``admin-4`` -> OSM ``admin_level`` for a country (ISO alpha-2).

    Unknown countries get 4/6/8/10; ``override`` (a ruleset's ``[map] admin_levels``)
    replaces single entries.
    """
    levels = ADMIN_LEVELS.get(country_code.strip().upper())
    table = dict(zip(ADMIN_KINDS, levels, strict=True)) if levels else dict(DEFAULT_ADMIN_LEVELS)
    for kind, level in (override or {}).items():
        if kind not in table:
            raise ValueError(f"unknown admin division {kind!r} (use admin-1 .. admin-4)")
        table[kind] = int(level)
    return table


def _admin_match(level: int) -> Callable[[Tags], bool]:
    return lambda tags: (
        tags.get("boundary") == "administrative" and tags.get("admin_level") == str(level)
    )


def specs_for(levels: Mapping[str, int]) -> dict[str, KindSpec]:
    """Return the whole tag table for a country's admin levels (from :func:`admin_levels`)."""
    specs = dict(SPECS)
    for kind in ADMIN_KINDS:
        level = levels[kind]
        selector = f'rel["boundary"="administrative"]["admin_level"="{level}"]'
        specs[kind] = KindSpec(kind, (selector,), _admin_match(level), "area")
    for border, division in BORDER_KINDS.items():
        specs[border] = KindSpec(
            border, specs[division].selectors, specs[division].matches, "border"
        )
    specs[INTERNATIONAL_BORDER] = KindSpec(
        INTERNATIONAL_BORDER,
        ('rel["boundary"="administrative"]["admin_level"="2"]',),
        _admin_match(2),
        "border",
    )
    return specs


def is_lifecycle(tags: Tags) -> bool:
    """Say whether the object is disused, abandoned, proposed, under construction or gone."""
    for key, value in tags.items():
        prefix, colon, rest = key.partition(":")
        # ``was:amenity=cinema`` on a restaurant is history; ``disused:railway=station``
        # with no (or the same) ``railway`` is a station out of use.
        if colon and prefix in LIFECYCLE and rest in _MAIN_KEYS:
            current = tags.get(rest)
            if current is None or current == value or current in LIFECYCLE:
                return True
        if key in _MAIN_KEYS and value in LIFECYCLE:
            return True
    return "yes" in (
        tags.get("disused"),
        tags.get("abandoned"),
        tags.get("construction"),
        tags.get("proposed"),
    )


def kinds_of(tags: Tags, *, levels: Mapping[str, int] | None = None) -> tuple[str, ...]:
    """Return every feature kind the object is (admin kinds only when ``levels`` is given)."""
    if not tags or is_lifecycle(tags):
        return ()
    table = specs_for(levels) if levels is not None else SPECS
    return tuple(spec.kind for spec in table.values() if spec.matches(tags))


def kind_of(tags: Tags, *, levels: Mapping[str, int] | None = None) -> str | None:
    """Return the object's first feature kind in table order, or None."""
    kinds = kinds_of(tags, levels=levels)
    return kinds[0] if kinds else None


# ---------------------------------------------------------------------------- stations

#: ``station=*`` / ``route=*`` values and the mode they mean.
_STATION_VALUE_MODE = {
    "subway": "subway",
    "monorail": "subway",
    "light_rail": "tram",
    "tram": "tram",
    "train": "rail",
    "funicular": "rail",
}
_ROUTE_MODE = {
    "train": "rail",
    "subway": "subway",
    "monorail": "subway",
    "light_rail": "tram",
    "tram": "tram",
    "bus": "bus",
    "trolleybus": "bus",
    "ferry": "ferry",
}
#: Yes-flags on stops (``bus=yes``) and the mode they mean.
_FLAG_MODE = {
    "train": "rail",
    "subway": "subway",
    "monorail": "subway",
    "light_rail": "tram",
    "tram": "tram",
    "bus": "bus",
    "trolleybus": "bus",
    "ferry": "ferry",
}
_PT_ROLES = frozenset({"station", "stop_position", "platform"})


def station_modes(tags: Tags) -> frozenset[str]:
    """Return the modes this stop, platform or station object serves (empty: not a stop)."""
    flagged = {mode for key, mode in _FLAG_MODE.items() if tags.get(key) == "yes"}
    railway = tags.get("railway")
    pt = tags.get("public_transport")
    if railway in ("station", "halt"):
        by_value = _STATION_VALUE_MODE.get(tags.get("station", ""))
        return frozenset(flagged or {by_value or "rail"})
    if railway == "tram_stop":
        return frozenset(flagged or {"tram"})
    if tags.get("highway") == "bus_stop" or tags.get("amenity") == "bus_station":
        return frozenset(flagged | {"bus"})
    if tags.get("amenity") == "ferry_terminal":
        return frozenset(flagged | {"ferry"})
    if railway in ("stop", "platform") and pt in _PT_ROLES | {None}:
        return frozenset(flagged or {"rail"})
    if pt in _PT_ROLES:
        return frozenset(flagged)
    return frozenset()


def is_station_candidate(tags: Tags, modes: Collection[str]) -> bool:
    """Say whether the object is a stop, platform or station of one of ``modes``, in use."""
    return not is_lifecycle(tags) and bool(station_modes(tags) & set(modes))


def is_station_object(tags: Tags) -> bool:
    """Say whether the object stands for a whole station (its name and place win)."""
    return (
        tags.get("public_transport") == "station"
        or tags.get("railway") in ("station", "halt")
        or tags.get("amenity") in ("bus_station", "ferry_terminal")
    )


def is_platform(tags: Tags) -> bool:
    """Say whether the object is where passengers wait (a platform or a mapped stop)."""
    return (
        tags.get("public_transport") == "platform"
        or tags.get("railway") in ("platform", "tram_stop")
        or tags.get("highway") == "bus_stop"
    )


def is_stop_area(tags: Tags) -> bool:
    """Say whether a relation groups one station's platforms and stop positions."""
    return (
        tags.get("type") == "public_transport"
        and tags.get("public_transport") == "stop_area"
        and not is_lifecycle(tags)
    )


def route_mode(tags: Tags) -> str | None:
    """Return the mode of a route relation in service (``route=bus`` -> "bus"), or None."""
    if tags.get("type") not in ("route", None) or is_lifecycle(tags):
        return None
    return _ROUTE_MODE.get(tags.get("route", ""))


def route_name(tags: Tags) -> str:
    """Return a line's name for players: its ``ref`` ("U2"), else its ``name``."""
    return (tags.get("ref") or tags.get("name") or "").strip()


def station_selectors(modes: Collection[str]) -> tuple[str, ...]:
    """Return the Overpass filters that find every stop candidate of these modes."""
    chosen = set(modes)
    out: list[str] = []
    if chosen & {"rail", "subway", "tram"}:
        out += [
            'nwr["railway"~"^(station|halt|tram_stop|stop)$"]',
            'nwr["public_transport"="station"]',
        ]
    if chosen & {"tram"}:
        out.append('nwr["public_transport"~"^(platform|stop_position)$"]["tram"="yes"]')
        out.append('nwr["public_transport"~"^(platform|stop_position)$"]["light_rail"="yes"]')
    if chosen & {"subway"}:
        out.append('nwr["public_transport"~"^(platform|stop_position)$"]["subway"="yes"]')
    if chosen & {"rail"}:
        out.append('nwr["public_transport"~"^(platform|stop_position)$"]["train"="yes"]')
    if "bus" in chosen:
        out += [
            'nwr["highway"="bus_stop"]',
            'nwr["amenity"="bus_station"]',
            'nwr["public_transport"~"^(platform|stop_position)$"]["bus"="yes"]',
        ]
    if "ferry" in chosen:
        out += [
            'nwr["amenity"="ferry_terminal"]',
            'nwr["public_transport"~"^(platform|stop_position)$"]["ferry"="yes"]',
        ]
    return tuple(out)


def route_values(modes: Collection[str]) -> tuple[str, ...]:
    """Return the ``route=*`` values whose relations serve these modes."""
    return tuple(sorted(value for value, mode in _ROUTE_MODE.items() if mode in modes))
