"""A scenario run's plan: the scenarios, the targets, and how each target is opened."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from eunomia.executors import CallFailure, CaseCall, TargetRecipe, target_work
from eunomia.kinds import Plan, RunContext
from eunomia.kinds.scenarios._export import ScenarioLiveExport
from eunomia.kinds.scenarios._kind import SCENARIOS, ScenarioKind
from eunomia.kinds.scenarios._llm_usage import record_totals
from eunomia.kinds.scenarios._summary import ScenarioSummary
from eunomia.kinds.scenarios._work import LoadedScenario, ScenarioJob, ScenarioTargetRun
from eunomia.metering import MeterTotals
from eunomia.scenarios import Scenario, TestCase, scenario_to_json
from eunomia.scheduler import Attempted
from eunomia.scoring import CaseOutcome
from eunomia.store import ResponseCache, RunInfo, RunStore
from eunomia.targets import FeedbackTarget, TargetResponse


@dataclass(slots=True)
class ScenarioPlan(Plan[ScenarioJob, CaseOutcome, ScenarioSummary]):
    """Every selected case of ``loaded`` on each of ``targets``.

    ``recipes`` (target name -> spec and config) let a remote executor rebuild each target
    on its workers.
    """

    loaded: Sequence[LoadedScenario]
    target_list: Sequence[FeedbackTarget]
    recipes: Mapping[str, TargetRecipe] = field(default_factory=dict)

    @property
    def kind(self) -> ScenarioKind:
        return SCENARIOS

    @property
    def targets(self) -> list[str]:
        return [t.name for t in self.target_list]

    def snapshot(self, store: RunStore, run: RunInfo) -> None:
        for item in self.loaded:
            store.add_suite(run, item.scenario.name, str(item.scenario.folder),
                            scenario_to_json(item.scenario), item.prices.to_json())

    def live_export(self, results_dir: Path, run: RunInfo) -> ScenarioLiveExport:
        return ScenarioLiveExport(results_dir, run, [i.scenario for i in self.loaded],
                                  self.targets, [i.prices for i in self.loaded])

    @asynccontextmanager
    async def target(self, context: RunContext, name: str) -> AsyncIterator[ScenarioTargetRun]:
        plan, ctx = self, context
        target = next(t for t in plan.target_list if t.name == name)
        executor = ctx.executor
        scenarios = [i.scenario for i in plan.loaded]
        if not executor.remote:  # remote workers build and open their own copy
            await target.open()
        try:
            # one executor session (and one shared limiter) per target, across scenarios
            work = target_work(target, scenarios, ctx.options.policy, executor,
                               plan.recipes.get(name))
            async with executor.session(work, ctx.options.concurrency) as submit:

                async def call(scenario: Scenario, case: TestCase
                               ) -> Attempted[TargetResponse]:
                    got = await submit(CaseCall(scenario.name, case))
                    if isinstance(got, CallFailure):
                        raise got.error()
                    return got

                yield ScenarioTargetRun(target, plan.loaded,
                                        ResponseCache(ctx.store, read=ctx.reads_cache(target)),
                                        call,
                                        executor.in_flight(ctx.options.concurrency))
        finally:
            if not executor.remote:
                await target.close()
                totals = getattr(target, "totals", None)  # a MeteredTarget's, once closed
                if isinstance(totals, MeterTotals):
                    record_totals(ctx.store, ctx.run, name, str(getattr(target, "usage_url", "")),
                                  totals)
