"""AdaptiveLimiter: the in-flight bound, halving on 429, Retry-After pauses, growth."""

from __future__ import annotations

import asyncio
import time

import pytest

from eunomia.scheduler import AdaptiveLimiter


class Gauge:
    """Counts requests in flight and remembers the highest count."""

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0
        self.history: list[int] = []

    def enter(self) -> None:
        self.now += 1
        self.peak = max(self.peak, self.now)
        self.history.append(self.now)

    def leave(self) -> None:
        self.now -= 1


async def run_requests(limiter: AdaptiveLimiter, n: int, gauge: Gauge, hold: float = 0.01,
                       succeed: bool = False) -> None:
    async def one() -> None:
        async with limiter.slot():
            gauge.enter()
            await asyncio.sleep(hold)
            gauge.leave()
            if succeed:
                limiter.on_success()

    await asyncio.wait_for(asyncio.gather(*(one() for _ in range(n))), timeout=10)


def test_rejects_a_zero_maximum() -> None:
    with pytest.raises(ValueError):
        AdaptiveLimiter(0)


@pytest.mark.parametrize("limit", [1, 3, 7])
async def test_never_more_than_limit_in_flight(limit: int) -> None:
    limiter = AdaptiveLimiter(limit)
    gauge = Gauge()
    await run_requests(limiter, 40, gauge)
    assert gauge.peak == limit  # reached, never exceeded
    assert limiter.in_flight == 0


async def test_slot_is_released_when_the_body_raises() -> None:
    limiter = AdaptiveLimiter(1)
    with pytest.raises(RuntimeError):
        async with limiter.slot():
            raise RuntimeError("boom")
    assert limiter.in_flight == 0
    await asyncio.wait_for(run_requests(limiter, 2, Gauge()), 1.0)


async def test_halves_on_rate_limit_down_to_the_minimum() -> None:
    limiter = AdaptiveLimiter(8, min_concurrency=2)
    limiter.on_rate_limited(None)
    assert limiter.limit == 4
    limiter.on_rate_limited(None)
    assert limiter.limit == 2
    limiter.on_rate_limited(None)
    assert limiter.limit == 2
    assert limiter.rate_limited_count == 3
    assert limiter.lowest_limit == 2


async def test_halved_limit_bounds_new_requests() -> None:
    limiter = AdaptiveLimiter(8)
    limiter.on_rate_limited(None)
    limiter.on_rate_limited(None)
    assert limiter.limit == 2
    gauge = Gauge()
    await run_requests(limiter, 20, gauge)
    assert gauge.peak == 2


async def test_pauses_for_retry_after() -> None:
    limiter = AdaptiveLimiter(4)
    limiter.on_rate_limited(0.2)
    began = time.monotonic()
    async with limiter.slot():
        waited = time.monotonic() - began
    assert 0.2 - 0.01 <= waited < 1.0
    assert limiter.limit == 2


async def test_zero_retry_after_does_not_pause() -> None:
    limiter = AdaptiveLimiter(4)
    limiter.on_rate_limited(0.0)
    began = time.monotonic()
    async with limiter.slot():
        pass
    assert time.monotonic() - began < 0.1


async def test_grows_back_after_successes_and_never_above_the_maximum() -> None:
    limiter = AdaptiveLimiter(4)
    limiter.on_rate_limited(None)
    assert limiter.limit == 2
    limiter.on_success()  # 2 + 1/2
    assert limiter.limit == 2
    limiter.on_success()  # 2.5 + 1/2.5 = 2.9
    assert limiter.limit == 2
    limiter.on_success()  # 2.9 + 1/2.9 ≈ 3.24
    assert limiter.limit == 3
    for _ in range(50):
        limiter.on_success()
    assert limiter.limit == 4
    assert limiter.lowest_limit == 2


async def test_queued_requests_use_the_regrown_limit() -> None:
    limiter = AdaptiveLimiter(4)
    limiter.on_rate_limited(None)
    limiter.on_rate_limited(None)
    assert limiter.limit == 1
    gauge = Gauge()
    await run_requests(limiter, 30, gauge, hold=0.01, succeed=True)
    assert limiter.limit == 4
    assert gauge.peak >= 2
