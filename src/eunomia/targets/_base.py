"""What every system under test looks like to the engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import TypeAdapter

from eunomia.athena import AthenaFeedback, LLMRequestUsage
from eunomia.metering import CaseUsage
from eunomia.scenarios import Scenario, TestCase
from eunomia.scheduler import CallError

_FEEDBACK = TypeAdapter(list[AthenaFeedback])
_USAGE = TypeAdapter(list[LLMRequestUsage])
"""Lists dumped in one call: a model_dump per item costs twice as much (~2.5 µs an item)."""


@dataclass(slots=True)
class TargetResponse:
    """Feedback for one test case, as the engine scores it."""

    feedback: list[AthenaFeedback]
    usage: list[LLMRequestUsage] = field(default_factory=list)
    latency_s: float = 0.0
    """Wall time of the successful attempt."""
    raw: Any = None
    """The decoded response body (or the engine's own output), kept for the results."""
    reported_cost: float | None = None
    """The cost the system under test reported itself (Athena: ``meta.totalUsage.cost``), or
    None when it reported none. Kept beside Eunomia's own figure (recomputed from the token
    counts and ``llm_cost.yml``), never used in its place: Athena's prices input tokens at the
    output rate, from prices in its ``.env`` whatever model answered."""
    metered: CaseUsage | None = None
    """The LLM calls metered on the wire for this case (a model server's record), when the
    run meters the system's LLM traffic: Eunomia's cost then comes from these, and ``usage``
    (what the system reported itself) is kept beside them."""

    def to_json(self) -> dict[str, Any]:
        """The normalised response, as stored and cached (``reported_cost`` only when set)."""
        out: dict[str, Any] = {
            "feedback": _FEEDBACK.dump_python(self.feedback, mode="json", by_alias=True),
            "usage": _USAGE.dump_python(self.usage, mode="json", by_alias=True),
            "latency_s": self.latency_s,
            "raw": self.raw,
        }
        if self.reported_cost is not None:
            out["reported_cost"] = self.reported_cost
        if self.metered is not None:
            out["metered"] = self.metered.model_dump(mode="json")
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TargetResponse:
        reported = data.get("reported_cost")
        metered = data.get("metered")
        return cls(
            feedback=[AthenaFeedback.model_validate(f) for f in data.get("feedback", [])],
            usage=[LLMRequestUsage.model_validate(u) for u in data.get("usage", [])],
            latency_s=float(data.get("latency_s") or 0.0),
            raw=data.get("raw"),
            reported_cost=float(reported) if isinstance(reported, int | float)
            and not isinstance(reported, bool) else None,
            metered=CaseUsage.model_validate(metered) if metered is not None else None,
        )


TargetError = CallError
"""A failed attempt at getting feedback (retryable ones are retried by the scheduler)."""


class FeedbackTarget(Protocol):
    """A system that gives feedback on a submission (an Athena server, a built-in engine...)."""

    name: str
    """Short description for results, e.g. ``athena:http://host/...``."""

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    @property
    def cache_identity(self) -> str:
        """What about this target changes its answers (URL, model and settings...).

        Part of every cache key; must not contain secrets or operational settings.
        """
        ...

    def describe_request(self, scenario: Scenario, case: TestCase) -> bytes:
        """The exact request this target sends for a case (stored, and hashed for the cache)."""
        ...

    async def feedback(self, scenario: Scenario, case: TestCase) -> TargetResponse:
        """One attempt. Raise :class:`TargetError` on failure; the scheduler retries."""
        ...
