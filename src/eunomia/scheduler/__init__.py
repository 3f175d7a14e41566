"""Scheduling of outside calls: retry policy, Retry-After, adaptive concurrency, worker pool."""

from eunomia.scheduler._errors import CallError, internal_error, retryable_status
from eunomia.scheduler._limiter import AdaptiveLimiter
from eunomia.scheduler._options import RunOptions
from eunomia.scheduler._pool import stream_results
from eunomia.scheduler._retry import Attempted, RetryPolicy, call_with_retry
from eunomia.scheduler._retry_after import parse_retry_after

__all__ = [
    "AdaptiveLimiter",
    "Attempted",
    "CallError",
    "RetryPolicy",
    "RunOptions",
    "call_with_retry",
    "internal_error",
    "parse_retry_after",
    "retryable_status",
    "stream_results",
]
