"""Per-process caches with a size cap: the least recently used entry goes first.

::

    states = LRU[int, tuple[int | None, GameState]](4096, spent=lambda v: v[1].is_over)
    states[game_id] = (stamp, state)
    cached = states.get(game_id)        # a hit makes the entry the most recent

A cache of everything ever seen grows with the bot's history (every game ever played), so
each cache here holds at most ``cap`` entries. Entries that ``spent`` says are done with (a
finished game) go before any other, the least recently used of them first. Safe to use from
the threads the drive loop runs store calls in; whatever is let go is read from the store
again when next needed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, MutableMapping
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LRU(MutableMapping[K, V]):
    """A mapping of at most ``cap`` entries; see the module docstring."""

    def __init__(self, cap: int, spent: Callable[[V], bool] | None = None) -> None:
        if cap < 1:
            raise ValueError("an LRU cache holds at least one entry")
        self.cap = cap
        self._spent = spent
        self._lock = threading.Lock()
        self._live: OrderedDict[K, V] = OrderedDict()  # least recently used first
        self._done: OrderedDict[K, V] = OrderedDict()  # entries ``spent`` says are done

    def __getitem__(self, key: K) -> V:
        with self._lock:
            for entries in (self._live, self._done):
                if key in entries:
                    entries.move_to_end(key)
                    return entries[key]
        raise KeyError(key)

    def __setitem__(self, key: K, value: V) -> None:
        with self._lock:
            self._live.pop(key, None)
            self._done.pop(key, None)
            spent = self._spent is not None and self._spent(value)
            (self._done if spent else self._live)[key] = value
            while len(self._live) + len(self._done) > self.cap:
                (self._done or self._live).popitem(last=False)

    def __delitem__(self, key: K) -> None:
        with self._lock:
            if self._live.pop(key, _MISSING) is _MISSING and (
                self._done.pop(key, _MISSING) is _MISSING
            ):
                raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return key in self._live or key in self._done

    def __len__(self) -> int:
        return len(self._live) + len(self._done)

    def __iter__(self) -> Iterator[K]:
        with self._lock:
            keys = [*self._done, *self._live]
        return iter(keys)


_MISSING = object()
