"""Retry policy: which failures are retried, how long to wait, when to give up.

Built on tenacity: exponential backoff with full jitter, except that a server's
``Retry-After`` (carried on :class:`CallError`) is honoured when present.

Retried: connection errors (refused, reset, disconnected), timeouts, 408, 425, 429 and the
5xx statuses but 500. HTTP 500 is retried only with ``RetryPolicy.retry_500``: a system that
failed for a deterministic reason (its LLM's answer did not parse) fails again, and every
attempt may spend LLM tokens that a 500 never reports. Every attempt's outcome is logged
(``Attempted.log``, ``CallError.attempt_log``), so a case says what happened, e.g.
``("HTTP 503", "connection reset", "ok")``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)

from eunomia import defaults
from eunomia.scheduler._body import limit_responses, restore_limit
from eunomia.scheduler._errors import CallError
from eunomia.scheduler._limiter import AdaptiveLimiter

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Operational settings of one kind of call. Never part of a cache key."""

    retries: int = defaults.RETRIES
    timeout_s: float | None = defaults.REQUEST_TIMEOUT_S
    backoff_initial_s: float = defaults.BACKOFF_INITIAL_S
    backoff_max_s: float = defaults.BACKOFF_MAX_S
    retry_after_max_s: float = defaults.RETRY_AFTER_MAX_S
    retry_500: bool = False
    """Retry HTTP 500 too. Off by default: a 500 is mostly deterministic, and the system
    under test may have spent LLM tokens on each attempt without reporting them."""
    max_response_bytes: int | None = None
    """The largest answer body an attempt reads (None: :data:`eunomia.defaults.
    MAX_RESPONSE_BYTES`, 10 MB; ``--max-response-mb`` on the command line); past it the
    attempt fails, not retried (see :mod:`eunomia.scheduler._body`)."""

    def __post_init__(self) -> None:
        if self.max_response_bytes is not None and self.max_response_bytes < 1:
            raise ValueError(f"max_response_bytes must be at least 1, got "
                             f"{self.max_response_bytes}")


OK = "ok"
"""The attempt-log entry of a successful attempt."""


def should_retry(exc: BaseException, policy: RetryPolicy) -> bool:
    """Whether a failed attempt is worth another (retries left aside)."""
    if not isinstance(exc, CallError) or not exc.retryable:
        return False
    return exc.status != 500 or policy.retry_500


class _Wait:
    """Retry-After when the server gave one, otherwise jittered exponential backoff."""

    def __init__(self, policy: RetryPolicy) -> None:
        self._policy = policy
        self._backoff = wait_random_exponential(
            multiplier=policy.backoff_initial_s, max=policy.backoff_max_s
        )

    def __call__(self, state: RetryCallState) -> float:
        outcome = state.outcome
        exc = outcome.exception() if outcome is not None else None
        if isinstance(exc, CallError) and exc.retry_after is not None:
            return min(exc.retry_after, self._policy.retry_after_max_s)
        return float(self._backoff(state))


@dataclass(slots=True)
class Attempted(Generic[T]):
    value: T
    attempts: int
    latency_s: float
    """Wall time of the successful attempt."""
    log: tuple[str, ...] = ()
    """Every attempt's outcome, in order, the last one ``"ok"``: e.g. ``("HTTP 503", "ok")``."""


async def call_with_retry(
    attempt: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    limiter: AdaptiveLimiter | None = None,
) -> Attempted[T]:
    """Run ``attempt`` until it succeeds, fails permanently or runs out of retries.

    Each attempt holds a limiter slot and is bounded by ``policy.timeout_s`` and, in the
    size of the answer it reads, ``policy.max_response_bytes``. The final failure is
    re-raised as a :class:`CallError` whose ``attempts`` says how many tries were made and
    ``attempt_log`` what each of them gave.
    """
    token = limit_responses(policy.max_response_bytes)
    try:
        return await _call_with_retry(attempt, policy, limiter)
    except CallError as exc:
        # Raised without the frames it came through: they hold the attempts' locals (an
        # answer's body, up to the response limit) and, through the retry state, this error
        # itself: a cycle only the cyclic collector frees, and at the command's collector
        # thresholds (defaults.GC_THRESHOLDS) that is seldom: a failed case kept its body.
        # Its context (e.g. a JSONDecodeError holding the body's text) goes too: the reason
        # says what failed.
        exc.__context__ = None
        raise exc.with_traceback(None) from None
    finally:
        restore_limit(token)


async def _call_with_retry(
    attempt: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    limiter: AdaptiveLimiter | None,
) -> Attempted[T]:
    latency = 0.0
    log: list[str] = []

    async def one() -> T:
        nonlocal latency
        started = time.perf_counter()
        try:
            if limiter is None:
                value = await _timed(attempt, policy.timeout_s)
            else:
                async with limiter.slot():
                    started = time.perf_counter()
                    try:
                        value = await _timed(attempt, policy.timeout_s)
                    except CallError as exc:
                        if exc.rate_limited:
                            pause = exc.retry_after
                            if pause is not None:
                                pause = min(pause, policy.retry_after_max_s)
                            limiter.on_rate_limited(pause)
                        raise
                    limiter.on_success()
        except CallError as exc:
            log.append(exc.outcome)
            raise
        except BaseException:
            log.append("error")  # a bug or a cancellation: re-raised as it is
            raise
        latency = time.perf_counter() - started
        log.append(OK)
        return value

    # Fast path: the first attempt is made directly (building tenacity's state costs more
    # than a fast call); only a failure goes through tenacity, which is handed that first
    # failure as its own first attempt, so waits, stops and the raised error are unchanged.
    try:
        value = await one()
    except Exception as exc:  # replayed below
        first: BaseException | None = exc
    else:
        return Attempted(value, len(log), latency, tuple(log))
    retrying = AsyncRetrying(
        stop=stop_after_attempt(policy.retries + 1),
        wait=_Wait(policy),
        retry=retry_if_exception(lambda exc: should_retry(exc, policy)),
        reraise=True,
    )
    try:
        async for try_state in retrying:
            with try_state:
                if first is not None:
                    failed, first = first, None
                    raise failed
                value = await one()
    except CallError as exc:
        exc.attempts = len(log)
        exc.attempt_log = tuple(log)
        raise
    return Attempted(value, len(log), latency, tuple(log))


async def _timed(attempt: Callable[[], Awaitable[T]], timeout_s: float | None) -> T:
    if timeout_s is None:
        return await attempt()
    try:
        async with asyncio.timeout(timeout_s):
            return await attempt()
    except TimeoutError:
        raise CallError(f"timed out after {timeout_s:g} s", retryable=True,
                        label=f"timeout after {timeout_s:g} s") from None
