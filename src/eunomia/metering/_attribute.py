"""Which case made which LLM call, from times alone.

A case's *window* is its request to the system under test: from just before it was sent to
just after the answer was read. A system makes its LLM calls while it answers, so a call
belongs to a case whose window holds the whole call: the window began before the call began
and ended after the call ended. The case windows that hold a call are its *candidates*:

* one candidate: the call is that case's, exactly (``exact``);
* several (requests in flight at once): it goes to the candidate that finished first after the
  call ended — the system answers once its calls are done — and every candidate's figure is
  approximate (``overlap``);
* none: the call was made while no case was in flight, or outlived every request that might
  have caused it (a system still working after a timeout): it counts in the run's totals only.

A window still in flight (``ended_at`` None) holds every call that began after it began. A call
whose candidates are all still in flight is *pending*: it is decided when the first of them
ends (see :class:`~eunomia.metering.UsageMeter`, which attributes as a run goes).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

from eunomia.metering._calls import AttributionMethod, LLMCall


@dataclass(slots=True)
class Window:
    """One case's request, in the usage server's clock (seconds since 1970)."""

    key: Hashable
    started_at: float
    ended_at: float | None = None
    """None while the request is in flight."""

    def holds(self, call: LLMCall, tolerance: float = 0.0) -> bool:
        """Whether the whole call lies within this window (give or take ``tolerance``)."""
        if call.started_at < self.started_at - tolerance:
            return False
        return self.ended_at is None or call.ended_at <= self.ended_at + tolerance


@dataclass(frozen=True, slots=True)
class Claim:
    """A call given to a case, and how."""

    call: LLMCall
    key: Hashable
    method: AttributionMethod


@dataclass(slots=True)
class Attribution:
    """The calls, sorted out."""

    claims: dict[Hashable, list[Claim]] = field(default_factory=dict)
    """Per window key, the calls given to it (in call order)."""
    shared: set[Hashable] = field(default_factory=set)
    """Windows that were one of several candidates of some call: their figures are
    approximate (a call may have been given to another case, or to them wrongly)."""
    unattributed: list[LLMCall] = field(default_factory=list)
    """Calls no case's request could have caused: in the run's totals only."""
    pending: list[LLMCall] = field(default_factory=list)
    """Calls whose candidates are all still in flight."""

    def method(self, key: Hashable) -> AttributionMethod:
        return AttributionMethod.OVERLAP if key in self.shared else AttributionMethod.EXACT

    def calls_of(self, key: Hashable) -> list[LLMCall]:
        return [c.call for c in self.claims.get(key, [])]


def candidates(call: LLMCall, windows: Iterable[Window], tolerance: float = 0.0) -> list[Window]:
    """The windows that hold ``call``."""
    return [w for w in windows if w.holds(call, tolerance)]


def attribute(calls: Iterable[LLMCall], windows: Sequence[Window], *,
              tolerance: float = 0.0) -> Attribution:
    """Give each call to a case (see the module docstring). ``tolerance`` (seconds) widens
    every window on both sides: the uncertainty between the usage server's clock and the
    clock the windows were measured with (0 on one machine)."""
    if tolerance < 0:
        raise ValueError("tolerance must not be negative")
    out = Attribution()
    for call in sorted(calls, key=lambda c: c.seq):
        held = candidates(call, windows, tolerance)
        if not held:
            out.unattributed.append(call)
            continue
        if len(held) > 1:
            out.shared.update(w.key for w in held)
        done = [w for w in held if w.ended_at is not None]
        if not done:
            out.pending.append(call)
            continue
        first = min(done, key=lambda w: (w.ended_at, w.started_at))
        method = AttributionMethod.EXACT if len(held) == 1 else AttributionMethod.OVERLAP
        out.claims.setdefault(first.key, []).append(Claim(call, first.key, method))
    return out
