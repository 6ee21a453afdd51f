"""Street termini: where the hider's zone is centred in a car or on-foot game.

The rulebook (section 6, "Playing with cars (or on foot)") centres the zone on a street
terminus instead of a station: the point where one street ends, at an intersection with
another street or at a dead end. A street ends where it acquires a different name; an
unnamed street starts and ends wherever it has an intersection ("Street or Path").

:func:`street_termini` finds them in a pack's ``road`` lines:

- the segments of one name that touch end to end are one street; its termini are the
  points where exactly one of its segments ends (a name change or a dead end: a point
  where two segments of the same name meet is the middle of the street);
- an unnamed road ends at both of its endpoints and at every vertex it shares with
  another road (an intersection).

Points are matched on coordinates rounded to ``_PRECISION`` decimal degrees (about 1 cm),
so segments that share a node of the source map touch.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from shapely.geometry.base import BaseGeometry

from hideseek_chat.geo.mappack import ROAD_KIND, Feature, MapPack, Station
from hideseek_chat.rules.hiding import STREET_END_PREFIX

_PRECISION = 7

Key = tuple[float, float]  # (lon, lat) rounded


@dataclass(frozen=True, slots=True)
class Terminus:
    """One end of one street: ``street`` is its name ("" when unnamed), ``crossing`` the
    names of the other streets meeting there (empty at a dead end), sorted."""

    street: str
    lat: float
    lon: float
    crossing: tuple[str, ...] = ()
    meets_unnamed: bool = False  # an unnamed road meets it there too

    @property
    def dead_end(self) -> bool:
        return not self.crossing and not self.meets_unnamed

    @property
    def id(self) -> str:
        """Stable across restarts and map reloads: the point and the street."""
        where = f"{STREET_END_PREFIX}{self.lat:.6f},{self.lon:.6f}"
        return f"{where}:{self.street}" if self.street else where

    @property
    def label(self) -> str:
        """What the hider is told the zone is centred on (map data, like a station's name):
        "Main Street / Oak Avenue", "Main Street (dead end)", "unnamed road / Main Street"."""
        street = self.street or "unnamed road"
        if self.crossing:
            return " / ".join((street, *self.crossing))
        if self.meets_unnamed:
            return f"{street} / unnamed road"
        return f"{street} (dead end)"

    def as_station(self) -> Station:
        """The terminus in the station's role (the zone's centre)."""
        return Station(self.id, self.label, self.lat, self.lon)


def counted_name(station: Station) -> str | None:
    """The name a name-length question counts: a station's name, or for a street end in
    the station's role (``Terminus.as_station``) its street's (rulebook section 6); None
    for an unnamed street."""
    if not station.id.startswith(STREET_END_PREFIX):
        return station.name
    parts = station.id.split(":", 2)
    return parts[2] if len(parts) == 3 and parts[2] else None


def _key(lon: float, lat: float) -> Key:
    return (round(lon, _PRECISION), round(lat, _PRECISION))


def _lines(geometry: BaseGeometry) -> Iterable[list[tuple[float, float]]]:
    if geometry.geom_type == "LineString":
        yield [(float(x), float(y)) for x, y, *_ in geometry.coords]
    elif geometry.geom_type == "MultiLineString":
        for part in geometry.geoms:  # type: ignore[attr-defined]
            yield [(float(x), float(y)) for x, y, *_ in part.coords]


def normal_name(name: str) -> str:
    """A street's name as compared: case and runs of spaces do not matter."""
    return " ".join(name.split()).casefold()


def street_termini(pack: MapPack) -> list[Terminus]:
    """Every street terminus of the pack's roads (see the module's docstring)."""
    return termini_of(pack.features_of(ROAD_KIND))


def termini_of(roads: Iterable[Feature]) -> list[Terminus]:
    """The street termini of some road lines (:func:`street_termini` on a pack)."""
    segments: list[tuple[str, str, list[Key]]] = []  # (normal name, shown name, vertices)
    for road in roads:
        for line in _lines(road.geometry):
            keys = [_key(lon, lat) for lon, lat in line]
            if len(keys) >= 2:
                segments.append((normal_name(road.name), " ".join(road.name.split()), keys))
    # Which streets touch each point: named ones by their normal name, unnamed by segment.
    names_at: dict[Key, set[str]] = defaultdict(set)
    shown: dict[str, str] = {}
    unnamed_at: dict[Key, set[int]] = defaultdict(set)
    for number, (normal, name, keys) in enumerate(segments):
        for key in keys:
            if normal:
                names_at[key].add(normal)
                shown.setdefault(normal, name)
            else:
                unnamed_at[key].add(number)
    # A named street's ends: where exactly one segment of its name ends and no segment of
    # the same name passes through.
    ends: dict[tuple[str, Key], int] = defaultdict(int)
    inner: set[tuple[str, Key]] = set()
    for normal, _, keys in segments:
        if normal:
            ends[normal, keys[0]] += 1
            ends[normal, keys[-1]] += 1
            inner.update((normal, key) for key in keys[1:-1])
    found: dict[tuple[str, Key], Terminus] = {}

    def add(normal: str, street: str, key: Key, unnamed_self: int | None) -> None:
        others = sorted(shown[n] for n in names_at.get(key, ()) if n != normal)
        unnamed = unnamed_at.get(key, set()) - {unnamed_self}
        found.setdefault(
            (normal, key),
            Terminus(street, key[1], key[0], tuple(others), bool(unnamed)),
        )

    for (normal, key), count in ends.items():
        if count == 1 and (normal, key) not in inner:
            add(normal, shown[normal], key, None)
    for number, (normal, _, keys) in enumerate(segments):
        if normal:
            continue
        for position, key in enumerate(keys):
            crossing = names_at.get(key) or len(unnamed_at.get(key, ())) > 1
            if position in (0, len(keys) - 1) or crossing:
                add("", "", key, number)
    return sorted(found.values(), key=lambda t: (t.lat, t.lon, t.street))
