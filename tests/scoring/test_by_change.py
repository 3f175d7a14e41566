"""Detection by element type, kind of change and operator, localization, and the clustered
score interval of a summary, on cases graded by the rule-based example module (its
feedback names elements: ``elementIds``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eunomia.apollon import parse_diagram
from eunomia.athena import AthenaFeedback
from eunomia.example_server.grading import grade
from eunomia.kinds.scenarios import ScenarioSummary
from eunomia.mutation import generate, write_scenario
from eunomia.scenarios import Scenario, load_scenario
from eunomia.scoring import (
    CaseOutcome,
    CaseStatus,
    case_diffs,
    localization,
    named_elements,
    rates_by_change,
    score_case,
)

ROOT = Path(__file__).resolve().parents[2]
PM = ROOT / "examples" / "scenarios" / "project_management"


def _outcomes(scenario: Scenario, repeats: int = 1) -> list[CaseOutcome]:
    exercise = scenario.athena_exercise()
    out = []
    for case in scenario.test_cases:
        feedback = grade(exercise, case.submission_id,
                         parse_diagram(json.loads(case.submission)))
        for r in range(repeats):
            out.append(CaseOutcome(scenario.name, case.name, CaseStatus.SCORED,
                                   score=score_case(scenario, case, feedback),
                                   feedback=feedback, repeat=r))
    return out


@pytest.fixture(scope="module")
def hand_made() -> Scenario:
    scenario, _ = load_scenario(PM)
    assert scenario is not None
    return scenario


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory, hand_made: Scenario) -> Scenario:
    out = tmp_path_factory.mktemp("gen") / "gen"
    write_scenario(hand_made, generate(hand_made, 40, seed=9), out, seed=9, command="test")
    scenario, _ = load_scenario(out)
    assert scenario is not None
    return scenario


def test_rates_by_element_type_and_change_on_hand_made_cases(hand_made: Scenario) -> None:
    outcomes = _outcomes(hand_made)
    rows = rates_by_change(hand_made, outcomes, case_diffs(hand_made))
    by = {(r.grouping, r.key): r for r in rows}
    # every case once per group; the example module detects each case below except
    # job_instead_of_task (a synonym) and redundant_project_attribute (not an extra class)
    classes = by[("element_type", "Class")]
    assert classes.cases == 4  # missing_task_class, extra_class, job_.., lowercase_..
    detected = {o.case: o.score.detected_correctly for o in outcomes if o.score}
    assert classes.detection_rate == pytest.approx(
        sum(detected[c] for c in ("missing_task_class", "extra_class", "job_instead_of_task",
                                  "lowercase_class_names")) / 4)
    attribute = by[("element_type", "ClassAttribute")]
    assert attribute.cases == 3 and attribute.detection is not None
    assert attribute.detection.too_few  # 3 cases: say so, no interval that means nothing
    assert by[("change", "(no change)")].cases == 1  # perfect_solution
    assert not [r for r in rows if r.grouping == "operator"]  # none generated


def test_generated_cases_are_counted_by_operator(generated: Scenario) -> None:
    outcomes = _outcomes(generated)
    rows = rates_by_change(generated, outcomes, case_diffs(generated))
    operators = {r.key: r for r in rows if r.grouping == "operator"}
    ops = {op for c in generated.test_cases for op, _ in c.mutations}
    assert set(operators) == ops
    assert sum(r.generated for r in operators.values()) == sum(
        len(dict.fromkeys(op for op, _ in c.mutations)) for c in generated.test_cases)
    detected = {o.case: o.score.detected_correctly for o in outcomes if o.score}
    for op, row in operators.items():
        cases = [c.name for c in generated.test_cases if op in {m for m, _ in c.mutations}]
        assert row.cases == len(cases)
        assert row.detection_rate == pytest.approx(sum(detected[c] for c in cases) / len(cases))


def test_repeats_count_once_per_case(hand_made: Scenario) -> None:
    once = rates_by_change(hand_made, _outcomes(hand_made), case_diffs(hand_made))
    thrice = rates_by_change(hand_made, _outcomes(hand_made, 3), case_diffs(hand_made))
    assert [(r.key, r.cases, r.detection_rate) for r in once] \
        == [(r.key, r.cases, r.detection_rate) for r in thrice]


def test_localization_of_the_example_modules_feedback(generated: Scenario) -> None:
    rows = localization(generated, _outcomes(generated), case_diffs(generated))
    assert rows and all(r.on_change <= r.naming <= r.items for r in rows)
    assert sum(r.items for r in rows) > 0
    retyped = next((r for r in rows if r.element_type == "ClassComposition"), None)
    if retyped is not None and retyped.naming:
        # the relationship check names the relationship and both classes: on the change
        assert retyped.rate == 1.0


def test_named_elements_reads_both_fields() -> None:
    item = AthenaFeedback(element_ids=["Class:abc", "def"], reference="ClassAttribute:ghi")
    assert named_elements(item) == {"abc", "def", "ghi"}


def test_a_summary_counts_a_cases_repeats_as_one(hand_made: Scenario) -> None:
    once, twice = ScenarioSummary(hand_made), ScenarioSummary(hand_made)
    for o in _outcomes(hand_made):
        once.add(o)
    for o in _outcomes(hand_made, 2):
        twice.add(o)
    a, b = once.score_interval(), twice.score_interval()
    assert a is not None and b is not None
    assert (a.estimate, a.low, a.high, a.n) == (b.estimate, b.low, b.high, 14)
    power = twice.power(effect=5)
    assert power.n == 14 and power.mde is not None and power.needed is not None
