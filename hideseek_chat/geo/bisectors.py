"""The exact step of ``geo.voronoi``'s diagrams: moving the outline of a label's sample
cells onto the bisectors between the label and its rivals (Newton: ``geo.newton``).

A label's sample cells have the right shape but not the right place. Each vertex of the
outline is moved by Newton steps onto the zero of "distance to the label minus distance
to the nearest other label", measured as ``MapIndex.nearest`` measures it. Where three
labels meet, the vertex is solved on both bisectors at once. Then each edge's midpoint is
solved too and, where it lies more than ``SAGITTA_M`` (0.1 m) off the chord, kept as a
new vertex, until no edge strays that far. At first an edge's quarter points are tried
too where one Newton step would move them that far: a chord across a kink of the
bisector (where a street bends at a junction) can have its middle right.

For lines and polygons, which features a point is solved against is decided where
Newton starts, among every feature within reach, and checked where it stops: the
samples whose cells meet a vertex, or the features of an edge's ends, only make the
first guess. That guess is wrong where streets meet: a rival met at both ends of an edge
need not be the one nearest its middle (a side street ending between them), and a wrong
rival leads Newton metres off, onto another branch or across the junction. Newton runs
on fixed features (a smooth difference); where others are nearest where it stopped, it
runs again from the start, each label's distance then the nearer of the old and the new
feature (a point on a kink, where the nearest part of a street changes, sees both). A
point that moved less than half its room (how much nearer its features are than any
other) needs no second look. Points are their own samples: their first guess is right.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from hideseek_chat.geo.newton import (
    SAGITTA_M,
    distances_only,
    line_step,
    nearer,
    newton,
    polygonal,
)

if TYPE_CHECKING:
    from hideseek_chat.geo.voronoi import Diagram

# Cells meeting at a vertex are found within this (projected metres; GEOS output rounding).
_TOUCH_M = 1e-3
# Rounds of splitting edges (each halves them).
_SPLIT_ROUNDS = 8
# How often a point's nearest features are looked up again after Newton has moved it.
_LOOKUPS = 4
# A nearer feature found at a point must be nearer by this to count.
_SAME_M = 1e-6
# On a map too large to be flat, a line's measure is off by up to ~0.04 % of the distance
# (its nearest spot is found in the projection): differences under this share of it are
# noise. Far from a city's grid, half a dozen streets lie within a metre of one another
# for kilometres; chasing which is nearest there only draws noise (and slowly).
_NOISE_SHARE = 1e-5
# An edge whose middle lies this near the outline of the area the cell was cut to is that
# cut (the map's margin, a box in play), not a bisector: it stays.
_ON_CUT_M = 1e-3


def refine(
    diagram: Diagram, area: BaseGeometry, number: int, cuts: list[BaseGeometry]
) -> BaseGeometry:
    """Move the outline of ``area`` (label ``number``'s sample cells, cut to areas whose
    prepared outlines are ``cuts``) onto the bisectors (see the module doc)."""
    step = _Step(diagram, number, cuts)
    polygons = []
    for polygon in shapely.get_parts(area):
        if not isinstance(polygon, Polygon) or polygon.is_empty:
            continue
        shell = step.ring(np.asarray(polygon.exterior.coords)[:, :2])
        holes = [step.ring(np.asarray(ring.coords)[:, :2]) for ring in polygon.interiors]
        moved = Polygon(shell, holes)
        # Moving a vertex a few metres can fold a thin sliver over itself.
        polygons.append(moved if moved.is_valid else polygonal(shapely.make_valid(moved)))
    return shapely.union_all(polygons) if len(polygons) != 1 else polygons[0]


class _Step:
    """The exact step for one label of one diagram."""

    def __init__(self, diagram: Diagram, number: int, cuts: list[BaseGeometry]) -> None:
        self.diagram = diagram
        self.number = number
        self.cuts = cuts
        self.flat = diagram.flat
        self.projection = diagram.projection
        # Projected distances overstate the measured ones by at most this (spatial.py).
        projection = diagram.projection
        self.scale = 1.0 if self.flat else projection.scale_bound(projection.lat, projection.lon)
        # Points are their own samples: the sites whose cells meet a vertex are its nearest.
        self.look = not diagram.is_point.all()
        self.noise = _NOISE_SHARE if self.look and not self.flat else 0.0

    def ring(self, ring: np.ndarray) -> np.ndarray:
        """A closed ring with its vertices on the bisectors, split until each edge strays
        less than :data:`SAGITTA_M` from them."""
        xy = ring[:-1].copy()
        # Edges along the cut (by start vertex), told before their ends move off it.
        cut = self._on_cut((xy + np.roll(xy, -1, axis=0)) / 2)
        mine, rival, second, bound = self._rivals(xy)
        # A vertex no rival meets is on the cut (the map's margin) and stays.
        move = np.nonzero((mine >= 0) & (rival >= 0))[0]
        xy[move], mine[move], rival[move], second[move], _, bound[move] = self._solve(
            xy[move],
            (mine[move], mine[move]),
            (rival[move], rival[move]),
            second[move],
            bound[move],
        )
        check = np.ones(len(xy), dtype=bool)  # edges (by start vertex) not yet known good
        for round_ in range(_SPLIT_ROUNDS):
            after = np.roll(np.arange(len(xy)), -1)
            inner = (mine >= 0) & (rival >= 0)
            # The rival both ends compete with (where three places meet, the one they
            # share); of points, an edge with none is no bisector (it ends on the cut).
            near_start, near_end = _common_rival(self.diagram.feature_label, (rival, second), after)
            some = near_start >= 0
            if self.look:
                near_start = np.where(some, near_start, rival)
                near_end = np.where(some, near_end, rival[after])
                some = inner & inner[after]
            edges = np.nonzero(check & some & ~cut)[0]
            if len(edges) == 0:
                break
            # Each edge's middle; at first also its quarters where one Newton step with
            # its ends' features would move them (a chord across a kink, where a street
            # bends at a junction, can have its middle right; bisectors of points have
            # no kinks).
            start, end = xy[edges], xy[after][edges]
            each = np.arange(len(edges))
            share = np.full(len(edges), 0.5)
            if round_ == 0 and self.look:
                twice = np.concatenate([each, each])
                quarter = np.repeat([0.25, 0.75], len(edges))
                rows = edges[twice]
                off = self._step_length(
                    start[twice] + quarter[:, None] * (end - start)[twice],
                    (mine[rows], mine[after][rows]),
                    (near_start[rows], near_end[rows]),
                )
                suspect = off > SAGITTA_M
                each = np.concatenate([each, twice[suspect]])
                share = np.concatenate([share, quarter[suspect]])
            rows = edges[each]
            along = start[each] + share[:, None] * (end - start)[each]
            # The features nearest either end are this near the point.
            length = np.hypot(*(end - start)[each].T)
            reach = np.minimum(
                bound[rows] + share * length, bound[after][rows] + (1 - share) * length
            )
            moved, own, near, _, solved, found = self._solve(
                along,
                (mine[rows], mine[after][rows]),
                (near_start[rows], near_end[rows]),
                np.full(len(along), -1, dtype=np.int64),
                reach,
            )
            off = np.where(solved, np.hypot(*(moved - along).T), 0.0)
            # Each edge's worst point.
            order = np.lexsort((-off, each))
            first = np.ones(len(order), dtype=bool)
            first[1:] = each[order][1:] != each[order][:-1]
            worst = order[first]  # one per edge, in edge order
            far = off[worst] > SAGITTA_M
            if not far.any():
                break
            split, chosen = edges[far], worst[far]
            xy = np.insert(xy, split + 1, moved[chosen], axis=0)
            bound = np.insert(bound, split + 1, found[chosen])
            cut = np.insert(cut, split + 1, False)
            mine = np.insert(mine, split + 1, own[chosen])
            rival = np.insert(rival, split + 1, near[chosen])
            second = np.insert(second, split + 1, -1)
            # Only the two halves of a split edge need another look.
            check = np.zeros(len(xy), dtype=bool)
            check[split + np.arange(len(split))] = True
            check[split + np.arange(len(split)) + 1] = True
        return np.vstack([xy, xy[:1]])

    def _step_length(
        self,
        xy: np.ndarray,
        mine: tuple[np.ndarray, np.ndarray],
        rival: tuple[np.ndarray, np.ndarray],
    ) -> np.ndarray:
        """How far one Newton step with these features would move each point."""
        here = None if self.flat else self.projection.to_lonlat_array(xy)
        d_mine, u_mine, d_rival, u_rival = nearer(self.diagram, xy, mine, rival, here)
        step = line_step(u_mine - u_rival, d_mine - d_rival)
        return np.hypot(step[:, 0], step[:, 1])  # type: ignore[no-any-return]

    def _on_cut(self, xy: np.ndarray) -> np.ndarray:
        on = np.zeros(len(xy), dtype=bool)
        if len(xy):
            points = shapely.points(xy)
            for cut in self.cuts:
                on |= shapely.dwithin(cut, points, _ON_CUT_M)
        return on

    def _rivals(self, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For each vertex: an own feature, a rival feature and a feature of a third place
        whose samples' cells meet it (-1: none), and how far their features can be."""
        diagram = self.diagram
        count = len(xy)
        none = np.full(count, -1, dtype=np.int64)
        vertex, cell = diagram.tree.query(
            shapely.points(xy), predicate="dwithin", distance=_TOUCH_M
        )
        bound = np.zeros(count)
        if len(vertex) == 0:
            return none, none.copy(), none.copy(), bound
        # Each feature is at most as far as its sample: the farthest sample met bounds them.
        np.maximum.at(bound, vertex, np.hypot(*(xy[vertex] - diagram.samples[cell]).T))
        pairs = np.unique(np.column_stack([vertex, diagram.owner[cell]]), axis=0)
        vertex, feature = pairs[:, 0], pairs[:, 1]
        label = diagram.feature_label[feature]
        if self.look:
            # Any will do: the point's nearest features are looked up before it is solved.
            distance = np.zeros(len(vertex))
        else:
            distance = distances_only(diagram, xy[vertex], feature)
        own = label == self.number
        mine, _ = _nearest_per_vertex(vertex[own], feature[own], distance[own], count)
        rival, _ = _nearest_per_vertex(vertex[~own], feature[~own], distance[~own], count)
        rival_label = np.where(rival >= 0, diagram.feature_label[np.maximum(rival, 0)], -1)
        third = ~own & (label != rival_label[vertex])
        second, _ = _nearest_per_vertex(vertex[third], feature[third], distance[third], count)
        return mine, rival, second, bound

    def _solve(
        self,
        xy: np.ndarray,
        mine: tuple[np.ndarray, np.ndarray],
        rival: tuple[np.ndarray, np.ndarray],
        second: np.ndarray,
        bound: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Move points onto the label's outline, from first guesses of the features that
        matter (``mine`` and ``rival`` two per point, ``second`` a third place's where
        three meet, else -1) and a bound on how far the nearest of them are. Return the
        points, the own, rival and third features they were solved against, which got
        onto a bisector (see ``newton``), and a bound on how far those are."""
        xy = xy.copy()
        solved = np.zeros(len(xy), dtype=bool)
        mine = (mine[0].copy(), mine[1].copy())
        rival = (rival[0].copy(), rival[1].copy())
        second = second.copy()
        triple = second >= 0
        start = xy.copy()
        todo = np.arange(len(xy))
        # The nearest features where Newton starts, then where it got to: the guesses can
        # lead it far off (onto the other side of a junction) or to another branch. A
        # point that moved less than half its room from where its features were looked
        # up still has them nearest: no second look.
        looked = start.copy()
        if not self.look:
            xy, solved = newton(self.diagram, start, mine, rival, second)
            return xy, mine[0], rival[0], second, solved, bound + np.hypot(*(xy - start).T)
        own, near, third, used, room = self._look_up(start, triple, bound)[:5]
        # Where others are nearest, are they nearer than the guesses by more than noise?
        other = (own != mine[0]) & (own != mine[1]) | (near != rival[0]) & (near != rival[1])
        other |= triple & (third >= 0) & (third != second)
        rows = np.nonzero(other)[0]
        switch = self._nearer_than(start, rows, (mine, rival, second), (own, near, third))
        rows = rows[switch]
        own, near, third = own[rows], near[rows], third[rows]
        for _ in range(_LOOKUPS):
            mine = _pair(mine, rows, own)
            rival = _pair(rival, rows, near)
            second[rows] = np.where(triple[rows] & (third >= 0), third, second[rows])
            xy[todo], solved[todo] = newton(
                self.diagram,
                start[todo],
                (mine[0][todo], mine[1][todo]),
                (rival[0][todo], rival[1][todo]),
                second[todo],
                self.noise,
            )
            moved = np.hypot(*(xy[todo] - looked[todo]).T)
            todo = todo[2 * moved >= room[todo]]
            if len(todo) == 0:
                break
            looked[todo] = xy[todo]
            stale, found = self._check(xy, todo, mine, rival, second)
            rows = todo[stale]
            own, near, third = found[0][stale], found[1][stale], found[2][stale]
            used[todo], room[todo] = found[3], found[4]
            todo = rows
            if len(todo) == 0:
                break
        return xy, mine[0], rival[0], second, solved, used + np.hypot(*(xy - looked).T)

    def _check(
        self,
        xy: np.ndarray,
        todo: np.ndarray,
        mine: tuple[np.ndarray, np.ndarray],
        rival: tuple[np.ndarray, np.ndarray],
        second: np.ndarray,
    ) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """Which rows of ``todo`` have a feature nearer than those given (own, rival, or
        a third place's where one is given), and what :meth:`_look_up` found there."""
        at = xy[todo]
        points = shapely.points(at)
        here = None if self.flat else self.projection.to_lonlat_array(at)
        given = self._given(at, points, here, (mine, rival, second), todo)
        bound = np.maximum(np.maximum(np.abs(given[0]), np.abs(given[1])), np.abs(given[2]))
        found = self._look_up(at, second[todo] >= 0, bound, here, points)
        return _nearer_by_more(given, found[5:], second[todo] >= 0, self.noise), found[:5]

    def _nearer_than(
        self,
        xy: np.ndarray,
        rows: np.ndarray,
        given: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray], np.ndarray],
        found: tuple[np.ndarray, np.ndarray, np.ndarray],
    ) -> np.ndarray:
        """Whether, at these rows, the found own, rival or third features are nearer than
        the given ones by more than noise."""
        if len(rows) == 0:
            return np.zeros(0, dtype=bool)
        at = xy[rows]
        points = shapely.points(at)
        here = None if self.flat else self.projection.to_lonlat_array(at)
        distance = self._given(at, points, here, given, rows)
        features = (found[0][rows], found[1][rows], np.maximum(found[2][rows], 0))
        measured = self._measure_groups(
            at, points, here, [(np.arange(len(rows)), f) for f in features]
        )
        measured[2] = np.where(found[2][rows] >= 0, measured[2], np.inf)
        return _nearer_by_more(distance, tuple(measured), given[2][rows] >= 0, self.noise)

    def _given(
        self,
        at: np.ndarray,
        points: np.ndarray,
        here: np.ndarray | None,
        given: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray], np.ndarray],
        rows: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distances from the points (``rows`` of the given features) to my place and the
        rival's, each the nearer of its two features, and to the third (0 where none)."""
        mine, rival, second = given
        every = np.arange(len(rows))
        with_second = np.nonzero(second[rows] >= 0)[0]
        other_mine = np.nonzero(mine[0][rows] != mine[1][rows])[0]
        other_rival = np.nonzero(rival[0][rows] != rival[1][rows])[0]
        d_mine, d_rival, d_with_second, d_other_mine, d_other_rival = self._measure_groups(
            at,
            points,
            here,
            [
                (every, mine[0][rows]),
                (every, rival[0][rows]),
                (with_second, second[rows]),
                (other_mine, mine[1][rows]),
                (other_rival, rival[1][rows]),
            ],
        )
        d_mine[other_mine] = np.minimum(d_mine[other_mine], d_other_mine)
        d_rival[other_rival] = np.minimum(d_rival[other_rival], d_other_rival)
        d_second = np.zeros(len(rows))
        d_second[with_second] = d_with_second
        return d_mine, d_rival, d_second

    def _look_up(
        self,
        xy: np.ndarray,
        triple: np.ndarray,
        bound: np.ndarray,
        here: np.ndarray | None = None,
        points: np.ndarray | None = None,
    ) -> tuple[np.ndarray, ...]:
        """For each point, its nearest own feature, nearest rival and nearest feature of a
        third place (-1: none), among the features within ``bound`` (measured distance);
        how far the nearest used are (the third only where ``triple``); and the point's
        room: how much nearer than any other feature those are (a point moving less than
        half of it keeps them); then the three distances."""
        if points is None:
            points = shapely.points(xy)
            here = None if self.flat else self.projection.to_lonlat_array(xy)
        (own, d_own), (near, d_near), (third, d_third), rest = self._nearest(
            xy, bound, here, points
        )
        # Without a third place solved for, a third place coming nearer changes the rival.
        rest = np.where(triple, rest, np.minimum(rest, d_third))
        used = np.maximum(np.abs(d_own), np.abs(d_near))
        used = np.where(triple, np.maximum(used, np.abs(d_third)), used)
        # A point moving m changes each measured distance by at most m (and the measure's
        # own jumps, ~0.04 % of the distance on a country: see geo.newton).
        room = rest - used - 1e-3 * np.abs(used) - _SAME_M
        return own, near, third, used, room, d_own, d_near, d_third

    def _measure_groups(
        self,
        xy: np.ndarray,
        points: np.ndarray,
        here: np.ndarray | None,
        groups: list[tuple[np.ndarray, np.ndarray]],
    ) -> list[np.ndarray]:
        """For each group (rows of ``xy``, features of all rows): the rows' distances to
        their features, measured in one call."""
        rows = np.concatenate([group[0] for group in groups])
        feature = np.concatenate([group[1][group[0]] for group in groups])
        measured = distances_only(
            self.diagram, xy[rows], feature, None if here is None else here[rows], points[rows]
        )
        return np.split(measured, np.cumsum([len(group[0]) for group in groups])[:-1])

    def _nearest(
        self, xy: np.ndarray, bound: np.ndarray, here: np.ndarray | None, points: np.ndarray
    ) -> tuple[
        tuple[np.ndarray, np.ndarray],
        tuple[np.ndarray, np.ndarray],
        tuple[np.ndarray, np.ndarray],
        np.ndarray,
    ]:
        """For each point, the nearest own feature, the nearest feature of another label
        and the nearest of a third label (each with its distance; -1 and infinity when
        none), among the features within ``bound`` (measured distance) of it; and how
        near any other feature is (known to ``bound`` plus the sample spacing)."""
        diagram = self.diagram
        count = len(xy)
        known = bound + diagram.spacing
        if math.isfinite(self.scale):
            reach = self.scale * known * 1.001 + 1e-3
        else:
            reach, known = np.full(count, 1e15), np.full(count, np.inf)
        vertex, feature = diagram.outline_tree.query(points, predicate="dwithin", distance=reach)
        if diagram.polygonal:
            # Inside a polygon its place is at distance 0 (negative here), outline or not.
            inside, polygon = diagram.polygon_tree.query(points, predicate="within")
            vertex = np.concatenate([vertex, inside])
            feature = np.concatenate([feature, np.asarray(diagram.polygonal)[polygon]])
            pairs = np.unique(np.column_stack([vertex, feature]), axis=0)
            vertex, feature = pairs[:, 0], pairs[:, 1]
        distance = distances_only(
            diagram, xy[vertex], feature, None if here is None else here[vertex], points[vertex]
        )
        label = diagram.feature_label[feature]
        own = label == self.number
        mine = _nearest_per_vertex(vertex[own], feature[own], distance[own], count)
        rival = _nearest_per_vertex(vertex[~own], feature[~own], distance[~own], count)
        rival_label = np.where(rival[0] >= 0, diagram.feature_label[np.maximum(rival[0], 0)], -1)
        other = ~own & (label != rival_label[vertex])
        third = _nearest_per_vertex(vertex[other], feature[other], distance[other], count)
        chosen = np.column_stack([mine[0], rival[0], third[0]])[vertex]
        rest = ~(chosen == feature[:, None]).any(axis=1)
        nearest_rest = _nearest_per_vertex(vertex[rest], feature[rest], distance[rest], count)[1]
        return mine, rival, third, np.minimum(nearest_rest, known)


