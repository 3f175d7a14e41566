"""A scenario case as the store keeps it, and back: outcome -> row, stored row -> outcome.

Outcomes are rebuilt from the stored scenario snapshot, price table and response through
the same scoring code as a live run, so every file and report is an export of the store.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from eunomia.kinds import Finished
from eunomia.pricing import PriceTable
from eunomia.scenarios import Scenario, scenario_from_json
from eunomia.scoring import CaseOutcome, CaseStatus, build_outcome
from eunomia.store import CaseRow, RunInfo, RunStore, now
from eunomia.targets import TargetResponse


def case_row(outcome: CaseOutcome) -> CaseRow:
    """The store row of an outcome (its headline score: the test case score %)."""
    s = outcome.score
    return CaseRow(
        suite=outcome.scenario, target=outcome.target, case_name=outcome.case,
        repeat=outcome.repeat, status=outcome.status.value, error=outcome.error,
        attempts=outcome.attempts, latency_s=outcome.request_time_s, cached=outcome.cached,
        score=s.score_percent if s is not None and s.labelled else None,
        input_tokens=outcome.cost.input_tokens, output_tokens=outcome.cost.output_tokens,
        cost=outcome.cost.total_cost,  # None: unknown; a measured no-call case: 0
        request=outcome.request_hash, response=outcome.response_hash, finished=now(),
        attempt_log=outcome.attempt_log,
    )


def finished(outcome: CaseOutcome, blobs: Sequence[tuple[str, bytes]] = (),
             cache: tuple[str, str, float | None] | None = None) -> Finished[CaseOutcome]:
    """What the engine stores of an outcome, with the blobs and cache entry that go with it."""
    asked = outcome.status is not CaseStatus.INVALID and not outcome.cached
    return Finished(case_row(outcome), blobs, cache, outcome,
                    requests=outcome.attempts if asked else 0,
                    cache_hits=int(outcome.cached))


def outcome_from_row(store: RunStore, scenario: Scenario, prices: PriceTable,
                     row: CaseRow) -> CaseOutcome:
    """A stored case, rescored from its stored response."""
    status = CaseStatus(row.status)
    case = scenario.case_named(row.case_name)
    if status is CaseStatus.SCORED and row.response and case is not None:
        response = TargetResponse.from_json(store.get_json(row.response))
        return build_outcome(
            scenario, row.case_name, response, prices, case=case, attempts=row.attempts,
            latency_s=row.latency_s, repeat=row.repeat, target=row.target, cached=row.cached,
            request_hash=row.request, response_hash=row.response, attempt_log=row.attempt_log,
        )
    return CaseOutcome(scenario.name, row.case_name, status, error=row.error,
                       attempts=row.attempts, request_time_s=row.latency_s, repeat=row.repeat,
                       target=row.target, cached=row.cached, request_hash=row.request,
                       attempt_log=row.attempt_log)


def stored_scenario(store: RunStore, definition: str, prices: str
                    ) -> tuple[Scenario, PriceTable]:
    """A scenario and its price table as a run stored them."""
    return (scenario_from_json(store.get_json(definition)),
            PriceTable.from_json(store.get_json(prices)))


def iter_outcomes(store: RunStore, run: RunInfo) -> Iterator[tuple[Scenario, str, CaseOutcome]]:
    """Every stored outcome of a run, rebuilt, with its scenario and target."""
    for suite in store.suites(run):
        scenario, prices = stored_scenario(store, suite.definition, suite.prices)
        for row in store.iter_cases(run, suite.name):
            yield scenario, row.target, outcome_from_row(store, scenario, prices, row)
