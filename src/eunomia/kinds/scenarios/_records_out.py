"""A scenario run's cases as neutral records (JSON Lines, JUnit XML, the Markdown summary).

A case passes when it was scored, is fully correct (exactly the expected instructions came
back and no SGI id that is not the scenario's) and meets every credit expectation it has
(``expected_credits``). The reason of one that did not says how many instructions were
missing or extra and which credit expectations were not met; the diff names them (``-
criterion/instruction`` expected but not returned, ``+ criterion/instruction`` returned but
not expected, ``! credits instruction 1: expected == 0, got 2``). A case of an unlabelled
scenario (nothing expected) passes when it was scored and meets its credit expectations:
its correctness is not measured.
"""

from __future__ import annotations

from collections.abc import Iterator

from eunomia.exports import ResultRecord, outcome_of
from eunomia.kinds.scenarios._points_out import unmet_credit_checks
from eunomia.kinds.scenarios._records import outcome_from_row, stored_scenario
from eunomia.scenarios import Scenario
from eunomia.scoring import CaseOutcome, CaseScore, CaseStatus
from eunomia.store import RunInfo, RunStore


def scenario_records(store: RunStore, run: RunInfo) -> Iterator[ResultRecord]:
    """Every stored case of ``run``, rescored from its stored response, by suite and target."""
    for suite in store.suites(run):
        scenario, prices = stored_scenario(store, suite.definition, suite.prices)
        for row in store.iter_cases(run, suite.name):  # ordered by target, case, repeat
            yield record_of(run, scenario, outcome_from_row(store, scenario, prices, row))


def _name(scenario: Scenario, sgi: int) -> str:
    ins = scenario.instructions[sgi]
    return f"{scenario.criteria[ins.criterion_id - 1].textual_id}/{ins.textual_id}"


def _names(scenario: Scenario, ids: tuple[int, ...]) -> list[str]:
    return [_name(scenario, i) for i in ids]


def _diff(scenario: Scenario, s: CaseScore, unmet: list[str]) -> str | None:
    lines: list[str] = []
    if s.labelled:
        lines += [f"- {_name(scenario, i)}" for i in s.missing]
        lines += [f"+ {_name(scenario, i)}" for i in s.extra]
        lines += [f"+ SGI id {i} (not an instruction of this scenario)" for i in s.unrecognized]
    lines += [f"! credits {u}" for u in unmet]
    return "\n".join(lines) or None


def _reason(scenario: Scenario, s: CaseScore, unmet: list[str]) -> str:
    reasons: list[str] = []
    if s.labelled and not s.fully_correct:
        parts = [f"{len(s.missing)} instruction(s) missing", f"{len(s.extra)} extra"]
        if s.unrecognized:
            parts.append(f"{len(s.unrecognized)} unknown SGI id(s)")
        reasons.append(f"not fully correct: {', '.join(parts)} (score {s.score_percent:.1f}%)")
    if s.points is not None and unmet:
        names = [scenario.instructions[c.instruction].textual_id
                 for c in s.points.checks if not c.met]
        reasons.append(f"{len(unmet)} of {len(s.points.checks)} credit expectation(s) not met "
                       f"(instruction {', '.join(names)})")
    return "; ".join(reasons)


def record_of(run: RunInfo, scenario: Scenario, outcome: CaseOutcome) -> ResultRecord:
    """One rescored case as a record."""
    s = outcome.score
    scored = outcome.status is CaseStatus.SCORED and s is not None
    labelled = s is not None and s.labelled
    points = s.points if s is not None else None
    unmet = unmet_credit_checks(scenario, points)
    passed = scored and (not labelled or (s is not None and s.fully_correct)) and not unmet
    reason = None
    if not scored:
        reason = outcome.error or outcome.status.value
    elif not passed and s is not None:
        reason = _reason(scenario, s, unmet)
    case = scenario.case_named(outcome.case)
    cost = outcome.cost.total_cost  # None: unknown (the same answer as every output)
    return ResultRecord(
        run=run.name, kind=run.kind, suite=outcome.scenario, case=outcome.case,
        target=outcome.target, repeat=outcome.repeat, status=outcome.status.value,
        outcome=outcome_of(outcome.status.value, passed), passed=passed,
        score=s.score_percent if s is not None and labelled else None, score_scale="%",
        reason=reason, diff=_diff(scenario, s, unmet) if s is not None else None,
        error=outcome.error, cost=cost, latency_s=outcome.request_time_s,
        input_tokens=outcome.cost.input_tokens, output_tokens=outcome.cost.output_tokens,
        attempts=outcome.attempts, cached=outcome.cached,
        expected=_names(scenario, s.expected) if s is not None and labelled else None,
        returned=_names(scenario, s.returned) if s is not None else None,
        missing=_names(scenario, s.missing) if s is not None and labelled else None,
        extra=_names(scenario, s.extra) if s is not None and labelled else None,
        fully_correct=s.fully_correct if s is not None and labelled else None,
        detected=s.detected_correctly if s is not None and labelled else None,
        awarded_points=points.awarded if points is not None and scored else None,
        tutor_points=case.tutor.points if case is not None and case.tutor is not None
        else None,
        credit_expectations_met=not unmet if points is not None and points.checks else None,
        credit_expectations_not_met=unmet if points is not None and points.checks else None,
    )
