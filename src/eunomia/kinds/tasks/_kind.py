"""The judged task-suite kind: what ``eunomia eval`` evaluates."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.kinds import Exported, Validation
from eunomia.kinds.tasks._files import export_tasks, stored_summary
from eunomia.kinds.tasks._records_out import task_records
from eunomia.kinds.tasks._terminal import print_tasks_summary, task_row
from eunomia.report import Columns, LeaderboardRow, rank
from eunomia.tasks import load_suites

if TYPE_CHECKING:
    from eunomia.compare import CaseFacts
    from eunomia.exports import ResultRecord
    from eunomia.report.html import CostBook, GroupReport
    from eunomia.store import CaseRow, RunInfo, RunStore, SuiteInfo

NOT_SUITES = frozenset({defaults.MANIFEST_FILE, defaults.LLM_COST_FILE,
                        defaults.MODEL_CONFIG_FILE, defaults.LABELS_FILE,
                        defaults.MUTATIONS_FILE})
"""YAML files that are never task suites (a scenario's manifest, price and model files)."""


def _suite_file(path: Path) -> bool:
    return path.suffix.lower() in defaults.TASK_SUITE_EXTENSIONS and path.name not in NOT_SUITES


TASK_COLUMNS = Columns("Model", "Judge score 0-5 (95% CI)", 2, "Candidate cost",
                       "Krippendorff α", detection=False, score_label="Judge score (0-5)")


class TaskKind:
    """Judged task suites: a candidate model answers YAML cases, a judge model scores each
    answer 0-5 with a rubric (and deterministic checks run beside it)."""

    name = "tasks"
    title = "judged task suite"
    command = "eval"
    compare_score = ("Judge score (0-5)", "score")
    detects = False

    @property
    def columns(self) -> Columns:
        return TASK_COLUMNS

    def owns(self, path: Path) -> bool:
        """A YAML file, or a folder with YAML files (not a scenario's manifest or prices)."""
        try:
            if path.is_file():
                return _suite_file(path)
            return path.is_dir() and any(p.is_file() and _suite_file(p) for p in path.iterdir())
        except OSError:
            return False

    def validate(self, paths: Sequence[Path]) -> Validation:
        found = Validation()
        files = [p for p in paths if not p.is_dir()] + [
            f for p in paths if p.is_dir() for f in sorted(p.iterdir())
            if f.is_file() and _suite_file(f)]
        suites, found.diagnostics = load_suites(files)
        for suite in suites:
            count = suite.case_count if suite.case_count is not None else len(suite.cases)
            found.lines.append(f"{escape(suite.name)}: {count} test case(s)"
                               + (f", {len(suite.invalid)} unusable" if suite.invalid else ""))
        return found

    def export(self, store: RunStore, run: RunInfo, results_dir: Path) -> list[Exported]:
        return export_tasks(store, run, results_dir)

    def print_summary(self, console: Console, exported: Exported) -> None:
        print_tasks_summary(console, exported.summary, str(exported.folder))

    def leaderboard_row(self, target: str, exported: Sequence[Exported]) -> LeaderboardRow:
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

        return report_groups(store, run, suite, rows, costs, notes)

    def report_leaderboard(self, store: RunStore, run: RunInfo,
                           groups: Sequence[GroupReport], notes: list[str]
                           ) -> list[LeaderboardRow]:
        try:
            return rank([task_row(t, stored_summary(store, run, t, t)) for t in run.targets])
        except (EunomiaError, KeyError, TypeError, ValueError, ValidationError):
            notes.append("the stored suites cannot be read; no leaderboard")
            return []

    def run_facts(self, store: RunStore, run: RunInfo) -> _StoredScores:
        return _StoredScores()

    def definition_changes(self, suite: str, a: object, b: object) -> list[str] | None:
        return None if a == b else []


class _StoredScores:
    """Task runs are compared on what every stored case has (its score, cost, latency)."""

    def case(self, row: CaseRow) -> CaseFacts | None:
        return None

    def criterion_title(self, suite: str, criterion: str) -> str | None:
        return None


TASKS = TaskKind()
