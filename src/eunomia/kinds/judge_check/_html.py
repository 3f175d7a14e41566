"""What a judge check adds to the HTML report: the check's figures and verdict beside each
judge's generic group (built by ``report`` and ``view`` only, never by a run)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from eunomia.judge import KIND_WORDS
from eunomia.kinds import READ_ERRORS
from eunomia.kinds.judge_check._summary import JudgeCheckSummary
from eunomia.report.html import CostBook, GroupReport, Metric, generic_group, targets_of
from eunomia.stats import too_few_text
from eunomia.store import CaseRow, RunInfo, SuiteInfo


def report_groups(summary_of: Callable[[str], JudgeCheckSummary], run: RunInfo,
                  suite: SuiteInfo, rows: Sequence[CaseRow], costs: CostBook,
                  notes: list[str]) -> list[GroupReport]:
    """The generic groups (every answer's status, score, cost, latency), with the check's
    figures and its verdict as metrics; the verdicts in the notes."""
    groups: list[GroupReport] = []
    if not rows:
        return groups  # a suite stored with the run, none of its cases selected
    for target in targets_of(run, rows):
        group = generic_group(suite.name, target, run.kind,
                              [r for r in rows if r.target == target], costs)
        try:
            summary = summary_of(target)
        except READ_ERRORS:
            notes.append(f"{target}: the stored judge check cannot be read")
            groups.append(group)
            continue
        check = next((g for g in summary.suites if g.suite == suite.name), None)
        if check is not None:
            v = check.verdict
            group.metrics = [
                Metric("Verdict", None, "text", v.text),
                Metric("AUC good vs bad", check.auc.estimate if check.auc else None),
                Metric("AUC 95% CI", None, "text", "-" if check.auc is None else
                       too_few_text(check.auc.n) if check.auc.too_few else
                       f"{check.auc.low:.2f}-{check.auc.high:.2f}"),
                Metric("Weighted AUC", check.weighted_auc.estimate
                       if check.weighted_auc else None),
                *(Metric(f"Mean score: {k}", m.estimate) for k, m in check.means.items()
                  if m is not None),
                Metric("Verbosity bias (padded - good)",
                       check.verbosity.estimate if check.verbosity else None),
                *(Metric(f"AUC vs {KIND_WORDS.get(k, k)}", f.auc.estimate)
                  for k, f in check.floor.items() if f.auc is not None),
                *(Metric(f"Finding: {v.finding}", None, "text",
                         v.text + (f"; {v.evidence}" if v.evidence else ""))
                  for v in check.floor_verdicts),
                *([Metric("Judge vs human scores", None, "text", check.human.text())]
                  if check.human is not None else []),
                *group.metrics,
            ]
            notes.append(v.line())
        if summary.overall is not None and suite.name == summary.suites[-1].suite:
            notes.append(summary.overall.verdict.line())
        groups.append(group)
    return groups
