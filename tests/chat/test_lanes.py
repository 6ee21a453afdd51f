"""Lanes: one chat's updates in arrival order, other chats side by side, a bounded number at
once."""

from __future__ import annotations

import asyncio

import pytest

from hideseek_chat.chat.lanes import Lanes


async def test_a_lanes_work_runs_in_order_even_when_earlier_work_fails() -> None:
    lanes = Lanes()
    done: list[str] = []
    gate = asyncio.Event()

    async def first() -> None:
        await gate.wait()
        done.append("first")
        raise RuntimeError("the handler failed")

    async def second() -> None:
        done.append("second")

    failed = lanes.submit("tg:-1", first)
    after = lanes.submit("tg:-1", second)
    await asyncio.sleep(0)
    assert done == []  # the second waits for the first, however long it takes
    gate.set()
    await lanes.join()
    assert done == ["first", "second"]
    with pytest.raises(RuntimeError):
        failed.result()
    assert after.result() is None


async def test_a_busy_chat_never_holds_up_another_chat() -> None:
    lanes = Lanes()
    stuck = asyncio.Event()
    other_done = asyncio.Event()

    async def busy() -> None:
        await stuck.wait()

    async def other() -> None:
        other_done.set()

    lanes.submit("tg:-1", busy)
    lanes.submit("tg:-1", busy)
    lanes.submit("tg:-2", other)
    await asyncio.wait_for(other_done.wait(), timeout=5)
    assert lanes.busy == 1  # only the busy group still has work
    stuck.set()
    await lanes.join()
    assert lanes.busy == 0


async def test_no_more_lanes_work_at_once_than_the_limit() -> None:
    lanes = Lanes(limit=3)
    running = 0
    most = 0
    release = asyncio.Event()

    async def work() -> None:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await release.wait()
        running -= 1

    for chat in range(10):
        lanes.submit(f"tg:-{chat}", work)
    for _ in range(5):
        await asyncio.sleep(0)
    assert most == 3
    release.set()
    await lanes.join()
    assert most == 3 and running == 0
