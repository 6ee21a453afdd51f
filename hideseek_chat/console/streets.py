"""Walking and riding along the streets of a map pack, for scripted players.

The road features of a pack become a graph (a node per vertex, shared vertices join
roads); a trip is the shortest street path between the nodes nearest to two points, and a
``Trip`` tells where someone who set off along it is after so many metres. Positions are
plain ``(lat, lon)`` pairs; the map is read through its GeoJSON form so that no geometry
library is needed here.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass
from functools import cache

from hideseek_chat import geo

Node = tuple[float, float]  # (lat, lon), rounded


@dataclass(frozen=True)
class Trip:
    """A path along streets: points, the distance to each point and the street of each leg."""

    points: tuple[Node, ...]
    along: tuple[float, ...]  # metres from the start to each point
    streets: tuple[str, ...]  # the street of the leg ending at each point ("" for the first)

    @property
    def length_m(self) -> float:
        return self.along[-1] if self.along else 0.0

    def at(self, metres: float) -> tuple[float, float]:
        """Where someone is after ``metres`` along the trip (clamped to its ends)."""
        return self._locate(metres)[0]

    def street_at(self, metres: float) -> str:
        return self._locate(metres)[1]

    def _locate(self, metres: float) -> tuple[tuple[float, float], str]:
        if len(self.points) == 1 or metres <= 0:
            return self.points[0], self.streets[1] if len(self.streets) > 1 else ""
        if metres >= self.length_m:
            return self.points[-1], self.streets[-1]
        low, high = 0, len(self.along) - 1
        while high - low > 1:  # the leg holding ``metres``
            mid = (low + high) // 2
            if self.along[mid] <= metres:
                low = mid
            else:
                high = mid
        span = self.along[high] - self.along[low]
        share = 0.0 if span <= 0 else (metres - self.along[low]) / span
        (lat1, lon1), (lat2, lon2) = self.points[low], self.points[high]
        point = (round(lat1 + (lat2 - lat1) * share, 6), round(lon1 + (lon2 - lon1) * share, 6))
        return point, self.streets[high]


class Streets:
    """The street graph of one map pack (its largest connected part)."""

    def __init__(self, pack: geo.MapPack) -> None:
        edges: dict[Node, dict[Node, tuple[float, str]]] = {}
        collection = geo.pack_to_geojson(pack)
        for feature in collection["features"]:
            if feature["properties"].get("kind") != "road":
                continue
            geometry = feature["geometry"]
            lines = (
                geometry["coordinates"]
                if geometry["type"] == "MultiLineString"
                else [geometry["coordinates"]]
            )
            name = feature["properties"].get("name") or ""
            for line in lines:
                nodes = [(round(lat, 6), round(lon, 6)) for lon, lat, *_ in line]
                for a, b in itertools.pairwise(nodes):
                    if a == b:
                        continue
                    metres = geo.distance_m(a[0], a[1], b[0], b[1])
                    edges.setdefault(a, {})[b] = (metres, name)
                    edges.setdefault(b, {})[a] = (metres, name)
        self.edges = _largest_part(edges)
        self.nodes = tuple(self.edges)

    def nearest(self, lat: float, lon: float) -> Node:
        """The graph node nearest to a point (a cheap planar search, then the one distance)."""
        scale = _cos_lat(lat)
        candidates = sorted(
            self.nodes, key=lambda n: (n[0] - lat) ** 2 + ((n[1] - lon) * scale) ** 2
        )[:8]
        return min(candidates, key=lambda n: (geo.distance_m(lat, lon, n[0], n[1]), n))

    def trip(self, start: tuple[float, float], end: tuple[float, float]) -> Trip:
        """The shortest street path from the node nearest ``start`` to the one nearest ``end``,
        with the exact end point appended when it lies off the street."""
        source, target = self.nearest(*start), self.nearest(*end)
        previous = self._shortest(source, target)
        path = [target]
        while path[-1] != source:
            path.append(previous[path[-1]])
        path.reverse()
        points: list[Node] = list(path)
        along = [0.0]
        streets = [""]
        for a, b in itertools.pairwise(path):
            metres, name = self.edges[a][b]
            along.append(along[-1] + metres)
            streets.append(name)
        final = (round(end[0], 6), round(end[1], 6))
        if final != points[-1]:
            last = points[-1]
            along.append(along[-1] + geo.distance_m(last[0], last[1], final[0], final[1]))
            points.append(final)
            streets.append(streets[-1])
        return Trip(tuple(points), tuple(along), tuple(streets))

    def _shortest(self, source: Node, target: Node) -> dict[Node, Node]:
        best = {source: 0.0}
        previous: dict[Node, Node] = {}
        queue: list[tuple[float, Node]] = [(0.0, source)]
        while queue:
            cost, node = heapq.heappop(queue)
            if node == target:
                return previous
            if cost > best[node]:
                continue
            for other, (metres, _) in self.edges[node].items():
                new = cost + metres
                if new < best.get(other, float("inf")):
                    best[other] = new
                    previous[other] = node
                    heapq.heappush(queue, (new, other))
        raise ValueError("the two points are not connected by streets")


def _cos_lat(lat: float) -> float:
    return math.cos(math.radians(lat))


def _largest_part(
    edges: dict[Node, dict[Node, tuple[float, str]]],
) -> dict[Node, dict[Node, tuple[float, str]]]:
    seen: set[Node] = set()
    best: list[Node] = []
    for start in edges:
        if start in seen:
            continue
        part = [start]
        seen.add(start)
        stack = [start]
        while stack:
            for other in edges[stack.pop()]:
                if other not in seen:
                    seen.add(other)
                    part.append(other)
                    stack.append(other)
        if len(part) > len(best):
            best = part
    keep = set(best)
    return {node: edges[node] for node in edges if node in keep}


@cache
def streets_of(map_name: str) -> Streets:
    """The street graph of a shipped map pack, built once per process."""
    return Streets(geo.load_map_pack(map_name))
