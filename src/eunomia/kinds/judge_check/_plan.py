"""A judge check's plan: the task suites, the judges (the run's targets), how each is opened.

The judges run one after the other, each provider open only for its turn (two local models
are never loaded at once); a local judge answers one request at a time.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.judge import Judge, Rubric
from eunomia.kinds import Kind, RunContext
from eunomia.kinds.judge_check._kind import JUDGE_CHECK
from eunomia.kinds.judge_check._work import JudgeCheckTargetRun
from eunomia.kinds.tasks import ModelCaller, price_table
from eunomia.models import ModelProvider, ModelSpec, get_model
from eunomia.pricing import PriceTable
from eunomia.scheduler import AdaptiveLimiter
from eunomia.store import ResponseCache, RunInfo, RunStore
from eunomia.tasks import TaskSuite, write_snapshot


@dataclass(slots=True)
class CheckedJudge:
    """A judge of the run: its resolved spec and its name in the run."""

    spec: ModelSpec
    label: str


@dataclass(slots=True)
class JudgeCheckPlan:
    """Every selected checkable case of ``suites``, its controlled answers scored by each
    judge. An :class:`eunomia.kinds.Plan`.

    ``weighted`` also asks each judge for the probabilities of the score values (where its
    provider gives them: the probability-weighted score is reported beside the sampled one).
    ``providers`` (judge label -> provider) replaces building them from the specs (they are
    then left open for their owner).
    """

    suites: Sequence[TaskSuite]
    judges: Sequence[CheckedJudge]
    judge_repeats: int = defaults.JUDGE_REPEATS
    rubric: Rubric | None = None
    weighted: bool = True
    providers: Mapping[str, ModelProvider] | None = None
    prices: PriceTable = field(init=False)

    def __post_init__(self) -> None:
        if not self.judges:
            raise EunomiaError("give at least one judge: --judge SPEC")
        if self.judge_repeats < 1:
            raise EunomiaError(f"--judge-repeats must be at least 1, got {self.judge_repeats}")
        self.prices = price_table(*(j.spec for j in self.judges))

    @property
    def kind(self) -> Kind:
        return JUDGE_CHECK

    @property
    def targets(self) -> list[str]:
        return [j.label for j in self.judges]

    def settings(self) -> dict[str, Any]:
        rubric = self.rubric or Rubric.load()
        return {"judges": [j.spec.spec for j in self.judges],
                "judge_repeats": self.judge_repeats, "rubric": str(rubric.path),
                "weighted": self.weighted}

    def snapshot(self, store: RunStore, run: RunInfo) -> None:
        prices = self.prices.to_json()
        self.suites = [write_snapshot(store, run, suite, prices) for suite in self.suites]

    def live_export(self, results_dir: Path, run: RunInfo) -> None:
        return None  # exported from the store at the end

    @asynccontextmanager
    async def session(self, context: RunContext) -> AsyncIterator[_Session]:
        yield _Session(self, context)


class _Session:
    def __init__(self, plan: JudgeCheckPlan, context: RunContext) -> None:
        self.plan = plan
        self.context = context
        self._noted = False

    @asynccontextmanager
    async def target(self, name: str) -> AsyncIterator[JudgeCheckTargetRun]:
        """One judge, open for its turn."""
        plan, ctx = self.plan, self.context
        checked = next(j for j in plan.judges if j.label == name)
        concurrency = ctx.options.concurrency
        if checked.spec.kind == "local" and concurrency > 1:
            if not self._noted:
                ctx.console.print("[yellow]note:[/] a local model answers one request at a "
                                  f"time; concurrency lowered from {concurrency} to 1")
                self._noted = True
            concurrency = 1
        async with AsyncExitStack() as stack:
            if plan.providers is not None and name in plan.providers:
                provider = plan.providers[name]
            else:
                provider = get_model(checked.spec)
                stack.push_async_callback(provider.close)
            caller = ModelCaller(provider, checked.spec.spec, "judge", policy=ctx.options.policy,
                                 limiter=AdaptiveLimiter(concurrency),
                                 cache=ResponseCache(ctx.store, read=ctx.reads_cache(provider)))
            judge = Judge(plan.rubric, repeats=plan.judge_repeats,
                          settings=checked.spec.settings, weighted=plan.weighted)
            yield JudgeCheckTargetRun(name, plan.suites, caller, judge, plan.prices,
                                      concurrency)
