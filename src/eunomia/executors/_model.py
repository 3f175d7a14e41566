"""The work of a task run: one model call, with its retries, for one chat request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from eunomia.errors import EunomiaError
from eunomia.executors._base import Submit
from eunomia.models import ChatRequest, ChatResult, ModelProvider, ModelSpec
from eunomia.scheduler import AdaptiveLimiter, Attempted, CallError, RetryPolicy, call_with_retry

Validate = Callable[[ChatResult], Any]
"""Raises for an answer to retry; must be picklable (a module-level function) to be shipped."""


@dataclass(frozen=True, slots=True)
class ChatJob:
    request: ChatRequest
    validate: Validate | None = None


@dataclass(frozen=True, slots=True)
class ChatFailure:
    """The final :class:`CallError` of a chat call, in picklable form."""

    reason: str
    attempts: int
    retryable: bool
    status: int | None
    raw_text: str | None
    """Set when it was an unusable answer (:class:`eunomia.judge.UnusableAnswer`)."""
    log: tuple[str, ...] = ()
    """Every attempt's outcome (``CallError.attempt_log``)."""

    @classmethod
    def of(cls, exc: CallError) -> ChatFailure:
        raw = getattr(exc, "raw_text", None)
        return cls(exc.reason, exc.attempts, exc.retryable, exc.status,
                   raw if isinstance(raw, str) else None, exc.attempt_log)

    def error(self) -> CallError:
        exc: CallError
        if self.raw_text is not None:
            from eunomia.judge import UnusableAnswer

            exc = UnusableAnswer(self.reason, self.raw_text)
        else:
            exc = CallError(self.reason, retryable=self.retryable, status=self.status)
        exc.attempts = self.attempts
        exc.attempt_log = self.log
        return exc


ChatOutcome = Attempted[ChatResult] | ChatFailure

AttemptFactory = Callable[[ModelProvider, ChatJob], Callable[[], Awaitable[ChatResult]]]


class ModelChat:
    """``call_with_retry(provider.chat(request))`` as a :class:`Work`.

    Remote workers build the provider from the :class:`ModelSpec` once (a local model is
    loaded once per worker); locally the driver's provider is used. ``attempt`` makes one
    attempt (the task runner's: it validates the answer); it must be picklable.
    """

    def __init__(self, spec: ModelSpec, policy: RetryPolicy, attempt: AttemptFactory, *,
                 provider: ModelProvider | None = None) -> None:
        self.spec = spec
        self.policy = policy
        self.attempt = attempt
        self._provider = provider
        self._owned = False

    @property
    def key(self) -> str:
        return self.spec.spec

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state.update(_provider=None, _owned=False)
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)

    async def open(self) -> None:
        if self._provider is None:
            from eunomia.models import get_model

            self._provider = get_model(self.spec)
            self._owned = True

    async def close(self) -> None:
        if self._owned and self._provider is not None:
            await self._provider.close()
            self._provider = None
            self._owned = False

    async def run(self, job: ChatJob, limiter: AdaptiveLimiter) -> ChatOutcome:
        if self._provider is None:
            raise EunomiaError("the model call was not opened")
        try:
            return await call_with_retry(self.attempt(self._provider, job), self.policy,
                                         limiter)
        except CallError as exc:
            return ChatFailure.of(exc)


async def submit_chat(submit: Submit[ChatJob, ChatOutcome], job: ChatJob
                      ) -> Attempted[ChatResult]:
    """One chat call through an executor; raises the call's final :class:`CallError`."""
    got = await submit(job)
    if isinstance(got, ChatFailure):
        raise got.error()
    return got
