"""A whole run: scenarios × targets × repeats, stored case by case, exported at the end.

The CLI, the tests and the benchmarks all go through :func:`run_scenarios`. Every
finished case is committed to the run store at once; the result files are
exported from the store when the run ends — also when it is interrupted — so
finished work is never lost and ``--resume`` continues where a run stopped.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rich.console import Console

from eunomia import defaults
from eunomia.errors import Diagnostic, EunomiaError, Severity
from eunomia.executors import (
    Executor,
    LocalExecutor,
    TargetRecipe,
    scenario_caller,
    target_work,
)
from eunomia.exports import (
    ExportedScenario,
    ScenarioExport,
    export_run,
    scenario_leaderboard,
    write_run_file,
)
from eunomia.models import load_config
from eunomia.pricing import PriceTable, load_price_file
from eunomia.records import CaseOutcome, CaseStatus
from eunomia.report import (
    CaseProgress,
    print_consistency,
    print_leaderboard,
    print_scenario_summary,
    write_leaderboard,
)
from eunomia.runner._scenario import CaseJob, RunOptions, run_scenario
from eunomia.scenarios import (
    InvalidTestCase,
    Scenario,
    ScenarioSource,
    TestCase,
    load_scenario,
    scenario_to_json,
)
from eunomia.store import CaseRow, RunInfo, RunStore, now
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

    def invalid(self, scenario: Scenario) -> list[InvalidTestCase]:
        return [b for b in scenario.invalid_cases
                if not self.patterns or self.matches(scenario.name, b.name)]

    def matches(self, scenario: str, case: str) -> bool:
        return any(
            fnmatch.fnmatchcase(case, p) or fnmatch.fnmatchcase(f"{scenario}/{case}", p)
            for p in self.patterns
        )

    def to_json(self) -> dict[str, Any]:
        return {"patterns": list(self.patterns), "max_cases": self.max_cases}


@dataclass(slots=True)
class LoadedScenario:
    scenario: Scenario
    prices: PriceTable


@dataclass(slots=True)
class RunReport:
    run_name: str
    folder: Path
    store_path: Path
    exported: list[ExportedScenario] = field(default_factory=list)
    interrupted: bool = False
    requests_made: int = 0
    cache_hits: int = 0

    @property
    def summaries(self) -> list[Any]:
        return [e.summary for e in self.exported]

    @property
    def failed_cases(self) -> int:
        return sum(e.summary.failed for e in self.exported)


def load_all(
    sources: Sequence[ScenarioSource],
) -> tuple[list[LoadedScenario], list[Diagnostic]]:
    """Load every scenario and its prices; blocking problems raise, the rest are returned."""
    loaded: list[LoadedScenario] = []
    problems: list[Diagnostic] = []
    blocked: list[Diagnostic] = []
    price_cache: dict[Path, tuple[PriceTable, list[Diagnostic]]] = {}
    base_prices = load_config().price_table()  # models.yml and the free local models
    for source in sources:
        scenario, diags = load_scenario(source.folder)
        problems += diags
        if scenario is None:
            blocked += [d for d in diags if d.severity is Severity.ERROR]
            continue
        prices = base_prices
        if source.price_file is None:
            problems.append(Diagnostic(Severity.WARNING, source.folder,
                                       "no llm_cost.yml beside the scenario; costs are unknown "
                                       "unless models.yml prices the models"))
        else:
            if source.price_file not in price_cache:
                price_cache[source.price_file] = load_price_file(source.price_file)
                problems += price_cache[source.price_file][1]
            # the scenario's own prices are the most specific: they win
            prices = base_prices.merged(price_cache[source.price_file][0])
        loaded.append(LoadedScenario(scenario, prices))
    if blocked:
        raise EunomiaError("cannot run: the scenarios have errors", blocked)
    return loaded, problems


def _row(outcome: CaseOutcome) -> CaseRow:
    s = outcome.score
    return CaseRow(
        suite=outcome.scenario, target=outcome.target, case_name=outcome.case,
        repeat=outcome.repeat, status=outcome.status.value, error=outcome.error,
        attempts=outcome.attempts, latency_s=outcome.request_time_s, cached=outcome.cached,
        score=s.score_percent if s is not None else None,
        input_tokens=outcome.cost.input_tokens, output_tokens=outcome.cost.output_tokens,
        cost=outcome.cost.total_cost if outcome.cost.details else None,
        request=outcome.request_hash, response=outcome.response_hash, finished=now(),
    )


def open_run(
    store: RunStore, run_name: str, targets: Sequence[FeedbackTarget],
    settings: dict[str, Any], *, resume: bool,
) -> RunInfo:
    if resume:
        run = store.require_run(run_name)
        names = [t.name for t in targets]
        if run.targets != names:
            raise EunomiaError(f"run {run_name!r} was made with target(s) {run.targets}, "
                               f"not {names}")
        store.set_run_status(run, "running")
        return run
    return store.create_run(run_name, "scenarios", [t.name for t in targets], settings)


async def run_scenarios(
    loaded: Sequence[LoadedScenario],
    target: FeedbackTarget | Sequence[FeedbackTarget],
    *,
    run_name: str,
    results_dir: Path,
    options: RunOptions,
    selection: CaseSelection = CaseSelection(),
    console: Console | None = None,
    store_path: Path | None = None,
    repeats: int = 1,
    resume: bool = False,
    retry_failed: bool = False,
    use_cache: bool = True,
    settings: dict[str, Any] | None = None,
    executor: Executor | None = None,
    recipes: Mapping[str, TargetRecipe] | None = None,
) -> RunReport:
    """Evaluate every selected case of every scenario on every target, ``repeats`` times.

    ``settings`` (what the CLI needs to resume: paths, target specs...) is stored with
    the run. With ``resume``, cases already stored are not requested again (failed ones
    are, with ``retry_failed``). ``executor`` says where the target calls are made
    (default: in this process); a remote one rebuilds each target on its workers
    from ``recipes`` (target name -> spec and config).
    """
    targets = [target] if not isinstance(target, Sequence) else list(target)
    if len({t.name for t in targets}) != len(targets):
        raise EunomiaError("the same target is given twice")
    if repeats < 1:
        raise EunomiaError(f"--repeat must be at least 1, got {repeats}")
    console = console or Console(stderr=True, quiet=True)
    store_path = store_path or results_dir / defaults.STORE_FILE
    store = RunStore(store_path)
    report = RunReport(run_name, results_dir / run_name, store_path)
    try:
        run_settings = {**(settings or {}), "repeats": repeats,
                        "selection": selection.to_json()}
        run = open_run(store, run_name, targets, run_settings, resume=resume)
        done = store.finished_keys(run, include_failed=not retry_failed) if resume else set()
        for item in loaded:
            store.add_suite(run, item.scenario.name, str(item.scenario.folder),
                            scenario_to_json(item.scenario), item.prices.to_json())
        # A fresh run writes its files as cases finish; a resumed one is exported from
        # the store at the end, so the cases of the earlier attempt are included.
        try:
            live = None if resume else {
                (t.name, item.scenario.name): ScenarioExport(results_dir, run, item.scenario,
                                                             t.name)
                for t in targets for item in loaded
            }
        except EunomiaError:  # e.g. an unwritable results folder: nothing was asked yet
            store.set_run_status(run, "interrupted")
            raise
        status = "interrupted"
        try:
            with store.grouped():  # cases finishing together share a commit
                for tgt in targets:
                    await _run_target(store, run, tgt, loaded, selection, repeats, done,
                                      options, use_cache, console, report,
                                      executor or LocalExecutor(), (recipes or {}).get(tgt.name),
                                      live)
            status = "complete"
        finally:
            store.set_run_status(run, status)
            run = store.require_run(run_name)
            report.interrupted = status != "complete"
            if live is None:
                report.exported = export_run(store, run, results_dir)
            else:
                write_run_file(store, run, results_dir / run.name)
                report.exported = [e.finish(run) for e in live.values()]
        for exported in report.exported:
            print_scenario_summary(console, exported.summary, str(exported.folder))
            if exported.consistency is not None:
                print_consistency(console, exported.consistency)
        if len(targets) > 1:
            rows = scenario_leaderboard([t.name for t in targets], report.exported)
            print_leaderboard(console, rows)
            if live is not None:  # export_run wrote it otherwise
                write_leaderboard(results_dir / run.name, rows)
        if report.cache_hits:
            console.print(f"{report.cache_hits} case(s) answered from the cache "
                          "(no request made); --no-cache to ask again")
    finally:
        store.close()
    return report


def _jobs(cases: list[TestCase], repeats: int, scenario: str, target: str,
          done: set[tuple[str, str, str, int]]) -> Iterator[CaseJob]:
    for r in range(repeats):
        for case in cases:
            if (scenario, target, case.name, r) not in done:
                yield CaseJob(case, r)


async def _run_target(
    store: RunStore, run: RunInfo, target: FeedbackTarget, loaded: Sequence[LoadedScenario],
    selection: CaseSelection, repeats: int, done: set[tuple[str, str, str, int]],
    options: RunOptions, use_cache: bool, console: Console, report: RunReport,
    executor: Executor, recipe: TargetRecipe | None,
    live: dict[tuple[str, str], ScenarioExport] | None,
) -> None:
    if not executor.remote:  # remote workers build and open their own copy
        await target.open()
    stack = AsyncExitStack()
    try:
        # One session (and one shared limiter) per target, across scenarios.
        work = target_work(target, [i.scenario for i in loaded], options.policy, executor,
                           recipe)
        submit = await stack.enter_async_context(executor.session(work, options.concurrency))
        driver = replace(options, concurrency=executor.in_flight(options.concurrency))
        for item in loaded:
            scenario = item.scenario
            cases = selection.apply(scenario)
            jobs = list(_jobs(cases, repeats, scenario.name, target.name, done))
            invalid = [
                (b, r) for r in range(repeats) for b in selection.invalid(scenario)
                if (scenario.name, target.name, b.name, r) not in done
            ]
            label = scenario.name if len(run.targets) == 1 else f"{target.name} {scenario.name}"
            with CaseProgress(console, len(jobs) + len(invalid), label) as progress:

                def record(outcome: CaseOutcome, _p: CaseProgress = progress) -> None:
                    pending = outcome.pending
                    store.record_case(run, _row(outcome),
                                      blobs=pending.blobs if pending else (),
                                      cache=pending.cache if pending else None)
                    if live is not None:
                        live[(target.name, outcome.scenario)].add(outcome)
                    if outcome.cached:
                        report.cache_hits += 1
                    elif outcome.status is not CaseStatus.INVALID:
                        report.requests_made += outcome.attempts
                    _p.advance(outcome.status is not CaseStatus.SCORED)

                for bad, r in invalid:
                    record(CaseOutcome(scenario.name, bad.name, CaseStatus.INVALID,
                                       error=bad.reason, repeat=r, target=target.name))
                await run_scenario(scenario, jobs, target, item.prices, driver, record,
                                   store=store, use_cache=use_cache,
                                   call=scenario_caller(submit, scenario.name))
    finally:
        await stack.aclose()
        if not executor.remote:
            await target.close()
