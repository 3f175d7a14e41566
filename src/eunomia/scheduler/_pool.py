"""Run many jobs with a fixed number of workers and stream results as they finish.

Workers pull from an iterator, so a run of 100,000 cases never holds 100,000
tasks or results at once; the consumer sees each result as soon as it is ready.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

_DONE = object()


async def stream_results(
    items: Iterable[T], job: Callable[[T], Awaitable[R]], workers: int
) -> AsyncIterator[R]:
    """Yield ``job(item)`` for every item, in completion order, ``workers`` at a time.

    ``job`` must not raise for an ordinary failure: it returns a result that says
    the case failed. An unexpected exception stops the run and is re-raised here
    after the other workers are cancelled.
    """
    source = iter(items)
    queue: asyncio.Queue[object] = asyncio.Queue(maxsize=max(1, workers) * 4)

    async def worker() -> None:
        for item in source:  # one shared iterator: each item is taken exactly once
            await queue.put(await job(item))

    tasks = [asyncio.create_task(worker()) for _ in range(max(1, workers))]

    async def closer() -> None:
        try:
            await asyncio.gather(*tasks)
        except BaseException as exc:  # surface the failure to the consumer
            await queue.put(exc)
        finally:
            await queue.put(_DONE)

    closing = asyncio.create_task(closer())
    try:
        while True:
            got = await queue.get()
            if got is _DONE:
                break
            if isinstance(got, BaseException):
                raise got
            yield got  # type: ignore[misc]
    finally:
        for task in tasks:
            task.cancel()
        closing.cancel()
        await asyncio.gather(*tasks, closing, return_exceptions=True)
