"""A judge check's plan: the task suites, the judges (the run's targets), how each is opened.

The judges run one after the other, each provider open only for its turn (two local models
are never loaded at once); a local judge answers one request at a time.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.judge import Judge, Rubric
from eunomia.kinds import RunContext
from eunomia.kinds._task_suites import (
    HumanAnswers,
    Providers,
    SuitePlan,
    price_table,
    serial_concurrency,
)
from eunomia.kinds.judge_check._kind import JUDGE_CHECK, JudgeCheckKind
from eunomia.kinds.judge_check._summary import JudgeCheckSummary
from eunomia.kinds.judge_check._work import AnswerJob, CheckedAnswer, JudgeCheckTargetRun
from eunomia.models import ModelProvider, ModelSpec
from eunomia.pricing import PriceTable
from eunomia.tasks import TaskSuite


@dataclass(slots=True)
class CheckedJudge:
    """A judge of the run: its resolved spec and its name in the run."""

    spec: ModelSpec
    label: str


@dataclass
class JudgeCheckPlan(SuitePlan[AnswerJob, CheckedAnswer, JudgeCheckSummary]):
    """Every selected checkable case of ``suites``, its controlled answers scored by each
    judge.

    ``weighted`` also asks each judge for the probabilities of the score values (where its
    provider gives them: the probability-weighted score is reported beside the sampled one).
    ``providers`` (spec -> provider) replaces building those from the specs (they are then
    left open for their owner).
    """

    suites: Sequence[TaskSuite]
    judges: Sequence[CheckedJudge]
    judge_repeats: int = defaults.JUDGE_REPEATS
    rubric: Rubric | None = None
    weighted: bool = True
    providers: Mapping[str, ModelProvider] | None = None
    human: HumanAnswers | None = None
    """Answers people scored (``eunomia label RUN``), scored by each judge too."""
    prices: PriceTable = field(init=False)

    def __post_init__(self) -> None:
        if not self.judges:
            raise EunomiaError("give at least one judge: --judge SPEC")
        if self.judge_repeats < 1:
            raise EunomiaError(f"--judge-repeats must be at least 1, got {self.judge_repeats}")
        self.prices = price_table(*(j.spec for j in self.judges))

    @property
    def kind(self) -> JudgeCheckKind:
        return JUDGE_CHECK

    @property
    def targets(self) -> list[str]:
        return [j.label for j in self.judges]

    def settings(self) -> dict[str, object]:
        rubric = self.rubric or Rubric.load()
        return {"judges": [j.spec.spec for j in self.judges],
                "judge_repeats": self.judge_repeats, "rubric": str(rubric.path),
                "weighted": self.weighted}

    @asynccontextmanager
    async def target(self, context: RunContext,
                     name: str) -> AsyncIterator[JudgeCheckTargetRun]:
        """One judge, open for its turn."""
        checked = next(j for j in self.judges if j.label == name)
        concurrency = serial_concurrency(context, [checked.spec])
        async with AsyncExitStack() as stack:
            caller = Providers(stack, context, concurrency, self.providers).caller(
                checked.spec, "judge")
            judge = Judge(self.rubric, repeats=self.judge_repeats,
                          settings=checked.spec.settings, weighted=self.weighted)
            yield JudgeCheckTargetRun(name, self.suites, caller, judge, self.prices,
                                      concurrency, self.human)
