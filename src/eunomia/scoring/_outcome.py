"""A scored and priced outcome from a target's response (live runs and exports alike)."""

from __future__ import annotations

from eunomia.pricing import PriceTable, TokenCount
from eunomia.records import CaseOutcome, CaseStatus
from eunomia.scenarios import Scenario, TestCase
from eunomia.scoring._sgi import score_case
from eunomia.targets import TargetResponse


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
) -> CaseOutcome:
    """Score and price a response. The live run and ``eunomia export`` both use this."""
    cost = prices.summarize(
        TokenCount(u.model, u.num_input_tokens, u.num_output_tokens, u.num_cached_input_tokens)
        for u in response.usage
    )
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
    )
