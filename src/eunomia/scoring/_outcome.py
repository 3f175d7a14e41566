"""The outcome of one test case, and a scored and priced outcome from a target's response
(live runs and exports alike)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from eunomia.athena import AthenaFeedback
from eunomia.metering import CaseUsage
from eunomia.pricing import CostLine, CostSummary, PriceTable, TokenCount
from eunomia.scenarios import BASELINE_TARGETS, Scenario, TestCase
from eunomia.scoring._metered import metered_cost, reported_tokens
from eunomia.scoring._sgi import CaseScore, score_case
from eunomia.targets import TargetResponse


class CaseStatus(StrEnum):
    SCORED = "scored"
    """The target answered validly and the answer was scored."""
    FAILED = "failed"
    """The target could not give a valid answer (after retries)."""
    INVALID = "invalid"
    """The test case file itself is unusable (bad JSON...)."""


@dataclass(slots=True)
class CaseOutcome:
    """One finished test case (one repeat, one target), as the outputs read it."""

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
    attempt_log: tuple[str, ...] = ()
    """Each attempt's outcome when there was more than one (``("HTTP 503", "ok")``)."""
    reported_cost: float | None = None
    """The cost the system reported itself (Athena's ``totalUsage.cost``), beside ours."""
    metered: CaseUsage | None = None
    """The LLM calls metered on the wire for this case: ``cost`` is theirs then."""
    reported_tokens: tuple[int, int] | None = None
    """Input and output tokens the system reported itself, when ``cost`` is the metered one."""

    @property
    def ok(self) -> bool:
        return self.status is CaseStatus.SCORED


def build_outcome(
    scenario: Scenario,
    case_name: str,
    response: TargetResponse,
    prices: PriceTable,
    *,
    case: TestCase,
    attempts: int,
    latency_s: float | None,
    repeat: int,
    target: str,
    cached: bool = False,
    request_hash: str | None = None,
    response_hash: str | None = None,
    attempt_log: tuple[str, ...] = (),
) -> CaseOutcome:
    """Score and price a response. The live run and ``eunomia export`` both use this.

    The cost is that of the metered calls when the run metered them, else that of the usage
    the system reported; a system that reported none has an unknown cost (never 0), except
    the baselines, which make no call."""
    if response.metered is not None:
        cost = metered_cost(response.metered, prices)
    elif response.usage:
        cost = prices.summarize(
            TokenCount(u.model, u.num_input_tokens, u.num_output_tokens,
                       u.num_cached_input_tokens)
            for u in response.usage)
    elif target in BASELINE_TARGETS:  # no call: known to cost nothing
        cost = CostSummary((CostLine(target, 0, 0, 0, 0.0, 0.0),))
    else:
        cost = CostSummary()
    return CaseOutcome(
        scenario.name,
        case_name,
        CaseStatus.SCORED,
        score=score_case(scenario, case, response.feedback),
        attempts=attempts,
        request_time_s=latency_s,
        cost=cost,
        feedback=response.feedback,
        raw=response.raw,
        repeat=repeat,
        target=target,
        cached=cached,
        request_hash=request_hash,
        response_hash=response_hash,
        attempt_log=attempt_log,
        reported_cost=response.reported_cost,
        metered=response.metered,
        reported_tokens=reported_tokens(response.usage) if response.metered else None,
    )
