"""A scenario run's result files: written as cases finish on a fresh run, and from the
store on ``--resume`` and by ``eunomia export`` — the same files either way."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from eunomia.compare import CaseFacts
from eunomia.files import file_safe
from eunomia.kinds import Exported, Finished, LiveExport
from eunomia.kinds.scenarios._compare import facts_of
from eunomia.kinds.scenarios._figures import ChangeBook, figure_rows
from eunomia.kinds.scenarios._files import ScenarioExporter
from eunomia.kinds.scenarios._llm_usage import add_llm_usage
from eunomia.kinds.scenarios._points_out import headline_rows, points_properties
from eunomia.kinds.scenarios._records import outcome_from_row, stored_scenario
from eunomia.kinds.scenarios._summary import ScenarioSummary, against_baseline
from eunomia.kinds.scenarios._warnings import run_warnings
from eunomia.pricing import PriceTable
from eunomia.scenarios import Scenario
from eunomia.scoring import CaseOutcome, ConsistencySummary
from eunomia.store import RunInfo, RunStore


class ScenarioExport:
    """The result files of one scenario on one target, fed one outcome at a time."""

    def __init__(self, results_dir: Path, run: RunInfo, scenario: Scenario, target: str,
                 store: RunStore | None = None) -> None:
        base = results_dir / run.name
        self.target = target
        self.scenario = scenario
        self.folder = (base / file_safe(target) / scenario.name if len(run.targets) > 1
                       else base / scenario.name)
        self.exporter = ScenarioExporter(self.folder, scenario)
        self.summary = ScenarioSummary(scenario)
        self.changes = ChangeBook(scenario)
        self.store = store
        """Where a case's diagram is read when the scenario holds no text (a stored run)."""
        repeats = int(run.settings.get("repeats", 1))
        self.consistency = ConsistencySummary(scenario) if repeats > 1 else None
        self._repeats: dict[str, list[CaseOutcome]] = {}
        self._facts: dict[str, list[CaseFacts]] = {}
        """The scored repeats of each case, for the comparison with the baseline."""

    def add(self, outcome: CaseOutcome) -> None:
        self.summary.add(outcome)
        self.changes.add(outcome)
        self.exporter.write_case(outcome)
        facts = facts_of(self.scenario, outcome.score) \
            if outcome.ok and outcome.score is not None else None
        if facts is not None:
            self._facts.setdefault(outcome.case, []).append(facts)
        if self.consistency is not None:  # only what consistency needs is kept
            light = replace(outcome, feedback=[], raw=None)
            self._repeats.setdefault(outcome.case, []).append(light)

    def finish(self, run: RunInfo) -> Exported[ScenarioSummary]:
        if self.consistency is not None:
            for case in sorted(self._repeats):
                self.consistency.add(self._repeats[case])
        meta: dict[str, Any] = {
            "run_name": run.name,
            "target": self.target,
            "run_status": run.status,
            "created": run.created,
            "finished": run.finished,
            "eunomia_version": run.eunomia_version,
            "repeats": run.settings.get("repeats", 1),
        }
        self.summary.by_change, self.summary.localized = self.changes.finish(self.store)
        warnings = run_warnings(self.summary)
        notes: list[str] = []
        baseline = against_baseline(self.scenario, self._facts, self.target)
        if baseline is not None:
            meta["baseline"] = baseline.to_json()
            if baseline.warning is None:
                notes.append(baseline.note)
            else:
                warnings.append(baseline.warning)
        files = self.exporter.finish(self.summary, meta, self.consistency, warnings)
        return Exported(self.target, self.folder, self.summary, suite=self.scenario.name,
                        failed=self.summary.failed, consistency=self.consistency, files=files,
                        warnings=warnings, notes=notes,
                        figures=figure_rows(self.summary) + headline_rows(self.summary),
                        properties=points_properties(self.summary))


class ScenarioLiveExport(LiveExport[CaseOutcome, ScenarioSummary]):
    """The files of a fresh run, one :class:`ScenarioExport` per target and scenario."""

    def __init__(self, results_dir: Path, run: RunInfo, scenarios: Sequence[Scenario],
                 targets: Sequence[str], prices: Sequence[PriceTable] = ()) -> None:
        self._exports = {(t, s.name): ScenarioExport(results_dir, run, s, t)
                         for t in targets for s in scenarios}
        self._results_dir = results_dir
        self._prices = list(prices)
        """The scenarios' price tables (the metered LLM totals are priced with them)."""

    def add(self, finished: Finished[CaseOutcome]) -> None:
        outcome = finished.item
        if outcome is not None:
            self._exports[(outcome.target, outcome.scenario)].add(outcome)

    def finish(self, run: RunInfo) -> list[Exported[ScenarioSummary]]:
        out = [e.finish(run) for e in self._exports.values()]
        add_llm_usage(out, run, self._results_dir, self._prices)
        return out


def export_scenarios(store: RunStore, run: RunInfo,
                     results_dir: Path) -> list[Exported[ScenarioSummary]]:
    """Every result file of a scenario run, from the store."""
    out: list[Exported[ScenarioSummary]] = []
    tables: list[PriceTable] = []
    for suite in store.suites(run):
        scenario, prices = stored_scenario(store, suite.definition, suite.prices)
        tables.append(prices)
        for target in store.targets_of(run, suite.name) or run.targets[:1]:
            export = ScenarioExport(results_dir, run, scenario, target, store)
            for row in store.iter_cases(run, suite.name, target):  # ordered by case, repeat
                export.add(outcome_from_row(store, scenario, prices, row))
            out.append(export.finish(run))
    add_llm_usage(out, run, results_dir, tables)
    return out
