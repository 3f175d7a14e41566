"""Points, credits and agreement with tutors as the result files show them: the fields of a
case's JSON, the rows of the summary table (CSV and terminal) and the summary's JSON; and the
agreement of a scenario's summary (or several, pooled) with its tutors' grades.

The scenario kind's files add these to their own (``kinds/scenarios/_files.py``); the
statistics are ``eunomia.scoring``'s (:func:`eunomia.scoring.agreement`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from eunomia.kinds.scenarios._summary import ScenarioSummary
from eunomia.report import ExtraFigure
from eunomia.scenarios import Scenario
from eunomia.scoring import AgreementPair, CaseOutcome, CasePoints, TutorAgreement, agreement
from eunomia.stats import TOO_FEW, Correlation, Interval, enough


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
    rows += _credit_rows(summary)
    if summary.awarded_unknown:
        rows.append(("Cases Whose Credits Are Not Numbers", str(summary.awarded_unknown)))
    found = tutor_agreement(summary)
    if found is not None:
        rows += found.rows()
    return rows


def _credit_rows(summary: ScenarioSummary) -> list[tuple[str, str]]:
    if not summary.credit_checks:
        return []
    return [("Credit Expectations Met",
             f"{summary.credit_checks_met}/{summary.credit_checks} "
             f"({summary.cases_credit_checks_met}/{summary.cases_with_credit_checks} "
             "cases meet all)")]


def headline_rows(summary: ScenarioSummary) -> list[tuple[str, str]]:
    """What the CI summary (Markdown) shows of a scenario beside its score: its credit
    expectations met and its agreement with the tutors, as the terminal's rows say them."""
    found = tutor_agreement(summary)
    return _credit_rows(summary) + (found.rows() if found is not None else [])


def _figure(value: float | None) -> str | None:
    return None if value is None or not math.isfinite(value) else f"{value:.6g}"


def points_properties(summary: ScenarioSummary) -> list[tuple[str | None, str, str]]:
    """The same figures as JUnit properties of the scenario's test suite (suite, name,
    value): credit expectations (``credit_expectations_met`` of ``..._checked``...) and
    agreement with the tutors (``tutor_pearson`` with its bootstrap and Fisher-z interval,
    ``tutor_spearman``, ``tutor_mean_absolute_difference_points``/``_percent`` and
    ``tutor_bias_...`` with their intervals, ``tutor_too_few``); each ``..._text`` as the
    terminal says it. A figure that is undefined has its text only."""
    rows: list[tuple[str, float | str | None]] = []
    if summary.credit_checks:
        rows += [("credit_expectations_checked", summary.credit_checks),
                 ("credit_expectations_met", summary.credit_checks_met),
                 ("cases_with_credit_expectations", summary.cases_with_credit_checks),
                 ("cases_meeting_all_credit_expectations", summary.cases_credit_checks_met),
                 *(("credit_expectations_text", text) for _, text in _credit_rows(summary))]
    found = tutor_agreement(summary)
    if found is not None:
        texts = dict(found.rows())
        rows += [("tutor_cases", found.n), ("tutor_graded_cases", found.graded),
                 ("tutor_too_few", str(not enough(found.n)).lower())]
        for key, c, label in (("pearson", found.pearson, "Pearson r vs Tutors (95% CI)"),
                              ("spearman", found.spearman,
                               "Spearman rho vs Tutors (95% CI)")):
            rows += [(f"tutor_{key}", c.estimate), (f"tutor_{key}_ci_low", c.low),
                     (f"tutor_{key}_ci_high", c.high),
                     (f"tutor_{key}_fisher_low", c.fisher_low),
                     (f"tutor_{key}_fisher_high", c.fisher_high),
                     (f"tutor_{key}_text", texts[label])]
        for key, i, label in (
                ("mean_absolute_difference_points", found.mad_points,
                 "Mean Absolute Difference vs Tutors (points)"),
                ("mean_absolute_difference_percent", found.mad_percent,
                 "Mean Absolute Difference vs Tutors (% of max points)"),
                ("bias_points", found.bias_points, "Bias vs Tutors (points, system - tutor)"),
                ("bias_percent", found.bias_percent, "Bias vs Tutors (% of max points)")):
            if i is not None:
                rows += [(f"tutor_{key}", i.estimate), (f"tutor_{key}_ci_low", i.low),
                         (f"tutor_{key}_ci_high", i.high)]
            rows.append((f"tutor_{key}_text", texts[label]))
        if found.note:
            rows.append(("tutor_note", found.note))
    suite = summary.scenario.name
    out: list[tuple[str | None, str, str]] = []
    for name, value in rows:
        text = value if isinstance(value, str) else (
            str(value) if isinstance(value, int) else _figure(value))
        if text is not None:
            out.append((suite, name, text))
    return out


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


