"""The per-case work of a pairwise run: both candidates answer the case exactly as ``eval``
asks them, then the judge compares the two answers in both orders.

Each candidate's answer comes from the case's own category runner with the same
:class:`eunomia.kinds._task_suites.ModelContext` as ``eval`` (same requests, same
:class:`eunomia.kinds._task_suites.ModelCaller`, so the same cache keys: after an ``eval`` of
these models nothing is asked of them again); its judge is left out, and what ``eval`` would
have shown its judge is kept instead, to build the pair the pairwise judge reads. A trivial
baseline answers as in ``eval``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from eunomia.errors import EunomiaError
from eunomia.judge import JudgeCall, JudgeItem, PairwiseItem, PairwiseJudge, Verdict
from eunomia.kinds import DoneKeys, Finished, Part, Selection
from eunomia.kinds._task_suites import (
    BaselineAnswer,
    ModelCaller,
    ModelContext,
    SuiteTargetRun,
    call_record,
    calls_cost,
    calls_latency,
    finished,
    invalid_cases,
    selected_answers,
    selected_entries,
)
from eunomia.kinds.pairwise._result import Answer, OrderVerdict, PairResult, Side
from eunomia.models import ChatMessage, ChatRequest, ChatResult, GenerationSettings, ModelSpec
from eunomia.pricing import PriceTable
from eunomia.scheduler import CallError, internal_error
from eunomia.store import CaseRow, blob_hash, json_bytes, now
from eunomia.tasks import (
    CallRecord,
    CaseResult,
    Entry,
    LoadedCase,
    TaskSuite,
    category_named,
    loaded_case,
)

EMPTY = "(empty answer)"


@dataclass(slots=True)
class Contender:
    """One candidate of the pair, open for the run: its caller (None: a baseline)."""

    side: Side
    label: str
    spec: ModelSpec
    caller: ModelCaller | None
    baseline: bool = False


@dataclass(slots=True)
class _Collecting:
    """The candidate's side of ``eval``'s case context: it asks the candidate (or the
    baseline answers) as ``eval`` does, and keeps what ``eval`` would have had judged."""

    inner: ModelContext
    items: list[JudgeItem] = field(default_factory=list)

    @property
    def settings(self) -> GenerationSettings:
        return self.inner.settings

    @property
    def calls(self) -> list[CallRecord]:
        return self.inner.calls

    async def ask(self, messages: Sequence[ChatMessage], *, max_tokens: int | None = None,
                  stream: bool = False) -> ChatResult:
        return await self.inner.ask(messages, max_tokens=max_tokens, stream=stream)

    async def judge_answer(self, item: JudgeItem) -> list[Verdict]:
        self.items.append(item)
        return []


def transcript(result: CaseResult) -> str:
    """A conversation as one answer: each user turn and the candidate's reply."""
    return "\n\n".join(f"User: {t.user.strip()}\n\nAssistant: {t.response.strip() or EMPTY}"
                       for t in result.turns)


def pair_item(case: LoadedCase, guidance: str, items: list[JudgeItem], a: str,
              b: str) -> PairwiseItem:
    """The pair as the judge reads it, A shown first: the task as ``eval``'s judge sees it
    (a conversation: the user's turns and its evaluation points), and the two answers."""
    c = case.case
    if c.conversation:
        turns = "\n".join(f"Turn {i}: {t.user.strip()}"
                          for i, t in enumerate(c.conversation, start=1))
        points = "\n".join(f"- turn {i}: {t.eval_point.strip()}"
                           for i, t in enumerate(c.conversation, start=1) if t.eval_point)
        return PairwiseItem(
            system_prompt=c.system_prompt or "",
            instruction=("A conversation: the user's turns are below; each answer is the "
                         f"whole conversation with one assistant's replies.\n\n{turns}"),
            expected_response=("The replies must use what was said earlier correctly and "
                               f"get these points right:\n{points}"),
            potential_challenges=c.challenges_text, guidance=guidance,
            response_1=a, response_2=b)
    if items:
        first = items[0]
        return PairwiseItem(system_prompt=first.system_prompt, instruction=first.instruction,
                            expected_response=first.expected_response,
                            potential_challenges=first.potential_challenges,
                            guidance=guidance, response_1=a, response_2=b)
    return PairwiseItem(system_prompt=c.system_prompt or "", instruction=c.instruction or "",
                        expected_response=c.expected_response or "",
                        potential_challenges=c.challenges_text, guidance=guidance,
                        response_1=a, response_2=b)


