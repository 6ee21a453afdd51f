"""Transit modes a map's stations are drawn from, and the default per game size.

``tram`` covers light rail too (``station=light_rail``, ``route=light_rail``); ``subway``
covers monorails. The defaults follow what a team can actually ride and what the map can
hold without drowning the seekers in stops:

- small (a town, a few km): every mode — in a town the buses often *are* the network
  (Stillwater's game is bus-only);
- medium (a city and its suburbs): rail, subway, tram and ferry — a city has thousands of
  bus stops, too many to choose a zone among or to browse;
- large (a region or country): rail and ferry — the game moves between towns; subway and
  tram stops of every city would outnumber the train stations many times over.

A group changes the set with the mode toggles; the defaults only start it.
"""

from __future__ import annotations

from collections.abc import Iterable

MODES: tuple[str, ...] = ("rail", "subway", "tram", "bus", "ferry")

_DEFAULTS: dict[str, frozenset[str]] = {
    "small": frozenset(MODES),
    "medium": frozenset({"rail", "subway", "tram", "ferry"}),
    "large": frozenset({"rail", "ferry"}),
}


def default_modes(size: str) -> frozenset[str]:
    """Return the modes a game of this size ("small", "medium", "large") starts with."""
    try:
        return _DEFAULTS[size.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown game size {size!r}") from None


def check_modes(modes: Iterable[str]) -> frozenset[str]:
    """Return the modes as a set; raises ValueError on an unknown or an empty set."""
    chosen = frozenset(modes)
    unknown = sorted(chosen - set(MODES))
    if unknown:
        raise ValueError(f"unknown transit mode(s): {', '.join(unknown)}")
    if not chosen:
        raise ValueError("no transit mode chosen")
    return chosen


def modes_slug(modes: Iterable[str]) -> str:
    """Return the modes as one stable word, sorted and joined by "+" ("bus+rail")."""
    return "+".join(sorted(check_modes(modes)))
