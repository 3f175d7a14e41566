"""The one failure type that flows through the scheduler."""

from __future__ import annotations

import os
import traceback

_OUTCOME_CHARS = 40
"""An unlabelled failure without a status is logged as the start of its reason."""


class CallError(Exception):
    """A failed attempt at an outside call (HTTP request, model call).

    ``retryable`` failures (connection errors, timeouts, 5xx, 429) are retried by
    :func:`eunomia.scheduler.call_with_retry` (HTTP 500 only when its policy says so); the
    others fail at once. ``label`` names the attempt's outcome in a few words for the attempt
    log ("connection reset", "timeout after 120 s"); without one it is ``HTTP <status>``.
    """

    def __init__(
        self,
        reason: str,
        *,
        retryable: bool,
        status: int | None = None,
        retry_after: float | None = None,
        rate_limited: bool = False,
        answer_text: str | None = None,
        label: str | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.rate_limited = rate_limited
        self.answer_text = answer_text
        """Set (only) when a model answered but the answer is unusable (not the JSON asked
        for); the full text, kept for the results."""
        self.label = label
        self.attempts = 1
        self.attempt_log: tuple[str, ...] = ()
        """Every attempt's outcome, in order (set by ``call_with_retry``), e.g.
        ``("HTTP 500", "connection reset", "HTTP 500")``."""

    @property
    def outcome(self) -> str:
        """This attempt's outcome in a few words, as the attempt log shows it."""
        if self.label:
            return self.label
        if self.status is not None:
            return f"HTTP {self.status}"
        text = " ".join(self.reason.split())
        return text if len(text) <= _OUTCOME_CHARS else text[:_OUTCOME_CHARS - 1] + "…"


def retryable_status(status: int) -> bool:
    """Statuses that may be transient: 408, 425, 429 and every 5xx. HTTP 500 is retried only
    when the retry policy asks for it (:attr:`RetryPolicy.retry_500`): a server that failed
    for a deterministic reason fails again, and may have spent LLM tokens it never reports."""
    return status in (408, 425, 429) or 500 <= status <= 599


def internal_error(exc: Exception) -> str:
    """The reason recorded for a case whose work raised an unexpected exception (a bug): its
    type, message and where it was raised, so the rest of the run goes on."""
    where = traceback.extract_tb(exc.__traceback__)[-1]
    return (f"internal error: {type(exc).__name__}: {exc} "
            f"({os.path.basename(where.filename)}:{where.lineno})")
