"""call_with_retry: retryable vs permanent failures, attempts, Retry-After, timeouts."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable

import pytest

from eunomia.scheduler import AdaptiveLimiter, CallError, RetryPolicy, call_with_retry

FAST = RetryPolicy(retries=3, timeout_s=5.0, backoff_initial_s=0.001, backoff_max_s=0.002)


def scripted(*steps: object) -> tuple[Callable[[], Awaitable[str]], list[float]]:
    """An attempt function failing or succeeding as scripted; records each start time."""
    starts: list[float] = []
    remaining = list(steps)

    async def attempt() -> str:
        starts.append(time.monotonic())
        step = remaining.pop(0)
        if isinstance(step, BaseException):
            raise step
        if isinstance(step, float):  # sleep that long, then succeed
            await asyncio.sleep(step)
            return "slow"
        return str(step)

    return attempt, starts


def retryable(reason: str = "HTTP 503", **kw: object) -> CallError:
    return CallError(reason, retryable=True, **kw)  # type: ignore[arg-type]


async def test_success_at_once() -> None:
    attempt, starts = scripted("ok")
    result = await call_with_retry(attempt, FAST)
    assert (result.value, result.attempts) == ("ok", 1)
    assert len(starts) == 1
    assert result.latency_s >= 0.0


async def test_retryable_then_success() -> None:
    attempt, starts = scripted(retryable(status=503), "ok")
    result = await call_with_retry(attempt, FAST)
    assert result.value == "ok"
    assert result.attempts == 2
    assert len(starts) == 2


async def test_non_retryable_fails_at_once() -> None:
    attempt, starts = scripted(CallError("HTTP 422", retryable=False, status=422), "never")
    with pytest.raises(CallError) as info:
        await call_with_retry(attempt, FAST)
    assert info.value.status == 422
    assert info.value.attempts == 1
    assert len(starts) == 1


async def test_other_exceptions_are_not_retried() -> None:
    attempt, starts = scripted(ValueError("bug"), "never")
    with pytest.raises(ValueError, match="bug"):
        await call_with_retry(attempt, FAST)
    assert len(starts) == 1


@pytest.mark.parametrize("retries", [0, 1, 3])
async def test_gives_up_after_retries_plus_one_attempts(retries: int) -> None:
    errors = [retryable(f"HTTP 503 #{n}", status=503) for n in range(retries + 2)]
    attempt, starts = scripted(*errors)
    policy = RetryPolicy(retries=retries, timeout_s=5.0, backoff_initial_s=0.001,
                         backoff_max_s=0.002)
    with pytest.raises(CallError) as info:
        await call_with_retry(attempt, policy)
    assert len(starts) == retries + 1
    assert info.value.attempts == retries + 1
    assert info.value.reason == f"HTTP 503 #{retries}"  # the last failure is re-raised


async def test_retry_after_is_honoured_over_a_tiny_backoff() -> None:
    attempt, starts = scripted(retryable("HTTP 429", status=429, retry_after=0.2), "ok")
    result = await call_with_retry(attempt, FAST)
    assert result.attempts == 2
    waited = starts[1] - starts[0]
    assert waited >= 0.2 - 0.01
    assert waited < 1.0


async def test_retry_after_replaces_a_long_backoff() -> None:
    policy = RetryPolicy(retries=1, timeout_s=5.0, backoff_initial_s=20.0, backoff_max_s=30.0)
    attempt, starts = scripted(retryable("HTTP 503", status=503, retry_after=0.2), "ok")
    result = await asyncio.wait_for(call_with_retry(attempt, policy), timeout=5.0)
    assert result.attempts == 2
    waited = starts[1] - starts[0]
    assert 0.2 - 0.01 <= waited < 1.0  # well below the 30 s backoff maximum


async def test_retry_after_is_capped() -> None:
    policy = RetryPolicy(retries=1, timeout_s=5.0, backoff_initial_s=0.001, backoff_max_s=0.002,
                         retry_after_max_s=0.2)
    attempt, starts = scripted(retryable("HTTP 429", status=429, retry_after=3600.0), "ok")
    result = await asyncio.wait_for(call_with_retry(attempt, policy), timeout=5.0)
    assert result.attempts == 2
    assert 0.2 - 0.01 <= starts[1] - starts[0] < 1.0


async def test_backoff_stays_below_its_maximum() -> None:
    policy = RetryPolicy(retries=3, timeout_s=5.0, backoff_initial_s=0.05, backoff_max_s=0.1)
    attempt, starts = scripted(retryable(), retryable(), retryable(), "ok")
    result = await call_with_retry(attempt, policy)
    assert result.attempts == 4
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert all(g < 0.1 + 0.1 for g in gaps), gaps


async def test_timeout_per_attempt_is_a_retryable_call_error() -> None:
    policy = RetryPolicy(retries=0, timeout_s=0.05)
    attempt, _ = scripted(5.0)
    began = time.monotonic()
    with pytest.raises(CallError) as info:
        await call_with_retry(attempt, policy)
    assert time.monotonic() - began < 1.0
    assert info.value.retryable is True
    assert "timed out" in info.value.reason
    assert info.value.attempts == 1


async def test_timeout_then_success() -> None:
    policy = RetryPolicy(retries=2, timeout_s=0.1, backoff_initial_s=0.001, backoff_max_s=0.002)
    attempt, _ = scripted(5.0, 0.01)
    result = await asyncio.wait_for(call_with_retry(attempt, policy), timeout=3.0)
    assert result.value == "slow"
    assert result.attempts == 2
    # latency is the wall time of the successful attempt only
    assert 0.01 <= result.latency_s < 0.1


async def test_rate_limited_failure_halves_the_limiter() -> None:
    limiter = AdaptiveLimiter(8)
    attempt, _ = scripted(retryable("HTTP 429", status=429, rate_limited=True), "ok")
    result = await call_with_retry(attempt, FAST, limiter)
    assert result.attempts == 2
    assert limiter.rate_limited_count == 1
    assert limiter.lowest_limit == 4
    assert limiter.in_flight == 0


async def test_plain_failure_does_not_touch_the_limiter() -> None:
    limiter = AdaptiveLimiter(8)
    attempt, _ = scripted(retryable("HTTP 503", status=503), "ok")
    await call_with_retry(attempt, FAST, limiter)
    assert limiter.rate_limited_count == 0
    assert limiter.limit == 8
    assert limiter.in_flight == 0


async def test_slot_is_released_after_a_final_failure() -> None:
    limiter = AdaptiveLimiter(1)
    attempt, _ = scripted(CallError("HTTP 400", retryable=False))
    with pytest.raises(CallError):
        await call_with_retry(attempt, FAST, limiter)
    assert limiter.in_flight == 0
    attempt2, _ = scripted("ok")
    assert (await asyncio.wait_for(call_with_retry(attempt2, FAST, limiter), 1.0)).value == "ok"


async def test_limiter_pause_is_capped_like_the_retry_wait() -> None:
    limiter = AdaptiveLimiter(4)
    policy = RetryPolicy(retries=1, timeout_s=5.0, backoff_initial_s=0.001, backoff_max_s=0.002,
                         retry_after_max_s=0.2)
    attempt, _ = scripted(
        retryable("HTTP 429", status=429, retry_after=30.0, rate_limited=True), "ok"
    )
    result = await asyncio.wait_for(call_with_retry(attempt, policy, limiter), timeout=2.0)
    assert result.attempts == 2
