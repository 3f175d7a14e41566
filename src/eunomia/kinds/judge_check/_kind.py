"""The judge-check kind: can a judge tell good answers from bad ones on these suites?"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from pydantic import ValidationError
from rich.console import Console

from eunomia.compare import CaseFacts
from eunomia.errors import EunomiaError
from eunomia.exports import ResultRecord
from eunomia.kinds import Exported, RunMemo, Validation
from eunomia.kinds.judge_check._summary import JudgeCheckSummary
from eunomia.report import Columns, LeaderboardRow, rank
from eunomia.report.html import CostBook, GroupReport, Metric, generic_group, targets_of
from eunomia.store import CaseRow, RunInfo, RunStore, SuiteInfo

JUDGE_CHECK_COLUMNS = Columns("Judge", "AUC good vs bad (95% CI)", 3, "Judge cost",
                              "Krippendorff α", detection=False,
                              score_label="Judge score (0-5)")
"""The leaderboard ranks judges by AUC; a stored row's score (the report's mean scores) is
the judge's score of one answer."""
_SUMMARIES_KEPT = 16


class JudgeCheckKind:
    """A judge scores controlled answers built from each task case's reference (the good
    answer, another case's, a third of it, a refusal, the good one padded): the AUC says
    whether its scores are evidence. Its suites are task suites (``eunomia validate`` checks
    them as such), its targets the judges."""

    name = "judge_check"
    title = "judge check"
    command = "judge-check"
    compare_score = ("Judge score (0-5)", "score")
    detects = False

    def __init__(self) -> None:
        self._summaries: RunMemo[JudgeCheckSummary] = RunMemo(_SUMMARIES_KEPT)

    def _summary(self, store: RunStore, run: RunInfo, target: str) -> JudgeCheckSummary:
        """A judge's summary, read once for every suite's group of a report."""
        from eunomia.kinds.judge_check._files import judge_summary

        return self._summaries.get(store, run, lambda: judge_summary(store, run, target),
                                   target)

    @property
    def columns(self) -> Columns:
        return JUDGE_CHECK_COLUMNS

    def owns(self, path: Path) -> bool:
        return False  # task suites: the tasks kind validates them

    def validate(self, paths: Sequence[Path]) -> Validation:
        from eunomia.kinds.tasks import KIND as TASKS

        return TASKS.validate(paths)

    def export(self, store: RunStore, run: RunInfo, results_dir: Path) -> list[Exported]:
        from eunomia.kinds.judge_check._files import export_judge_check

        return export_judge_check(store, run, results_dir)

    def print_summary(self, console: Console, exported: Exported) -> None:
        from eunomia.kinds.judge_check._terminal import print_judge_check

        print_judge_check(console, exported.summary, str(exported.folder))

    def leaderboard_row(self, target: str, exported: Sequence[Exported]) -> LeaderboardRow:
        from eunomia.kinds.judge_check._terminal import judge_row

        return judge_row(target, exported[0].summary)

    def case_records(self, store: RunStore, run: RunInfo,
                     pass_score: float | None = None) -> Iterator[ResultRecord]:
        from eunomia.kinds.judge_check._records_out import judge_check_records

        return judge_check_records(store, run, pass_score)

    # --- the HTML report and comparisons ---------------------------------------------------
    def report_groups(self, store: RunStore, run: RunInfo, suite: SuiteInfo,
                      rows: Sequence[CaseRow], costs: CostBook, notes: list[str], *,
                      worst_cases: int, repeats: int) -> list[GroupReport] | None:
        """The generic groups (every answer's status, score, cost, latency), with the
        check's figures and its verdict as metrics; the verdicts in the notes."""
        groups: list[GroupReport] = []
        if not rows:
            return groups  # a suite stored with the run, none of its cases selected
        for target in targets_of(run, rows):
            group = generic_group(suite.name, target, run.kind,
                                  [r for r in rows if r.target == target], costs)
            try:
                summary = self._summary(store, run, target)
            except (EunomiaError, KeyError, TypeError, ValueError, ValidationError):
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
                           f"{check.auc.low:.2f}-{check.auc.high:.2f}"),
                    Metric("Weighted AUC", check.weighted_auc.estimate
                           if check.weighted_auc else None),
                    *(Metric(f"Mean score: {k}", m.estimate) for k, m in check.means.items()
                      if m is not None),
                    Metric("Verbosity bias (padded - good)",
                           check.verbosity.estimate if check.verbosity else None),
                    *group.metrics,
                ]
                notes.append(v.line())
            if summary.overall is not None and suite.name == summary.suites[-1].suite:
                notes.append(summary.overall.verdict.line())
            groups.append(group)
        return groups

    def report_leaderboard(self, store: RunStore, run: RunInfo,
                           groups: Sequence[GroupReport], notes: list[str]
                           ) -> list[LeaderboardRow]:
        from eunomia.kinds.judge_check._terminal import judge_row

        try:
            return rank([judge_row(t, self._summary(store, run, t)) for t in run.targets])
        except (EunomiaError, KeyError, TypeError, ValueError, ValidationError):
            notes.append("the stored judge check cannot be read; no leaderboard")
            return []

    def run_facts(self, store: RunStore, run: RunInfo) -> _StoredScores:
        return _StoredScores()

    def definition_changes(self, suite: str, a: object, b: object) -> list[str] | None:
        return None if a == b else []


class _StoredScores:
    """Judge checks are compared on what every stored answer has (score, cost, latency)."""

    def case(self, row: CaseRow) -> CaseFacts | None:
        return None

    def criterion_title(self, suite: str, criterion: str) -> str | None:
        return None


JUDGE_CHECK = JudgeCheckKind()
