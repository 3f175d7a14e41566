"""Agreement with the tutors in a comparison: on the cases with a tutor's grade scored on
both sides, each run's correlation with the tutors' points and its change (B - A) with a
paired bootstrap interval (the same cases drawn for both runs in every resample).

The mean absolute difference from the tutors is a paired per-case figure: it is one of the
headline deltas (``OverallDelta.tutor_mad``, with the sign-flip test of the score)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from eunomia.compare._facts import Agg
from eunomia.stats import (
    Correlation,
    Interval,
    correlation,
    correlation_difference,
    enough,
    too_few_text,
)


@dataclass(frozen=True, slots=True)
class CorrelationChange:
    """One coefficient on both sides and its change."""

    method: str
    a: Correlation
    b: Correlation
    delta: Interval | None
    """``b - a`` with its paired bootstrap interval; None when either is undefined."""

    def line(self, name: str) -> str:
        def one(c: Correlation) -> str:
            if c.estimate is None:
                return "undefined (" + ("fewer than 3 cases" if c.n < 3
                                        else "one side has no spread") + ")"
            if c.low is None or c.high is None:
                return f"{c.estimate:.3f}"
            return f"{c.estimate:.3f} [{c.low:.2f}, {c.high:.2f}]"

        text = f"{name}: A {one(self.a)}, B {one(self.b)}"
        d = self.delta
        if d is None:
            return text + "; change: undefined"
        if d.too_few:
            return text + f"; change {d.estimate:+.3f}, {too_few_text(d.n)}"
        return text + f"; change {d.estimate:+.3f} [{d.low:+.2f}, {d.high:+.2f}]"


@dataclass(frozen=True, slots=True)
class TutorComparison:
    cases: int
    """Cases with a tutor's grade and awarded points on both sides."""
    pearson: CorrelationChange
    spearman: CorrelationChange

    def lines(self) -> list[str]:
        """The figures in words, for every view."""
        head = (f"agreement with the tutors over {self.cases} graded case(s) scored on both "
                "sides (points in % of the maximum; 95% bootstrap intervals)")
        if not enough(self.cases):
            head += f": {too_few_text(self.cases)}"
        return [head, self.pearson.line("Pearson r"), self.spearman.line("Spearman rho")]

    def to_json(self) -> dict[str, Any]:
        def one(c: CorrelationChange) -> dict[str, Any]:
            return {"a": asdict(c.a), "b": asdict(c.b),
                    "delta": None if c.delta is None else {
                        **asdict(c.delta), "too_few": c.delta.too_few}}

        return {"cases": self.cases, "too_few": not enough(self.cases),
                "pearson": one(self.pearson), "spearman": one(self.spearman),
                "summary": self.lines()}


def tutor_comparison(pairs: Sequence[tuple[Agg, Agg]], *, confidence: float, resamples: int,
                     seed: int) -> TutorComparison | None:
    """None when no case scored on both sides carries a tutor's grade."""
    known = [(a.tutor, a.awarded, b.awarded) for a, b in pairs
             if a.ok and b.ok and a.tutor is not None and a.awarded is not None
             and b.awarded is not None]
    if not known:
        return None
    tutor = [t for t, _, _ in known]
    side_a = [x for _, x, _ in known]
    side_b = [y for _, _, y in known]

    def change(method: str) -> CorrelationChange:
        # each side as its own report computes it (scoring.agreement: the defaults), so the
        # figures match the run's summary when the same cases are compared
        return CorrelationChange(
            method, correlation(tutor, side_a, method), correlation(tutor, side_b, method),
            correlation_difference(tutor, side_a, side_b, method, confidence=confidence,
                                   resamples=resamples, seed=seed))

    return TutorComparison(len(known), change("pearson"), change("spearman"))
