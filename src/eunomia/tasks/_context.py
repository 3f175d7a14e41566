"""What a kind's runner gets for one case: the candidate, the judge, the records of its calls."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from eunomia.judge import Judge, JudgeCall, JudgeItem, Rubric, Verdict
from eunomia.models import ChatMessage, ChatRequest, ChatResult, GenerationSettings
from eunomia.tasks._calls import ModelCaller, Validate
from eunomia.tasks._result import CallRecord, Role


def _record(role: Role, got: JudgeCall) -> CallRecord:
    r = got.result
    return CallRecord(
        role=role, model=r.model, input_tokens=r.usage.input_tokens,
        output_tokens=r.usage.output_tokens, cached_input_tokens=r.usage.cached_input_tokens,
        latency_s=r.latency_s, time_to_first_token_s=r.time_to_first_token_s,
        attempts=got.attempts, cached=got.cached,
    )


@dataclass(slots=True)
class CaseContext:
    """Runs the calls of one case (one repeat) and remembers them for the result."""

    candidate: ModelCaller
    judge_caller: ModelCaller | None
    """None with ``--judge none``: no judge call is made (cases are scored by their checks)."""
    judge: Judge | None
    settings: GenerationSettings
    """The candidate's generation settings."""
    repeat: int
    guidance: str = ""
    """The kind's judging guidance (its prompt file)."""
    rubric: Rubric | None = None
    """The suite's own rubric, if it has one."""
    calls: list[CallRecord] = field(default_factory=list)

    async def ask(self, messages: Sequence[ChatMessage], *, max_tokens: int | None = None,
                  stream: bool = False) -> ChatResult:
        """The candidate's answer; raises :class:`CallError` after the retries."""
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


def user(text: str) -> ChatMessage:
    return ChatMessage(role="user", content=text)


def system(text: str) -> ChatMessage:
    return ChatMessage(role="system", content=text)


def assistant(text: str) -> ChatMessage:
    return ChatMessage(role="assistant", content=text)
