"""The per-case work of a task run: the category's runner asks the candidate (and the
judge) through :class:`eunomia.kinds._task_suites.ModelContext`, the checks are run, and the
case is turned into its store row. A trivial baseline (``baseline:reference``,
``baseline:empty``) answers without a call."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from eunomia.errors import EunomiaError
from eunomia.judge import MAX_SCORE, Judge, Verdict
from eunomia.kinds import DoneKeys, Finished, Part, Selection
from eunomia.kinds._task_suites import (
    BaselineAnswer,
    ModelCaller,
    ModelContext,
    SuiteTargetRun,
    calls_cost,
    finished,
    invalid_cases,
    selected_answers,
    selected_entries,
)
from eunomia.models import GenerationSettings, ModelSpec
from eunomia.pricing import PriceTable
from eunomia.scheduler import CallError, internal_error
from eunomia.store import CaseRow, blob_hash, json_bytes, now
from eunomia.tasks import CaseResult, LoadedCase, TaskSuite, category_named, loaded_case


def checks_verdict(result: CaseResult) -> CaseResult:
    """Without a judge: one verdict scoring the case by its checks, round(5 × passed / total).

    A case with no check (or that failed) is left as it is: without verdicts it is unscored.
    """
    checks = result.all_checks()
    if result.error is not None or not checks:
        return result
    passed = sum(c.passed for c in checks)
    failed = [c.name for c in checks if not c.passed]
    feedback = f"checks: {passed}/{len(checks)} passed" + \
        (f" (failed: {'; '.join(failed)})" if failed else "")
    verdict = Verdict(score=round(MAX_SCORE * passed / len(checks)), feedback=feedback)
    return result.model_copy(update={"verdicts": [*result.verdicts, verdict]})


Blobs = list[tuple[str, bytes]]


def case_row(suite: str, target: str, case: LoadedCase, repeat: int, result: CaseResult,
             prices: PriceTable, *, judged: bool = True) -> tuple[CaseRow, Blobs]:
    """The store row of one case (headline score 0–5, tokens of every call, total cost) and
    its request/response blobs, to be stored with it in one transaction. An unscored case
    stores why in its ``error`` (``judged``: the run has a judge)."""
    data = case.raw_json.encode()
    request = blob_hash(data)
    cost = calls_cost(result.calls, prices)
    answer = json_bytes(result.model_dump(mode="json"))
    response = blob_hash(answer)
    return CaseRow(
        suite=suite, target=target, case_name=case.name, repeat=repeat, status=result.status,
        error=result.error or result.unscored_reason(judged), attempts=result.attempts,
        latency_s=result.candidate_latency_s,
        cached=result.cached, score=result.score,
        input_tokens=sum(c.input_tokens for c in result.calls),
        output_tokens=sum(c.output_tokens for c in result.calls),
        cost=cost, request=request,
        response=response, finished=now(),
    ), [(request, data), (response, answer)]


@dataclass(frozen=True, slots=True)
class TaskJob:
    suite: TaskSuite
    case: LoadedCase
    repeat: int
    baseline: BaselineAnswer | None = None


class TaskTargetRun(SuiteTargetRun[TaskJob, CaseResult]):
    """One candidate's turn over every suite of the run."""

    def __init__(self, name: str, suites: Sequence[TaskSuite], candidate: ModelCaller | None,
                 judge_caller: ModelCaller | None, judge: Judge | None,
                 settings: GenerationSettings, prices: PriceTable, concurrency: int,
                 baseline: ModelSpec | None = None,
                 only: Mapping[str, frozenset[str]] | None = None) -> None:
        """``baseline``: the spec of the trivial baseline that answers (``candidate`` is
        then None); ``only``: the only cases to run, by suite (a control's sample)."""
        super().__init__(name, suites, prices, concurrency)
        self.baseline = baseline
        self.only = only
        self.candidate = candidate
        self.judge_caller = judge_caller
        self.judge = judge
        self.settings = settings

    def parts(self, selection: Selection, repeats: int,
              done: DoneKeys) -> Iterator[Part[TaskJob, CaseResult]]:
        yield Part("tasks", self._jobs(selection, repeats, done),
                   self._count(selection, repeats, done),
                   invalid_cases(self.suites, self.name, selection, repeats, done))

    def _wanted(self, suite: str, case: str, repeat: int, done: DoneKeys) -> bool:
        only = self.only.get(suite, frozenset()) if self.only is not None else None
        return (suite, self.name, case, repeat) not in done and (only is None or case in only)

    def _jobs(self, selection: Selection, repeats: int, done: DoneKeys) -> Iterator[TaskJob]:
        """The cases to run, built one at a time as the workers take them (never all at once)."""
        for r in range(repeats):
            for suite in self.suites:
                if self.baseline is not None:
                    for entry, answer in selected_answers(suite, selection, self.baseline):
                        if self._wanted(suite.name, entry[0], r, done):
                            yield TaskJob(suite, loaded_case(entry), r, answer)
                    continue
                for entry in selected_entries(suite, selection):
                    if self._wanted(suite.name, entry[0], r, done):
                        yield TaskJob(suite, loaded_case(entry), r)

    def _count(self, selection: Selection, repeats: int, done: DoneKeys) -> int:
        """How many jobs :meth:`_jobs` yields, without building them."""
        if not done and not selection.patterns and selection.max_cases is None \
                and self.only is None and all(s.case_count is not None for s in self.suites):
            return repeats * sum(s.case_count or 0 for s in self.suites)
        return sum(1 for r in range(repeats) for s in self.suites
                   for e in selected_entries(s, selection)
                   if self._wanted(s.name, e[0], r, done))

    async def work(self, job: TaskJob) -> Finished[CaseResult]:
        category = category_named(job.case.kind)
        guidance = self.guidance(category)
        ctx = ModelContext(candidate=self.candidate, judge_caller=self.judge_caller,
                           judge=self.judge, settings=self.settings, repeat=job.repeat,
                           guidance=guidance, rubric=self.rubrics.get(job.suite.name),
                           baseline=job.baseline)
        attempts_failed = 0
        try:
            if job.baseline is not None and job.baseline.text is None:
                result = CaseResult(kind=job.case.kind, verdicts=[job.baseline.not_applicable()],
                                    calls=[job.baseline.result()[1]])
            else:
                result = await category.runner(job.case, ctx)
            if job.baseline is not None:  # nothing was generated: no speed to measure
                result = result.model_copy(update={"speed": None})
            if self.judge_caller is None:
                result = checks_verdict(result)
        except CallError as exc:
            attempts_failed = exc.attempts
            tried = (f"{exc.attempts} attempts: {', '.join(exc.attempt_log)}"
                     if len(exc.attempt_log) > 1 else f"{exc.attempts} attempt(s)")
            result = CaseResult(kind=job.case.kind, calls=ctx.calls,
                                error=f"{exc.reason} (after {tried})")
        except EunomiaError:
            raise
        except Exception as exc:  # a bug must not lose the rest of the run
            result = CaseResult(kind=job.case.kind, error=internal_error(exc), calls=ctx.calls)
        row = case_row(job.suite.name, self.name, job.case, job.repeat, result, self.prices,
                       judged=self.judge_caller is not None)
        return finished(row, result, result.calls, attempts_failed)

