"""Points, credits and agreement with tutors as the result files show them: the fields of a
case's JSON, the rows of the summary table (CSV and terminal) and the summary's JSON.

The scenario kind's files add these to their own (``kinds/scenarios/_files.py``)."""

from __future__ import annotations

import math
from typing import Any

from eunomia.scenarios import Scenario
from eunomia.scoring._outcome import CaseOutcome
from eunomia.scoring._summary import ScenarioSummary
from eunomia.scoring._tutor import tutor_agreement


def _num(value: float | None) -> str:
    return "" if value is None else f"{round(value, 4):g}"


def case_points_json(scenario: Scenario, outcome: CaseOutcome) -> dict[str, Any]:
    """A scored case's points both ways, its tutor's grade, its credit expectations and the
    items whose credits differ from their instruction's (empty for a case not scored)."""
    s = outcome.score
    if s is None or s.points is None:
        return {}
    p = s.points
    known = scenario.instructions
    ex = scenario.exercise
    case = scenario.case_named(outcome.case)
    points: dict[str, Any] = {
        "by_instructions_returned": s.returned_score,
        "awarded": p.awarded,
        "awarded_unlimited": p.awarded_unlimited,
        "most": ex.max_points + ex.bonus_points,
    }
    if case is not None and case.tutor is not None:
        points["tutor"] = case.tutor.points
    out: dict[str, Any] = {"points": points}
    if p.checks:
        out["credit_expectations"] = [
            {"instruction": known[c.instruction].textual_id, "expected": str(c.expectation),
             "credits": c.credits, "met": c.met}
            for c in p.checks]
    out["credit_disagreements"] = [
        {"feedback_item": d.item, "instruction": known[d.instruction].textual_id,
         "credits": d.credits, "instruction_credits": d.instruction_credits}
        for d in p.disagreements]
    return out


def _mean(values: list[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def points_rows(summary: ScenarioSummary) -> list[tuple[str, str]]:
    """The summary table's rows on points and credits, then agreement with the tutors (when
    some case carries a tutor's grade)."""
    awarded = [v for values in summary.awarded.values() for v in values]
    rows = [
        ("Mean Points By Instructions Returned", _num(_mean(summary.returned_points))),
        ("Mean Points Awarded (sum of credits, as Artemis totals)", _num(_mean(awarded))),
        ("Feedback Items Whose Credits Differ From Their Instruction",
         f"{summary.credit_disagreements} in {summary.cases_with_credit_disagreements} "
         "case(s)"),
    ]
    if summary.credit_checks:
        rows.append(("Credit Expectations Met",
                     f"{summary.credit_checks_met}/{summary.credit_checks} "
                     f"({summary.cases_credit_checks_met}/{summary.cases_with_credit_checks} "
                     "cases meet all)"))
    if summary.awarded_unknown:
        rows.append(("Cases Whose Credits Are Not Numbers", str(summary.awarded_unknown)))
    found = tutor_agreement(summary)
    if found is not None:
        rows += found.rows()
    return rows


def points_json(summary: ScenarioSummary) -> dict[str, Any]:
    """The summary's JSON fields on points, credits and agreement with the tutors."""
    awarded = [v for values in summary.awarded.values() for v in values]
    found = tutor_agreement(summary)
    return {
        "mean_points_by_instructions_returned": _mean(summary.returned_points),
        "mean_points_awarded": _mean(awarded),
        "cases_whose_credits_are_not_numbers": summary.awarded_unknown,
        "credit_disagreements": summary.credit_disagreements,
        "cases_with_credit_disagreements": summary.cases_with_credit_disagreements,
        "credit_expectations": {
            "checked": summary.credit_checks, "met": summary.credit_checks_met,
            "cases": summary.cases_with_credit_checks,
            "cases_all_met": summary.cases_credit_checks_met},
        "tutor_agreement": None if found is None else found.to_json(),
    }
