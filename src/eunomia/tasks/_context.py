"""What a category's runner gets for one case: a way to ask the candidate and the judge.

The run supplies it (``eunomia.kinds.tasks``: cached, retried, rate-limited calls, each
recorded for the case's result); a runner only says what to ask.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from eunomia.judge import JudgeItem, Verdict
from eunomia.models import ChatMessage, ChatResult, GenerationSettings
from eunomia.tasks._result import CallRecord


class CaseContext(Protocol):
    """The calls of one case (one repeat)."""

    @property
    def settings(self) -> GenerationSettings:
        """The candidate's generation settings."""
        ...

    @property
    def calls(self) -> list[CallRecord]:
        """Every call made so far for this case (for its result)."""
        ...

    async def ask(self, messages: Sequence[ChatMessage], *, max_tokens: int | None = None,
                  stream: bool = False) -> ChatResult:
        """The candidate's answer; raises :class:`eunomia.scheduler.CallError` after the
        retries."""
        ...

    async def judge_answer(self, item: JudgeItem) -> list[Verdict]:
        """The judge's verdicts on one answer (none when the run has no judge)."""
        ...


def user(text: str) -> ChatMessage:
    return ChatMessage(role="user", content=text)


def system(text: str) -> ChatMessage:
    return ChatMessage(role="system", content=text)


def assistant(text: str) -> ChatMessage:
    return ChatMessage(role="assistant", content=text)
