"""An adaptive concurrency limit (additive increase, multiplicative decrease).

Starts at the configured maximum. A rate-limited answer (429) halves the limit
and, when the server sent Retry-After, pauses new requests until then; every
success grows the limit back by about one per ``limit`` successes.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class AdaptiveLimiter:
    def __init__(self, max_concurrency: int, min_concurrency: int = 1) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.max_concurrency = max_concurrency
        self.min_concurrency = max(1, min(min_concurrency, max_concurrency))
        self._limit = float(max_concurrency)
        self._in_flight = 0
        self._paused_until = 0.0
        self._cond = asyncio.Condition()
        self._waiting = 0
        """Requests in the locked path (queued, or paused): while there are any, a new one
        goes through it too, so a release wakes them (no lock is taken when there are none)."""
        self.rate_limited_count = 0
        self.lowest_limit = max_concurrency

    @property
    def limit(self) -> int:
        return max(self.min_concurrency, int(self._limit))

    @property
    def in_flight(self) -> int:
        return self._in_flight

    async def _acquire(self) -> None:
        if not self._waiting and self._in_flight < self.limit \
                and self._paused_until <= time.monotonic():
            self._in_flight += 1  # a free place and nobody ahead: no lock needed
            return
        self._waiting += 1
        try:
            async with self._cond:
                while True:
                    wait = self._paused_until - time.monotonic()
                    if wait > 0:
                        # Release the lock while paused; wake early if notified.
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(self._cond.wait(), timeout=wait)
                        continue
                    if self._in_flight < self.limit:
                        self._in_flight += 1
                        return
                    await self._cond.wait()
        finally:
            self._waiting -= 1

    async def _release(self) -> None:
        self._in_flight -= 1
        if self._waiting:
            async with self._cond:
                # Wake as many waiters as there are free places: after a regrowth that can
                # be more than the one place this release frees.
                self._cond.notify(max(1, self.limit - self._in_flight))

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one of the ``limit`` places for the duration of a request."""
        await self._acquire()
        try:
            yield
        finally:
            await self._release()

    def on_success(self) -> None:
        if self._limit < self.max_concurrency:
            self._limit = min(float(self.max_concurrency), self._limit + 1.0 / self._limit)

    def on_rate_limited(self, retry_after: float | None) -> None:
        self.rate_limited_count += 1
        self._limit = max(float(self.min_concurrency), self._limit / 2.0)
        self.lowest_limit = min(self.lowest_limit, self.limit)
        if retry_after:
            self._paused_until = max(self._paused_until, time.monotonic() + retry_after)
