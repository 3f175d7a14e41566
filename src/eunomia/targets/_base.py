"""What every system under test looks like to the engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from eunomia.athena import AthenaFeedback, LLMRequestUsage
from eunomia.scenarios import Scenario, TestCase
from eunomia.scheduler import CallError


@dataclass(slots=True)
class TargetResponse:
    """Feedback for one test case, as the engine scores it."""

    feedback: list[AthenaFeedback]
    usage: list[LLMRequestUsage] = field(default_factory=list)
    latency_s: float = 0.0
    """Wall time of the successful attempt."""
    raw: Any = None
    """The decoded response body (or the engine's own output), kept for the results."""


TargetError = CallError
"""A failed attempt at getting feedback (retryable ones are retried by the scheduler)."""


class FeedbackTarget(Protocol):
    """A system that gives feedback on a submission (an Athena server, a built-in engine...)."""

    name: str
    """Short description for results, e.g. ``athena:http://host/...``."""

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    async def feedback(self, scenario: Scenario, case: TestCase) -> TargetResponse:
        """One attempt. Raise :class:`TargetError` on failure; the scheduler retries."""
        ...
