"""Scheduling of outside calls: retry policy, Retry-After, adaptive concurrency, worker pool,
answers read within a size limit."""

from eunomia.scheduler._body import (
    capped,
    charset_of,
    read_body,
    read_start,
    response_limit,
    size_text,
)
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
    "capped",
    "charset_of",
    "internal_error",
    "parse_retry_after",
    "read_body",
    "read_start",
    "response_limit",
    "retryable_status",
    "size_text",
    "stream_results",
]
