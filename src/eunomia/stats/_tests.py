"""Paired significance tests: McNemar for pass/fail pairs, a paired bootstrap for scores."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from eunomia.stats._intervals import bootstrap_means, percentile_bounds
from eunomia.stats._validate import as_finite_array, check_confidence, check_same_length

# Below this number of discordant pairs McNemar uses the exact binomial test.
_EXACT_BELOW = 25


@dataclass(frozen=True, slots=True)
class TestResult:
    """Outcome of a hypothesis test: the statistic, its two-sided p-value and the method."""

    __test__: ClassVar[bool] = False  # not a pytest test class

    statistic: float
    p_value: float
    method: str


@dataclass(frozen=True, slots=True)
class PairedDelta:
    """Mean paired difference ``mean(b - a)`` with its bootstrap interval and p-value."""

    mean_delta: float
    low: float
    high: float
    p_value: float
    n: int


def chi2_sf_1df(statistic: float) -> float:
    """Survival function of the chi-square distribution with one degree of freedom."""
    if statistic <= 0.0:
        return 1.0
    return math.erfc(math.sqrt(statistic / 2.0))


def mcnemar(b: int, c: int) -> TestResult:
    """McNemar's test for paired binary outcomes of systems A and B.

    ``b`` counts pairs good under A only, ``c`` pairs good under B only. When
    ``b + c < 25`` the exact two-sided binomial test is used (statistic ``min(b, c)``,
    ``p = min(1, 2 * P(X <= min(b, c)))`` with ``X ~ Binomial(b + c, 1/2)``, method
    ``"mcnemar-exact"``); otherwise the chi-square test with continuity correction
    (statistic ``max(|b - c| - 1, 0)**2 / (b + c)``, p from the 1-df chi-square survival
    function, method ``"mcnemar-chi2"``). ``b + c == 0`` gives statistic 0 and p-value 1.

    Raises ValueError for negative counts.
    """
    if b < 0 or c < 0:
        raise ValueError(f"mcnemar counts must be non-negative (got b={b}, c={c})")
    n = b + c
    if n == 0:
        return TestResult(0.0, 1.0, "mcnemar-exact")
    if n < _EXACT_BELOW:
        smaller = min(b, c)
        tail = sum(math.comb(n, i) for i in range(smaller + 1))
        p_value = min(1.0, 2.0 * tail / 2.0**n)
        return TestResult(float(smaller), p_value, "mcnemar-exact")
    statistic = max(abs(b - c) - 1, 0) ** 2 / n
    return TestResult(statistic, chi2_sf_1df(statistic), "mcnemar-chi2")


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    *,
    confidence: float = 0.95,
    resamples: int = 10000,
    seed: int = 0,
) -> PairedDelta | None:
    """Paired bootstrap of the mean difference ``delta = mean(b - a)``.

    Pairs are resampled with replacement (deterministic for a fixed ``seed``). The interval
    is the percentile interval of the resampled mean differences ``d*``. The two-sided
    p-value for ``H0: E[b - a] = 0`` uses the bootstrap distribution centred on the observed
    mean (shifted to satisfy the null): ``p = (1 + #{|d* - delta| >= |delta|}) / (1 + R)``
    with ``R = resamples``, so it is never exactly 0 and equals 1 when ``delta == 0``.

    Edge cases: ``n == 0`` → None; ``n == 1`` → ``low == high == mean_delta`` and
    ``p_value == 1.0`` (a single pair carries no evidence of a difference); all differences
    equal (n ≥ 2) → a degenerate interval and ``p = 1/(R + 1)`` unless they are all zero
    (then ``p = 1``).

    Raises ValueError for mismatched lengths, non-finite values, ``confidence`` outside
    (0, 1) or ``resamples < 1``.
    """
    check_confidence(confidence)
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1 (got {resamples})")
    check_same_length(a, b, "a and b")
    deltas = as_finite_array(b, "b") - as_finite_array(a, "a")
    n = int(deltas.shape[0])
    if n == 0:
        return None
    mean_delta = float(deltas.mean())
    if n == 1:
        return PairedDelta(mean_delta, mean_delta, mean_delta, 1.0, 1)
    if float(np.ptp(deltas)) == 0.0:
        p_value = 1.0 if mean_delta == 0.0 else 1.0 / (resamples + 1)
        return PairedDelta(mean_delta, mean_delta, mean_delta, p_value, n)
    rng = np.random.default_rng(seed)
    replicates = bootstrap_means(deltas, None, resamples, rng)
    bounds = percentile_bounds(replicates, confidence)
    assert bounds is not None  # unweighted means are always finite
    # A relative tolerance absorbs rounding noise in the resampled means.
    threshold = abs(mean_delta) * (1.0 - 1e-12)
    extreme = int(np.count_nonzero(np.abs(replicates - mean_delta) >= threshold))
    p_value = (1 + extreme) / (1 + resamples)
    return PairedDelta(mean_delta, bounds[0], bounds[1], min(1.0, p_value), n)
