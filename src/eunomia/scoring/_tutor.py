"""Agreement with tutors: the points a system awarded against the tutors' grades.

The measures the published studies of LLM grading use: Pearson's and Spearman's correlation
(each with a percentile-bootstrap and a Fisher-z 95% interval, :mod:`eunomia.stats`), the
mean absolute difference in points and in percent of ``max_points``, and the bias (mean of
system minus tutor), each mean with a bootstrap interval. One pair per case: the tutor's
points and the mean of the system's awarded points over its scored repeats. Correlations
are computed on percent of ``max_points`` (within one scenario the same as on points), so
cases of exercises worth different points can be pooled.

With few cases the intervals are wide, and the bootstrap's are too narrow at that (it
under-covers with few pairs): the result says so (:attr:`TutorAgreement.note`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from eunomia.stats import (
    Correlation,
    Interval,
    bootstrap_mean_ci,
    correlation,
    enough,
    too_few_text,
)

FEW_CASES = 20
"""Below this many pairs the result carries a note on how little its intervals can tell."""


@dataclass(frozen=True, slots=True)
class AgreementPair:
    """One graded case: the tutor's points and the system's (mean over scored repeats)."""

    scenario: str
    case: str
    tutor: float
    system: float
    max_points: float
    repeats: int = 1

    @property
    def tutor_percent(self) -> float:
        return 100.0 * self.tutor / self.max_points if self.max_points > 0 else 0.0

    @property
    def system_percent(self) -> float:
        return 100.0 * self.system / self.max_points if self.max_points > 0 else 0.0


@dataclass(frozen=True, slots=True)
class TutorAgreement:
    pairs: tuple[AgreementPair, ...]
    graded: int
    """Cases with a tutor's grade (scored or not)."""
    unscored: tuple[str, ...]
    """Graded cases without a scored answer with a total (failed, or credits not finite):
    left out of every figure."""
    pearson: Correlation
    spearman: Correlation
    mad_points: Interval | None
    mad_percent: Interval | None
    bias_points: Interval | None
    """Mean of system minus tutor: positive when the system is more generous."""
    bias_percent: Interval | None

    @property
    def n(self) -> int:
        return len(self.pairs)

    @property
    def note(self) -> str | None:
        """What a reader must know about the intervals, or None."""
        if self.n < 2:
            return (f"{self.n} graded case(s) with an answer: no interval can be computed; "
                    "nothing is known about agreement with the tutors")
        if self.n < FEW_CASES:
            return (f"only {self.n} graded cases: the intervals are wide, and the "
                    "bootstrap's are too narrow with so few (Fisher's z is shown beside it)")
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "cases": self.n, "graded_cases": self.graded, "unscored": list(self.unscored),
            "pearson": asdict(self.pearson), "spearman": asdict(self.spearman),
            "mean_absolute_difference_points": _interval_json(self.mad_points),
            "mean_absolute_difference_percent": _interval_json(self.mad_percent),
            "bias_points": _interval_json(self.bias_points),
            "bias_percent": _interval_json(self.bias_percent),
            "note": self.note,
            "pairs": [{"scenario": p.scenario, "test_case": p.case, "tutor_points": p.tutor,
                       "system_points": p.system, "max_points": p.max_points,
                       "repeats": p.repeats} for p in self.pairs],
        }

    def rows(self) -> list[tuple[str, str]]:
        """Metric/value rows for a summary table (CSV and terminal)."""
        tutor = math.fsum(p.tutor for p in self.pairs) / self.n if self.n else None
        system = math.fsum(p.system for p in self.pairs) / self.n if self.n else None
        rows = [
            ("Tutor-Graded Cases Compared", f"{self.n} of {self.graded}"),
            ("Mean Points: Tutors / System", f"{_num(tutor)} / {_num(system)}"),
            ("Pearson r vs Tutors (95% CI)", correlation_text(self.pearson)),
            ("Spearman rho vs Tutors (95% CI)", correlation_text(self.spearman)),
            ("Mean Absolute Difference vs Tutors (points)", interval_text(self.mad_points)),
            ("Mean Absolute Difference vs Tutors (% of max points)",
             interval_text(self.mad_percent)),
            ("Bias vs Tutors (points, system - tutor)", interval_text(self.bias_points, True)),
            ("Bias vs Tutors (% of max points)", interval_text(self.bias_percent, True)),
        ]
        if self.note:
            rows.append(("Agreement Note", self.note))
        return rows


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.3g}" if signed else f"{value:.3g}"


