"""Eunomia from Python: run scenarios or task suites as the command line does.

>>> loaded, problems = load_scenarios(discover([Path("examples/scenarios")])[0])
>>> report = await run_scenarios(loaded, build_target("example", TargetConfig()),
...                              run_name="demo", results_dir=Path("results"),
...                              options=RunOptions())

Both go through the one engine (:func:`eunomia.run.run_evaluation`) with their kind's plan.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.executors import Executor, TargetRecipe
from eunomia.judge import Rubric
from eunomia.kinds import Selection
from eunomia.kinds._task_suites import NO_JUDGE, Candidate
from eunomia.kinds.scenarios import LoadedScenario, ScenarioPlan, ScenarioSummary, load_scenarios
from eunomia.kinds.tasks import TaskPlan, TasksSummary
from eunomia.models import ModelProvider, ModelSpec
from eunomia.run import RunReport, run_evaluation
from eunomia.scheduler import RunOptions
from eunomia.targets import FeedbackTarget
from eunomia.tasks import TaskSuite

CaseSelection = Selection
TaskSelection = Selection
TaskRunReport = RunReport
load_all = load_scenarios


async def run_scenarios(
    loaded: Sequence[LoadedScenario],
    target: FeedbackTarget | Sequence[FeedbackTarget],
    *,
    run_name: str,
    results_dir: Path,
    options: RunOptions,
    selection: Selection | None = None,
    console: Console | None = None,
    store_path: Path | None = None,
    repeats: int = 1,
    resume: bool = False,
    retry_failed: bool = False,
    use_cache: bool = True,
    settings: dict[str, Any] | None = None,
    executor: Executor | None = None,
    recipes: Mapping[str, TargetRecipe] | None = None,
    cache_systems: bool = False,
) -> RunReport[ScenarioSummary]:
    """Evaluate every selected case of every scenario on every target, ``repeats`` times.

    ``recipes`` (target name -> spec and config) let a remote ``executor`` rebuild each
    target on its workers.
    """
    targets = [target] if not isinstance(target, Sequence) else list(target)
    return await run_evaluation(
        ScenarioPlan(loaded, targets, recipes or {}), run_name=run_name,
        results_dir=results_dir, options=options, selection=selection, repeats=repeats,
        console=console, store_path=store_path, resume=resume, retry_failed=retry_failed,
        use_cache=use_cache, settings=settings, executor=executor,
        cache_systems=cache_systems)


async def run_tasks(
    suites: Sequence[TaskSuite],
    *,
    candidate: ModelSpec | Sequence[ModelSpec],
    judge: ModelSpec | None,
    run_name: str,
    results_dir: Path,
    options: RunOptions,
    judge_repeats: int = defaults.JUDGE_REPEATS,
    repeats: int = 1,
    weights: Mapping[str, float] | None = None,
    rubric: Rubric | None = None,
    selection: Selection | None = None,
    console: Console | None = None,
    store_path: Path | None = None,
    resume: bool = False,
    retry_failed: bool = False,
    use_cache: bool = True,
    settings: dict[str, Any] | None = None,
    providers: tuple[ModelProvider, ModelProvider] | None = None,
    executor: Executor | None = None,
    names: Sequence[str] | None = None,
    cache_systems: bool = False,
) -> RunReport[TasksSummary]:
    """Run every selected case of every suite ``repeats`` times on each ``candidate``
    (named ``names``, default their specs), judged by ``judge`` (None: ``--judge none``,
    each case scored by its checks); export and summarize.

    ``providers`` (candidate, judge) replaces building them from the specs (they are then
    left open for their owner).
    """
    specs = [candidate] if isinstance(candidate, ModelSpec) else list(candidate)
    labels = list(names) if names is not None else [s.spec for s in specs]
    if not specs or len(labels) != len(specs):
        raise EunomiaError("give one name per candidate model")
    plan = TaskPlan(suites, [Candidate(s, n) for s, n in zip(specs, labels, strict=True)],
                    judge, judge_repeats, dict(weights or defaults.DIFFICULTY_WEIGHTS), rubric,
                    providers)
    return await run_evaluation(
        plan, run_name=run_name, results_dir=results_dir, options=options,
        selection=selection, repeats=repeats, console=console, store_path=store_path,
        resume=resume, retry_failed=retry_failed, use_cache=use_cache, settings=settings,
        executor=executor, cache_systems=cache_systems)


__all__ = [
    "NO_JUDGE",
    "CaseSelection",
    "LoadedScenario",
    "RunOptions",
    "RunReport",
    "TaskRunReport",
    "TaskSelection",
    "load_all",
    "load_scenarios",
    "run_scenarios",
    "run_tasks",
]
