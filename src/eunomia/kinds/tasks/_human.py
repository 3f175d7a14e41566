"""How far the judge agrees with people: the human scores of a task run's cases (written in
the suite as ``human_score``, or given with ``eunomia label RUN`` into ``labels.yml``) beside
the judge's scores of the same cases.

Quadratic-weighted kappa (both scores rounded to the 0-5 scale) with a 95% percentile
bootstrap interval over the cases (1,000 resamples, seeded: the same figures every time), and
the mean absolute difference. Below :data:`eunomia.defaults.MIN_CASES_FOR_INTERVAL` cases the
kappa is not given as a number but as "too few cases to tell": a kappa of five cases can be
anything from -0.5 to 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from eunomia.judge import SCORES
from eunomia.stats import (
    Interval,
    enough,
    mean_absolute_difference,
    paired_statistic_ci,
    quadratic_weighted_kappa,
    too_few_text,
)

RESAMPLES = 1000
"""Bootstrap resamples of the kappa's interval (as the label server's)."""


@dataclass(frozen=True, slots=True)
class HumanAgreement:
    """The judge against the human scores of ``cases`` cases."""

    cases: int
    qwk: Interval | None
    """Quadratic-weighted kappa with its interval; None with too few cases, or when it is
    undefined (every score the same)."""
    mad: float | None
    """Mean absolute difference, in points of 0-5."""

    @property
    def too_few(self) -> bool:
        return not enough(self.cases)

    def kappa_text(self) -> str:
        """``0.62 [0.31, 0.85]``, "too few cases to tell (...)" or "undefined (...)"."""
        if self.too_few:
            return too_few_text(self.cases)
        if self.qwk is None:
            return "undefined (every score on one side is the same)"
        return f"{self.qwk.estimate:.2f} [{self.qwk.low:.2f}, {self.qwk.high:.2f}]"

    def text(self) -> str:
        """The whole comparison in one line, e.g. ``quadratic-weighted kappa 0.62 [0.31,
        0.85], mean absolute difference 0.80, over 14 human-scored cases``."""
        mad = "" if self.mad is None else f", mean absolute difference {self.mad:.2f}"
        return (f"quadratic-weighted kappa {self.kappa_text()}{mad}, over {self.cases} "
                f"human-scored case{'s' if self.cases != 1 else ''}")


def _qwk(a: Sequence[float], b: Sequence[float]) -> float | None:
    return quadratic_weighted_kappa([round(x) for x in a], [round(y) for y in b], list(SCORES))


def human_agreement(human: Sequence[float], judged: Sequence[float]) -> HumanAgreement | None:
    """The judge's scores ``judged`` against ``human`` (paired, one per case); None when no
    case has a human score."""
    if not human:
        return None
    qwk = paired_statistic_ci(human, judged, _qwk, resamples=RESAMPLES) \
        if enough(len(human)) else None
    return HumanAgreement(len(human), qwk, mean_absolute_difference(human, judged))
