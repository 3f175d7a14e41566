"""Run the test cases of one scenario against a target: schedule, score, price, stream out."""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from eunomia import defaults
from eunomia.pricing import PriceTable, TokenCount
from eunomia.records import CaseOutcome, CaseStatus
from eunomia.scenarios import Scenario, TestCase
from eunomia.scheduler import (
    AdaptiveLimiter,
    CallError,
    RetryPolicy,
    call_with_retry,
    stream_results,
)
from eunomia.scoring import score_case
from eunomia.targets import FeedbackTarget


@dataclass(frozen=True, slots=True)
class RunOptions:
    """Operational settings: they change how fast a run goes, never its answers."""

    concurrency: int = defaults.CONCURRENCY
    policy: RetryPolicy = field(default_factory=RetryPolicy)


OutcomeSink = Callable[[CaseOutcome], None]


async def run_scenario(
    scenario: Scenario,
    cases: Sequence[TestCase],
    target: FeedbackTarget,
    prices: PriceTable,
    options: RunOptions,
    on_outcome: OutcomeSink,
) -> None:
    """Evaluate ``cases``; every case ends as exactly one outcome passed to ``on_outcome``."""
    limiter = AdaptiveLimiter(options.concurrency)

    async def job(case: TestCase) -> CaseOutcome:
        try:
            got = await call_with_retry(
                lambda: target.feedback(scenario, case), options.policy, limiter
            )
        except CallError as exc:
            return CaseOutcome(
                scenario.name, case.name, CaseStatus.FAILED,
                error=exc.reason, attempts=exc.attempts,
            )
        except Exception as exc:  # a bug must not lose the rest of the run
            where = traceback.extract_tb(exc.__traceback__)[-1]
            return CaseOutcome(
                scenario.name, case.name, CaseStatus.FAILED,
                error=f"internal error: {type(exc).__name__}: {exc} "
                      f"({where.filename}:{where.lineno})",
                attempts=1,
            )
        response = got.value
        cost = prices.summarize(
            TokenCount(u.model, u.num_input_tokens, u.num_output_tokens, u.num_cached_input_tokens)
            for u in response.usage
        )
        return CaseOutcome(
            scenario.name,
            case.name,
            CaseStatus.SCORED,
            score=score_case(scenario, case, response.feedback),
            attempts=got.attempts,
            request_time_s=response.latency_s or got.latency_s,
            cost=cost,
            feedback=response.feedback,
            raw=response.raw,
        )

    async for outcome in stream_results(cases, job, options.concurrency):
        on_outcome(outcome)
