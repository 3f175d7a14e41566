"""The record of one finished test case, as it flows from the runner to the outputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from eunomia.athena import AthenaFeedback
from eunomia.pricing import CostSummary

if TYPE_CHECKING:  # imported for annotations only: scoring imports this module
    from eunomia.scoring import CaseScore


class CaseStatus(StrEnum):
    SCORED = "scored"
    """The target answered validly and the answer was scored."""
    FAILED = "failed"
    """The target could not give a valid answer (after retries)."""
    INVALID = "invalid"
    """The test case file itself is unusable (bad JSON...)."""


@dataclass(frozen=True, slots=True)
class PendingWrites:
    """What the run store must keep with a case: request/response blobs, the cache entry."""

    blobs: list[tuple[str, bytes]] = field(default_factory=list)
    cache: tuple[str, str, float | None] | None = None
    """(cache key, response blob hash, latency) for a fresh, valid answer."""


@dataclass(slots=True)
class CaseOutcome:
    scenario: str
    case: str
    status: CaseStatus
    score: CaseScore | None = None
    error: str | None = None
    attempts: int = 0
    request_time_s: float | None = None
    cost: CostSummary = field(default_factory=CostSummary)
    feedback: list[AthenaFeedback] = field(default_factory=list)
    raw: Any = None
    repeat: int = 0
    target: str = ""
    cached: bool = False
    """The response came from the cache: no request was made."""
    request_hash: str | None = None
    response_hash: str | None = None
    pending: PendingWrites | None = None
    """Set by the runner; the store writes it with the case, in one transaction."""

    @property
    def ok(self) -> bool:
        return self.status is CaseStatus.SCORED
