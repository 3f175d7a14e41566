"""``eval``'s controls (:mod:`eunomia.kinds.tasks._controls`): before the candidates, the judge
scores the control answers of a seeded sample of each suite's selected cases, as the run
``<eval run>-controls`` (resumed when it exists; every call cached), once whatever the
candidates; the eval run keeps the link."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.judge import Rubric
from eunomia.kinds.tasks import (
    CONTROL_WORDS,
    CONTROLS_SUFFIX,
    StoredControls,
    TaskPlan,
    control_candidates,
)
from eunomia.models import ModelSpec, local_model
from eunomia.run import run_evaluation
from eunomia.store import RunStore
from eunomia.tasks import TaskSuite

if TYPE_CHECKING:
    from eunomia.executors import Executor
    from eunomia.run import RunRequest


def local_seconds(judge: ModelSpec) -> float | None:
    """Seconds a local judge takes per judged answer on one idle core (None: not local, or
    not measured)."""
    if judge.backend != "local":
        return None
    try:
        name = local_model(judge.model or None).name
    except EunomiaError:
        return None
    mode = "generate" if judge.scoring in (None, "generate", "likelihood+feedback") \
        else "likelihood"
    return defaults.LOCAL_JUDGE_SECONDS[mode].get(name)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def controls_before_eval(
    suites: Sequence[TaskSuite],
    judge: ModelSpec,
    *,
    eval_run: str,
    run: RunRequest,
    controls: Sequence[str],
    sample: int | None,
    judge_repeats: int,
    weights: Mapping[str, float],
    rubric: Rubric | None,
    console: Console,
    executor: Executor | None = None,
) -> StoredControls | None:
    """Score the controls of ``suites`` with ``judge`` (said first, with the time a local
    judge takes), print the content-free mean, return the link the eval run keeps (None:
    no selected case)."""
    name = eval_run + CONTROLS_SUFFIX
    candidates, answers = control_candidates(suites, run.selection, controls, sample)
    if not answers:
        return None
    resume = False
    if run.store_path.is_file():
        db = RunStore(run.store_path)
        try:
            existing = db.get_run(name)
            taken = run.resume is None and db.get_run(eval_run) is not None
        finally:
            db.close()
        if taken:
            raise EunomiaError(f"a run named {eval_run!r} already exists in {run.store_path}; "
                               "choose another name or --resume it")
        if existing is not None:
            if existing.kind != "tasks" or existing.settings.get("judge") != judge.spec \
                    or existing.targets != [c.label for c in candidates]:
                raise EunomiaError(f"run {name!r} exists and is not this eval's controls "
                                   f"({', '.join(controls)} judged by {judge.spec}); give "
                                   "the eval another --run-name")
            resume = True
    asked = answers * judge_repeats
    what = " and ".join(CONTROL_WORDS[c] for c in controls)
    per = "every selected case" if sample is None else \
        f"up to {sample} cases per suite, a seeded sample"
    said = (f"Controls: the judge scores {what} for {answers // len(controls)} case(s) "
            f"({per}; {asked} judged answer(s), cached), run {name}; '--controls none' "
            "leaves them out.")
    seconds = local_seconds(judge)
    if seconds is not None:
        said += (f" {judge.spec} is a local model: about {_duration(asked * seconds)} "
                 f"({seconds:g} s an answer on an idle core; answers in the cache take none).")
    console.print(escape(said), soft_wrap=True)
    plan = TaskPlan(suites, candidates, judge, judge_repeats, dict(weights), rubric)
    report = asyncio.run(run_evaluation(
        plan, run_name=name, results_dir=run.results, options=run.options,
        console=Console(stderr=True, quiet=True), executor=executor, selection=run.selection,
        store_path=run.store_path, resume=resume, retry_failed=resume,
        use_cache=not run.no_cache, settings={"for_eval": eval_run}))
    costs = [e.summary.cost for e in report.exported]
    cost = None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)
    for e in report.exported:
        mean = e.summary.overall.mean if e.summary.overall is not None else None
        got = "no answer scored" if mean is None else (
            f"{mean.estimate:.2f} of 5 (95% CI {mean.low:.2f}-{mean.high:.2f}, "
            f"{mean.n} cases)")
        console.print(escape(f"Control {e.target}: {got}"), soft_wrap=True)
    console.print(escape(f"Controls cost {'unknown' if cost is None else f'{cost:.4f}'} "
                         "(the judge's calls; in no candidate's cost)"), soft_wrap=True)
    return StoredControls(run=name, judge=judge.spec, controls=list(controls), sample=sample,
                          answers=asked, cost=cost, failed=report.failed_cases)
