"""The per-answer work of a judge check: the judge scores one controlled answer of a case,
prompted exactly as ``eval`` prompts it for that case.

The case's own category runner builds the judge's item (instruction, reference, difficult
points, the category's guidance, the suite's rubric), as in ``eval``; its "candidate" is the
controlled answer, so no model is asked for an answer. The judge calls go through the same
:class:`eunomia.kinds._task_suites.ModelCaller` as ``eval``'s judge: cached, retried,
rate-limited.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from eunomia.errors import EunomiaError
from eunomia.judge import Judge, JudgeCall, JudgeItem, Rubric, Verdict
from eunomia.kinds import DoneKeys, Finished, Part, Selection
from eunomia.kinds._task_suites import (
    SEPARATOR,
    Control,
    HumanAnswers,
    ModelCaller,
    SuiteTargetRun,
    call_record,
    calls_cost,
    calls_latency,
    finished,
    row_name,
    selected,
)
from eunomia.models import ChatMessage, ChatRequest, ChatResult, GenerationSettings
from eunomia.pricing import PriceTable
from eunomia.scheduler import CallError, internal_error
from eunomia.store import CaseRow, blob_hash, json_bytes, now
from eunomia.tasks import CallRecord, CaseStatus, Entry, TaskSuite, category_named, loaded_case

ANSWERED_BY = "judge-check"
"""The "model" of a controlled answer (no model wrote it)."""

HUMAN: Literal["human"] = "human"
"""The answer kind of an answer people scored (``eunomia label RUN``): a candidate's real
answer, read back from the run store, which the judge scores too, so that its scores can be
set against the people's (never part of the AUC)."""
AnswerKind = Control | Literal["human"]


class CheckedAnswer(BaseModel):
    """One controlled answer of a case and the judge's verdicts on it (the stored row's
    response blob)."""

    model_config = ConfigDict(frozen=True)

    case: str
    answer_kind: AnswerKind
    category: str
    answer: str
    human_score: float | None = None
    """The people's score of the answer (``answer_kind`` ``human``)."""
    verdicts: list[Verdict] = Field(default_factory=list)
    calls: list[CallRecord] = Field(default_factory=list)
    error: str | None = None

    @property
    def scores(self) -> list[int]:
        return [v.score for v in self.verdicts if v.score is not None]

    @property
    def score(self) -> float | None:
        """The mean sampled score over the judge's repeats (None: none usable)."""
        return fmean(self.scores) if self.scores else None

    @property
    def weighted(self) -> float | None:
        """The mean probability-weighted score, when every usable verdict has one."""
        values = [v.weighted_score for v in self.verdicts if v.score is not None]
        if not values or any(v is None for v in values):
            return None
        return fmean(v for v in values if v is not None)

    @property
    def status(self) -> CaseStatus:
        if self.error is not None:
            return "failed"
        return "scored" if self.scores else "unscored"


@dataclass(slots=True)
class AnswerContext:
    """The :class:`eunomia.tasks.CaseContext` of one controlled answer: the "candidate"
    answers with it; the judge is the run's, prompted as ``eval`` prompts it."""

    answer: str
    judge_caller: ModelCaller
    judge: Judge
    guidance: str
    rubric: Rubric | None
    settings: GenerationSettings = field(default_factory=GenerationSettings)
    calls: list[CallRecord] = field(default_factory=list)

    async def ask(self, messages: Sequence[ChatMessage], *, max_tokens: int | None = None,
                  stream: bool = False) -> ChatResult:
        return ChatResult(text=self.answer, model=ANSWERED_BY)

    async def judge_answer(self, item: JudgeItem) -> list[Verdict]:
        # as eunomia.kinds._task_suites.ModelContext.judge_answer (judge repeat k is the cache's
        # repeat index, the answer is in the request)
        item = item.model_copy(update={"guidance": item.guidance or self.guidance})

        async def call(request: ChatRequest, k: int,
                       validate: Callable[[ChatResult], Any]) -> JudgeCall:
            got = await self.judge_caller.call(request, k, validate)
            self.calls.append(call_record("judge", got, first_token=False, log=False))
            return got

        return await self.judge.score(item, call, self.rubric)


@dataclass(frozen=True, slots=True)
class AnswerJob:
    suite: TaskSuite
    entry: Entry
    control: AnswerKind
    answer: str
    human_score: float | None = None