def _pair(
    pair: tuple[np.ndarray, np.ndarray], rows: np.ndarray, nearest: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """A place's two features per point after a look-up at ``rows``: the nearest found
    there, and the first of the two before."""
    first, second = pair[0].copy(), pair[1].copy()
    second[rows] = first[rows]
    first[rows] = np.where(nearest >= 0, nearest, first[rows])
    return first, second


def _nearer_by_more(
    given: tuple[np.ndarray, ...], found: tuple[np.ndarray, ...], triple: np.ndarray, share: float
) -> np.ndarray:
    """Whether a found own, rival or (where ``triple``) third feature is nearer than the
    given one by more than noise (``share`` of the distance): ties within it are left as
    they fall."""
    noise = _SAME_M + share * np.abs(given[1])
    closer = (found[0] < given[0] - noise) | (found[1] < given[1] - noise)
    return closer | (triple & (found[2] < given[2] - noise))  # type: ignore[no-any-return]


def _nearest_per_vertex(
    vertex: np.ndarray, feature: np.ndarray, distance: np.ndarray, count: int
) -> tuple[np.ndarray, np.ndarray]:
    """For each vertex, the feature of the nearest row and its distance (-1 and infinity
    where it has no row)."""
    best = np.full(count, -1, dtype=np.int64)
    nearest = np.full(count, np.inf)
    if len(vertex):
        order = np.lexsort((distance, vertex))
        vertex, feature, distance = vertex[order], feature[order], distance[order]
        first = np.ones(len(vertex), dtype=bool)
        first[1:] = vertex[1:] != vertex[:-1]
        best[vertex[first]] = feature[first]
        nearest[vertex[first]] = distance[first]
    return best, nearest


def _common_rival(
    feature_label: np.ndarray, rivals: tuple[np.ndarray, np.ndarray], after: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For each edge (vertex i to ``after[i]``), a rival feature at each end of one place
    both ends compete with (-1, -1 when none)."""
    start = np.full(len(after), -1, dtype=np.int64)
    end = np.full(len(after), -1, dtype=np.int64)
    for here in rivals:
        for there in rivals:
            ahead = there[after]
            label_here = np.where(here >= 0, feature_label[np.maximum(here, 0)], -1)
            label_there = np.where(ahead >= 0, feature_label[np.maximum(ahead, 0)], -2)
            found = (start < 0) & (label_here == label_there)
            start[found] = here[found]
            end[found] = ahead[found]
    return start, end
