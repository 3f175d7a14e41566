"""The work of a scenario run: one target call, with its retries, for one test case."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from eunomia.errors import EunomiaError
from eunomia.executors._base import Executor, Submit
from eunomia.scheduler import AdaptiveLimiter, Attempted, CallError, RetryPolicy, call_with_retry

if TYPE_CHECKING:
    from eunomia.scenarios import Scenario, TestCase
    from eunomia.targets import FeedbackTarget, TargetConfig, TargetResponse


@dataclass(frozen=True, slots=True)
class TargetRecipe:
    """How a worker builds its own copy of a target (no secret values: see TargetConfig)."""

    spec: str
    config: TargetConfig


@dataclass(frozen=True, slots=True)
class CaseCall:
    """One job: ask the target about one case of one scenario."""

    scenario: str
    case: TestCase


@dataclass(frozen=True, slots=True)
class CallFailure:
    """A :class:`CallError` in picklable form (its constructor takes keywords)."""

    reason: str
    attempts: int
    status: int | None = None
    log: tuple[str, ...] = ()
    """Every attempt's outcome (``CallError.attempt_log``)."""

    @classmethod
    def of(cls, exc: CallError) -> CallFailure:
        return cls(exc.reason, exc.attempts, exc.status, exc.attempt_log)

    def error(self) -> CallError:
        exc = CallError(self.reason, retryable=False, status=self.status)
        exc.attempts = self.attempts
        exc.attempt_log = self.log
        return exc


CallResult: TypeAlias = "Attempted[TargetResponse] | CallFailure"


def _light(scenario: Scenario) -> Scenario:
    """The scenario as shipped to workers: its cases without their diagrams (each job carries
    its own case), so a target that needs the cases' expectations (``baseline:constant``)
    still has them."""
    return dataclasses.replace(
        scenario, test_cases=[dataclasses.replace(c, submission="") for c in scenario.test_cases],
        invalid_cases=[], diagnostics=[], _by_name=None)


class TargetCall:
    """``call_with_retry(target.feedback(scenario, case))`` as a :class:`Work`.

    Built from a live target (local executor: the driver opened it) or from a
    :class:`TargetRecipe` (remote workers build and open their own target once).
    """

    def __init__(
        self,
        scenarios: Iterable[Scenario],
        policy: RetryPolicy,
        *,
        key: str,
        target: FeedbackTarget | None = None,
        recipe: TargetRecipe | None = None,
    ) -> None:
        if (target is None) == (recipe is None):
            raise ValueError("give a target or a recipe")
        self._key = key
        self._scenarios = {s.name: s for s in scenarios}
        self._policy = policy
        self._recipe = recipe
        self._target = target
        self._owned = False
        self._serial: asyncio.Semaphore | None = None

    @property
    def key(self) -> str:
        return self._key

    def __getstate__(self) -> dict[str, object]:
        if self._recipe is None:
            raise EunomiaError("a live target cannot be sent to workers; give its recipe")
        state = dict(self.__dict__)
        state.update(_target=None, _owned=False, _serial=None,
                     _scenarios={n: _light(s) for n, s in self._scenarios.items()})
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)

    async def open(self) -> None:
        if self._target is None:
            assert self._recipe is not None
            # a remote executor's workers only (Ray, an optional extra) build their own target
            from eunomia.targets import build_target

            self._target = build_target(self._recipe.spec, self._recipe.config)
            await self._target.open()  # a model-backed target loads its model here, once
            self._owned = True
            limit = getattr(self._target, "max_concurrency", None)
            if isinstance(limit, int):  # an in-process model answers one call at a time
                self._serial = asyncio.Semaphore(limit)

    async def close(self) -> None:
        if self._owned and self._target is not None:
            await self._target.close()
            self._target = None
            self._owned = False

    async def run(self, job: CaseCall, limiter: AdaptiveLimiter) -> CallResult:
        target = self._target
        if target is None:
            raise EunomiaError("the target call was not opened")
        scenario = self._scenarios[job.scenario]
        try:
            if self._serial is None:
                return await call_with_retry(
                    lambda: target.feedback(scenario, job.case), self._policy, limiter)
            async with self._serial:
                return await call_with_retry(
                    lambda: target.feedback(scenario, job.case), self._policy, limiter)
        except CallError as exc:
            return CallFailure.of(exc)


def scenario_caller(
    submit: Submit[CaseCall, CallResult], scenario: str
) -> Callable[[TestCase], Awaitable[Attempted[TargetResponse]]]:
    """The target call of ``run_scenario`` made through an executor (raises CallError)."""

    async def call(case: TestCase) -> Attempted[TargetResponse]:
        got = await submit(CaseCall(scenario, case))
        if isinstance(got, CallFailure):
            raise got.error()
        return got

    return call


def target_work(
    target: FeedbackTarget, scenarios: Iterable[Scenario], policy: RetryPolicy,
    executor: Executor, recipe: TargetRecipe | None,
) -> TargetCall:
    """The work of one target: the live target here, or its recipe for remote workers."""
    if not executor.remote:
        return TargetCall(scenarios, policy, key=target.name, target=target)
    if getattr(target, "usage_url", None):  # a MeteredTarget: windows on one clock, one meter
        raise EunomiaError(f"target {target.name!r} meters its LLM calls (llm_usage=), which "
                           f"needs the local executor: every {executor.name} worker would "
                           "meter alone and take other workers' calls for its own")
    if recipe is None:
        raise EunomiaError(f"target {target.name!r} cannot be rebuilt on the "
                           f"{executor.name} executor's workers: no spec was given for it")
    return TargetCall(scenarios, policy, key=target.name, recipe=recipe)