def answer_row(suite: str, target: str, entry: Entry, checked: CheckedAnswer,
               prices: PriceTable) -> tuple[CaseRow, list[tuple[str, bytes]]]:
    """The store row of one judged answer (its score: the mean sampled score) and its
    blobs: the case as written (shared by its answers) and the :class:`CheckedAnswer`."""
    case_data = entry[4].encode()
    data = json_bytes(checked.model_dump(mode="json"))
    request, response = blob_hash(case_data), blob_hash(data)
    calls = checked.calls
    return CaseRow(
        suite=suite, target=target, case_name=f"{entry[0]}{SEPARATOR}{checked.answer_kind}",
        repeat=0, status=checked.status, error=checked.error or _unscored(checked),
        attempts=sum(c.attempts for c in calls), latency_s=calls_latency(calls),
        cached=bool(calls) and all(c.cached for c in calls), score=checked.score,
        input_tokens=sum(c.input_tokens for c in calls),
        output_tokens=sum(c.output_tokens for c in calls), cost=calls_cost(calls, prices),
        request=request, response=response, finished=now(),
    ), [(request, case_data), (response, data)]


def _unscored(checked: CheckedAnswer) -> str | None:
    """Why an unscored answer has no score (the judge's unusable answers), for its row."""
    if checked.status != "unscored":
        return None
    return "; ".join(dict.fromkeys(v.feedback or "no usable verdict" for v in checked.verdicts
                                   if v.status == "unscored")) or "no usable verdict"


class JudgeCheckTargetRun(SuiteTargetRun[AnswerJob, CheckedAnswer]):
    """One judge's turn over every suite."""

    def __init__(self, name: str, suites: Sequence[TaskSuite], caller: ModelCaller,
                 judge: Judge, prices: PriceTable, concurrency: int,
                 human: HumanAnswers | None = None) -> None:
        super().__init__(name, suites, prices, concurrency)
        self.caller = caller
        self.judge = judge
        self.human = human or HumanAnswers()

    def parts(self, selection: Selection, repeats: int,
              done: DoneKeys) -> Iterator[Part[AnswerJob, CheckedAnswer]]:
        yield Part("judge check", self._jobs(selection, done), self._count(selection, done))

    def _pending(self, selection: Selection, done: DoneKeys) -> Iterator[AnswerJob]:
        for suite in self.suites:
            scored = self.human.by_suite.get(suite.name, {})
            for entry, answers in selected(suite, selection):
                for control, text in answers.items():
                    if (suite.name, self.name, row_name(entry[0], control), 0) not in done:
                        yield AnswerJob(suite, entry, control, text)
                human = scored.get(entry[0])
                if human is not None and (suite.name, self.name,
                                          f"{entry[0]}{SEPARATOR}{HUMAN}", 0) not in done:
                    yield AnswerJob(suite, entry, HUMAN, human.text, human.score)

    def _jobs(self, selection: Selection, done: DoneKeys) -> Iterator[AnswerJob]:
        yield from self._pending(selection, done)

    def _count(self, selection: Selection, done: DoneKeys) -> int:
        return sum(1 for _ in self._pending(selection, done))

    async def work(self, job: AnswerJob) -> Finished[CheckedAnswer]:
        case = loaded_case(job.entry)
        category = category_named(case.kind)
        guidance = self.guidance(category)
        ctx = AnswerContext(job.answer, self.caller, self.judge, guidance,
                            self.rubrics.get(job.suite.name))
        failed_attempts = 0
        error = None
        verdicts: list[Verdict] = []
        try:
            result = await category.runner(case, ctx)
            verdicts = result.all_verdicts()
        except CallError as exc:
            failed_attempts = exc.attempts
            error = f"{exc.reason} (after {exc.attempts} attempt(s))"
        except EunomiaError:
            raise
        except Exception as exc:  # a bug must not lose the rest of the run
            error = internal_error(exc)
        checked = CheckedAnswer(case=case.name, answer_kind=job.control, category=case.category,
                                answer=job.answer, human_score=job.human_score,
                                verdicts=verdicts, calls=ctx.calls, error=error)
        row = answer_row(job.suite.name, self.name, job.entry, checked, self.prices)
        return finished(row, checked, ctx.calls, failed_attempts)
