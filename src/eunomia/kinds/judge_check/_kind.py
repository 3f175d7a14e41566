"""The judge-check kind: can a judge tell good answers from bad ones on these suites?"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from eunomia.kinds import KINDS, Exported, Kind, RunMemo, Validation, guarded_rows
from eunomia.kinds._task_suites import validate_suites
from eunomia.kinds.judge_check._files import export_judge_check, judge_summary
from eunomia.kinds.judge_check._records_out import judge_check_records
from eunomia.kinds.judge_check._summary import JudgeCheckSummary
from eunomia.kinds.judge_check._terminal import judge_row, print_judge_check
from eunomia.report import Columns, LeaderboardRow

if TYPE_CHECKING:
    from eunomia.exports import ResultRecord
    from eunomia.report.html import CostBook, GroupReport
    from eunomia.store import CaseRow, RunInfo, RunStore, SuiteInfo

JUDGE_CHECK_COLUMNS = Columns("Judge", "AUC good vs bad (95% CI)",
                              KINDS["judge_check"].score_digits, "Judge cost",
                              "Krippendorff α", detection=False,
                              score_label="Judge score (0-5)")
"""The leaderboard ranks judges by AUC; a stored row's score (the report's mean scores) is
the judge's score of one answer."""
_SUMMARIES_KEPT = 16


class JudgeCheckKind(Kind[JudgeCheckSummary]):
    """A judge scores controlled answers built from each task case's reference (the good
    answer, another case's, a third of it, a refusal, the good one padded): the AUC says
    whether its scores are evidence. Its suites are task suites (``eunomia validate`` checks
    them as such), its targets the judges."""

    name = "judge_check"
    title = "judge check"
    command = KINDS["judge_check"].command
    columns = JUDGE_CHECK_COLUMNS
    compare_score = ("Judge score (0-5)", "score")
    pass_rule = "a judge check is read from its AUC"

    def __init__(self) -> None:
        self._summaries: RunMemo[JudgeCheckSummary] = RunMemo(_SUMMARIES_KEPT)

    def summary(self, store: RunStore, run: RunInfo, target: str) -> JudgeCheckSummary:
        """A judge's summary, read once for every suite's group of a report."""
        return self._summaries.get(store, run, lambda: judge_summary(store, run, target),
                                   target)

    def validate(self, paths: Sequence[Path]) -> Validation:
        return validate_suites(paths)

    def export(self, store: RunStore, run: RunInfo,
               results_dir: Path) -> list[Exported[JudgeCheckSummary]]:
        return export_judge_check(store, run, results_dir)

    def print_summary(self, console: Console, exported: Exported[JudgeCheckSummary]) -> None:
        print_judge_check(console, exported.summary, str(exported.folder))

    def leaderboard_row(self, target: str,
                        exported: Sequence[Exported[JudgeCheckSummary]]) -> LeaderboardRow:
        return judge_row(target, exported[0].summary)

    def case_records(self, store: RunStore, run: RunInfo,
                     pass_score: float | None = None) -> Iterator[ResultRecord]:
        self.refuse_pass_score(pass_score)
        yield from judge_check_records(store, run)

    # --- the HTML report -------------------------------------------------------------------
    def report_groups(self, store: RunStore, run: RunInfo, suite: SuiteInfo,
                      rows: Sequence[CaseRow], costs: CostBook, notes: list[str], *,
                      worst_cases: int, repeats: int) -> list[GroupReport]:
        # the report's pages are built by `report` and `view` only, never by a run
        from eunomia.kinds.judge_check._html import report_groups

        return report_groups(lambda target: self.summary(store, run, target), run, suite,
                             rows, costs, notes)

    def report_leaderboard(self, store: RunStore, run: RunInfo,
                           groups: Sequence[GroupReport], notes: list[str]
                           ) -> list[LeaderboardRow]:
        return guarded_rows(notes, "judge check", (judge_row(t, self.summary(store, run, t))
                                                   for t in run.targets))


JUDGE_CHECK = JudgeCheckKind()
