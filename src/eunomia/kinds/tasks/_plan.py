"""A task run's plan: the suites, the candidate models, the judge, and how each is opened.

The candidates run one after the other (each provider open only for its turn, so two local
models are never loaded at once); the judge is opened once and shared by every candidate.
A trivial baseline (``baseline:reference``, ``baseline:empty``) opens nothing: it answers
each case itself (:mod:`._baselines`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.executors import ChatJob, ChatOutcome, ModelChat, Submit
from eunomia.judge import Judge, Rubric
from eunomia.kinds import Kind, RunContext
from eunomia.kinds.tasks._baselines import baseline_of
from eunomia.kinds.tasks._calls import ModelCaller, chat_attempt
from eunomia.kinds.tasks._kind import TASKS
from eunomia.kinds.tasks._work import TaskTargetRun
from eunomia.models import ModelProvider, ModelSpec, get_model, load_config
from eunomia.pricing import PriceTable, bundled_prices
from eunomia.scheduler import AdaptiveLimiter
from eunomia.store import ResponseCache, RunInfo, RunStore
from eunomia.tasks import TaskSuite, write_snapshot

NO_JUDGE = "none"
"""``--judge none``: no judge model; each case is scored by its deterministic checks only."""


def price_table(*specs: ModelSpec) -> PriceTable:
    """Prices from ``models.yml`` (and the specs' own), over Eunomia's bundled table (whose
    prices say where they came from), for cost estimates."""
    table = bundled_prices().merged(load_config().price_table())
    extra = {}
    for s in specs:
        if s.price is not None:
            extra[s.model] = s.price
            extra[s.spec] = s.price
    return table.merged(PriceTable(extra)) if extra else table


@dataclass(slots=True)
class Candidate:
    """A candidate model of the run: its resolved spec and its name in the run."""

    spec: ModelSpec
    label: str

    @property
    def serial(self) -> bool:
        """An in-process model answers one request at a time."""
        return self.spec.kind == "local"

    @property
    def baseline(self) -> bool:
        """A trivial baseline (``baseline:reference``...): no model, no call."""
        return baseline_of(self.spec) is not None


@dataclass(slots=True)
class TaskPlan:
    """Every selected case of ``suites`` answered by each candidate, scored by the judge
    (by the cases' checks alone with no judge). An :class:`eunomia.kinds.Plan`.

    ``providers`` (candidate, judge) replaces building them from the specs (they are then
    left open for their owner).
    """

    suites: Sequence[TaskSuite]
    candidates: Sequence[Candidate]
    judge_spec: ModelSpec | None
    judge_repeats: int = defaults.JUDGE_REPEATS
    weights: Mapping[str, float] = field(default_factory=lambda: dict(
        defaults.DIFFICULTY_WEIGHTS))
    rubric: Rubric | None = None
    providers: tuple[ModelProvider, ModelProvider] | None = None
    judge: Judge = field(init=False)
    prices: PriceTable = field(init=False)

    def __post_init__(self) -> None:
        if not self.candidates:
            raise EunomiaError("give at least one candidate model")
        if self.judge_spec is not None and baseline_of(self.judge_spec) is not None:
            raise EunomiaError(f"--judge {self.judge_spec.spec}: a trivial baseline cannot "
                               "judge; give a model spec (or none)")
        self.judge = Judge(self.rubric, repeats=self.judge_repeats,
                           settings=self.judge_spec.settings if self.judge_spec else None)
        self.prices = price_table(*(c.spec for c in self.candidates),
                                  *([self.judge_spec] if self.judge_spec else []))

    @property
    def kind(self) -> Kind:
        return TASKS

    @property
    def targets(self) -> list[str]:
        return [c.label for c in self.candidates]

    def settings(self) -> dict[str, Any]:
        return {"judge": self.judge_spec.spec if self.judge_spec else NO_JUDGE,
                "judge_repeats": self.judge_repeats, "weights": dict(self.weights),
                "rubric": str(self.judge.rubric.path),
                "baselines": {c.label: c.spec.spec for c in self.candidates if c.baseline}}

    def snapshot(self, store: RunStore, run: RunInfo) -> None:
        # stored chunk by chunk; the run then reads its cases from the store, not the file
        prices = self.prices.to_json()
        self.suites = [write_snapshot(store, run, suite, prices) for suite in self.suites]

    def live_export(self, results_dir: Path, run: RunInfo) -> None:
        return None  # exported from the store at the end, a chunk at a time

    @asynccontextmanager
    async def session(self, context: RunContext) -> AsyncIterator[_Session]:
        async with AsyncExitStack() as stack:
            judge = None
            if self.judge_spec is not None:
                judge = await _JudgeSide.open(self, context, stack)
            yield _Session(self, context, judge)


@dataclass(slots=True)
class _JudgeSide:
    """The judge of a run, opened once and shared by every candidate."""

    spec: ModelSpec
    provider: ModelProvider
    limiter: AdaptiveLimiter
    submit: Submit[ChatJob, ChatOutcome] | None
    caller: ModelCaller

    @classmethod
    async def open(cls, plan: TaskPlan, ctx: RunContext, stack: AsyncExitStack) -> _JudgeSide:
        spec = plan.judge_spec
        assert spec is not None
        provider = plan.providers[1] if plan.providers is not None else get_model(spec)
        if plan.providers is None:
            stack.push_async_callback(provider.close)
        remote = ctx.executor.remote
        serial = spec.kind == "local" and not remote
        limiter = AdaptiveLimiter(1 if serial else ctx.options.concurrency)
        submit = None
        if remote:
            submit = await stack.enter_async_context(ctx.executor.session(
                ModelChat(spec, ctx.options.policy, chat_attempt), ctx.options.concurrency))
        caller = ModelCaller(provider, spec.spec, "judge", policy=ctx.options.policy,
                             limiter=limiter,
                             cache=ResponseCache(ctx.store, read=ctx.reads_cache(provider)),
                             submit=submit)
        return cls(spec, provider, limiter, submit, caller)


class _Session:
    def __init__(self, plan: TaskPlan, context: RunContext, judge: _JudgeSide | None) -> None:
        self.plan = plan
        self.context = context
        self.judge = judge
        self._noted = False

    def _concurrency(self, cand: Candidate) -> int:
        """Requests in flight for ``cand``: 1 when a local model answers (one at a time)."""
        ctx = self.context
        concurrency = ctx.options.concurrency
        judge_serial = self.judge is not None and self.judge.spec.kind == "local"
        if (cand.serial or judge_serial) and concurrency > 1 and not ctx.executor.remote:
            if not self._noted:
                ctx.console.print("[yellow]note:[/] a local model answers one request at a "
                                  f"time; concurrency lowered from {concurrency} to 1")
                self._noted = True
            return 1
        return concurrency

    @asynccontextmanager
    async def target(self, name: str) -> AsyncIterator[TaskTargetRun]:
        """Every selected case of one candidate model (its rows' target: its label).

        When the candidate is the judge's model, one provider, one limiter and one (remote)
        session serve both roles."""
        plan, ctx, judge = self.plan, self.context, self.judge
        cand = next(c for c in plan.candidates if c.label == name)
        if cand.baseline:  # answers each case itself: nothing to open
            yield TaskTargetRun(name, plan.suites, None,
                                judge.caller if judge is not None else None,
                                plan.judge if judge is not None else None, cand.spec.settings,
                                plan.prices, self._concurrency(cand), baseline=cand.spec)
            return
        shared = judge if judge is not None and judge.spec.spec == cand.spec.spec else None
        concurrency = self._concurrency(cand)
        async with AsyncExitStack() as stack:
            if plan.providers is not None:
                provider = plan.providers[0]
            elif shared is not None:
                provider = shared.provider
            else:
                provider = get_model(cand.spec)
                stack.push_async_callback(provider.close)
            limiter = shared.limiter if shared is not None else AdaptiveLimiter(concurrency)
            submit = None
            if ctx.executor.remote:
                submit = shared.submit if shared is not None else \
                    await stack.enter_async_context(ctx.executor.session(
                        ModelChat(cand.spec, ctx.options.policy, chat_attempt), concurrency))
                concurrency = ctx.executor.in_flight(concurrency)
            caller = ModelCaller(provider, cand.spec.spec, "candidate",
                                 policy=ctx.options.policy, limiter=limiter,
                                 cache=ResponseCache(ctx.store, read=ctx.reads_cache(provider)),
                                 submit=submit)
            yield TaskTargetRun(name, plan.suites, caller,
                                judge.caller if judge is not None else None,
                                plan.judge if judge is not None else None,
                                cand.spec.settings, plan.prices, concurrency)
