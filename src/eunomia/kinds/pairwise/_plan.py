"""A pairwise run's plan: the task suites, the two candidates, the judge, and how each is
opened.

The run has one target, the pair (``B vs A``): its rows are the comparisons, case by case.
Its turn opens both candidates and the judge (a provider shared when two of them are the
same model; none for a trivial baseline). Every call goes through the same
:class:`eunomia.kinds.tasks.ModelCaller` and response cache as ``eval``'s.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eunomia.errors import EunomiaError
from eunomia.judge import PairwiseJudge, PairwisePrompt
from eunomia.kinds import Kind, RunContext
from eunomia.kinds.pairwise._kind import PAIRWISE
from eunomia.kinds.pairwise._result import Side
from eunomia.kinds.pairwise._work import Contender, PairwiseTargetRun
from eunomia.kinds.tasks import Candidate, ModelCaller, baseline_of, price_table
from eunomia.models import ModelProvider, ModelSpec, get_model
from eunomia.pricing import PriceTable
from eunomia.scheduler import AdaptiveLimiter
from eunomia.store import ResponseCache, RunInfo, RunStore
from eunomia.tasks import TaskSuite, write_snapshot


def pair_name(first: str, second: str) -> str:
    """The run's target: the pair, the second candidate named first (``B vs A``)."""
    return f"{second} vs {first}"


@dataclass(slots=True)
class PairwisePlan:
    """Every selected case of ``suites`` answered by both candidates and compared by the
    judge in both orders. An :class:`eunomia.kinds.Plan`.

    ``providers`` (spec -> provider) replaces building those providers from the specs (they
    are then left open for their owner).
    """

    suites: Sequence[TaskSuite]
    first: Candidate
    second: Candidate
    judge_spec: ModelSpec
    prompt: PairwisePrompt | None = None
    providers: Mapping[str, ModelProvider] | None = None
    judge: PairwiseJudge = field(init=False)
    prices: PriceTable = field(init=False)

    def __post_init__(self) -> None:
        if baseline_of(self.judge_spec) is not None:
            raise EunomiaError(f"--judge {self.judge_spec.spec}: a trivial baseline cannot "
                               "judge; give a model spec")
        if self.first.label == self.second.label:
            raise EunomiaError(f"both candidates are named {self.first.label!r}: --pairwise "
                               "compares two different candidates")
        self.judge = PairwiseJudge(self.prompt, settings=self.judge_spec.settings)
        self.prices = price_table(self.first.spec, self.second.spec, self.judge_spec)

    @property
    def kind(self) -> Kind:
        return PAIRWISE

    @property
    def name(self) -> str:
        return pair_name(self.first.label, self.second.label)

    @property
    def targets(self) -> list[str]:
        return [self.name]

    def settings(self) -> dict[str, Any]:
        return {"first": {"label": self.first.label, "spec": self.first.spec.spec},
                "second": {"label": self.second.label, "spec": self.second.spec.spec},
                "judge": self.judge_spec.spec, "prompt": str(self.judge.prompt.path)}

    def snapshot(self, store: RunStore, run: RunInfo) -> None:
        prices = self.prices.to_json()
        self.suites = [write_snapshot(store, run, suite, prices) for suite in self.suites]

    def live_export(self, results_dir: Path, run: RunInfo) -> None:
        return None  # exported from the store at the end

    @asynccontextmanager
    async def session(self, context: RunContext) -> AsyncIterator[_Session]:
        yield _Session(self, context)


class _Session:
    def __init__(self, plan: PairwisePlan, context: RunContext) -> None:
        self.plan = plan
        self.context = context

    @asynccontextmanager
    async def target(self, name: str) -> AsyncIterator[PairwiseTargetRun]:
        """The pair, both candidates and the judge open for its turn."""
        plan, ctx = self.plan, self.context
        specs = [plan.first.spec, plan.second.spec, plan.judge_spec]
        concurrency = ctx.options.concurrency
        if any(s.kind == "local" for s in specs) and concurrency > 1:
            ctx.console.print("[yellow]note:[/] a local model answers one request at a time; "
                              f"concurrency lowered from {concurrency} to 1")
            concurrency = 1
        async with AsyncExitStack() as stack:
            opened: dict[str, tuple[ModelProvider, AdaptiveLimiter]] = {}

            def open_model(spec: ModelSpec) -> tuple[ModelProvider, AdaptiveLimiter]:
                """One provider and limiter per model, whatever its roles."""
                found = opened.get(spec.spec)
                if found is None:
                    given = plan.providers.get(spec.spec) if plan.providers else None
                    provider = given if given is not None else get_model(spec)
                    if given is None:
                        stack.push_async_callback(provider.close)
                    found = opened[spec.spec] = (provider, AdaptiveLimiter(concurrency))
                return found

            def caller(spec: ModelSpec, role: str) -> ModelCaller:
                provider, limiter = open_model(spec)
                return ModelCaller(provider, spec.spec, role, policy=ctx.options.policy,
                                   limiter=limiter,
                                   cache=ResponseCache(ctx.store,
                                                       read=ctx.reads_cache(provider)))

            pair: tuple[tuple[Side, Candidate], ...] = (("A", plan.first), ("B", plan.second))
            sides = [Contender(side, cand.label, cand.spec,
                               None if cand.baseline else caller(cand.spec, "candidate"),
                               cand.baseline) for side, cand in pair]
            yield PairwiseTargetRun(name, plan.suites, (sides[0], sides[1]),
                                    caller(plan.judge_spec, "judge"), plan.judge, plan.prices,
                                    concurrency)
