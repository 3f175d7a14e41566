"""A whole run: several scenarios, case selection, results folders, summaries.

The CLI, the tests and the benchmarks all go through :func:`run_scenarios`.
Per-case files are written as each case finishes; the tables are written when a
scenario ends *and* when the run is interrupted, so finished work is never lost.
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console

from eunomia import __version__
from eunomia.errors import Diagnostic, EunomiaError, Severity
from eunomia.exports import ScenarioExporter
from eunomia.pricing import PriceTable, load_price_file
from eunomia.records import CaseOutcome, CaseStatus
from eunomia.report import CaseProgress, print_scenario_summary
from eunomia.runner._scenario import RunOptions, run_scenario
from eunomia.scenarios import Scenario, ScenarioSource, TestCase, load_scenario
from eunomia.scoring import ScenarioSummary
from eunomia.targets import FeedbackTarget


@dataclass(frozen=True, slots=True)
class CaseSelection:
    patterns: tuple[str, ...] = ()
    """Globs matched against ``case`` or ``scenario/case``; empty selects every case."""
    max_cases: int | None = None
    """At most this many cases per scenario, in name order."""

    def apply(self, scenario: Scenario) -> list[TestCase]:
        cases = scenario.test_cases
        if self.patterns:
            cases = [c for c in cases if self.matches(scenario.name, c.name)]
        if self.max_cases is not None:
            cases = cases[: self.max_cases]
        return cases

    def matches(self, scenario: str, case: str) -> bool:
        return any(
            fnmatch.fnmatchcase(case, p) or fnmatch.fnmatchcase(f"{scenario}/{case}", p)
            for p in self.patterns
        )


@dataclass(slots=True)
class LoadedScenario:
    scenario: Scenario
    prices: PriceTable


@dataclass(slots=True)
class RunReport:
    run_name: str
    folder: Path
    summaries: list[ScenarioSummary] = field(default_factory=list)
    interrupted: bool = False

    @property
    def failed_cases(self) -> int:
        return sum(s.failed for s in self.summaries)


def load_all(
    sources: Sequence[ScenarioSource],
) -> tuple[list[LoadedScenario], list[Diagnostic]]:
    """Load every scenario and its prices; blocking problems raise, the rest are returned."""
    loaded: list[LoadedScenario] = []
    problems: list[Diagnostic] = []
    blocked: list[Diagnostic] = []
    price_cache: dict[Path, tuple[PriceTable, list[Diagnostic]]] = {}
    for source in sources:
        scenario, diags = load_scenario(source.folder)
        problems += diags
        if scenario is None:
            blocked += [d for d in diags if d.severity is Severity.ERROR]
            continue
        prices = PriceTable()
        if source.price_file is None:
            problems.append(Diagnostic(Severity.WARNING, source.folder,
                                       "no llm_cost.yml beside the scenario; costs unknown"))
        else:
            if source.price_file not in price_cache:
                price_cache[source.price_file] = load_price_file(source.price_file)
                problems += price_cache[source.price_file][1]
            prices = price_cache[source.price_file][0]
        loaded.append(LoadedScenario(scenario, prices))
    if blocked:
        raise EunomiaError("cannot run: the scenarios have errors", blocked)
    return loaded, problems


def _meta(run_name: str, target: FeedbackTarget, options: RunOptions) -> dict[str, Any]:
    return {
        "run_name": run_name,
        "target": target.name,
        "eunomia_version": __version__,
        "concurrency": options.concurrency,
        "timeout_s": options.policy.timeout_s,
        "retries": options.policy.retries,
    }


def _write_run_file(folder: Path, data: dict[str, Any]) -> None:
    path = folder / "run.json"
    tmp = path.with_name("run.json.tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise EunomiaError(f"cannot write {path}: {exc.strerror or exc}") from None


async def run_scenarios(
    loaded: Sequence[LoadedScenario],
    target: FeedbackTarget,
    *,
    run_name: str,
    results_dir: Path,
    options: RunOptions,
    selection: CaseSelection = CaseSelection(),
    console: Console | None = None,
) -> RunReport:
    console = console or Console(stderr=True, quiet=True)
    run_folder = results_dir / run_name
    for item in loaded:
        existing = run_folder / item.scenario.name / "scenario_results.json"
        if existing.exists():
            raise EunomiaError(
                f"run {run_name!r} already has results for {item.scenario.name!r} in "
                f"{run_folder}; choose another run name"
            )
    try:
        run_folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise EunomiaError(f"cannot create {run_folder}: {exc.strerror or exc}") from None

    report = RunReport(run_name, run_folder)
    meta = _meta(run_name, target, options)
    started = datetime.now(UTC)
    run_file: dict[str, Any] = {**meta, "started": started.isoformat(), "scenarios": []}
    _write_run_file(run_folder, run_file)

    await target.open()
    try:
        for item in loaded:
            scenario = item.scenario
            cases = selection.apply(scenario)
            invalid = [b for b in scenario.invalid_cases
                       if not selection.patterns or selection.matches(scenario.name, b.name)]
            folder = run_folder / scenario.name
            exporter = ScenarioExporter(folder, scenario)
            scenario_started = time.perf_counter()
            summary = ScenarioSummary(scenario)
            finished = False
            with CaseProgress(console, len(cases) + len(invalid), scenario.name) as progress:

                def record(outcome: CaseOutcome, _e: ScenarioExporter = exporter,
                           _p: CaseProgress = progress, _s: ScenarioSummary = summary) -> None:
                    _s.add(outcome)
                    _e.write_case(outcome)
                    _p.advance(outcome.status is not CaseStatus.SCORED)

                for bad in invalid:
                    record(CaseOutcome(scenario.name, bad.name, CaseStatus.INVALID,
                                       error=bad.reason))
                try:
                    await run_scenario(scenario, cases, target, item.prices, options, record)
                    finished = True
                finally:
                    scenario_meta = {
                        **meta,
                        "started": started.isoformat(),
                        "duration_s": round(time.perf_counter() - scenario_started, 3),
                        "complete": finished,
                        "selected_cases": len(cases) + len(invalid),
                    }
                    exporter.finish(summary, scenario_meta)
                    report.summaries.append(summary)
                    run_file["scenarios"].append({
                        "scenario": scenario.name, "complete": finished,
                        "total_cases": summary.total, "failed_cases": summary.failed,
                    })
                    run_file["finished"] = datetime.now(UTC).isoformat()
                    run_file["complete"] = False
                    _write_run_file(run_folder, run_file)
            print_scenario_summary(console, summary, str(folder))
    except (asyncio.CancelledError, KeyboardInterrupt):
        report.interrupted = True
        raise
    finally:
        await target.close()
    run_file["complete"] = True
    _write_run_file(run_folder, run_file)
    return report
