"""A task run's plan: the suites, the candidate models, the judge, and how each is opened.

The candidates run one after the other (each provider open only for its turn, so two local
models are never loaded at once); the judge is opened once and shared by every candidate.
A trivial baseline (``baseline:reference``, ``baseline:empty``) opens nothing: it answers
each case itself (:mod:`eunomia.kinds._task_suites`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.executors import ChatJob, ChatOutcome, ModelChat, Submit
from eunomia.judge import Judge, Rubric
from eunomia.kinds import PlanTargets, RunContext, Session
from eunomia.kinds._task_suites import (
    NO_JUDGE,
    Candidate,
    ModelCaller,
    SuitePlan,
    baseline_of,
    chat_attempt,
    model_caller,
    price_table,
    serial_concurrency,
)
from eunomia.kinds.tasks._kind import TASKS, TaskKind
from eunomia.kinds.tasks._summary import TasksSummary
from eunomia.kinds.tasks._work import TaskJob, TaskTargetRun
from eunomia.models import ModelProvider, ModelSpec, get_model
from eunomia.pricing import PriceTable
from eunomia.scheduler import AdaptiveLimiter
from eunomia.tasks import CaseResult, TaskSuite


@dataclass
class TaskPlan(SuitePlan[TaskJob, CaseResult, TasksSummary]):
    """Every selected case of ``suites`` answered by each candidate, scored by the judge
    (by the cases' checks alone with no judge).

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
    judge_side: _JudgeSide | None = field(init=False, default=None)
    """The judge while a session holds it open (shared by every candidate)."""

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
    def kind(self) -> TaskKind:
        return TASKS

    @property
    def targets(self) -> list[str]:
        return [c.label for c in self.candidates]

    def settings(self) -> dict[str, object]:
        return {"judge": self.judge_spec.spec if self.judge_spec else NO_JUDGE,
                "judge_repeats": self.judge_repeats, "weights": dict(self.weights),
                "rubric": str(self.judge.rubric.path),
                "baselines": {c.label: c.spec.spec for c in self.candidates if c.baseline}}

    @asynccontextmanager
    async def session(self, context: RunContext
                      ) -> AsyncIterator[Session[TaskJob, CaseResult]]:
        """The judge, opened once for every candidate."""
        async with AsyncExitStack() as stack:
            if self.judge_spec is not None:
                self.judge_side = await _JudgeSide.open(self, self.judge_spec, context, stack)
            try:
                yield PlanTargets(self, context)
            finally:
                self.judge_side = None

    @asynccontextmanager
    async def target(self, context: RunContext, name: str) -> AsyncIterator[TaskTargetRun]:
        """Every selected case of one candidate model (its rows' target: its label).

        When the candidate is the judge's model, one provider, one limiter and one (remote)
        session serve both roles."""
        ctx, judge = context, self.judge_side
        cand = next(c for c in self.candidates if c.label == name)
        concurrency = serial_concurrency(ctx, [cand.spec, *([judge.spec] if judge else [])])
        judge_caller = judge.caller if judge is not None else None
        judging = self.judge if judge is not None else None
        if cand.baseline:  # answers each case itself: nothing to open
            yield TaskTargetRun(name, self.suites, None, judge_caller, judging,
                                cand.spec.settings, self.prices, concurrency,
                                baseline=cand.spec, only=cand.cases)
            return
        shared = judge if judge is not None and judge.spec.spec == cand.spec.spec else None
        async with AsyncExitStack() as stack:
            if self.providers is not None:
                provider = self.providers[0]
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
            caller = model_caller(ctx, provider, cand.spec, "candidate", limiter, submit)
            yield TaskTargetRun(name, self.suites, caller, judge_caller, judging,
                                cand.spec.settings, self.prices, concurrency, only=cand.cases)


@dataclass(slots=True)
class _JudgeSide:
    """The judge of a run, opened once and shared by every candidate."""

    spec: ModelSpec
    provider: ModelProvider
    limiter: AdaptiveLimiter
    submit: Submit[ChatJob, ChatOutcome] | None
    caller: ModelCaller

    @classmethod
    async def open(cls, plan: TaskPlan, spec: ModelSpec, ctx: RunContext,
                   stack: AsyncExitStack) -> _JudgeSide:
        provider = plan.providers[1] if plan.providers is not None else get_model(spec)
        if plan.providers is None:
            stack.push_async_callback(provider.close)
        remote = ctx.executor.remote
        serial = spec.backend == "local" and not remote
        limiter = AdaptiveLimiter(1 if serial else ctx.options.concurrency)
        submit = None
        if remote:
            submit = await stack.enter_async_context(ctx.executor.session(
                ModelChat(spec, ctx.options.policy, chat_attempt), ctx.options.concurrency))
        caller = model_caller(ctx, provider, spec, "judge", limiter, submit)
        return cls(spec, provider, limiter, submit, caller)
