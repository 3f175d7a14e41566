"""The structured-grading (SGI) scenario kind: what ``eunomia run`` evaluates."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from eunomia import defaults
from eunomia.kinds import KINDS, Exported, Kind, Validation
from eunomia.kinds.scenarios._compare import ScenarioFacts, definition_changes
from eunomia.kinds.scenarios._export import export_scenarios
from eunomia.kinds.scenarios._records_out import scenario_records
from eunomia.kinds.scenarios._summary import SCORE, ScenarioSummary
from eunomia.kinds.scenarios._terminal import (
    print_consistency,
    print_scenario_summary,
    scenario_row,
)
from eunomia.pricing import load_price_file
from eunomia.report import Columns, LeaderboardRow
from eunomia.scenarios import discover, load_scenario
from eunomia.scoring import ConsistencySummary

if TYPE_CHECKING:
    from eunomia.exports import ResultRecord
    from eunomia.report.html import CostBook, GroupReport
    from eunomia.store import CaseRow, RunInfo, RunStore, SuiteInfo

SCENARIO_COLUMNS = Columns("Target", "Score % (95% CI)", KINDS["scenarios"].score_digits,
                           "Cost", "Fleiss κ", detection=True, score_label="Score %")


class ScenarioKind(Kind[ScenarioSummary]):
    """SGI scenarios: an exercise, criteria of structured grading instructions, test cases
    (Apollon diagrams) and the instructions each should get; scored by the ids returned."""

    name = "scenarios"
    title = "SGI scenario"
    command = KINDS["scenarios"].command
    columns = SCENARIO_COLUMNS
    compare_score = SCORE
    detects = True
    pass_rule = ("a scenario case passes when it is fully correct and meets its credit "
                 "expectations")

    def owns(self, path: Path) -> bool:
        """A scenario folder (it has ``manifest.yml``) or a folder with some."""
        try:
            if not path.is_dir():
                return False
            return (path / defaults.MANIFEST_FILE).is_file() or any(
                (p / defaults.MANIFEST_FILE).is_file() for p in path.iterdir() if p.is_dir())
        except OSError:
            return False

    def validate(self, paths: Sequence[Path]) -> Validation:
        found = Validation()
        sources, found.diagnostics = discover(list(paths))
        seen_prices: set[Path] = set()
        for source in sources:
            scenario, diags = load_scenario(source.folder)
            found.diagnostics += diags
            if source.price_file and source.price_file not in seen_prices:
                seen_prices.add(source.price_file)
                found.diagnostics += load_price_file(source.price_file)[1]
            if scenario is not None:
                found.lines.append(
                    f"{escape(scenario.name)}: {len(scenario.criteria)} criteria, "
                    f"{len(scenario.instructions)} instructions, "
                    f"{len(scenario.test_cases)} test cases"
                    + (f", {len(scenario.invalid_cases)} unusable"
                       if scenario.invalid_cases else "")
                    + (f"; {escape(scenario.labels_note)}" if scenario.labels_note else ""))
        return found

    def export(self, store: RunStore, run: RunInfo,
               results_dir: Path) -> list[Exported[ScenarioSummary]]:
        return export_scenarios(store, run, results_dir)

    def print_summary(self, console: Console, exported: Exported[ScenarioSummary]) -> None:
        print_scenario_summary(console, exported.summary, str(exported.folder))
        if isinstance(exported.consistency, ConsistencySummary):
            print_consistency(console, exported.consistency)

    def leaderboard_row(self, target: str,
                        exported: Sequence[Exported[ScenarioSummary]]) -> LeaderboardRow:
        return scenario_row(target, [e.summary for e in exported],
                            [e.consistency.fleiss_kappa for e in exported
                             if isinstance(e.consistency, ConsistencySummary)])

    def case_records(self, store: RunStore, run: RunInfo,
                     pass_score: float | None = None) -> Iterator[ResultRecord]:
        self.refuse_pass_score(pass_score)
        yield from scenario_records(store, run)

    # --- the HTML report and comparisons ---------------------------------------------------
    def report_groups(self, store: RunStore, run: RunInfo, suite: SuiteInfo,
                      rows: Sequence[CaseRow], costs: CostBook, notes: list[str], *,
                      worst_cases: int, repeats: int) -> list[GroupReport]:
        # the report's pages are built by `report` and `view` only, never by a run
        from eunomia.kinds.scenarios._html import report_groups

        return report_groups(store, run, suite, rows, costs, notes, worst_cases=worst_cases,
                             repeats=repeats)

    def report_leaderboard(self, store: RunStore, run: RunInfo,
                           groups: Sequence[GroupReport], notes: list[str]
                           ) -> list[LeaderboardRow]:
        # the report's pages are built by `report` and `view` only, never by a run
        from eunomia.kinds.scenarios._html import report_leaderboard

        return report_leaderboard(run, groups)

    def run_facts(self, store: RunStore, run: RunInfo) -> ScenarioFacts:
        return ScenarioFacts(store, run)

    def definition_changes(self, suite: str, a: object, b: object) -> list[str] | None:
        return definition_changes(suite, a, b)


SCENARIOS = ScenarioKind()
