"""What a pairwise comparison adds to the HTML report: the rates beside the pair's generic
group, the verdict, position bias and rates per kind of task in the notes (built by
``report`` and ``view`` only, never by a run)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from eunomia.kinds import READ_ERRORS
from eunomia.kinds.pairwise._summary import PairwiseSummary
from eunomia.kinds.pairwise._terminal import pct
from eunomia.report.html import CostBook, GroupReport, Metric, generic_group, targets_of
from eunomia.stats import too_few_text
from eunomia.store import CaseRow, RunInfo, RunStore, SuiteInfo


def report_groups(summary_of: Callable[[], PairwiseSummary], store: RunStore, run: RunInfo,
                  suite: SuiteInfo, rows: Sequence[CaseRow], costs: CostBook,
                  notes: list[str]) -> list[GroupReport]:
    """The generic group of the pair (every comparison's status, value, cost, latency)
    with the suite's rates as metrics; the run's verdict, position bias and rates per
    kind of task in the notes (once, with the first suite)."""
    groups: list[GroupReport] = []
    if not rows:
        return groups
    try:
        s = summary_of()
    except READ_ERRORS:
        notes.append("the stored comparisons cannot be read")
        s = None
    for target in targets_of(run, rows):
        group = generic_group(suite.name, target, run.kind,
                              [r for r in rows if r.target == target], costs)
        if s is not None:
            mine = next((g for g in s.groups if g.grouping == "suite"
                         and g.value == suite.name), s.overall)
            if mine is not None:
                b = s.second.label
                group.metrics = [
                    Metric("Verdict (all suites)", None, "text", s.verdict.text),
                    Metric(f"{b} wins", None, "text", pct(mine.win)),
                    Metric("Ties", None, "text", pct(mine.tie)),
                    Metric(f"{b} loses", None, "text", pct(mine.loss)),
                    Metric(f"{b} preference", mine.preference.estimate
                           if mine.preference else None),
                    Metric("Preference 95% CI", None, "text", "-" if mine.preference
                           is None else too_few_text(mine.preference.n)
                           if mine.preference.too_few else f"{mine.preference.low:.2f}-"
                                                           f"{mine.preference.high:.2f}"),
                    Metric("Cases compared", mine.cases, "int"),
                    *group.metrics,
                ]
            group.warnings = list(s.warnings)
        groups.append(group)
    if s is not None and suite.name == store.suites(run)[0].name:
        notes.append(s.verdict.text)
        notes.append(s.position.line())
        notes += [f"{g.value}: {s.second.label} wins {pct(g.win)}, ties {pct(g.tie)}, "
                  f"loses {pct(g.loss)} of {g.cases} cases" if g.cases else
                  f"{g.value}: no case compared ({g.not_scored} without an outcome)"
                  for g in s.groups if g.grouping == "kind"]
    return groups
