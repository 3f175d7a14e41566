"""What a task run's calls cost, model by model and role by role: at the model's price, else
at what its system reported for every one of its calls (an ``http:`` system's ``cost``); the
candidate's reported total beside Eunomia's figure for the same calls, and how many calls
disagree (:func:`eunomia.pricing.cost_disagrees`)."""

from __future__ import annotations

from dataclasses import dataclass

from eunomia.pricing import PriceTable, TokenCount, cost_disagrees


@dataclass(frozen=True, slots=True)
class ModelUse:
    """The calls of one model in one role (``candidate`` or ``judge``) over a run."""

    role: str
    model: str
    calls: int
    """Calls made or answered from the cache (a trivial baseline's answers are none)."""
    input_tokens: int
    output_tokens: int
    cost: float | None
    """At the model's price, else as its system reported it; None when neither is known."""


class Reported:
    """The costs systems report of their own calls: per model, their sum and how many
    calls reported one (a model without a price costs its reported figure when every one of
    its calls reported one); over the candidate's calls, the reported total beside
    Eunomia's figure for the same calls, and how many calls disagree."""

    __slots__ = ("by_model", "calls", "disagreements", "ours", "theirs", "unpriced")

    def __init__(self) -> None:
        self.by_model: dict[tuple[str, str], list[float]] = {}
        """(role, model) -> reported sum, calls that reported, calls."""
        self.calls = self.disagreements = 0
        self.theirs = self.ours = 0.0
        self.unpriced = False

    def add(self, prices: PriceTable, role: str, model: str, count: TokenCount,
            reported: float | None) -> None:
        mine = self.by_model.setdefault((role, model), [0.0, 0.0, 0.0])
        mine[2] += 1
        if reported is None:
            return
        mine[0] += reported
        mine[1] += 1
        if role != "candidate":
            return
        ours = prices.summarize([count]).total_cost
        self.calls += 1
        self.theirs += reported
        if ours is None:
            self.unpriced = True
        else:
            self.ours += ours
            self.disagreements += bool(cost_disagrees(reported, ours))

    def total(self, prices: PriceTable, acc: dict[str, list[int]], *roles: str
              ) -> tuple[float | None, list[str]]:
        """The cost of the calls counted in ``acc`` (of ``roles``; every role when none
        named): each model at its price, else at what its system reported for every one of
        its calls; and the models with neither."""
        summary = prices.summarize(_counts(acc))
        if not summary.unknown_models:
            return summary.total_cost, []
        total, unknown = 0.0, []
        for line in summary.details:
            told = [v for (role, model), v in self.by_model.items()
                    if model == line.llm and (not roles or role in roles)]
            if line.known:
                total += line.total or 0.0
            elif told and all(v[1] == v[2] for v in told):
                total += sum(v[0] for v in told)
            else:
                unknown.append(line.llm)
        return (None if unknown else total), unknown


def _counts(acc: dict[str, list[int]]) -> list[TokenCount]:
    """One count per model, in order of first call: what ``PriceTable.summarize`` adds up
    from every call (token counts are integers, so adding them first changes nothing)."""
    return [TokenCount(model, i, o, k) for model, (i, o, k) in acc.items()]
