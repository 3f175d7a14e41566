"""Model calls of a task run: cached in the run store, retried and rate-limited by the
scheduler, made here or on an executor's workers.

The cache key covers everything that changes the answer — the role (candidate/judge), the
model spec, the whole request (messages, generation settings, answer schema) and the
repeat index — and nothing operational (timeouts, concurrency, streaming).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from eunomia.executors import ChatJob, ChatOutcome, Submit, submit_chat
from eunomia.judge import JUDGE_VERSION, JudgeCall, unusable
from eunomia.models import ChatRequest, ChatResult, ModelProvider
from eunomia.scheduler import AdaptiveLimiter, CallError, RetryPolicy, call_with_retry
from eunomia.store import ResponseCache

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
