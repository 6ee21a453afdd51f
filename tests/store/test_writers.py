"""SQLite writers of one process take turns: in arrival order, updates before background
work, and a connection lost mid-transaction gives its turn back."""

from __future__ import annotations

import threading
from pathlib import Path

from sqlalchemy import text

from hideseek_chat.store.config import make_engine
from hideseek_chat.store.writers import WriterQueue, in_background


def _queued(queue: WriterQueue, n: int) -> None:
    """Wait until ``n`` turns are in the queue (threads got there: no clock involved)."""
    while len(queue._turns) < n:
        threading.Event().wait(0.001)


def test_updates_go_before_background_work_and_otherwise_first_come_first_served() -> None:
    queue = WriterQueue(timeout=10)
    order: list[str] = []

    def writer(name: str, background: bool) -> None:
        if background:
            in_background()
        assert queue.acquire()
        order.append(name)
        queue.release()

    assert queue.acquire()  # the holder
    threads = []
    for n, (name, background) in enumerate(
        [("timer-1", True), ("timer-2", True), ("update-1", False), ("update-2", False)]
    ):
        thread = threading.Thread(target=writer, args=(name, background))
        thread.start()
        threads.append(thread)
        _queued(queue, n + 2)
    queue.release()
    for thread in threads:
        thread.join()
    assert order == ["update-1", "update-2", "timer-1", "timer-2"]


def test_a_thread_holding_a_turn_is_not_made_to_wait_for_itself() -> None:
    queue = WriterQueue(timeout=10)
    assert queue.acquire()
    assert not queue.acquire()  # its second connection: SQLite decides
    queue.release()
    assert queue.acquire()
    queue.release()


def test_a_waiter_that_times_out_leaves_the_queue() -> None:
    queue = WriterQueue(timeout=0.01)
    assert queue.acquire()
    outcome: list[bool] = []
    thread = threading.Thread(target=lambda: outcome.append(queue.acquire()))
    thread.start()
    thread.join()
    assert outcome == [False] and len(queue._turns) == 1
    queue.release()
    assert queue.acquire()
    queue.release()


def test_a_connection_lost_or_closed_mid_transaction_gives_its_turn_back(
    tmp_path: Path,
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'w.sqlite3'}")
    try:
        with engine.begin() as connection:
            connection.execute(text("CREATE TABLE t (x INTEGER)"))
        lost = engine.connect()
        lost.execute(text("INSERT INTO t VALUES (1)"))
        lost.invalidate()
        closed = engine.connect()
        closed.execute(text("INSERT INTO t VALUES (2)"))
        closed.close()
        done = threading.Event()

        def other() -> None:
            with engine.begin() as connection:
                connection.execute(text("INSERT INTO t VALUES (3)"))
            done.set()

        thread = threading.Thread(target=other)
        thread.start()
        thread.join(timeout=10)
        assert done.is_set()  # not held up by the turns of the two connections gone
        with engine.connect() as connection:
            assert connection.scalar(text("SELECT group_concat(x) FROM t")) == "3"
    finally:
        engine.dispose()
