"""``sms.batching.GroupWriter``: rows added from many threads are written in few batches;
each ``add`` returns only once its rows are written, and a batch that fails fails every
``add`` whose rows it held, and no other."""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from hideseek_chat.sms.batching import GroupWriter


class Store:
    """A slow store: the first write waits until told, so that others queue behind it."""

    def __init__(self, fail_on: int | None = None) -> None:
        self.batches: list[list[int]] = []
        self.release = threading.Event()
        self.writing = threading.Event()
        self.fail_on = fail_on

    def write(self, rows: list[int]) -> None:
        self.writing.set()
        self.release.wait(5)
        if self.fail_on in rows:
            raise RuntimeError("disk full")
        self.batches.append(list(rows))

    def written(self) -> set[int]:
        return {row for batch in self.batches for row in batch}


def _queue_behind_first(
    writer: GroupWriter[int], store: Store, pool: ThreadPoolExecutor
) -> list[Future[None]]:
    first = pool.submit(writer.add, [0])
    assert store.writing.wait(5)
    later = [pool.submit(writer.add, [n]) for n in range(1, 6)]
    return [first, *later]


def test_rows_that_wait_go_in_one_batch_and_each_add_returns_once_written() -> None:
    store = Store()
    writer: GroupWriter[int] = GroupWriter(store.write)
    with ThreadPoolExecutor(6) as pool:
        adds = _queue_behind_first(writer, store, pool)
        while sum(writer._waiters.values()) < 5:  # every later add is waiting
            threading.Event().wait(0.001)
        assert not any(add.done() for add in adds)
        store.release.set()
        for add in adds:
            add.result(5)
            assert add.done()
    assert store.batches[0] == [0]
    assert sorted(store.batches[1]) == [1, 2, 3, 4, 5], "the five that waited share a write"
    assert len(store.batches) == 2


def test_a_failed_batch_fails_the_adds_whose_rows_it_held_only() -> None:
    store = Store(fail_on=3)
    writer: GroupWriter[int] = GroupWriter(store.write)
    with ThreadPoolExecutor(6) as pool:
        adds = _queue_behind_first(writer, store, pool)
        while sum(writer._waiters.values()) < 5:
            threading.Event().wait(0.001)
        store.release.set()
        adds[0].result(5)  # its own batch was written
        for add in adds[1:]:
            with pytest.raises(RuntimeError, match="disk full"):
                add.result(5)
    assert store.written() == {0}
    assert not writer._failed and not writer._waiters, "nothing is kept after"
    writer.add([9])  # the writer goes on
    assert 9 in store.written()
