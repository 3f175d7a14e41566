"""The one failure type that flows through the scheduler."""

from __future__ import annotations

import os
import traceback


class CallError(Exception):
    """A failed attempt at an outside call (HTTP request, model call).

    ``retryable`` failures (connection errors, timeouts, 5xx, 429) are retried by
    :func:`eunomia.scheduler.call_with_retry`; the others fail at once.
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
        self.attempts = 1


def retryable_status(status: int) -> bool:
    """Statuses worth another try: 408, 425, 429 and every 5xx."""
    return status in (408, 425, 429) or 500 <= status <= 599


def internal_error(exc: Exception) -> str:
    """The reason recorded for a case whose work raised an unexpected exception (a bug): its
    type, message and where it was raised, so the rest of the run goes on."""
    where = traceback.extract_tb(exc.__traceback__)[-1]
    return (f"internal error: {type(exc).__name__}: {exc} "
            f"({os.path.basename(where.filename)}:{where.lineno})")
