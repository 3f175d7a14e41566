"""Credits, not only ids: points awarded as Artemis totals them, credit expectations, items
whose credits differ from their instruction; and agreement with the tutors' grades."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from eunomia.athena import AthenaFeedback
from eunomia.kinds.scenarios import (
    ScenarioSummary,
    case_points_json,
    points_json,
    points_rows,
    tutor_agreement,
)
from eunomia.scenarios import Scenario, load_scenario
from eunomia.scoring import AgreementPair, CaseOutcome, CaseStatus, agreement, score_case
from eunomia.stats import pearson, spearman

DIAGRAM = {"version": "3.0.0", "type": "ClassDiagram", "elements": {}, "relationships": {}}
CASES = ("a", "b", "c", "d", "e")
TUTOR = {"a": 0.0, "b": 1.0, "c": 2.5, "d": 3.0, "e": 4.0}

# ids: email 1 email_ok (2) / 2 email_missing (0); inherit 3 inherit_ok (2) / 4 inherit_no (0)
MANIFEST: dict[str, Any] = {
    "exercise": {"title": "Shop", "max_points": 4, "bonus_points": 1},
    "criteria": [
        {"id": "email", "instructions": [{"id": "email_ok", "credits": 2.0},
                                         {"id": "email_missing", "credits": 0.0}]},
        {"id": "inherit", "instructions": [{"id": "inherit_ok", "credits": 2.0},
                                           {"id": "inherit_no", "credits": 0.0}]},
    ],
    "default_expected": ["email_ok", "inherit_ok"],
    "expected_credits": {"email_ok": "== 0.0", "inherit_ok": ">= 1.0"},
    "cases": {name: {"tutor": {"points": points}} for name, points in TUTOR.items()},
}


def load(tmp_path: Path, manifest: dict[str, Any] = MANIFEST) -> Scenario:
    folder = tmp_path / "shop"
    (folder / "test_cases").mkdir(parents=True)
    (folder / "manifest.yml").write_text(yaml.safe_dump(manifest), encoding="utf-8")
    for name in CASES:
        (folder / "test_cases" / f"{name}.json").write_text(json.dumps(DIAGRAM), "utf-8")
    scenario, diags = load_scenario(folder)
    assert scenario is not None, [str(d) for d in diags]
    return scenario


def fb(sgi: int | None, credits: float) -> AthenaFeedback:
    return AthenaFeedback(title="t", description="d", credits=credits,
                          structured_grading_instruction_id=sgi)


def outcome(sc: Scenario, name: str, feedback: list[AthenaFeedback]) -> CaseOutcome:
    case = sc.case_named(name)
    assert case is not None
    return CaseOutcome(sc.name, name, CaseStatus.SCORED, score=score_case(sc, case, feedback),
                       feedback=feedback)


def test_points_both_ways_and_the_credit_checks(tmp_path: Path) -> None:
    sc = load(tmp_path)
    case = sc.case_named("a")
    assert case is not None
    # email_ok named with 0 credits (the module's own judgement), inherit_ok twice (0.5 + 1.0)
    s = score_case(sc, case, [fb(1, 0.0), fb(3, 0.5), fb(3, 1.0), fb(None, -0.25), fb(99, 7.0)])
    assert s.returned_score == 4.0  # by the instructions returned: 2 + 2
    p = s.points
    assert p is not None
    assert p.awarded_unlimited == pytest.approx(8.25)  # every item's credits, unknown ids too
    assert p.awarded == 5.0  # limited to max_points + bonus_points
    assert [(c.instruction, c.credits, c.met) for c in p.checks] == [(1, 0.0, True),
                                                                     (3, 1.5, True)]
    assert [(d.item, d.instruction, d.credits, d.instruction_credits)
            for d in p.disagreements] == [(0, 1, 0.0, 2.0), (1, 3, 0.5, 2.0), (2, 3, 1.0, 2.0)]


def test_a_total_below_zero_is_zero_and_a_missing_instruction_fails_its_check(
        tmp_path: Path) -> None:
    sc = load(tmp_path)
    case = sc.case_named("b")
    assert case is not None
    p = score_case(sc, case, [fb(None, -1.0), fb(2, -0.5)]).points
    assert p is not None
    assert (p.awarded, p.awarded_unlimited) == (0.0, -1.5)
    assert [(c.credits, c.met) for c in p.checks] == [(None, False), (None, False)]
    assert p.disagreements[0].credits == -0.5  # email_missing gives 0, the item -0.5


def test_credits_that_are_not_numbers_give_no_total(tmp_path: Path) -> None:
    sc = load(tmp_path)
    case = sc.case_named("c")
    assert case is not None
    # an answer's credits are finite where they enter (athena.AthenaFeedback); the scoring
    # still gives no total for one that is not
    infinite = AthenaFeedback.model_construct(**{**fb(1, 0.0).__dict__, "credits": math.inf})
    p = score_case(sc, case, [infinite]).points
    assert p is not None and p.awarded is None and p.awarded_unlimited is None


def test_an_unlabelled_scenario_gets_points_too(tmp_path: Path) -> None:
    manifest = {k: v for k, v in MANIFEST.items() if k != "default_expected"}
    sc = load(tmp_path, manifest)
    assert not sc.labelled
    case = sc.case_named("a")
    assert case is not None
    s = score_case(sc, case, [fb(1, 2.0), fb(None, 1.0)])
    assert s.points is not None and s.points.awarded == 3.0
    assert s.points.checks[0].met is False  # email_ok == 0.0, given 2.0


def test_the_summary_counts_and_the_files_show_it(tmp_path: Path) -> None:
    sc = load(tmp_path)
    summary = ScenarioSummary(sc)
    system = {"a": 0.5, "b": 1.0, "c": 2.0, "d": 3.5, "e": 5.0}
    for name, points in system.items():
        summary.add(outcome(sc, name, [fb(1, 0.0), fb(3, points)]))
    summary.add(CaseOutcome(sc.name, "e", CaseStatus.FAILED, error="HTTP 500"))
    assert summary.awarded == {n: [v] for n, v in system.items()}
    assert summary.credit_checks == 10
    assert summary.credit_checks_met == 5 + 4  # email == 0 in all 5; inherit >= 1.0 in b..e
    assert summary.cases_credit_checks_met == 4
    assert summary.credit_disagreements == 5 + 4  # all but c's inherit_ok (2.0 as its own)
    rows = dict(points_rows(summary))
    assert rows["Credit Expectations Met"] == "9/10 (4/5 cases meet all)"
    assert rows["Feedback Items Whose Credits Differ From Their Instruction"] == \
        "9 in 5 case(s)"
    assert rows["Mean Points Awarded (sum of credits, as Artemis totals)"] == "2.4"
    assert rows["Tutor-Graded Cases Compared"] == "5 of 5"
    data = points_json(summary)
    assert data["tutor_agreement"]["cases"] == 5
    case_json = case_points_json(sc, outcome(sc, "d", [fb(1, 1.0), fb(3, 2.0)]))
    assert case_json["points"] == {"by_instructions_returned": 4.0, "awarded": 3.0,
                                   "awarded_unlimited": 3.0, "most": 5.0, "tutor": 3.0}
    assert case_json["credit_expectations"] == [
        {"instruction": "email_ok", "expected": "== 0", "credits": 1.0, "met": False},
        {"instruction": "inherit_ok", "expected": ">= 1", "credits": 2.0, "met": True}]
    assert case_json["credit_disagreements"] == [
        {"feedback_item": 0, "instruction": "email_ok", "credits": 1.0,
         "instruction_credits": 2.0}]


def test_agreement_with_the_tutors_by_hand(tmp_path: Path) -> None:
    sc = load(tmp_path)
    summary = ScenarioSummary(sc)
    system = {"a": 0.5, "b": 1.0, "c": 2.0, "d": 3.5, "e": 4.5}
    for name, points in system.items():
        summary.add(outcome(sc, name, [fb(3, points)]))
    found = tutor_agreement(summary)
    assert found is not None and found.n == 5 and found.graded == 5
    tutor, mine = list(TUTOR.values()), list(system.values())
    assert found.pearson.estimate == pytest.approx(pearson(tutor, mine))
    assert found.spearman.estimate == pytest.approx(1.0)  # same order
    assert spearman(tutor, mine) == pytest.approx(1.0)
    # differences: +0.5, 0, -0.5, +0.5, +0.5 -> MAD 0.4, bias +0.2 (points); of 4 points
    assert found.mad_points is not None and found.mad_points.estimate == pytest.approx(0.4)
    assert found.bias_points is not None and found.bias_points.estimate == pytest.approx(0.2)
    assert found.mad_percent is not None and found.mad_percent.estimate == pytest.approx(10.0)
    assert found.bias_percent is not None and found.bias_percent.estimate == pytest.approx(5.0)
    assert found.bias_points.low <= 0.2 <= found.bias_points.high
    assert found.note is not None and "only 5 graded cases" in found.note
    rows = dict(found.rows())
    # five cases: each figure says so before its (wide) interval, as the HTML report does
    few = "too few cases to tell (5 cases; at least 10 are needed): ["
    assert rows["Mean Absolute Difference vs Tutors (points)"].startswith(f"0.4, {few}")
    assert rows["Bias vs Tutors (points, system - tutor)"].startswith(f"+0.2, {few}")
    assert few in rows["Pearson r vs Tutors (95% CI)"]
    assert "Fisher z" in rows["Pearson r vs Tutors (95% CI)"]


def test_repeats_are_averaged_and_failed_cases_are_left_out(tmp_path: Path) -> None:
    sc = load(tmp_path)
    summary = ScenarioSummary(sc)
    summary.add(outcome(sc, "a", [fb(3, 1.0)]))
    summary.add(outcome(sc, "a", [fb(3, 2.0)]))
    summary.add(CaseOutcome(sc.name, "b", CaseStatus.FAILED, error="timeout"))
    found = tutor_agreement(summary)
    assert found is not None
    assert [(p.case, p.system, p.repeats) for p in found.pairs] == [("a", 1.5, 2)]
    assert set(found.unscored) == {"b", "c", "d", "e"}
    # one case: nothing is known, and nothing pretends otherwise
    assert found.mad_points is None and found.pearson.estimate is None
    assert found.note is not None and "nothing is known" in found.note
    assert dict(found.rows())["Pearson r vs Tutors (95% CI)"].startswith("- (undefined")


def test_no_tutor_grade_no_agreement(tmp_path: Path) -> None:
    sc = load(tmp_path, {k: v for k, v in MANIFEST.items() if k != "cases"})
    summary = ScenarioSummary(sc)
    summary.add(outcome(sc, "a", [fb(3, 1.0)]))
    assert tutor_agreement(summary) is None
    assert not any(k.startswith("Tutor") for k, _ in points_rows(summary))


def test_pooling_two_exercises_compares_percent() -> None:
    pairs = [AgreementPair("x", "1", 3.5, 3.5, 7.0), AgreementPair("x", "2", 7.0, 6.0, 7.0),
             AgreementPair("y", "1", 0.0, 1.0, 5.0), AgreementPair("y", "2", 5.0, 5.0, 5.0)]
    found = agreement(pairs)
    tutor = [50.0, 100.0, 0.0, 100.0]
    system = [50.0, 600 / 7, 20.0, 100.0]
    assert found.pearson.estimate == pytest.approx(pearson(tutor, system))
    assert found.mad_points is not None and found.mad_points.estimate == pytest.approx(0.5)
    assert found.mad_percent is not None
    assert found.mad_percent.estimate == pytest.approx((0 + 100 / 7 + 20 + 0) / 4)
