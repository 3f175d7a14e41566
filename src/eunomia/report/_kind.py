"""What a kind adds to the HTML report of one of its runs: the protocol alone, so that a kind
(and every command that loads one) imports it without the report's pages (``report/html``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from eunomia.report._leaderboard import Columns, LeaderboardRow
    from eunomia.report.html._costs import CostBook
    from eunomia.report.html._model import GroupReport
    from eunomia.store import CaseRow, RunInfo, RunStore, SuiteInfo


class ReportKind(Protocol):
    """What a kind adds to the report of one of its runs."""

    @property
    def name(self) -> str: ...

    @property
    def columns(self) -> Columns:
        """The leaderboard's columns; their score label and digits are the report's too."""
        ...

    def report_groups(self, store: RunStore, run: RunInfo, suite: SuiteInfo,
                      rows: Sequence[CaseRow], costs: CostBook, notes: list[str], *,
                      worst_cases: int, repeats: int) -> list[GroupReport] | None:
        """The groups of ``suite`` (one per target), or None for the generic ones."""
        ...

    def report_leaderboard(self, store: RunStore, run: RunInfo,
                           groups: Sequence[GroupReport], notes: list[str]
                           ) -> list[LeaderboardRow]:
        """The ranked rows of a run with several targets, as in the terminal."""
        ...
