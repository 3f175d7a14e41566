"""The record a model server keeps of the calls it serves (in memory, the latest ones)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from eunomia.metering._calls import LLMCall, UsagePage

DEFAULT_KEEP = 100_000
"""Calls kept (about 40 MB at most); older ones are dropped, and a reader is told."""
MAX_PAGE = 10_000
"""Calls per answer of ``GET /eunomia/usage``; a reader asks again from ``last_seq``."""


class UsageRecorder:
    """Numbers every call as it ends and keeps the latest :data:`DEFAULT_KEEP`.

    Nothing of a request but its model id, token counts, times, status and a short error is
    kept: no prompt, no answer, no header (API keys never reach it).
    """

    def __init__(self, keep: int = DEFAULT_KEEP, clock: Callable[[], float] = time.time) -> None:
        if keep < 1:
            raise ValueError("keep must be at least 1")
        self._calls: deque[LLMCall] = deque(maxlen=keep)
        self._clock = clock
        self._seq = 0
        self.started_at = clock()

    def now(self) -> float:
        return self._clock()

    @property
    def last_seq(self) -> int:
        return self._seq

    def record(self, *, model: str, started_at: float, status: int,
               answered_by: str | None = None, input_tokens: int | None = None,
               output_tokens: int | None = None, cached_input_tokens: int = 0,
               streamed: bool = False, error: str | None = None) -> LLMCall:
        """Record a call that ends now (call it before the last byte goes to the client, so a
        client that has its answer finds the call recorded)."""
        ended = max(self._clock(), started_at)
        self._seq += 1
        call = LLMCall(
            seq=self._seq, model=model[:500],
            answered_by=answered_by[:500] if answered_by else None,
            input_tokens=input_tokens, output_tokens=output_tokens,
            cached_input_tokens=min(cached_input_tokens, input_tokens or 0),
            started_at=started_at, ended_at=ended, status=status, streamed=streamed,
            error=error[:2000] if error else None)
        self._calls.append(call)
        return call

    def page(self, after: int = 0, since: float | None = None,
             limit: int = MAX_PAGE) -> UsagePage:
        """The calls with ``seq`` above ``after`` (and, with ``since``, begun at or after it),
        at most ``limit`` of them, oldest first."""
        oldest = self._calls[0].seq if self._calls else self._seq + 1
        calls: list[LLMCall] = []
        last = after
        more = False
        for call in self._calls:
            if call.seq <= after:
                continue
            if len(calls) >= limit:
                more = True
                break
            last = call.seq
            if since is None or call.started_at >= since:
                calls.append(call)
        return UsagePage(now=self._clock(), started_at=self.started_at,
                         last_seq=last if more else self._seq,
                         dropped=max(0, oldest - after - 1), more=more, calls=calls)
