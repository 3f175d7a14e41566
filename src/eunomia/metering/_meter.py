"""Attributing a model server's calls to cases as a run goes.

One :class:`UsageMeter` per usage URL and run: every target whose LLM traffic goes through
that server opens a window around each request (:meth:`UsageMeter.begin`) and closes it
(:meth:`UsageMeter.end`), which reads the calls recorded since and settles every call that
can be settled (see :mod:`eunomia.metering._attribute`). A window is settled when it ends:
every call it could hold has ended by then, so it is recorded (the server records a call
before its answer leaves). The meter keeps only the windows in flight and the calls not yet
settled.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Hashable
from dataclasses import dataclass, field

from eunomia.metering._attribute import Window, attribute
from eunomia.metering._calls import AttributionMethod, CaseUsage, LLMCall
from eunomia.metering._source import UsageSource


@dataclass(slots=True)
class MeterTotals:
    """Every call the server recorded during the run (exact whatever the attribution)."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    without_usage: int = 0
    """Calls whose tokens the server could not tell (failures, an upstream without usage)."""
    seconds: float = 0.0
    exact: int = 0
    """Calls given to a case exactly (one request in flight)."""
    by_overlap: int = 0
    unattributed: int = 0
    """Calls no request of the run could have caused (made outside every case's request)."""
    dropped: int = 0
    """Calls the server no longer kept when they were read: the totals miss them."""
    per_model: dict[str, list[int]] = field(default_factory=dict)
    """Model that answered -> [calls, input tokens, output tokens, cached input tokens]."""

    def add(self, call: LLMCall) -> None:
        self.calls += 1
        self.seconds += call.seconds
        entry = self.per_model.setdefault(call.priced_model, [0, 0, 0, 0])
        entry[0] += 1
        if not call.has_usage:
            self.without_usage += 1
            return
        self.input_tokens += call.input_tokens or 0
        self.output_tokens += call.output_tokens or 0
        self.cached_input_tokens += call.cached_input_tokens
        entry[1] += call.input_tokens or 0
        entry[2] += call.output_tokens or 0
        entry[3] += call.cached_input_tokens

    @property
    def attribution(self) -> str:
        """How the run's calls were given to cases, in words."""
        if not self.calls:
            return "no LLM call was recorded"
        parts = [f"{self.exact} of {self.calls} call(s) exactly (one request in flight)"]
        if self.by_overlap:
            parts.append(f"{self.by_overlap} by overlap (several requests in flight: "
                         "per-case figures approximate)")
        if self.unattributed:
            parts.append(f"{self.unattributed} outside every request (run totals only)")
        return "; ".join(parts)


class UsageMeter:
    """See the module docstring."""

    def __init__(self, source: UsageSource) -> None:
        self.source = source
        self._clock = time.time
        self._cursor: int | None = None
        self._windows: dict[Hashable, Window] = {}
        self._shared: set[Hashable] = set()
        self._given: dict[Hashable, list[LLMCall]] = {}
        """Calls settled for windows whose end() has not returned yet."""
        self._unsettled: list[LLMCall] = []
        self._lock = asyncio.Lock()
        self._next_key = 0
        self.totals = MeterTotals()

    @property
    def url(self) -> str:
        return self.source.url

    async def open(self) -> None:
        """Read the server's cursor: calls recorded before this are not the run's."""
        if self._cursor is None:
            self._cursor = await self.source.open()

    async def close(self) -> None:
        await self.source.close()

    def _now(self) -> float:
        return self.source.server_time(self._clock())

    def begin(self) -> Window:
        """A window opening now (call it just before the request is sent)."""
        self._next_key += 1
        window = Window(self._next_key, self._now())
        self._windows[window.key] = window
        return window

    async def end(self, window: Window) -> CaseUsage:
        """Close ``window`` now (just after the answer was read, or the attempt failed) and
        return the calls it was given."""
        window.ended_at = self._now()
        # a call that ended within the clocks' uncertainty after the window is read too
        await asyncio.sleep(max(0.0, window.ended_at + self.source.uncertainty - self._now()))
        async with self._lock:
            read_at = self._now()
            await self._read()
            self._settle(read_at)
            self._windows.pop(window.key, None)
            calls = self._given.pop(window.key, [])
            method = (AttributionMethod.OVERLAP if window.key in self._shared
                      else AttributionMethod.EXACT)
            self._shared.discard(window.key)
        return CaseUsage(source=self.url, attribution=method, calls=calls)

    async def finish(self) -> MeterTotals:
        """At the end of the run (every window closed): read the last calls; those still
        unsettled were made outside every request."""
        async with self._lock:
            await self._read()
            if all(w.ended_at is not None for w in self._windows.values()):
                self.totals.unattributed += len(self._unsettled)
                self._unsettled = []
        return self.totals

    async def _read(self) -> None:
        await self.open()
        assert self._cursor is not None
        page = await self.source.after(self._cursor)
        self._cursor = page.last_seq
        self.totals.dropped += page.dropped
        for call in page.calls:
            self.totals.add(call)
        self._unsettled.extend(page.calls)

    def _settle(self, read_at: float) -> None:
        """Settle what can be: a call goes to the first of its candidate windows to end (final:
        the others end later); a window is done once every call it could hold was read (it
        ended before the read began)."""
        tolerance = self.source.uncertainty
        result = attribute(self._unsettled, list(self._windows.values()), tolerance=tolerance)
        self._shared.update(result.shared)
        settled = {c.seq for c in result.unattributed}
        for key, claims in result.claims.items():
            self._given.setdefault(key, []).extend(c.call for c in claims)
            for claim in claims:
                settled.add(claim.call.seq)
                if claim.method is AttributionMethod.EXACT:
                    self.totals.exact += 1
                else:
                    self.totals.by_overlap += 1
        self.totals.unattributed += len(result.unattributed)
        self._unsettled = [c for c in self._unsettled if c.seq not in settled]
        for key, w in list(self._windows.items()):
            if w.ended_at is not None and w.ended_at + tolerance <= read_at:
                del self._windows[key]
