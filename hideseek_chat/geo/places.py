"""Which features of a map are one place: two rows of "Stillwater High School" are one school.

Map data often holds a place twice: an OpenStreetMap node and the way around it, two
curated pins a little apart, or one row named "Highland Park Elementary" and another
"Highland Park Elementary School". A question about "the nearest school" is about places,
not rows, so answers compare places (:func:`cluster`). Two features of a kind are the same
place when

- their names agree (the same words, ignoring case and punctuation, or one name is the
  start of the other and has at least two words: "Berry Park" and "Berry Park
  Playground") and they lie within :data:`SAME_PLACE_M` of each other; or
- one of them has no name and it touches the other (a node inside the way of its park).

Same-named places further apart are different places: two McDonald's, two branches of a
library.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from shapely import STRtree
from shapely.geometry.base import BaseGeometry

from hideseek_chat.geo.mappack import Feature

#: Features with agreeing names this close together (metres) are one place. The duplicate
#: rows in the Stillwater data lie 56 to 191 m apart (a campus, a park with two pins);
#: same-named chain restaurants there are 1 km and more apart. 250 m keeps both apart.
SAME_PLACE_M = 250.0
#: An unnamed feature is part of a named one only when it touches it (within rounding).
TOUCHING_M = 1.0

_WORD = re.compile(r"[^\W_]+")


def name_words(name: str) -> tuple[str, ...]:
    """The words of a place name, case and punctuation left out ("Joe's" -> ``("joes",)``)."""
    return tuple(_WORD.findall(name.casefold().replace("'", "").replace("\u2019", "")))


def names_agree(a: str, b: str) -> bool:
    """Say whether two names can name one place: equal words, or one (of at least two
    words) the start of the other."""
    first, second = name_words(a), name_words(b)
    if not first or not second:
        return False
    short, long = sorted((first, second), key=len)
    return short == long or (len(short) >= 2 and long[: len(short)] == short)


def cluster(features: Sequence[Feature], projected: Sequence[BaseGeometry]) -> list[int]:
    """Number each feature by its place: ``result[i] == result[j]`` when features ``i`` and
    ``j`` are one place. ``projected`` holds their geometries in metres, in the same order."""
    parent = list(range(len(features)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    if len(features) > 1:
        tree = STRtree(list(projected))
        for i, feature in enumerate(features):
            near = tree.query(projected[i], predicate="dwithin", distance=SAME_PLACE_M)
            for j in (int(n) for n in near):
                if j <= i or root(i) == root(j):
                    continue
                other = features[j]
                if _same_place(feature, other, float(projected[i].distance(projected[j]))):
                    parent[root(j)] = root(i)
    return [root(i) for i in range(len(features))]


def _same_place(a: Feature, b: Feature, apart_m: float) -> bool:
    if not a.name.strip() or not b.name.strip():
        return apart_m <= TOUCHING_M
    return apart_m <= SAME_PLACE_M and names_agree(a.name, b.name)
