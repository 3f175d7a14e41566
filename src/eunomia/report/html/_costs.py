"""Calls, tokens and cost per model, booked while a run's report is built."""

from __future__ import annotations

from eunomia.report.html._model import ModelCost


class CostBook:
    """Calls, tokens and cost per model (or per target when the model is not known)."""

    def __init__(self) -> None:
        self._acc: dict[str, list[float | int | bool]] = {}
        self._roles: dict[str, str] = {}

    def add(self, model: str, calls: int, input_tokens: int, output_tokens: int,
            cost: float | None, *, role: str = "candidate") -> None:
        """``role``: ``judge`` for a judge's calls (shown apart from the candidates')."""
        self._roles[model] = role
        acc = self._acc.setdefault(model, [0, 0, 0, 0.0, False])
        acc[0] += calls
        acc[1] += input_tokens
        acc[2] += output_tokens
        if cost is None:
            acc[4] = True
        else:
            acc[3] += cost

    def result(self) -> list[ModelCost]:
        return [ModelCost(model, int(a[0]), int(a[1]), int(a[2]),
                          None if a[4] and not a[3] else float(a[3]), self._roles[model])
                for model, a in sorted(self._acc.items())]
