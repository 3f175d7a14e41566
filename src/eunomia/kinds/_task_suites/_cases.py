"""The cases of a run over task suites: which are selected, the rows of those unusable as
written, and what a case's calls add up to (tokens and cost, as its store row keeps them)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from eunomia.kinds import DoneKeys, Finished, Item, Selection
from eunomia.pricing import PriceTable, TokenCount
from eunomia.store import CaseRow, now
from eunomia.tasks import CallRecord, Entry, TaskSuite, iter_entries


def selected_entries(suite: TaskSuite, selection: Selection) -> Iterator[Entry]:
    """The selected cases of ``suite`` as snapshot entries (not built: cheap when stored)."""
    taken = 0
    for entry in iter_entries(suite):
        if selection.max_cases is not None and taken >= selection.max_cases:
            return
        if selection.matches(suite.name, entry[0], entry[1]):
            taken += 1
            yield entry


def invalid_row(suite: str, target: str, case: str, repeat: int, reason: str) -> CaseRow:
    """The row of a case whose file could not be used: ``invalid``, with the reason."""
    return CaseRow(suite, target, case, repeat, "invalid", reason, 0, None, False, None, 0, 0,
                   None, None, None, now())


def invalid_cases(suites: Sequence[TaskSuite], target: str, selection: Selection,
                  repeats: int, done: DoneKeys) -> list[Finished[Item]]:
    """An ``invalid`` row for each selected unusable case and repeat not already stored, with
    the reason its file could not be used."""
    return [Finished(invalid_row(s.name, target, case, r, reason))
            for r in range(repeats) for s in suites for case, reason in s.invalid
            if selection.matches(s.name, case) and (s.name, target, case, r) not in done]


def token_counts(calls: Sequence[CallRecord]) -> list[TokenCount]:
    return [TokenCount(c.model, c.input_tokens, c.output_tokens, c.cached_input_tokens)
            for c in calls]


def calls_cost(calls: Sequence[CallRecord], prices: PriceTable) -> float | None:
    """What ``calls`` cost at ``prices`` (None without a call); a call whose model has no
    price costs what its system reports (``CallRecord.reported_cost``), else the total is
    unknown (None)."""
    if not calls:
        return None
    if all(c.reported_cost is None for c in calls):
        return prices.summarize(token_counts(calls)).total_cost
    costs = [call_cost(c, prices) for c in calls]
    return None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)


def call_cost(call: CallRecord, prices: PriceTable) -> float | None:
    """One call's cost: at its model's price, else as its system reports it, else None."""
    ours = prices.summarize(token_counts([call])).total_cost
    return ours if ours is not None else call.reported_cost



def calls_latency(calls: Sequence[CallRecord]) -> float | None:
    """The time of the calls made (answers from the cache took none)."""
    latencies = [c.latency_s for c in calls if c.latency_s and not c.cached]
    return sum(latencies) if latencies else None
