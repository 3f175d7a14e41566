"""Result files regenerated from the run store (``eunomia export RUN``, and every run's end).

Outcomes are rebuilt from the stored scenario snapshot, price table and responses
through the same scoring code as a live run, so the files are exports of the store.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from eunomia.exports._scenario_files import ScenarioExporter
from eunomia.files import write_text_atomic
from eunomia.pricing import PriceTable
from eunomia.records import CaseOutcome, CaseStatus
from eunomia.scenarios import Scenario, scenario_from_json
from eunomia.scoring import ConsistencySummary, ScenarioSummary, build_outcome
from eunomia.store import CaseRow, RunInfo, RunStore
from eunomia.targets import TargetResponse


@dataclass(slots=True)
class ExportedScenario:
    target: str
    folder: Path
    summary: ScenarioSummary
    consistency: ConsistencySummary | None = None


class ScenarioExport:
    """The result files of one scenario on one target, fed one outcome at a time.

    Live runs feed it as cases finish; ``export_run`` feeds it from the store. Either
    way the same files come out.
    """

    def __init__(self, results_dir: Path, run: RunInfo, scenario: Scenario, target: str) -> None:
        base = results_dir / run.name
        self.target = target
        self.folder = (base / target_slug(target) / scenario.name if len(run.targets) > 1
                       else base / scenario.name)
        self.exporter = ScenarioExporter(self.folder, scenario)
        self.summary = ScenarioSummary(scenario)
        repeats = int(run.settings.get("repeats", 1))
        self.consistency = ConsistencySummary(scenario) if repeats > 1 else None
        self._repeats: dict[str, list[CaseOutcome]] = {}

    def add(self, outcome: CaseOutcome) -> None:
        self.summary.add(outcome)
        self.exporter.write_case(outcome)
        if self.consistency is not None:  # only what consistency needs is kept
            light = replace(outcome, feedback=[], raw=None, pending=None)
            self._repeats.setdefault(outcome.case, []).append(light)

    def finish(self, run: RunInfo) -> ExportedScenario:
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
        self.exporter.finish(self.summary, meta, self.consistency)
        return ExportedScenario(self.target, self.folder, self.summary, self.consistency)


def target_slug(target: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", target).strip("_")[:80] or "target"


def outcome_from_row(store: RunStore, scenario: Scenario, prices: PriceTable,
                     row: CaseRow) -> CaseOutcome:
    status = CaseStatus(row.status)
    case = scenario.case_named(row.case_name)
    if status is CaseStatus.SCORED and row.response and case is not None:
        response = TargetResponse.from_json(store.get_json(row.response))
        return build_outcome(
            scenario, row.case_name, response, prices, case=case, attempts=row.attempts,
            latency_s=row.latency_s, repeat=row.repeat, target=row.target, cached=row.cached,
            request_hash=row.request, response_hash=row.response,
        )
    return CaseOutcome(scenario.name, row.case_name, status, error=row.error,
                       attempts=row.attempts, request_time_s=row.latency_s, repeat=row.repeat,
                       target=row.target, cached=row.cached, request_hash=row.request)


def iter_outcomes(store: RunStore, run: RunInfo) -> Iterator[tuple[Scenario, str, CaseOutcome]]:
    """Every stored outcome of a run, rebuilt, with its scenario and target."""
    for suite in store.suites(run):
        scenario = scenario_from_json(store.get_json(suite.definition))
        prices = PriceTable.from_json(store.get_json(suite.prices))
        for row in store.iter_cases(run, suite.name):
            yield scenario, row.target, outcome_from_row(store, scenario, prices, row)


def write_run_file(store: RunStore, run: RunInfo, base: Path) -> None:
    totals = store.run_totals(run)
    data = {
        "run_name": run.name, "kind": run.kind, "status": run.status, "created": run.created,
        "finished": run.finished, "targets": run.targets, "settings": run.settings,
        "eunomia_version": run.eunomia_version, "store": str(store.path),
        "suites": [s.name for s in store.suites(run)],
        "cases": totals.cases, "failed_cases": totals.failed,
    }
    write_text_atomic(base / "run.json", json.dumps(data, indent=2))


def scenario_leaderboard(targets: list[str], exported: list[ExportedScenario]) -> list[Any]:
    """The ranked leaderboard rows (``eunomia.report.LeaderboardRow``) of a matrix run."""
    from eunomia.report import leaderboard  # lazy: eunomia.report imports this package

    return leaderboard([
        (t, [e.summary for e in exported if e.target == t],
         [e.consistency for e in exported if e.target == t and e.consistency is not None])
        for t in targets
    ])


def export_run(store: RunStore, run: RunInfo, results_dir: Path) -> list[ExportedScenario]:
    """Write every result file of a run from the store; returns the per-scenario summaries."""
    if run.kind == "tasks":  # judged task suites: their own files (eunomia.exports._task_files)
        from eunomia.exports._task_files import export_task_run

        export_task_run(store, run, results_dir)
        return []
    out: list[ExportedScenario] = []
    base = results_dir / run.name
    write_run_file(store, run, base)
    for suite in store.suites(run):
        scenario = scenario_from_json(store.get_json(suite.definition))
        prices = PriceTable.from_json(store.get_json(suite.prices))
        for target in store.targets_of(run, suite.name) or run.targets[:1]:
            export = ScenarioExport(results_dir, run, scenario, target)
            for row in store.iter_cases(run, suite.name, target):  # ordered by case, repeat
                export.add(outcome_from_row(store, scenario, prices, row))
            out.append(export.finish(run))
    if len(run.targets) > 1:
        from eunomia.report import write_leaderboard

        write_leaderboard(base, scenario_leaderboard(run.targets, out))
    return out
