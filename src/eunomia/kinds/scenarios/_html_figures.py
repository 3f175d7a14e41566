"""What a scenario group of the HTML report says of its size and of the changes its cases
are about: the score's interval (or "too few cases to tell"), the minimum detectable effect,
detection by element type, kind of change and operator, localization, and the generated
cases with their mutations. Loaded only by ``report`` and ``view``."""

from __future__ import annotations

from collections.abc import Sequence

from eunomia.kinds.scenarios._figures import (
    ChangeBook,
    interval_text,
    localization_cells,
    power_text,
    rate_text,
)
from eunomia.kinds.scenarios._summary import ScenarioSummary
from eunomia.report.html import GroupReport, Metric, SectionTable
from eunomia.scenarios import Scenario
from eunomia.scoring import CaseOutcome
from eunomia.store import RunStore

_GROUPINGS = {"element_type": "element type", "change": "change", "operator": "operator"}


def add_figures(group: GroupReport, store: RunStore, scenario: Scenario,
                summary: ScenarioSummary, outcomes: Sequence[CaseOutcome]) -> None:
    """Add the figures to ``group`` (its metrics and tables); sets ``summary.by_change``."""
    if not scenario.labelled:
        return
    book = ChangeBook(scenario)
    for o in outcomes:
        book.add(o)
    summary.by_change, summary.localized = book.finish(store)
    group.metrics += [
        Metric("Mean case score 95% CI", None, "text",
               interval_text(summary.score_interval(), 2 if summary.repeated else 1)),
        Metric("Could detect (a future comparison of equal size)", None, "text",
               power_text(summary.power())),
    ]
    if summary.by_change:
        group.tables.append(SectionTable(
            "Detection by element type, kind of change and operator",
            "Each case counts once in every group it is about (its structural diff against "
            "the example solution; operators: the generated cases' mutations), its repeats "
            "averaged; worst detected first.",
            ("By", "Element type / change / operator", "Cases", "Generated",
             "Detected correctly (95% CI)"),
            tuple((_GROUPINGS[r.grouping], r.key, str(r.cases), str(r.generated), rate_text(r))
                  for r in summary.by_change), numeric_from=2))
    located = [r for r in summary.localized if r.items]
    if located:
        group.tables.append(SectionTable(
            "Localization: does feedback point at the changed elements?",
            "Feedback items returning one of a case's changed instructions, by the element "
            "type the case changes: how many name an element (elementIds, reference) and how "
            "many name a changed one.",
            ("Element type", "Items", "Naming an element", "Naming a changed element",
             "Localization rate (%)"),
            tuple(tuple(localization_cells(r)) for r in located)))
    generated = _generated_rows(scenario, outcomes)
    if generated:
        group.tables.append(SectionTable(
            f"Generated cases ({len(generated)})",
            "Cases `eunomia mutate` made from the example solution, with the mutations each "
            "shows (its expected instructions follow from them).",
            ("Case", "Mutations", "Score % (mean of repeats)", "Detected correctly"),
            tuple(generated), numeric_from=2))


def _generated_rows(scenario: Scenario,
                    outcomes: Sequence[CaseOutcome]) -> list[tuple[str, ...]]:
    scores: dict[str, list[tuple[float, bool]]] = {}
    for o in outcomes:
        if o.ok and o.score is not None and o.score.labelled:
            scores.setdefault(o.case, []).append((o.score.score_percent,
                                                  o.score.detected_correctly))
    rows: list[tuple[str, ...]] = []
    for case in scenario.test_cases:
        if not case.generated:
            continue
        got = scores.get(case.name, [])
        mean = f"{sum(s for s, _ in got) / len(got):.1f}" if got else "–"
        detected = f"{sum(d for _, d in got)}/{len(got)}" if got else "–"
        rows.append((case.name, "; ".join(f"{op}: {what}" for op, what in case.mutations),
                     mean, detected))
    return rows


def mutations_of(scenario: Scenario, case: str) -> tuple[str, ...]:
    """A case's mutations in words (empty for a hand-made case): for its worst-case card."""
    found = scenario.case_named(case)
    return () if found is None else tuple(f"{op}: {what}" for op, what in found.mutations)
