"""The per-case work of a task run: the category's runner asks the candidate (and the
judge), the checks are run, and the case is turned into its store row. A trivial baseline
(``baseline:reference``, ``baseline:empty``: :mod:`._baselines`) answers without a call."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from eunomia.errors import EunomiaError
from eunomia.judge import MAX_SCORE, Judge, JudgeCall, JudgeItem, Rubric, Verdict
from eunomia.kinds import DoneKeys, Finished, Part, Selection
from eunomia.kinds.tasks._baselines import BaselineAnswer, selected_answers
from eunomia.kinds.tasks._calls import ModelCaller, Validate
from eunomia.kinds.tasks._suites import Guidance, suite_rubrics
from eunomia.models import ChatMessage, ChatRequest, ChatResult, GenerationSettings, ModelSpec
from eunomia.pricing import PriceTable, TokenCount
from eunomia.scheduler import CallError, internal_error
from eunomia.store import CaseRow, blob_hash, json_bytes, now
from eunomia.tasks import (
    CallRecord,
    CaseResult,
    LoadedCase,
    Role,
    TaskSuite,
    category_named,
    iter_entries,
    loaded_case,
)


def _record(role: Role, got: JudgeCall) -> CallRecord:
    r = got.result
    return CallRecord(
        role=role, model=r.model, input_tokens=r.usage.input_tokens,
        output_tokens=r.usage.output_tokens, cached_input_tokens=r.usage.cached_input_tokens,
        latency_s=r.latency_s, time_to_first_token_s=r.time_to_first_token_s,
        attempts=got.attempts, cached=got.cached,
        attempt_log=got.log if len(got.log) > 1 else (),
    )


@dataclass(slots=True)
class ModelContext:
    """Runs the calls of one case (one repeat) and remembers them for the result (the
    :class:`eunomia.tasks.CaseContext` a category's runner gets)."""

    candidate: ModelCaller | None
    """None when a trivial baseline answers (:attr:`baseline`)."""
    judge_caller: ModelCaller | None
    """None with ``--judge none``: no judge call is made (cases are scored by their checks)."""
    judge: Judge | None
    settings: GenerationSettings
    """The candidate's generation settings."""
    repeat: int
    guidance: str = ""
    """The category's judging guidance (its prompt file)."""
    rubric: Rubric | None = None
    """The suite's own rubric, if it has one."""
    calls: list[CallRecord] = field(default_factory=list)
    baseline: BaselineAnswer | None = None
    """A trivial baseline's answer to this case: given to every question, with no call."""

    async def ask(self, messages: Sequence[ChatMessage], *, max_tokens: int | None = None,
                  stream: bool = False) -> ChatResult:
        """The candidate's answer; raises :class:`CallError` after the retries."""
        if self.baseline is not None:
            result, record = self.baseline.result()
            self.calls.append(record)
            return result
        if self.candidate is None:
            raise EunomiaError("a task case with neither a candidate model nor a baseline")
        settings = self.settings
        if max_tokens is not None:
            settings = settings.model_copy(update={"max_tokens": max_tokens})
        request = ChatRequest(messages=tuple(messages), settings=settings, stream=stream)
        got = await self.candidate.call(request, self.repeat)
        self.calls.append(_record("candidate", got))
        return got.result

    async def judge_answer(self, item: JudgeItem) -> list[Verdict]:
        """The judge's verdicts (``--judge-repeats`` of them) on one answer (none without
        a judge)."""
        judge, judge_caller = self.judge, self.judge_caller
        if judge is None or judge_caller is None:
            return []
        item = item.model_copy(update={"guidance": item.guidance or self.guidance})

        async def call(request: ChatRequest, k: int, validate: Validate) -> JudgeCall:
            # Keyed on the judge's messages (which hold the answer) and the judge repeat k:
            # the same answer in another candidate repeat is not judged twice.
            got = await judge_caller.call(request, k, validate)
            self.calls.append(_record("judge", got))
            return got

        return await judge.score(item, call, self.rubric)


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


def case_row(suite: str, target: str, case: LoadedCase | None, name: str, repeat: int,
             result: CaseResult | None, prices: PriceTable,
             error: str | None = None, status: str | None = None) -> tuple[CaseRow, Blobs]:
    """The store row of one case (headline score 0–5, tokens of every call, total cost) and
    its request/response blobs, to be stored with it in one transaction."""
    blobs: Blobs = []
    request = None
    if case is not None:
        data = case.raw_json.encode()
        request = blob_hash(data)
        blobs.append((request, data))
    if result is None:
        return CaseRow(suite, target, name, repeat, status or "invalid", error, 0, None, False,
                       None, 0, 0, None, request, None, now()), blobs
    counts = [TokenCount(c.model, c.input_tokens, c.output_tokens, c.cached_input_tokens)
              for c in result.calls]
    cost = prices.summarize(counts) if counts else None
    data = json_bytes(result.model_dump(mode="json"))
    response = blob_hash(data)
    blobs.append((response, data))
    return CaseRow(
        suite=suite, target=target, case_name=name, repeat=repeat, status=result.status,
        error=result.error, attempts=result.attempts, latency_s=result.candidate_latency_s,
        cached=result.cached, score=result.score,
        input_tokens=sum(c.input_tokens for c in result.calls),
        output_tokens=sum(c.output_tokens for c in result.calls),
        cost=cost.total_cost if cost is not None else None, request=request,
        response=response, finished=now(),
    ), blobs


def invalid_cases(suites: Sequence[TaskSuite], target: str, selection: Selection,
                  repeats: int, done: DoneKeys, prices: PriceTable) -> list[Finished]:
    """A failed row for each selected unusable case and repeat not already stored, with the
    reason its file could not be used."""
    out: list[Finished] = []
    for r in range(repeats):
        for s in suites:
            for case, reason in s.invalid:
                if selection.matches(s.name, case) and (s.name, target, case, r) not in done:
                    row, blobs = case_row(s.name, target, None, case, r, None, prices,
                                          error=reason)
                    out.append(Finished(row, blobs))
    return out


@dataclass(frozen=True, slots=True)
class _Job:
    suite: TaskSuite
    case: LoadedCase
    repeat: int
    baseline: BaselineAnswer | None = None


def selected_entries(suite: TaskSuite, selection: Selection) -> Iterator[tuple[str, str, int,
                                                                             int | None, str]]:
    """The selected cases of ``suite`` as snapshot entries (not built: cheap when stored)."""
    taken = 0
    for entry in iter_entries(suite):
        if selection.max_cases is not None and taken >= selection.max_cases:
            return
        if selection.matches(suite.name, entry[0], entry[1]):
            taken += 1
            yield entry


class TaskTargetRun:
    """One candidate's turn over every suite of the run (a :class:`eunomia.kinds.TargetRun`)."""

    def __init__(self, name: str, suites: Sequence[TaskSuite], candidate: ModelCaller | None,
                 judge_caller: ModelCaller | None, judge: Judge | None,
                 settings: GenerationSettings, prices: PriceTable, concurrency: int,
                 baseline: ModelSpec | None = None) -> None:
        """``baseline``: the spec of the trivial baseline that answers (``candidate`` is
        then None)."""
        self._name = name
        self.baseline = baseline
        self.suites = suites
        self.candidate = candidate
        self.judge_caller = judge_caller
        self.judge = judge
        self.settings = settings
        self.prices = prices
        self._concurrency = concurrency
        self.rubrics = suite_rubrics(suites)
        self._guidance = Guidance()

    @property
    def name(self) -> str:
        return self._name

    @property
    def concurrency(self) -> int:
        return self._concurrency

    def parts(self, selection: Selection, repeats: int, done: DoneKeys) -> Iterator[Part]:
        yield Part("tasks", self._jobs(selection, repeats, done),
                   self._count(selection, repeats, done),
                   invalid_cases(self.suites, self._name, selection, repeats, done,
                                 self.prices))

    def _jobs(self, selection: Selection, repeats: int, done: DoneKeys) -> Iterator[_Job]:
        """The cases to run, built one at a time as the workers take them (never all at once)."""
        for r in range(repeats):
            for suite in self.suites:
                if self.baseline is not None:
                    for entry, answer in selected_answers(suite, selection, self.baseline):
                        if (suite.name, self._name, entry[0], r) not in done:
                            yield _Job(suite, loaded_case(entry), r, answer)
                    continue
                for entry in selected_entries(suite, selection):
                    if (suite.name, self._name, entry[0], r) not in done:
                        yield _Job(suite, loaded_case(entry), r)

    def _count(self, selection: Selection, repeats: int, done: DoneKeys) -> int:
        """How many jobs :meth:`_jobs` yields, without building them."""
        if not done and not selection.patterns and selection.max_cases is None \
                and all(s.case_count is not None for s in self.suites):
            return repeats * sum(s.case_count or 0 for s in self.suites)
        return sum(1 for r in range(repeats) for s in self.suites
                   for e in selected_entries(s, selection)
                   if (s.name, self._name, e[0], r) not in done)

    async def work(self, job: _Job) -> Finished:
        category = category_named(job.case.kind)
        guidance = self._guidance(category)
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
        row, blobs = case_row(job.suite.name, self._name, job.case, job.case.name, job.repeat,
                              result, self.prices)
        asked = sum(c.attempts for c in result.calls if not c.cached) + attempts_failed
        return Finished(row, blobs, None, result, requests=asked,
                        cache_hits=sum(c.cached for c in result.calls))