@dataclass(frozen=True, slots=True)
class PairJob:
    suite: TaskSuite
    entry: Entry
    repeat: int
    baselines: dict[Side, BaselineAnswer]
    """The answers of the sides that are trivial baselines."""


def pair_row(suite: str, target: str, entry: Entry, result: PairResult,
             prices: PriceTable) -> tuple[CaseRow, list[tuple[str, bytes]]]:
    """The store row of one pair (its score: B's value against A, 0..1) and its blobs."""
    case_data = entry[4].encode()
    data = json_bytes(result.model_dump(mode="json"))
    request, response = blob_hash(case_data), blob_hash(data)
    calls = result.calls
    made = [c for c in calls if c.cached or c.attempts]  # a baseline's answer is no call
    return CaseRow(
        suite=suite, target=target, case_name=entry[0], repeat=result.repeat,
        status=result.status, error=result.reason,
        attempts=sum(c.attempts for c in calls), latency_s=calls_latency(calls),
        cached=bool(made) and all(c.cached for c in made),
        score=result.value, input_tokens=sum(c.input_tokens for c in calls),
        output_tokens=sum(c.output_tokens for c in calls), cost=calls_cost(calls, prices),
        request=request, response=response, finished=now(),
    ), [(request, case_data), (response, data)]


class PairwiseTargetRun(SuiteTargetRun[PairJob, PairResult]):
    """The pair's turn over every suite."""

    def __init__(self, name: str, suites: Sequence[TaskSuite], sides: tuple[Contender, Contender],
                 judge_caller: ModelCaller, judge: PairwiseJudge, prices: PriceTable,
                 concurrency: int) -> None:
        super().__init__(name, suites, prices, concurrency)
        self.sides = sides
        self.judge_caller = judge_caller
        self.judge = judge

    def parts(self, selection: Selection, repeats: int,
              done: DoneKeys) -> Iterator[Part[PairJob, PairResult]]:
        yield Part("pairs", self._jobs(selection, repeats, done),
                   self._count(selection, repeats, done),
                   invalid_cases(self.suites, self.name, selection, repeats, done))

    def _selected(self, suite: TaskSuite, selection: Selection
                  ) -> Iterator[tuple[Entry, dict[Side, BaselineAnswer]]]:
        """The selected cases with the baselines' answers (the same cases whatever the
        sides: ``selected_answers`` selects as ``selected_entries`` does)."""
        baselines = [s for s in self.sides if s.baseline]
        if not baselines:
            for entry in selected_entries(suite, selection):
                yield entry, {}
            return
        streams = [selected_answers(suite, selection, s.spec) for s in baselines]
        for found in zip(*streams, strict=True):
            yield found[0][0], {s.side: answer for s, (_e, answer) in zip(baselines, found,
                                                                           strict=True)}

    def _jobs(self, selection: Selection, repeats: int, done: DoneKeys) -> Iterator[PairJob]:
        for r in range(repeats):
            for suite in self.suites:
                for entry, baselines in self._selected(suite, selection):
                    if (suite.name, self.name, entry[0], r) not in done:
                        yield PairJob(suite, entry, r, baselines)

    def _count(self, selection: Selection, repeats: int, done: DoneKeys) -> int:
        return sum(1 for r in range(repeats) for s in self.suites
                   for e in selected_entries(s, selection)
                   if (s.name, self.name, e[0], r) not in done)

    async def _answer(self, side: Contender, job: PairJob, case: LoadedCase,
                      guidance: str) -> tuple[Answer, list[JudgeItem]]:
        """One candidate's answer to the case, as ``eval`` asks for it (a baseline's when
        it is one)."""
        label, spec = side.label, side.spec.spec
        ctx = _Collecting(ModelContext(candidate=side.caller, judge_caller=None, judge=None,
                                       settings=side.spec.settings, repeat=job.repeat,
                                       guidance=guidance,
                                       baseline=job.baselines.get(side.side)))
        try:
            result = await category_named(case.kind).runner(case, ctx)
        except CallError as exc:
            tried = (f"{exc.attempts} attempts: {', '.join(exc.attempt_log)}"
                     if len(exc.attempt_log) > 1 else f"{exc.attempts} attempt(s)")
            return Answer(label=label, spec=spec, error=f"{exc.reason} (after {tried})",
                          calls=ctx.calls), []
        text = transcript(result) if result.turns else result.response
        return Answer(label=label, spec=spec, response=text, calls=ctx.calls), ctx.items

    def _unanswered(self, job: PairJob) -> tuple[Answer, Answer]:
        """Both answers of a case a baseline cannot answer: nothing to compare, so neither
        candidate is asked."""
        out: list[Answer] = []
        for side in self.sides:
            found = job.baselines.get(side.side)
            cannot = found is not None and found.text is None
            out.append(Answer(label=side.label, spec=side.spec.spec,
                              not_applicable=found.reason if found and cannot else None,
                              calls=[found.result()[1]] if found is not None else []))
        return out[0], out[1]

    async def _decide(self, item: PairwiseItem, shown_first: Side,
                      calls: list[CallRecord]) -> OrderVerdict:
        async def call(request: ChatRequest, k: int,
                       validate: Callable[[ChatResult], Any]) -> JudgeCall:
            got = await self.judge_caller.call(request, k, validate)
            calls.append(call_record("judge", got, first_token=False))
            return got

        verdict = await self.judge.decide(item, call)
        if verdict.raw is not None:  # a refused answer (read loosely or unusable): its
            # attempts were made, their tokens are unknown
            calls.append(CallRecord(role="judge", model=self.judge_caller.spec,
                                    attempts=verdict.attempts))
        return OrderVerdict(shown_first=shown_first, verdict=verdict)

    async def work(self, job: PairJob) -> Finished[PairResult]:
        case = loaded_case(job.entry)
        category = category_named(case.kind)
        guidance = self.guidance(category)
        side_a, side_b = self.sides
        judge_calls: list[CallRecord] = []
        orders: list[OrderVerdict] = []
        error = None
        failed_attempts = 0
        a = Answer(label=side_a.label, spec=side_a.spec.spec)
        b = Answer(label=side_b.label, spec=side_b.spec.spec)
        items: list[JudgeItem] = []
        try:
            if any(x.text is None for x in job.baselines.values()):
                a, b = self._unanswered(job)
            else:
                a, items = await self._answer(side_a, job, case, guidance)
                if a.error is None:  # B is not asked when the pair cannot be judged anyway
                    b, _ = await self._answer(side_b, job, case, guidance)
            if not (a.error or b.error or a.not_applicable or b.not_applicable):
                item = pair_item(case, guidance, items, a.response, b.response)
                orders.append(await self._decide(item, "A", judge_calls))
                orders.append(await self._decide(item.swapped(), "B", judge_calls))
        except CallError as exc:
            failed_attempts = exc.attempts
            error = f"the judge: {exc.reason} (after {exc.attempts} attempt(s))"
        except EunomiaError:
            raise
        except Exception as exc:  # a bug must not lose the rest of the run
            error = internal_error(exc)
        result = PairResult(case=case.name, kind=case.kind, category=case.category,
                            repeat=job.repeat, a=a, b=b, orders=orders,
                            judge_calls=judge_calls, error=error)
        row = pair_row(job.suite.name, self.name, job.entry, result, self.prices)
        return finished(row, result, result.calls, failed_attempts)
