"""The pairwise kind (``eunomia eval --model A --model B --pairwise``): which of two
candidates' answers does the judge prefer, each pair judged in both orders?"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from pydantic import ValidationError
from rich.console import Console

from eunomia.compare import CaseFacts
from eunomia.errors import EunomiaError
from eunomia.exports import ResultRecord
from eunomia.kinds import Exported, RunMemo, Validation
from eunomia.kinds.pairwise._files import export_pairwise, pairwise_summary
from eunomia.kinds.pairwise._records_out import pairwise_records
from eunomia.kinds.pairwise._summary import PairwiseSummary
from eunomia.kinds.pairwise._terminal import PAIRWISE_COLUMNS, pair_rows, pct, print_pairwise
from eunomia.kinds.tasks import KIND as TASKS
from eunomia.report import Columns, LeaderboardRow, rank
from eunomia.report.html import CostBook, GroupReport, Metric, generic_group, targets_of
from eunomia.store import CaseRow, RunInfo, RunStore, SuiteInfo

_SUMMARIES_KEPT = 16


class PairwiseKind:
    """Two candidates answer the same task cases (as ``eval`` asks them); a judge says which
    answer is better, each pair shown in both orders. Its suites are task suites, its one
    target the pair (``B vs A``), each stored case a comparison whose score is B's value."""

    name = "pairwise"
    title = "pairwise comparison"
    command = "eval --pairwise"
    compare_score = ("Second model's value (0-1)", "score")
    detects = False

    def __init__(self) -> None:
        self._summaries: RunMemo[PairwiseSummary] = RunMemo(_SUMMARIES_KEPT)

    def summary(self, store: RunStore, run: RunInfo) -> PairwiseSummary:
        """The run's summary, read once for every suite's group of a report."""
        return self._summaries.get(store, run, lambda: pairwise_summary(store, run))

    @property
    def columns(self) -> Columns:
        return PAIRWISE_COLUMNS

    def owns(self, path: Path) -> bool:
        return False  # task suites: the tasks kind validates them

    def validate(self, paths: Sequence[Path]) -> Validation:
        return TASKS.validate(paths)

    def export(self, store: RunStore, run: RunInfo, results_dir: Path) -> list[Exported]:
        return export_pairwise(store, run, results_dir)

    def print_summary(self, console: Console, exported: Exported) -> None:
        print_pairwise(console, exported.summary, str(exported.folder))

    def leaderboard_row(self, target: str, exported: Sequence[Exported]) -> LeaderboardRow:
        """The second candidate's row (a pairwise run has one target: the pair)."""
        return pair_rows(exported[0].summary)[1]

    def case_records(self, store: RunStore, run: RunInfo,
                     pass_score: float | None = None) -> Iterator[ResultRecord]:
        return pairwise_records(store, run, pass_score)

    # --- the HTML report and comparisons ---------------------------------------------------
    def report_groups(self, store: RunStore, run: RunInfo, suite: SuiteInfo,
                      rows: Sequence[CaseRow], costs: CostBook, notes: list[str], *,
                      worst_cases: int, repeats: int) -> list[GroupReport] | None:
        """The generic group of the pair (every comparison's status, value, cost, latency)
        with the suite's rates as metrics; the run's verdict, position bias and rates per
        kind of task in the notes (once, with the first suite)."""
        groups: list[GroupReport] = []
        if not rows:
            return groups
        try:
            s = self.summary(store, run)
        except (EunomiaError, KeyError, TypeError, ValueError, ValidationError):
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
                               is None else f"{mine.preference.low:.2f}-"
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

    def report_leaderboard(self, store: RunStore, run: RunInfo,
                           groups: Sequence[GroupReport], notes: list[str]
                           ) -> list[LeaderboardRow]:
        try:
            return rank(pair_rows(self.summary(store, run)))
        except (EunomiaError, KeyError, TypeError, ValueError, ValidationError):
            notes.append("the stored comparisons cannot be read; no leaderboard")
            return []

    def run_facts(self, store: RunStore, run: RunInfo) -> _StoredScores:
        return _StoredScores()

    def definition_changes(self, suite: str, a: object, b: object) -> list[str] | None:
        return None if a == b else []


class _StoredScores:
    """Pairwise runs are compared on what every stored comparison has (value, cost,
    latency)."""

    def case(self, row: CaseRow) -> CaseFacts | None:
        return None

    def criterion_title(self, suite: str, criterion: str) -> str | None:
        return None


PAIRWISE = PairwiseKind()
