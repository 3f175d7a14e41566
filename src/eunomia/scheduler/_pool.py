"""Run many jobs with a fixed number of workers and stream results as they finish.

Workers pull from an iterator, so a run of 100,000 cases never holds 100,000
tasks or results at once; the consumer sees each result as soon as it is ready.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


class _Done:
    """A worker ran out of items."""


@dataclass(slots=True)
class _Failed:
    error: Exception


async def stream_results(
    items: Iterable[T], job: Callable[[T], Awaitable[R]], workers: int,
) -> AsyncIterator[R]:
    """Yield ``job(item)`` for every item, in completion order, ``workers`` at a time.

    ``job`` should not raise for an ordinary failure: it returns a result that says
    the case failed. An unexpected exception stops the run and is re-raised here;
    the other workers are cancelled. Leaving the loop early (break, an exception in
    the consumer, ``aclose``) cancels the workers too.
    """
    source = iter(items)
    count = max(1, workers)
    queue: asyncio.Queue[R | _Done | _Failed] = asyncio.Queue(maxsize=count * 4)

    async def worker() -> None:
        try:
            for item in source:  # one shared iterator: each item is taken exactly once
                await queue.put(await job(item))
        except Exception as exc:  # reported to the consumer, who stops the run
            await queue.put(_Failed(exc))
            return
        await queue.put(_Done())

    tasks = [asyncio.create_task(worker()) for _ in range(count)]
    try:
        running = count
        while running:
            got = await queue.get()
            if isinstance(got, _Done):
                running -= 1
            elif isinstance(got, _Failed):
                raise got.error
            else:
                yield got
    finally:
        for task in tasks:
            task.cancel()  # a worker blocked on a full queue is cancelled there
        await asyncio.gather(*tasks, return_exceptions=True)
