"""What a scenario run tells ``eunomia compare`` about its cases: each scored repeat rescored
from the stored snapshot (detection, full correctness, instructions missing or extra per
criterion), and what changed between two stored scenario definitions."""

from __future__ import annotations

from typing import Any

from eunomia.compare import CaseFacts
from eunomia.kinds.scenarios._records import outcome_from_row, stored_scenario
from eunomia.pricing import PriceTable
from eunomia.scenarios import Scenario, TestCase
from eunomia.scoring import CaseScore
from eunomia.store import CaseRow, RunInfo, RunStore

_NAMES_SHOWN = 5


def _percent(scenario: Scenario, points: float | None) -> float | None:
    most = scenario.exercise.max_points
    return None if points is None or most <= 0 else 100.0 * points / most


def facts_of(scenario: Scenario, s: CaseScore, case: TestCase | None = None
             ) -> CaseFacts | None:
    """What a comparison knows of one scored repeat: its points and credit expectations
    (``case``: its tutor's grade), and unless the scenario is unlabelled its detection, full
    correctness and the instructions missing or extra (None for an unlabelled scenario's
    without points: the stored row is all there is)."""
    p = s.points
    met = None if p is None or not p.checks else all(c.met for c in p.checks)
    awarded = _percent(scenario, p.awarded if p is not None else None)
    tutor = _percent(scenario, case.tutor.points) \
        if case is not None and case.tutor is not None else None
    if not s.labelled:
        if met is None and awarded is None:
            return None
        return CaseFacts(score=None, credits_met=met, awarded_percent=awarded,
                         tutor_percent=tutor)

    def by_criterion(ids: tuple[int, ...]) -> dict[str, frozenset[str]]:
        out: dict[str, set[str]] = {}
        for i in ids:
            ins = scenario.instructions[i]
            out.setdefault(scenario.criteria[ins.criterion_id - 1].textual_id,
                           set()).add(ins.textual_id)
        return {c: frozenset(v) for c, v in out.items()}

    return CaseFacts(
        score=s.score_percent, detected=s.detected_correctly, fully_correct=s.fully_correct,
        missing=by_criterion(s.missing), extra=by_criterion(s.extra),
        expected_criteria=frozenset(by_criterion(s.expected)), credits_met=met,
        awarded_percent=awarded, tutor_percent=tutor)


class ScenarioFacts:
    """The scenarios of one run, read once, rescoring its cases on demand."""

    def __init__(self, store: RunStore, run: RunInfo) -> None:
        self.store = store
        self.scenarios: dict[str, tuple[Scenario, PriceTable]] = {
            s.name: stored_scenario(store, s.definition, s.prices) for s in store.suites(run)}

    def case(self, row: CaseRow) -> CaseFacts | None:
        found = self.scenarios.get(row.suite)
        if found is None:
            return None
        scenario, prices = found
        s = outcome_from_row(self.store, scenario, prices, row).score
        return None if s is None else facts_of(scenario, s, scenario.case_named(row.case_name))

    def criterion_title(self, suite: str, criterion: str) -> str | None:
        found = self.scenarios.get(suite)
        if found is None:
            return None
        return next((c.title for c in found[0].criteria if c.textual_id == criterion), None)


def _normalised(definition: Any) -> Any:
    """A scenario snapshot without what does not change the scoring (paths, server URL)."""
    if not isinstance(definition, dict) or "test_cases" not in definition:
        return definition
    return {
        "exercise": definition.get("exercise"),
        "criteria": definition.get("criteria"),
        "default_expected": definition.get("default_expected"),
        "test_cases": {t["name"]: (t.get("expected"), t.get("diff_instructions"))
                       for t in definition["test_cases"]},
    }


def definition_changes(suite: str, a: Any, b: Any) -> list[str] | None:
    """What changed between two stored scenario definitions; None when they score alike."""
    da, db = _normalised(a), _normalised(b)
    if da == db:
        return None
    parts: list[str] = []
    if isinstance(da, dict) and isinstance(db, dict) and "test_cases" in da \
            and "test_cases" in db:
        if da["criteria"] != db["criteria"]:
            parts.append("criteria or instructions changed")
        if da["exercise"] != db["exercise"]:
            parts.append("exercise changed")
        if da["default_expected"] != db["default_expected"]:
            parts.append("default expectations changed")
        cases_a, cases_b = da["test_cases"], db["test_cases"]
        changed = sorted(n for n in cases_a if n in cases_b and cases_a[n] != cases_b[n])
        if changed:
            shown = ", ".join(f"{suite}/{n}" for n in changed[:_NAMES_SHOWN]) + (
                f" and {len(changed) - _NAMES_SHOWN} more" if len(changed) > _NAMES_SHOWN
                else "")
            parts.append(f"expectations of {len(changed)} case(s) changed: {shown}")
    return parts
