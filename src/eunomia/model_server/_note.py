"""The usage record of one chat completion as the server answers it: filled in as the answer
takes shape, written once, before the answer's last byte leaves (so a client holding its
answer finds the call recorded)."""

from __future__ import annotations

from dataclasses import dataclass

from eunomia.metering import LLMCall, UsageRecorder
from eunomia.models import Usage


@dataclass(slots=True)
class CallNote:
    recorder: UsageRecorder
    started_at: float
    model: str = ""
    answered_by: str | None = None
    usage: Usage | None = None
    streamed: bool = False
    error: str | None = None
    done: bool = False

    def finish(self, status: int) -> LLMCall | None:
        """Record the call (once). A refusal (4xx but 499) generated nothing: 0 tokens; a
        failure after the model may have started, or a client that went away: unknown."""
        if self.done:
            return None
        self.done = True
        usage = self.usage
        if usage is None and 400 <= status < 500 and status != 499:
            usage = Usage()
        return self.recorder.record(
            model=self.model, started_at=self.started_at, status=status,
            answered_by=self.answered_by,
            input_tokens=None if usage is None else usage.input_tokens,
            output_tokens=None if usage is None else usage.output_tokens,
            cached_input_tokens=0 if usage is None else usage.cached_input_tokens,
            streamed=self.streamed, error=self.error)
