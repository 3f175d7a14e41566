"""The executor seam: a picklable *work* runs picklable *jobs*, here or on a cluster.

A :class:`Work` is what a worker builds once (a target, a model) and then calls for
every job; it must be picklable when the executor is :attr:`Executor.remote`. The
driver keeps everything else — store writes, cache lookups, scoring — so resume,
cache, repeats, reports and comparisons do not depend on where the calls ran.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol, TypeVar

from eunomia.scheduler import AdaptiveLimiter

J = TypeVar("J")
R = TypeVar("R")
J_contra = TypeVar("J_contra", contravariant=True)
R_co = TypeVar("R_co", covariant=True)

Submit = Callable[[J], Awaitable[R]]
"""Run one job where the executor decides; returns its result (awaitable)."""


class Work(Protocol[J_contra, R_co]):
    """A function from a job to a result, with what it needs built once per worker."""

    @property
    def key(self) -> str:
        """Names this work on the workers (one opened instance per worker and key)."""
        ...

    async def open(self) -> None:
        """Build what every job needs (a target, a model): once per worker."""
        ...

    async def close(self) -> None: ...

    async def run(self, job: J_contra, limiter: AdaptiveLimiter) -> R_co:
        """One job. ``limiter`` is shared by every worker of the run (cluster-wide)."""
        ...


class Executor(Protocol):
    """Where jobs run: in this process (``local``) or on a cluster (``ray``)."""

    name: str
    remote: bool
    """True when work and jobs cross process boundaries (they must be picklable)."""

    def session(
        self, work: Work[J, R], concurrency: int
    ) -> AbstractAsyncContextManager[Submit[J, R]]:
        """Open ``work`` on the workers; yields the function that runs one job.

        ``concurrency`` caps the attempts in flight across all workers (one shared
        :class:`AdaptiveLimiter`, so rate limits are not multiplied by the workers).
        """
        ...

    def in_flight(self, concurrency: int) -> int:
        """Jobs the driver keeps submitted at once for a limit of ``concurrency``.

        A remote executor wants a few more than the limit, so that a worker has its
        next job before it is done with the last; the shared limiter still caps calls.
        """
        ...

    def settings(self) -> dict[str, Any]:
        """What to store with a run so that ``--resume`` uses the same executor."""
        ...

    def close(self) -> None: ...


class LocalExecutor:
    """Today's behaviour: jobs run in this event loop with one in-process limiter."""

    name = "local"
    remote = False

    @asynccontextmanager
    async def session(self, work: Work[J, R], concurrency: int) -> AsyncIterator[Submit[J, R]]:
        limiter = AdaptiveLimiter(concurrency)
        await work.open()
        try:

            async def submit(job: J) -> R:
                return await work.run(job, limiter)

            yield submit
        finally:
            await work.close()

    def in_flight(self, concurrency: int) -> int:
        return concurrency

    def settings(self) -> dict[str, Any]:
        return {"executor": self.name}

    def close(self) -> None:
        return None