def _interval_json(interval: Interval | None) -> dict[str, Any] | None:
    return None if interval is None else asdict(interval)


def interval_text(interval: Interval | None, signed: bool = False) -> str:
    """``1.23 [0.8, 1.7] (n=12)``; below ``defaults.MIN_CASES_FOR_INTERVAL`` cases ``1.23,
    too few cases to tell (8 cases; at least 10 are needed): [0.8, 1.7] (n=8)`` (the wide
    interval kept, to say how little is known); ``-`` when there is none."""
    if interval is None:
        return "-"
    bounds = f"[{_num(interval.low, signed)}, {_num(interval.high, signed)}]"
    return _few(_num(interval.estimate, signed), bounds, interval.n)


def correlation_text(c: Correlation) -> str:
    """``0.62 [0.21, 0.88] bootstrap, [0.05, 0.89] Fisher z (n=12)``; below
    ``defaults.MIN_CASES_FOR_INTERVAL`` cases, "too few cases to tell" before the
    intervals."""
    if c.estimate is None:
        why = "fewer than 3 cases" if c.n < 3 else "one side has no spread"
        return f"- (undefined: {why}; n={c.n})"
    bounds = []
    if c.low is not None and c.high is not None:
        bounds.append(f"[{c.low:.2f}, {c.high:.2f}] bootstrap")
    if c.fisher_low is not None and c.fisher_high is not None:
        bounds.append(f"[{c.fisher_low:.2f}, {c.fisher_high:.2f}] Fisher z")
    return _few(f"{c.estimate:.3f}", ", ".join(bounds), c.n)


def _few(estimate: str, bounds: str, n: int) -> str:
    """An estimate and its interval(s) in words, saying "too few cases to tell" below the
    minimum (as the HTML report's agreement section does)."""
    if not enough(n):
        return f"{estimate}, {too_few_text(n)}" + (f": {bounds}" if bounds else "") + f" (n={n})"
    return f"{estimate} {bounds} (n={n})" if bounds else f"{estimate} (n={n})"


def _mean_ci(values: Sequence[float]) -> Interval | None:
    """The mean with its bootstrap interval; None below two cases (the bootstrap of one
    value is an interval of width 0, which would claim certainty)."""
    return bootstrap_mean_ci(values) if len(values) >= 2 else None


def agreement(pairs: Sequence[AgreementPair], graded: int | None = None,
              unscored: Sequence[str] = ()) -> TutorAgreement:
    """The agreement figures of ``pairs`` (``graded``: graded cases, default ``len(pairs)``)."""
    tutor = [p.tutor_percent for p in pairs]
    system = [p.system_percent for p in pairs]
    diff_points = [p.system - p.tutor for p in pairs]
    diff_percent = [s - t for s, t in zip(system, tutor, strict=True)]
    return TutorAgreement(
        pairs=tuple(pairs),
        graded=len(pairs) + len(unscored) if graded is None else graded,
        unscored=tuple(unscored),
        pearson=correlation(tutor, system, "pearson"),
        spearman=correlation(tutor, system, "spearman"),
        mad_points=_mean_ci([abs(d) for d in diff_points]),
        mad_percent=_mean_ci([abs(d) for d in diff_percent]),
        bias_points=_mean_ci(diff_points),
        bias_percent=_mean_ci(diff_percent),
    )
