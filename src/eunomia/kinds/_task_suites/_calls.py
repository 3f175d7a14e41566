"""Model calls of the kinds over task suites: cached in the run store, retried and
rate-limited by the scheduler, made here or on an executor's workers; each recorded with its
case (:func:`call_record`).

The cache key covers everything that changes the answer — the role (candidate/judge), the
model spec, the whole request (messages, generation settings, answer schema) and the
repeat index — and nothing operational (timeouts, concurrency, streaming).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from eunomia.errors import EunomiaError
from eunomia.executors import ChatJob, ChatOutcome, Submit, submit_chat
from eunomia.judge import JUDGE_VERSION, Judge, JudgeCall, JudgeItem, Rubric, Verdict, unusable
from eunomia.kinds._task_suites._baselines import BaselineAnswer
from eunomia.models import ChatMessage, ChatRequest, ChatResult, GenerationSettings, ModelProvider
from eunomia.scheduler import AdaptiveLimiter, CallError, RetryPolicy, call_with_retry
from eunomia.store import ResponseCache
from eunomia.tasks import CallRecord, Role

Validate = Callable[[ChatResult], Any]


def _reads(validate: Validate, text: str) -> bool:
    """Whether the caller's own parser reads ``text`` (a provider's schema check refused it)."""
    try:
        validate(ChatResult(text=text, model=""))
    except (CallError, ValueError):
        return False
    return True


def chat_attempt(provider: ModelProvider, job: ChatJob) -> Callable[[], Awaitable[ChatResult]]:
    """One attempt at a chat call; a rejected answer is raised as :class:`UnusableAnswer`.

    An answer the provider's schema check refused but the caller's own, more tolerant parser
    reads (``"Response 2"`` for ``"2"``...) is not asked for again: it fails at once, not
    retryable, with its text, for the caller to read."""

    async def attempt() -> ChatResult:
        try:
            result = await provider.chat(job.request)
        except CallError as exc:
            bad = unusable(exc) if job.validate is not None else None
            if bad is not None and job.validate is not None and _reads(job.validate,
                                                                        bad.raw_text):
                raise CallError(bad.reason, retryable=False, answer_text=bad.raw_text) \
                    from None
            if bad is not None:
                raise bad from None
            raise
        if job.validate is not None:
            job.validate(result)
        return result

    return attempt


class ModelCaller:
    """One model in one role, shared by every case of a run."""

    def __init__(self, provider: ModelProvider, spec: str, role: str, *,
                 policy: RetryPolicy, limiter: AdaptiveLimiter,
                 cache: ResponseCache | None = None,
                 submit: Submit[ChatJob, ChatOutcome] | None = None) -> None:
        self.provider = provider
        self.submit = submit
        """When set, the calls (with their retries) are made by an executor's workers."""
        self.spec = spec
        self.role = role
        self.policy = policy
        self.limiter = limiter
        self.cache = cache
        # what changes answers besides the spec: the judge's prompting, an http system's
        # configuration (its URL, templates, paths; never a secret)
        extra = getattr(provider, "cache_identity", None)
        self.identity = json.dumps(
            {"role": role, "model": spec, **({"judge": JUDGE_VERSION} if role == "judge" else {}),
             **({"system": extra} if isinstance(extra, str) else {})},
            sort_keys=True)

    def key(self, request: ChatRequest, repeat: int) -> str | None:
        if self.cache is None:
            return None
        described = request.model_dump_json(exclude={"stream"}).encode()
        key = self.cache.key(self.identity, described, repeat)[1]
        self.cache.store.put_blob(described)
        return key

    async def call(self, request: ChatRequest, repeat: int,
                   validate: Validate | None = None) -> JudgeCall:
        """The answer to ``request`` (from the cache when it holds one).

        Raises :class:`CallError` after the retries; with ``validate``, an answer it rejects
        (or that the provider could not parse) is retried and finally raised as
        :class:`UnusableAnswer`.
        """
        key = self.key(request, repeat)
        cache = self.cache
        if key is not None and cache is not None:
            hit = cache.get(key)
            if hit is not None:
                result = ChatResult.model_validate_json(cache.answer(hit))
                try:
                    if validate is not None:
                        validate(result)
                except CallError:
                    pass  # an answer cached by an older parser: ask again
                else:
                    return JudgeCall(result, 0, True)
        if self.submit is not None:
            got = await submit_chat(self.submit, ChatJob(request, validate))
        else:
            got = await call_with_retry(chat_attempt(self.provider, ChatJob(request, validate)),
                                        self.policy, self.limiter)
        if key is not None and cache is not None:
            cache.put(key, got.value.model_dump(mode="json"),
                      got.value.latency_s or got.latency_s)
        return JudgeCall(got.value, got.attempts, False, got.log)


def call_record(role: Role, got: JudgeCall, *, first_token: bool = True,
                log: bool = True) -> CallRecord:
    """What a case keeps of one call: tokens, latency, attempts, whether it was cached (the
    time to the first token and the attempts' log unless told otherwise, as each kind has
    always stored them)."""
    r = got.result
    return CallRecord(
        role=role, model=r.model, input_tokens=r.usage.input_tokens,
        output_tokens=r.usage.output_tokens, cached_input_tokens=r.usage.cached_input_tokens,
        latency_s=r.latency_s,
        time_to_first_token_s=r.time_to_first_token_s if first_token else None,
        attempts=got.attempts, cached=got.cached,
        attempt_log=got.log if log and len(got.log) > 1 else (),
        reported_cost=r.reported_cost,
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
        self.calls.append(call_record("candidate", got))
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
            self.calls.append(call_record("judge", got))
            return got

        return await judge.score(item, call, self.rubric)
