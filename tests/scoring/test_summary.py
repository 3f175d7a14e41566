"""ScenarioSummary: counts, averages over scored cases, miss rates, failures and costs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from eunomia.athena import AthenaFeedback
from eunomia.kinds.scenarios import ScenarioSummary
from eunomia.pricing import CostSummary, ModelPrice, PriceTable, TokenCount
from eunomia.scenarios import Scenario, load_scenario
from eunomia.scoring import CaseOutcome, CaseStatus, score_case

DIAGRAM = {"version": "3.0.0", "type": "ClassDiagram", "elements": {}, "relationships": {}}

# ids: classes 1 classes_correct (1) / 2 classes_incorrect (0)
#      relationship 3 relationship_correct (1) / 4 relationship_incorrect (0)
MANIFEST = {
    "exercise": {"title": "Project management", "max_points": 2},
    "criteria": [
        {"id": "classes", "instructions": [
            {"id": "classes_correct", "credits": 1.0},
            {"id": "classes_incorrect", "credits": 0.0},
        ]},
        {"id": "relationship", "instructions": [
            {"id": "relationship_correct", "credits": 1.0},
            {"id": "relationship_incorrect", "credits": 0.0},
        ]},
    ],
    "default_expected": ["classes_correct", "relationship_correct"],
    "test_case_diffs": {"relationship_correct": {"assoc": "relationship_incorrect"}},
}

PRICES = PriceTable({
    "gpt-4o": ModelPrice(input_cost_per_million=2.5, output_cost_per_million=10.0),
})


@pytest.fixture
def scenario(tmp_path: Path) -> Scenario:
    folder = tmp_path / "demo"
    (folder / "test_cases").mkdir(parents=True)
    (folder / "manifest.yml").write_text(yaml.safe_dump(MANIFEST), encoding="utf-8")
    for name in ("perfect", "assoc", "broken"):
        (folder / "test_cases" / f"{name}.json").write_text(json.dumps(DIAGRAM), "utf-8")
    loaded, diags = load_scenario(folder)
    assert loaded is not None, [str(d) for d in diags]
    assert loaded.by_textual_id["relationship_incorrect"].id == 4
    return loaded


def scored(
    scenario: Scenario,
    case_name: str,
    *sgis: int,
    cost: CostSummary | None = None,
    request_time_s: float | None = 1.0,
) -> CaseOutcome:
    case = next(c for c in scenario.test_cases if c.name == case_name)
    fb = [AthenaFeedback(structured_grading_instruction_id=i) for i in sgis]
    return CaseOutcome(
        scenario=scenario.name,
        case=case_name,
        status=CaseStatus.SCORED,
        score=score_case(scenario, case, fb),
        attempts=1,
        request_time_s=request_time_s,
        cost=cost if cost is not None else CostSummary(),
        feedback=fb,
    )


def test_empty_summary(scenario: Scenario) -> None:
    summary = ScenarioSummary(scenario)
    assert (summary.total, summary.scored, summary.failed) == (0, 0, 0)
    assert summary.average_score_percent is None
    assert summary.total_cost is None
    assert summary.average_cost is None
    assert summary.average_request_time_s is None
    assert set(summary.criteria) == {1, 2}
    assert set(summary.instructions) == {1, 2, 3, 4}
    assert all(s.miss_rate is None for s in summary.instructions.values())
    assert all(c.miss_rate is None for c in summary.criteria.values())


def test_counts_and_averages_over_scored_cases_only(scenario: Scenario) -> None:
    summary = ScenarioSummary(scenario)
    summary.add(scored(scenario, "perfect", 1, 3, request_time_s=2.0))  # fully correct, 100 %
    summary.add(scored(scenario, "assoc", 1, 3, request_time_s=4.0))  # 4 missed: 1/3 → 33.3 %
    summary.add(CaseOutcome(scenario.name, "timeout_case", CaseStatus.FAILED,
                            error="timed out after 120 s", attempts=4, request_time_s=None))
    summary.add(CaseOutcome(scenario.name, "broken", CaseStatus.INVALID,
                            error="invalid JSON at line 1 column 2"))
    assert summary.total == 4
    assert summary.scored == 2
    assert summary.failed == 2
    assert summary.fully_correct == 1
    assert summary.score_matched == 1  # assoc: expected 1, returned 2
    assert summary.detected == 1
    assert summary.average_score_percent == pytest.approx((100.0 + 100 * 1 / 3) / 2)
    assert summary.average_request_time_s == pytest.approx(3.0)


def test_failures_keep_status_reason_and_attempts(scenario: Scenario) -> None:
    summary = ScenarioSummary(scenario)
    summary.add(CaseOutcome(scenario.name, "a", CaseStatus.FAILED,
                            error="HTTP 500: boom", attempts=4))
    summary.add(CaseOutcome(scenario.name, "b", CaseStatus.INVALID, error="not UTF-8 text"))
    summary.add(CaseOutcome(scenario.name, "c", CaseStatus.FAILED))  # no reason given
    # SCORED without a score cannot be averaged: it is a failure too
    summary.add(CaseOutcome(scenario.name, "d", CaseStatus.SCORED, score=None, attempts=1))
    assert [(f.case, f.status, f.reason, f.attempts) for f in summary.failures] == [
        ("a", CaseStatus.FAILED, "HTTP 500: boom", 4),
        ("b", CaseStatus.INVALID, "not UTF-8 text", 0),
        ("c", CaseStatus.FAILED, "unknown", 0),
        ("d", CaseStatus.SCORED, "unknown", 1),
    ]
    assert summary.failed == 4 and summary.scored == 0
    assert summary.average_score_percent is None
    assert all(s.expected == 0 for s in summary.instructions.values())


def test_per_instruction_and_per_criterion_miss_rates(scenario: Scenario) -> None:
    summary = ScenarioSummary(scenario)
    summary.add(scored(scenario, "perfect", 1, 3))  # nothing missed
    summary.add(scored(scenario, "assoc", 1, 3))  # 4 missed, 3 returned unexpectedly
    summary.add(scored(scenario, "assoc", 4))  # 1 missed
    summary.add(scored(scenario, "perfect", 2, 3))  # 1 missed, 2 unexpected
    ins = summary.instructions
    assert (ins[1].expected, ins[1].missed, ins[1].returned_unexpected) == (4, 2, 0)
    assert ins[1].miss_rate == pytest.approx(0.5)
    assert (ins[2].expected, ins[2].missed, ins[2].returned_unexpected) == (0, 0, 1)
    assert ins[2].miss_rate is None
    assert (ins[3].expected, ins[3].missed, ins[3].returned_unexpected) == (2, 0, 1)
    assert ins[3].miss_rate == 0.0
    assert (ins[4].expected, ins[4].missed) == (2, 1)
    assert ins[4].miss_rate == pytest.approx(0.5)
    crit = summary.criteria
    assert (crit[1].cases, crit[1].missed) == (4, 2)
    assert crit[1].miss_rate == pytest.approx(0.5)
    assert (crit[2].cases, crit[2].missed) == (4, 1)
    assert crit[2].miss_rate == pytest.approx(0.25)


def test_criterion_is_counted_once_per_case(tmp_path: Path) -> None:
    manifest = {
        "exercise": {"title": "T", "max_points": 2},
        "criteria": [{"id": "c", "instructions": [
            {"id": "a", "credits": 1.0}, {"id": "b", "credits": 1.0},
        ]}],
        "default_expected": ["a", "b"],
    }
    folder = tmp_path / "one"
    (folder / "test_cases").mkdir(parents=True)
    (folder / "manifest.yml").write_text(yaml.safe_dump(manifest), encoding="utf-8")
    (folder / "test_cases" / "x.json").write_text(json.dumps(DIAGRAM), "utf-8")
    sc, _ = load_scenario(folder)
    assert sc is not None
    summary = ScenarioSummary(sc)
    summary.add(scored(sc, "x"))  # both missed
    summary.add(scored(sc, "x", 1))  # one missed
    summary.add(scored(sc, "x", 1, 2))  # none missed
    assert (summary.criteria[1].cases, summary.criteria[1].missed) == (3, 2)


def test_known_costs_are_summed_and_averaged(scenario: Scenario) -> None:
    cost = PRICES.summarize([TokenCount("gpt-4o", 1_000_000, 100_000)])  # 2.5 + 1.0
    summary = ScenarioSummary(scenario)
    summary.add(scored(scenario, "perfect", 1, 3, cost=cost))
    summary.add(scored(scenario, "perfect", 1, 3, cost=cost))
    assert summary.total_cost == pytest.approx(7.0)
    assert summary.average_cost == pytest.approx(3.5)
    assert summary.cost_known == 2 and summary.cost_unknown == 0
    assert summary.input_tokens == 2_000_000
    assert summary.output_tokens == 200_000


def test_unknown_cost_is_counted_not_added_as_zero(scenario: Scenario) -> None:
    known = PRICES.summarize([TokenCount("gpt-4o", 1_000_000, 0)])  # 2.5
    unknown = PRICES.summarize([TokenCount("mystery-model", 10, 20)])
    mixed = PRICES.summarize([TokenCount("gpt-4o", 5, 5), TokenCount("other-model", 1, 1)])
    summary = ScenarioSummary(scenario)
    summary.add(scored(scenario, "perfect", 1, 3, cost=unknown))
    assert summary.total_cost is None
    assert summary.average_cost is None
    summary.add(scored(scenario, "perfect", 1, 3, cost=known))
    summary.add(scored(scenario, "perfect", 1, 3, cost=mixed))
    summary.add(scored(scenario, "perfect", 1, 3))  # no LLM usage reported at all
    # unknown: an unpriced model (twice) and a cost nobody measured (once), never 0
    assert summary.cost_unknown == 3 and summary.cost_unreported == 1
    assert summary.cost_known == 1
    assert "reported no token usage on 1 of 4 scored case(s)" in summary.metering_warnings()[0]
    assert summary.unknown_models == {"mystery-model", "other-model"}
    assert summary.total_cost == pytest.approx(2.5)
    assert summary.average_cost == pytest.approx(2.5)
    # tokens are counted whether or not the price is known
    assert summary.input_tokens == 1_000_000 + 10 + 5 + 1
    assert summary.output_tokens == 20 + 5 + 1


def test_no_calls_measured_is_a_known_zero_and_a_failure_counts_no_cost(
        scenario: Scenario) -> None:
    summary = ScenarioSummary(scenario)
    summary.add(scored(scenario, "perfect", 1, 3, cost=PRICES.summarize([])))
    assert (summary.cost_known, summary.cost_unknown, summary.total_cost) == (1, 0, 0.0)
    summary.add(CaseOutcome(scenario.name, "perfect", CaseStatus.FAILED, error="HTTP 500"))
    assert (summary.cost_known, summary.cost_unknown, summary.cost_unreported) == (1, 0, 0)
    assert CostSummary().total_cost is None and CostSummary().total_input_cost is None


def test_failed_case_costs_and_times_still_count(scenario: Scenario) -> None:
    cost = PRICES.summarize([TokenCount("gpt-4o", 1_000_000, 0)])
    summary = ScenarioSummary(scenario)
    summary.add(CaseOutcome(scenario.name, "a", CaseStatus.FAILED, error="bad answer",
                            request_time_s=3.0, cost=cost))
    assert summary.total_cost == pytest.approx(2.5)
    assert summary.average_request_time_s == pytest.approx(3.0)
    assert summary.failed == 1
