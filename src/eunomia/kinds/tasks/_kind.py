"""The judged task-suite kind: what ``eunomia eval`` evaluates."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from eunomia.kinds import KINDS, Exported, Kind, RunMemo, Validation, guarded_rows
from eunomia.kinds._task_suites import holds_suites, validate_suites
from eunomia.kinds.tasks._files import export_tasks, stored_summary
from eunomia.kinds.tasks._records_out import task_records
from eunomia.kinds.tasks._summary import TasksSummary
from eunomia.kinds.tasks._terminal import print_tasks_summary, task_row
from eunomia.report import Columns, LeaderboardRow

if TYPE_CHECKING:
    from eunomia.exports import ResultRecord
    from eunomia.report.html import CostBook, GroupReport
    from eunomia.store import CaseRow, RunInfo, RunStore, SuiteInfo

TASK_COLUMNS = Columns("Model", "Judge score 0-5 (95% CI)", KINDS["tasks"].score_digits,
                       "Candidate cost", "Krippendorff α", detection=False,
                       score_label="Judge score (0-5)")


class TaskKind(Kind[TasksSummary]):
    """Judged task suites: a candidate model answers YAML cases, a judge model scores each
    answer 0-5 with a rubric (and deterministic checks run beside it)."""

    name = "tasks"
    title = "judged task suite"
    command = KINDS["tasks"].command
    columns = TASK_COLUMNS
    compare_score = ("Judge score (0-5)", "score")

    def __init__(self) -> None:
        self._summaries: RunMemo[TasksSummary] = RunMemo()

    def summary(self, store: RunStore, run: RunInfo, target: str) -> TasksSummary:
        """One candidate's summary of a stored run, read once for the report's groups, its
        tiles and its leaderboard."""
        return self._summaries.get(store, run, lambda: stored_summary(store, run, target,
                                                                      target), target)

    def owns(self, path: Path) -> bool:
        """A YAML file, or a folder with YAML files (not a scenario's manifest or prices)."""
        return holds_suites(path)

    def validate(self, paths: Sequence[Path]) -> Validation:
        return validate_suites(paths)

    def export(self, store: RunStore, run: RunInfo,
               results_dir: Path) -> list[Exported[TasksSummary]]:
        return export_tasks(store, run, results_dir)

    def print_summary(self, console: Console, exported: Exported[TasksSummary]) -> None:
        print_tasks_summary(console, exported.summary, str(exported.folder))

    def leaderboard_row(self, target: str,
                        exported: Sequence[Exported[TasksSummary]]) -> LeaderboardRow:
        return task_row(target, exported[0].summary)

    def case_records(self, store: RunStore, run: RunInfo,
                     pass_score: float | None = None) -> Iterator[ResultRecord]:
        return task_records(store, run, pass_score)


    # --- the HTML report and comparisons ---------------------------------------------------
    def report_groups(self, store: RunStore, run: RunInfo, suite: SuiteInfo,
                      rows: Sequence[CaseRow], costs: CostBook, notes: list[str], *,
                      worst_cases: int, repeats: int) -> list[GroupReport]:
        """The generic groups (status, score, cost and latency of every case); a
        candidate's run-level warnings go on its group of the run's first suite; with
        ``eval --judge-check``, the judge's verdict on the suite beside its scores."""
        # the report's pages are built by `report` and `view` only, never by a run
        from eunomia.kinds.tasks._html import report_groups

        return report_groups(store, run, suite, rows, costs, notes,
                             lambda target: self.summary(store, run, target))

    def report_leaderboard(self, store: RunStore, run: RunInfo,
                           groups: Sequence[GroupReport], notes: list[str]
                           ) -> list[LeaderboardRow]:
        return guarded_rows(notes, "suites", (task_row(t, self.summary(store, run, t))
                                              for t in run.targets))


TASKS = TaskKind()
