"""The pack's stations as arrays, built once per index, and the shape of a clue's test of
many stations at once."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely

from hideseek_chat.geo.spatial import MapIndex
from hideseek_chat.geo.termini import counted_name

#: Stations as lat, lon, x and y arrays (x, y in ``MapIndex.projection``) -> which of
#: them a clue keeps.
AtStations = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
#: The same with a slack: kept when some point within ``slack`` metres of the station is.
NearStations = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float], np.ndarray]


@dataclass(frozen=True)
class StationTable:
    """The pack's stations as arrays (lat, lon, projected points, the length of the name a
    name-length question counts, -1 for an unnamed street's end; id), the row of each id,
    and which rows each line stops at (filled on first use)."""

    lats: np.ndarray
    lons: np.ndarray
    xs: np.ndarray
    ys: np.ndarray
    points: np.ndarray
    lengths: np.ndarray
    ids: np.ndarray
    unrouted: np.ndarray
    row: dict[str, int]
    lines: dict[str, np.ndarray]
    stations: np.ndarray  # the Station objects
    #: each station's row by its projected x, y (filled on first use)
    by_xy: dict[tuple[float, float], int] = field(default_factory=dict)
    #: a tree of the stations' lon/lat points (filled on first use)
    trees: list[shapely.STRtree] = field(default_factory=list)

    def lonlat_tree(self) -> shapely.STRtree:
        """A tree of the stations' lon/lat points, in row order."""
        if not self.trees:
            self.trees.append(shapely.STRtree(shapely.points(self.lons, self.lats)))
        return self.trees[0]

    def rows_at(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray | None:
        """The rows of the stations at these projected points, or None if one is not a
        station of the table."""
        if not self.by_xy:
            self.by_xy.update(
                (key, n)
                for n, key in enumerate(zip(self.xs.tolist(), self.ys.tolist(), strict=True))
            )
        rows = [self.by_xy.get(key) for key in zip(xs.tolist(), ys.tolist(), strict=True)]
        if any(row is None for row in rows):
            return None
        return np.array(rows, dtype=np.intp)


_TABLES: weakref.WeakKeyDictionary[MapIndex, StationTable] = weakref.WeakKeyDictionary()


def station_table(index: MapIndex) -> StationTable:
    """The station table of an index, built once and kept while the index lives."""
    table = _TABLES.get(index)
    if table is None:
        stations = index.pack.stations
        lats = np.array([s.lat for s in stations], dtype=float)
        lons = np.array([s.lon for s in stations], dtype=float)
        xy = index.projection._project_array(np.column_stack([lons, lats]))
        table = StationTable(
            lats,
            lons,
            xy[:, 0].copy(),
            xy[:, 1].copy(),
            shapely.points(xy),
            np.array([len(counted_name(s) or "") or -1 for s in stations], dtype=int),
            np.array([s.id for s in stations], dtype=object),
            np.array([not s.routes for s in stations], dtype=bool),
            {s.id: n for n, s in enumerate(stations)},
            {},
            _objects(stations),
        )
        _TABLES[index] = table
    return table


def _objects(items: Sequence[object]) -> np.ndarray:
    array = np.empty(len(items), dtype=object)
    array[:] = items
    return array
