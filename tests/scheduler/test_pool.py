"""stream_results: every item once, the worker bound, laziness, failure propagation."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import textwrap
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import aclosing
from typing import TypeVar

import pytest

from eunomia.scheduler import stream_results

T = TypeVar("T")
R = TypeVar("R")


async def collect(items: Iterable[T], job: Callable[[T], Awaitable[R]], workers: int) -> list[R]:
    return [r async for r in stream_results(items, job, workers)]


async def test_every_item_exactly_once() -> None:
    rng = random.Random(7)
    calls: list[int] = []

    async def job(x: int) -> int:
        calls.append(x)
        await asyncio.sleep(rng.random() / 200)
        return x * 10

    results = await collect(range(100), job, 7)
    assert sorted(calls) == list(range(100))
    assert sorted(results) == [x * 10 for x in range(100)]


async def test_results_stream_in_completion_order() -> None:
    async def job(x: float) -> float:
        await asyncio.sleep(x)
        return x

    assert await collect([0.2, 0.01, 0.1], job, 3) == [0.01, 0.1, 0.2]


@pytest.mark.parametrize("workers", [1, 3, 8])
async def test_concurrency_bound_is_respected(workers: int) -> None:
    now = peak = 0

    async def job(x: int) -> int:
        nonlocal now, peak
        now += 1
        peak = max(peak, now)
        await asyncio.sleep(0.005)
        now -= 1
        return x

    results = await collect(range(40), job, workers)
    assert len(results) == 40
    assert peak == workers


async def test_zero_workers_still_runs_everything() -> None:
    async def job(x: int) -> int:
        return x

    assert sorted(await collect(range(5), job, 0)) == [0, 1, 2, 3, 4]


async def test_items_are_pulled_lazily() -> None:
    pulled = 0
    pulled_at_first_result: list[int] = []

    def items() -> Iterator[int]:
        nonlocal pulled
        for i in range(2000):
            pulled += 1
            yield i

    async def job(x: int) -> int:
        await asyncio.sleep(0)
        return x

    count = 0
    async for _ in stream_results(items(), job, 2):
        if not pulled_at_first_result:
            await asyncio.sleep(0.05)  # a slow consumer: the workers must wait for it
            pulled_at_first_result.append(pulled)
        count += 1
    assert count == 2000
    assert pulled_at_first_result[0] < 100


async def test_an_exception_propagates_and_cancels_the_others() -> None:
    cancelled: set[int] = set()
    finished: set[int] = set()

    async def job(x: int) -> int:
        if x == 3:
            await asyncio.sleep(0.01)
            raise ValueError("job 3 broke")
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.add(x)
            raise
        finished.add(x)
        return x

    began = time.monotonic()
    with pytest.raises(ValueError, match="job 3 broke"):
        await collect(range(8), job, 4)
    assert time.monotonic() - began < 2.0
    assert cancelled == {0, 1, 2}
    assert finished == set()
    await asyncio.sleep(0)
    leftovers = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    assert leftovers == []


async def test_stopping_early_cancels_the_workers() -> None:
    cancelled: list[int] = []

    async def job(x: int) -> int:
        if x == 0:
            return x
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.append(x)
            raise
        return x

    async with aclosing(stream_results(range(5), job, 3)) as stream:  # type: ignore[type-var]
        async for first in stream:
            assert first == 0
            break
    assert sorted(cancelled) == [1, 2, 3]


STOP_EARLY_WITH_A_FULL_QUEUE = textwrap.dedent("""
    import asyncio
    from contextlib import aclosing
    from eunomia.scheduler import stream_results

    async def job(x):
        return x

    async def main(how):
        try:
            async with aclosing(stream_results(range(1000), job, 2)) as stream:
                async for _ in stream:
                    await asyncio.sleep(0.05)  # the workers fill the queue meanwhile
                    if how == "break":
                        break
                    raise RuntimeError("consumer failed")
        except RuntimeError:
            pass
        print("returned")

    asyncio.run(main({how!r}))
""")


@pytest.mark.parametrize("how", ["break", "raise"])
def test_stopping_early_with_a_full_queue_returns(how: str) -> None:
    # run in a child process: the bug is a hang that cannot be cancelled from inside
    try:
        done = subprocess.run(
            [sys.executable, "-c", STOP_EARLY_WITH_A_FULL_QUEUE.format(how=how)],
            capture_output=True, text=True, timeout=5,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("stream_results did not return within 5 s (hang)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "returned"

