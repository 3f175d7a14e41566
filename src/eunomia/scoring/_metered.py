"""A case's metered LLM calls (``TargetResponse.metered``): their cost, how they compare
with what the system reported itself, and what the outputs say about them."""

from __future__ import annotations

from typing import Any

from eunomia.athena import LLMRequestUsage
from eunomia.metering import CaseUsage
from eunomia.pricing import CostSummary, PriceTable, TokenCount


def metered_cost(usage: CaseUsage, prices: PriceTable) -> CostSummary:
    """The cost of the metered calls, priced by the model that answered each; unknown
    (``CostSummary()``) when the server could not tell a call's tokens."""
    if not all(c.has_usage for c in usage.calls):
        return CostSummary()
    return prices.summarize(
        TokenCount(c.priced_model, c.input_tokens or 0, c.output_tokens or 0,
                   c.cached_input_tokens) for c in usage.calls)


def reported_tokens(usage: list[LLMRequestUsage]) -> tuple[int, int] | None:
    """Input and output tokens the system reported itself, or None when it reported none."""
    if not usage:
        return None
    return (sum(u.num_input_tokens for u in usage), sum(u.num_output_tokens for u in usage))


def tokens_disagree(metered: CaseUsage, reported: tuple[int, int] | None) -> bool | None:
    """Whether the system's own token counts differ from the metered ones (None: nothing to
    compare)."""
    if reported is None or metered.input_tokens is None or metered.output_tokens is None:
        return None
    return reported != (metered.input_tokens, metered.output_tokens)


def metering_json(metered: CaseUsage, reported: tuple[int, int] | None) -> dict[str, Any]:
    """What a case file says about its metered calls."""
    out: dict[str, Any] = {
        "source": metered.source,
        "attribution": metered.attribution.value,
        "calls": [
            {"seq": c.seq, "model": c.model, "answered_by": c.answered_by,
             "input_tokens": c.input_tokens, "cached_input_tokens": c.cached_input_tokens,
             "output_tokens": c.output_tokens, "seconds": round(c.seconds, 6),
             "started_at": c.started_at, "ended_at": c.ended_at, "status": c.status}
            for c in metered.calls],
        "input_tokens": metered.input_tokens,
        "output_tokens": metered.output_tokens,
        "calls_of_failed_attempts": metered.earlier_attempts,
    }
    if reported is not None:
        out["reported_by_system"] = {"input_tokens": reported[0], "output_tokens": reported[1]}
        out["disagrees_with_reported"] = tokens_disagree(metered, reported)
    return out


def attribution_note(exact: int, approximate: int) -> str | None:
    """The run-level sentence on how metered calls were attributed, if any were."""
    if not exact + approximate:
        return None
    if not approximate:
        return (f"LLM calls metered on the wire: every case's calls exactly ({exact} case(s), "
                "one request in flight at a time)")
    return (f"LLM calls metered on the wire: {exact} case(s) exactly, {approximate} by overlap "
            "(several requests in flight: each call went to the request that finished first "
            "after it; per-case figures approximate, totals exact; --concurrency 1 makes them "
            "exact)")