def agreement_pairs(summary: ScenarioSummary) -> tuple[list[AgreementPair], list[str], int]:
    """The pairs of one scenario's summary, the graded cases without one, and how many
    cases are graded."""
    sc = summary.scenario
    ex = sc.exercise
    pairs: list[AgreementPair] = []
    unscored: list[str] = []
    graded = 0
    for case in sc.test_cases:
        if case.tutor is None:
            continue
        graded += 1
        awarded = summary.awarded.get(case.name)
        if not awarded:
            unscored.append(case.name)
            continue
        pairs.append(AgreementPair(sc.name, case.name, case.tutor.points,
                                   math.fsum(awarded) / len(awarded), ex.max_points,
                                   len(awarded)))
    return pairs, unscored, graded


def tutor_agreement(summaries: ScenarioSummary | Sequence[ScenarioSummary]
                    ) -> TutorAgreement | None:
    """Agreement with the tutors over one scenario's cases, or several scenarios' pooled
    (one target's); None when no case of them carries a tutor's grade."""
    many = [summaries] if isinstance(summaries, ScenarioSummary) else list(summaries)
    pairs: list[AgreementPair] = []
    unscored: list[str] = []
    graded = 0
    for summary in many:
        p, u, g = agreement_pairs(summary)
        pairs += p
        unscored += [f"{summary.scenario.name}/{name}" for name in u] if len(many) > 1 else u
        graded += g
    return agreement(pairs, graded, unscored) if graded else None


# --- per case, in the case tables (CSV, terminal, HTML) and the CI records --------------------
def unmet_credit_checks(scenario: Scenario, points: CasePoints | None) -> list[str]:
    """Each credit expectation a case did not meet, in words: ``instruction 1: expected
    == 0, got 2`` (``no feedback item named it`` when none did)."""
    if points is None:
        return []
    known = scenario.instructions
    return [f"instruction {known[c.instruction].textual_id}: expected {c.expectation}, "
            + ("no feedback item named it" if c.credits is None else f"got {c.credits:g}")
            for c in points.checks if not c.met]


def credit_checks_cell(points: CasePoints | None) -> str:
    """``met/checked`` of one case, empty when it has no credit expectation."""
    if points is None or not points.checks:
        return ""
    return f"{sum(c.met for c in points.checks)}/{len(points.checks)}"


def case_points_cells(scenario: Scenario, outcome: CaseOutcome) -> list[str]:
    """The case table's points columns (:data:`POINTS_COLUMNS`): points awarded, the tutor's
    points, credit expectations met (``met/checked``) and the ones not met."""
    s = outcome.score
    points = s.points if s is not None else None
    case = scenario.case_named(outcome.case)
    tutor = case.tutor.points if case is not None and case.tutor is not None else None
    awarded = points.awarded if points is not None else None
    return [_num(awarded), _num(tutor), credit_checks_cell(points),
            "; ".join(unmet_credit_checks(scenario, points))]


POINTS_COLUMNS = ("Awarded Points", "Tutor Points", "Credit Expectations Met",
                  "Credit Expectations Not Met")


# --- the leaderboard: one target's agreement with the tutors, pooled over its scenarios ------
def _short_correlation(c: Correlation) -> str:
    if c.estimate is None:
        why = "fewer than 3 cases" if c.n < 3 else "no spread"
        return f"undefined ({why}) n={c.n}"
    if not enough(c.n):
        return f"{c.estimate:.2f} ({TOO_FEW}) n={c.n}"
    if c.low is None or c.high is None:
        return f"{c.estimate:.2f} n={c.n}"
    return f"{c.estimate:.2f} [{c.low:.2f}, {c.high:.2f}] n={c.n}"


def _short_mean(i: Interval | None) -> str:
    if i is None:
        return "-"
    if i.too_few:
        return f"{i.estimate:.1f} ({TOO_FEW}) n={i.n}"
    return f"{i.estimate:.1f} [{i.low:.1f}, {i.high:.1f}] n={i.n}"


def agreement_figures(summaries: Sequence[ScenarioSummary]) -> tuple[ExtraFigure, ...]:
    """A target's leaderboard figures on agreement with the tutors, pooled over its
    scenarios (each case once, in percent of its exercise's maximum): Pearson's r and the
    mean absolute difference, each with its 95% bootstrap interval; none when no case of
    them carries a tutor's grade."""
    found = tutor_agreement(summaries)
    if found is None:
        return ()
    r, rho = found.pearson, found.spearman
    mad, bias = found.mad_percent, found.bias_percent
    return (
        ExtraFigure("Tutors: Pearson r (95% CI)", _short_correlation(r), (
            ("tutor_cases", found.n), ("tutor_graded_cases", found.graded),
            ("tutor_pearson", r.estimate), ("tutor_pearson_ci_low", r.low),
            ("tutor_pearson_ci_high", r.high), ("tutor_spearman", rho.estimate),
            ("tutor_spearman_ci_low", rho.low), ("tutor_spearman_ci_high", rho.high))),
        ExtraFigure("Tutors: mean abs. diff. %", _short_mean(mad), (
            ("tutor_mean_absolute_difference_percent", mad.estimate if mad else None),
            ("tutor_mean_absolute_difference_percent_ci_low", mad.low if mad else None),
            ("tutor_mean_absolute_difference_percent_ci_high", mad.high if mad else None),
            ("tutor_bias_percent", bias.estimate if bias else None))),
    )
