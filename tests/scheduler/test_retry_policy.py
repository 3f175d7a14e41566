"""Which failures are retried (HTTP 500 only when asked) and the attempt log of every call."""

from __future__ import annotations

import asyncio
import pickle
from collections.abc import Awaitable, Callable

import pytest

from eunomia.executors._model import ChatFailure
from eunomia.executors._target import CallFailure
from eunomia.scheduler import CallError, RetryPolicy, call_with_retry
from eunomia.scheduler._retry import should_retry

FAST = RetryPolicy(retries=3, timeout_s=5.0, backoff_initial_s=0.001, backoff_max_s=0.002)


def steps(*script: CallError | str | float) -> tuple[Callable[[], Awaitable[str]], list[int]]:
    """An attempt failing or succeeding as scripted (a float: sleep that long); counts calls."""
    calls: list[int] = []
    remaining = list(script)

    async def attempt() -> str:
        calls.append(1)
        step = remaining.pop(0)
        if isinstance(step, CallError):
            raise step
        if isinstance(step, float):
            await asyncio.sleep(step)
        return str(step)

    return attempt, calls


def http(status: int) -> CallError:
    return CallError(f"HTTP {status}: boom", retryable=True, status=status)


async def test_500_is_not_retried_by_default() -> None:
    attempt, calls = steps(http(500), "never")
    with pytest.raises(CallError) as info:
        await call_with_retry(attempt, FAST)
    assert len(calls) == 1
    assert (info.value.attempts, info.value.attempt_log) == (1, ("HTTP 500",))


async def test_500_is_retried_when_asked() -> None:
    attempt, calls = steps(http(500), http(500), "fine")
    policy = RetryPolicy(retries=3, timeout_s=5.0, backoff_initial_s=0.001,
                         backoff_max_s=0.002, retry_500=True)
    got = await call_with_retry(attempt, policy)
    assert (got.value, got.attempts, len(calls)) == ("fine", 3, 3)
    assert got.log == ("HTTP 500", "HTTP 500", "ok")


async def test_500_retried_when_asked_gives_up_after_the_retries() -> None:
    attempt, calls = steps(*[http(500)] * 5)
    policy = RetryPolicy(retries=2, timeout_s=5.0, backoff_initial_s=0.001,
                         backoff_max_s=0.002, retry_500=True)
    with pytest.raises(CallError) as info:
        await call_with_retry(attempt, policy)
    assert len(calls) == 3
    assert info.value.attempt_log == ("HTTP 500",) * 3 and info.value.attempts == 3


@pytest.mark.parametrize("status", [408, 425, 429, 502, 503, 504])
async def test_transient_statuses_are_still_retried(status: int) -> None:
    attempt, calls = steps(http(status), "fine")
    got = await call_with_retry(attempt, FAST)
    assert got.log == (f"HTTP {status}", "ok") and got.attempts == len(calls) == 2


async def test_connection_errors_are_retried_and_labelled() -> None:
    reset = CallError("connection reset by the server: [Errno 104]", retryable=True,
                      label="connection reset")
    refused = CallError("cannot connect to http://x", retryable=True, label="cannot connect")
    attempt, calls = steps(reset, refused, http(503), "fine")
    got = await call_with_retry(attempt, FAST)
    assert got.log == ("connection reset", "cannot connect", "HTTP 503", "ok")
    assert got.attempts == len(calls) == 4


async def test_a_reset_after_a_500_is_counted_and_labelled() -> None:
    """The real module's uvicorn may reset the connection right after a 500: with 500s
    retried, the log says which attempt was which."""
    reset = CallError("connection reset", retryable=True, label="connection reset")
    attempt, calls = steps(http(500), reset, http(500), "never")
    policy = RetryPolicy(retries=2, timeout_s=5.0, backoff_initial_s=0.001,
                         backoff_max_s=0.002, retry_500=True)
    with pytest.raises(CallError) as info:
        await call_with_retry(attempt, policy)
    assert info.value.attempt_log == ("HTTP 500", "connection reset", "HTTP 500")
    assert info.value.attempts == len(calls) == 3
    assert info.value.status == 500  # the last attempt's


async def test_timeouts_are_retried_and_labelled_with_the_limit() -> None:
    attempt, calls = steps(1.0, "fine")
    policy = RetryPolicy(retries=1, timeout_s=0.05, backoff_initial_s=0.001,
                         backoff_max_s=0.002)
    got = await call_with_retry(attempt, policy)
    assert got.log == ("timeout after 0.05 s", "ok") and len(calls) == 2


async def test_permanent_failure_logs_one_attempt() -> None:
    attempt, calls = steps(CallError("HTTP 422: no", retryable=False, status=422), "never")
    with pytest.raises(CallError) as info:
        await call_with_retry(attempt, FAST)
    assert info.value.attempt_log == ("HTTP 422",) and len(calls) == 1


async def test_success_at_once_logs_ok() -> None:
    attempt, _ = steps("fine")
    got = await call_with_retry(attempt, FAST)
    assert (got.attempts, got.log) == (1, ("ok",))


def test_should_retry() -> None:
    default, with_500 = RetryPolicy(), RetryPolicy(retry_500=True)
    assert not should_retry(http(500), default)
    assert should_retry(http(500), with_500)
    assert should_retry(http(503), default)
    assert not should_retry(CallError("HTTP 500", retryable=False, status=500), with_500)
    assert not should_retry(ValueError("bug"), with_500)


def test_outcome_labels() -> None:
    assert CallError("x", retryable=True, status=503).outcome == "HTTP 503"
    assert CallError("x", retryable=True, status=500, label="HTTP 500, v2").outcome == (
        "HTTP 500, v2")
    long = CallError("unusable answer: " + "x" * 100, retryable=True)
    assert long.outcome.startswith("unusable answer: ") and len(long.outcome) == 40
    assert CallError("short reason", retryable=True).outcome == "short reason"


def test_failures_keep_the_log_through_pickling() -> None:
    """Ray ships CallFailure / ChatFailure between processes: the log must survive."""
    exc = CallError("HTTP 500: boom", retryable=True, status=500)
    exc.attempts, exc.attempt_log = 2, ("connection reset", "HTTP 500")
    for failure in (CallFailure.of(exc), ChatFailure.of(exc)):
        back = pickle.loads(pickle.dumps(failure))
        assert back == failure
        again = back.error()
        assert (again.attempts, again.attempt_log, again.status) == (
            2, ("connection reset", "HTTP 500"), 500)
