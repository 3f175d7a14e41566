"""A target whose LLM traffic is metered on the wire: every request to it is a window of
the :class:`~eunomia.metering.UsageMeter` reading the model server the system calls, and each
answer carries the calls made for it (``TargetResponse.metered``).

Calls made during a failed attempt are kept and given to the case's next successful attempt
(a retry), so a case's cost is what getting its answer took; the calls of a case that failed
for good are in the run's totals only (:attr:`MeteredTarget.totals`). Calls are matched to
windows on this process's clock: with a remote executor every worker would meter alone and
take other workers' calls for its own, so metering needs the local executor.
"""

from __future__ import annotations

import contextlib
import time

from eunomia.errors import EunomiaError
from eunomia.metering import CaseUsage, LLMCall, MeterTotals, UsageMeter, UsageSource
from eunomia.scenarios import Scenario, TestCase
from eunomia.targets._base import FeedbackTarget, TargetResponse


class MeteredTarget:
    """``inner`` with its LLM calls read from ``usage_url`` (an ``eunomia serve-model``)."""

    def __init__(self, inner: FeedbackTarget, usage_url: str) -> None:
        self.inner = inner
        self.usage_url = UsageSource(usage_url).url  # checked now, before any request
        self.name = inner.name
        self.cache_across_runs = getattr(inner, "cache_across_runs", True)
        self._meter: UsageMeter | None = None
        self._failed: dict[tuple[str, str], list[LLMCall]] = {}
        self.totals: MeterTotals | None = None
        """The run's calls, exact (set when the target is closed)."""

    def __getattr__(self, name: str) -> object:
        # url_for, warnings, check_ids, max_concurrency...: the inner target's
        return getattr(self.inner, name)

    @property
    def cache_identity(self) -> str:
        return self.inner.cache_identity

    def describe_request(self, scenario: Scenario, case: TestCase) -> bytes:
        return self.inner.describe_request(scenario, case)

    async def open(self) -> None:
        if self._meter is None:
            meter = UsageMeter(UsageSource(self.usage_url))
            try:
                await meter.open()
            except BaseException:
                await meter.close()
                raise
            self._meter, self.totals = meter, None
        await self.inner.open()

    async def close(self) -> None:
        await self.inner.close()
        if self._meter is not None:
            meter, self._meter = self._meter, None
            try:
                self.totals = await meter.finish()
            finally:
                await meter.close()

    async def feedback(self, scenario: Scenario, case: TestCase) -> TargetResponse:
        if self._meter is None:
            await self.open()
        assert self._meter is not None
        meter = self._meter
        key = (scenario.name, case.name)
        window = meter.begin()
        started = time.perf_counter()
        try:
            response = await self.inner.feedback(scenario, case)
        except BaseException:
            # the original failure is what the run reports; a meter that cannot be read
            # stops the run at the next answer
            with contextlib.suppress(EunomiaError):
                spent = await meter.end(window)
                self._failed.setdefault(key, []).extend(spent.calls)
            raise
        latency = time.perf_counter() - started
        got = await meter.end(window)
        earlier = self._failed.pop(key, [])
        response.metered = CaseUsage(
            source=got.source, attribution=got.attribution, calls=[*earlier, *got.calls],
            earlier_attempts=len(earlier))
        if not response.latency_s:
            response.latency_s = latency  # the request alone, not reading the meter
        return response
