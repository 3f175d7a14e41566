"""The pairwise kind (``eunomia eval --model A --model B --pairwise``): which of two
candidates' answers does the judge prefer, each pair judged in both orders?"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from eunomia.kinds import KINDS, Exported, Kind, RunMemo, Validation, guarded_rows
from eunomia.kinds._task_suites import validate_suites
from eunomia.kinds.pairwise._files import export_pairwise, pairwise_summary
from eunomia.kinds.pairwise._records_out import pairwise_records
from eunomia.kinds.pairwise._summary import PairwiseSummary
from eunomia.kinds.pairwise._terminal import PAIRWISE_COLUMNS, pair_rows, print_pairwise
from eunomia.report import LeaderboardRow

if TYPE_CHECKING:
    from eunomia.exports import ResultRecord
    from eunomia.report.html import CostBook, GroupReport
    from eunomia.store import CaseRow, RunInfo, RunStore, SuiteInfo

_SUMMARIES_KEPT = 16


class PairwiseKind(Kind[PairwiseSummary]):
    """Two candidates answer the same task cases (as ``eval`` asks them); a judge says which
    answer is better, each pair shown in both orders. Its suites are task suites, its one
    target the pair (``B vs A``), each stored case a comparison whose score is B's value."""

    name = "pairwise"
    title = "pairwise comparison"
    command = KINDS["pairwise"].command
    columns = PAIRWISE_COLUMNS
    compare_score = ("Second model's value (0-1)", "score")
    pass_rule = "a pairwise comparison passes when the second model does not lose it"

    def __init__(self) -> None:
        self._summaries: RunMemo[PairwiseSummary] = RunMemo(_SUMMARIES_KEPT)

    def summary(self, store: RunStore, run: RunInfo) -> PairwiseSummary:
        """The run's summary, read once for every suite's group of a report."""
        return self._summaries.get(store, run, lambda: pairwise_summary(store, run))

    def validate(self, paths: Sequence[Path]) -> Validation:
        return validate_suites(paths)

    def export(self, store: RunStore, run: RunInfo,
               results_dir: Path) -> list[Exported[PairwiseSummary]]:
        return export_pairwise(store, run, results_dir)

    def print_summary(self, console: Console, exported: Exported[PairwiseSummary]) -> None:
        print_pairwise(console, exported.summary, str(exported.folder))

    def leaderboard_row(self, target: str,
                        exported: Sequence[Exported[PairwiseSummary]]) -> LeaderboardRow:
        """The second candidate's row (a pairwise run has one target: the pair)."""
        return pair_rows(exported[0].summary)[1]

    def case_records(self, store: RunStore, run: RunInfo,
                     pass_score: float | None = None) -> Iterator[ResultRecord]:
        self.refuse_pass_score(pass_score)
        yield from pairwise_records(store, run)

    # --- the HTML report -------------------------------------------------------------------
    def report_groups(self, store: RunStore, run: RunInfo, suite: SuiteInfo,
                      rows: Sequence[CaseRow], costs: CostBook, notes: list[str], *,
                      worst_cases: int, repeats: int) -> list[GroupReport]:
        # the report's pages are built by `report` and `view` only, never by a run
        from eunomia.kinds.pairwise._html import report_groups

        return report_groups(lambda: self.summary(store, run), store, run, suite, rows,
                             costs, notes)

    def report_leaderboard(self, store: RunStore, run: RunInfo,
                           groups: Sequence[GroupReport], notes: list[str]
                           ) -> list[LeaderboardRow]:
        return guarded_rows(notes, "comparisons", pair_rows(self.summary(store, run)))


PAIRWISE = PairwiseKind()
