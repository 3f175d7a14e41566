"""A pairwise run's plan: the task suites, the two candidates, the judge, and how each is
opened.

The run has one target, the pair (``B vs A``): its rows are the comparisons, case by case.
Its turn opens both candidates and the judge (a provider shared when two of them are the
same model; none for a trivial baseline). Every call goes through the same
:class:`eunomia.kinds._task_suites.ModelCaller` and response cache as ``eval``'s.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field

from eunomia.errors import EunomiaError
from eunomia.judge import PairwiseJudge, PairwisePrompt
from eunomia.kinds import RunContext
from eunomia.kinds._task_suites import (
    Candidate,
    Providers,
    SuitePlan,
    baseline_of,
    price_table,
    serial_concurrency,
)
from eunomia.kinds.pairwise._kind import PAIRWISE, PairwiseKind
from eunomia.kinds.pairwise._result import PairResult, Side
from eunomia.kinds.pairwise._summary import PairwiseSummary
from eunomia.kinds.pairwise._work import Contender, PairJob, PairwiseTargetRun
from eunomia.models import ModelProvider, ModelSpec
from eunomia.pricing import PriceTable
from eunomia.tasks import TaskSuite


def pair_name(first: str, second: str) -> str:
    """The run's target: the pair, the second candidate named first (``B vs A``)."""
    return f"{second} vs {first}"


@dataclass
class PairwisePlan(SuitePlan[PairJob, PairResult, PairwiseSummary]):
    """Every selected case of ``suites`` answered by both candidates and compared by the
    judge in both orders.

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
    def kind(self) -> PairwiseKind:
        return PAIRWISE

    @property
    def name(self) -> str:
        return pair_name(self.first.label, self.second.label)

    @property
    def targets(self) -> list[str]:
        return [self.name]

    def settings(self) -> dict[str, object]:
        return {"first": {"label": self.first.label, "spec": self.first.spec.spec},
                "second": {"label": self.second.label, "spec": self.second.spec.spec},
                "judge": self.judge_spec.spec, "prompt": str(self.judge.prompt.path)}

    @asynccontextmanager
    async def target(self, context: RunContext, name: str) -> AsyncIterator[PairwiseTargetRun]:
        """The pair, both candidates and the judge open for its turn."""
        concurrency = serial_concurrency(
            context, [self.first.spec, self.second.spec, self.judge_spec])
        async with AsyncExitStack() as stack:
            models = Providers(stack, context, concurrency, self.providers)
            pair: tuple[tuple[Side, Candidate], ...] = (("A", self.first), ("B", self.second))
            sides = [Contender(side, cand.label, cand.spec,
                               None if cand.baseline else models.caller(cand.spec, "candidate"),
                               cand.baseline) for side, cand in pair]
            yield PairwiseTargetRun(name, self.suites, (sides[0], sides[1]),
                                    models.caller(self.judge_spec, "judge"), self.judge,
                                    self.prices, concurrency)
