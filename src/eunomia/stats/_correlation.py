"""Correlation of paired values (Pearson's r, Spearman's rho) with confidence intervals.

Two intervals are given for every coefficient, because neither is right with few pairs:

* the **percentile bootstrap** (pairs resampled with replacement): what the published studies
  of LLM grading report; with few pairs it is too narrow (it under-covers), and resamples in
  which one side has no spread have no coefficient (they are counted, and left out);
* **Fisher's z** (``atanh(r) ± z_{1-a/2} * se``, back-transformed): ``se = 1/sqrt(n-3)`` for
  Pearson, Bonett and Wright's ``sqrt((1 + r^2/2)/(n-3))`` for Spearman (Psychometrika 65,
  2000); it assumes roughly normal data and needs four pairs.

Below four pairs neither can say anything: the interval is the whole range ``[-1, 1]``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from eunomia.stats._intervals import Interval
from eunomia.stats._validate import (
    FloatArray,
    as_finite_array,
    check_confidence,
    check_same_length,
)

_MIN_PAIRS = 3
"""Fewer pairs have no coefficient: two points always lie on a line (r = ±1)."""
_FISHER_MIN = 4
"""Fisher's interval needs n - 3 > 0."""
_BLOCK_CELLS = 1 << 21
"""Cells of one block of resampled counts (resamples × pairs): bounded memory."""
_NO_SPREAD = 1e-12
"""Relative variance below which a side is taken as constant (no coefficient)."""


@dataclass(frozen=True, slots=True)
class Correlation:
    """A coefficient with its percentile-bootstrap and Fisher-z intervals.

    ``estimate`` is None when undefined (fewer than three pairs, or one side constant); the
    interval bounds are then None too. ``undefined_resamples`` of ``resamples`` had a side
    without spread and no coefficient.
    """

    method: str
    """``pearson`` or ``spearman``."""
    estimate: float | None
    low: float | None
    """Percentile bootstrap interval: ``[low, high]``."""
    high: float | None
    fisher_low: float | None
    """Fisher's z interval: ``[fisher_low, fisher_high]``."""
    fisher_high: float | None
    n: int
    confidence: float
    resamples: int = 0
    undefined_resamples: int = 0


def average_ranks(values: Sequence[float] | FloatArray) -> FloatArray:
    """Ranks 1..n, tied values sharing the mean of their ranks (``scipy.stats.rankdata``'s
    ``average`` method)."""
    data = as_finite_array(values, "values")
    _, group, counts = np.unique(data, return_inverse=True, return_counts=True)
    below = np.cumsum(counts) - counts
    ranks: FloatArray = (below + (counts + 1) / 2.0)[group]
    return ranks


def _pearson_of(x: FloatArray, y: FloatArray) -> float | None:
    dx, dy = x - x.mean(), y - y.mean()
    sxx, syy = float(dx @ dx), float(dy @ dy)
    if sxx <= _NO_SPREAD * max(1.0, float(x @ x)) or syy <= _NO_SPREAD * max(1.0, float(y @ y)):
        return None
    r = float(dx @ dy) / math.sqrt(sxx * syy)
    return max(-1.0, min(1.0, r))


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's product-moment correlation of paired values.

    None when undefined: fewer than three pairs, or either side constant.
    Raises ValueError for mismatched lengths or non-finite values.
    """
    check_same_length(x, y, "x and y")
    a, b = as_finite_array(x, "x"), as_finite_array(y, "y")
    return None if a.size < _MIN_PAIRS else _pearson_of(a, b)


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation: Pearson's r of the average ranks (ties share the mean
    of their ranks). None when undefined, as :func:`pearson`."""
    check_same_length(x, y, "x and y")
    a, b = as_finite_array(x, "x"), as_finite_array(y, "y")
    if a.size < _MIN_PAIRS:
        return None
    return _pearson_of(average_ranks(a), average_ranks(b))


def fisher_interval(r: float, n: int, confidence: float = 0.95,
                    method: str = "pearson") -> tuple[float, float]:
    """Fisher's z interval of a coefficient ``r`` over ``n`` pairs: ``tanh(atanh(r) ± z *
    se)``, ``se`` as in the module's docstring. Below four pairs: ``(-1, 1)``; ``r = ±1``
    exactly: ``(r, r)`` (a perfect sample correlation has no spread on the z scale)."""
    check_confidence(confidence)
    if method not in ("pearson", "spearman"):
        raise ValueError(f"unknown correlation {method!r}: pearson or spearman")
    if n < _FISHER_MIN:
        return -1.0, 1.0
    if abs(r) >= 1.0:
        return r, r
    variance = 1.0 if method == "pearson" else 1.0 + r * r / 2.0
    se = math.sqrt(variance / (n - 3))
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    centre = math.atanh(r)
    return math.tanh(centre - z * se), math.tanh(centre + z * se)


def _group_ranks(values: FloatArray, counts: FloatArray) -> FloatArray:
    """The average rank of each pair's value within each resample (rows of ``counts``: how
    many times each pair was drawn), from the cumulated counts of the distinct values."""
    _, group = np.unique(values, return_inverse=True)
    one_hot = np.zeros((values.shape[0], int(group.max()) + 1), dtype=np.float64)
    one_hot[np.arange(values.shape[0]), group] = 1.0
    per_value = counts @ one_hot
    below = np.cumsum(per_value, axis=1) - per_value
    ranks: FloatArray = (below + (per_value + 1.0) / 2.0)[:, group]
    return ranks


def _weighted_r(x: FloatArray, y: FloatArray, counts: FloatArray, n: int) -> FloatArray:
    """Pearson's r of each resample, the pairs weighted by how often they were drawn
    (``x``, ``y``: one row per resample, or one row for all); NaN where a side is constant."""
    mx = (counts * x).sum(axis=1, keepdims=True) / n
    my = (counts * y).sum(axis=1, keepdims=True) / n
    dx, dy = x - mx, y - my
    sxx = (counts * dx * dx).sum(axis=1)
    syy = (counts * dy * dy).sum(axis=1)
    sxy = (counts * dx * dy).sum(axis=1)
    scale_x = np.maximum(1.0, (counts * x * x).sum(axis=1))
    scale_y = np.maximum(1.0, (counts * y * y).sum(axis=1))
    spread = (sxx > _NO_SPREAD * scale_x) & (syy > _NO_SPREAD * scale_y)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(spread, sxy / np.sqrt(sxx * syy), np.nan)
    clipped: FloatArray = np.clip(r, -1.0, 1.0)
    return clipped


def bootstrap_correlations(x: FloatArray, y: FloatArray, method: str, resamples: int,
                           rng: np.random.Generator) -> FloatArray:
    """The coefficient of ``resamples`` bootstrap resamples of the pairs (NaN where a side
    has no spread). Each resample is drawn as how many times each pair was picked (a
    multinomial draw: the same distribution as drawing indices), so ranks and means are
    computed without materialising the resampled values."""
    n = x.shape[0]
    out = np.empty(resamples, dtype=np.float64)
    for start, stop, counts in _resample_counts(n, resamples, rng):
        if method == "spearman":
            out[start:stop] = _weighted_r(_group_ranks(x, counts), _group_ranks(y, counts),
                                          counts, n)
        else:
            out[start:stop] = _weighted_r(x[None, :], y[None, :], counts, n)
    return out


def _resample_counts(n: int, resamples: int, rng: np.random.Generator
                     ) -> Iterator[tuple[int, int, FloatArray]]:
    """The bootstrap resamples of ``n`` pairs in blocks: ``(start, stop, counts)``, each
    row of ``counts`` how many times each pair was picked in one resample."""
    block = max(1, _BLOCK_CELLS // n)
    shares = np.full(n, 1.0 / n)
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        yield start, stop, rng.multinomial(n, shares, size=stop - start).astype(np.float64)


def correlation(x: Sequence[float], y: Sequence[float], method: str = "pearson", *,
                confidence: float = 0.95, resamples: int = 2000,
                seed: int = 0) -> Correlation:
    """Pearson's or Spearman's coefficient of paired values with both intervals (see the
    module's docstring). Deterministic for a fixed ``seed``.

    Edge cases: fewer than three pairs or a constant side → estimate and intervals None;
    three pairs → the intervals are ``[-1, 1]``; every resample undefined → the bootstrap
    interval is ``[-1, 1]``. Raises ValueError as :func:`pearson`, for an unknown
    ``method``, ``confidence`` outside (0, 1) or ``resamples < 1``.
    """
    if method not in ("pearson", "spearman"):
        raise ValueError(f"unknown correlation {method!r}: pearson or spearman")
    check_confidence(confidence)
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1 (got {resamples})")
    r = pearson(x, y) if method == "pearson" else spearman(x, y)
    n = len(x)
    if r is None:
        return Correlation(method, None, None, None, None, None, n, confidence)
    fisher = fisher_interval(r, n, confidence, method)
    if n < _FISHER_MIN:
        return Correlation(method, r, -1.0, 1.0, *fisher, n, confidence)
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    replicates = bootstrap_correlations(a, b, method, resamples, np.random.default_rng(seed))
    finite = replicates[np.isfinite(replicates)]
    undefined = resamples - int(finite.size)
    if finite.size == 0:
        low, high = -1.0, 1.0
    else:
        alpha = 1.0 - confidence
        low, high = (float(v) for v in np.quantile(finite, [alpha / 2.0, 1.0 - alpha / 2.0]))
    return Correlation(method, r, low, high, *fisher, n, confidence, resamples, undefined)


def correlation_difference(x: Sequence[float], y_a: Sequence[float], y_b: Sequence[float],
                           method: str = "pearson", *, confidence: float = 0.95,
                           resamples: int = 2000, seed: int = 0) -> Interval | None:
    """``r(x, y_b) - r(x, y_a)`` over the same cases (two systems' points against the same
    tutors), with a paired percentile-bootstrap interval: each resample draws the cases once
    for both coefficients. None when either coefficient is undefined; below four pairs the
    interval is the whole range ``[-2, 2]``. Resamples in which either side has no spread
    are left out (all of them: ``[-2, 2]``)."""
    check_same_length(x, y_a, "x and y_a")
    check_same_length(x, y_b, "x and y_b")
    check_confidence(confidence)
    if method not in ("pearson", "spearman"):
        raise ValueError(f"unknown correlation {method!r}: pearson or spearman")
    of = pearson if method == "pearson" else spearman
    ra, rb = of(x, y_a), of(x, y_b)
    n = len(x)
    if ra is None or rb is None:
        return None
    if n < _FISHER_MIN:
        return Interval(rb - ra, -2.0, 2.0, n, confidence)
    t, a, b = (np.asarray(v, dtype=np.float64) for v in (x, y_a, y_b))
    rng = np.random.default_rng(seed)
    diffs = np.empty(resamples, dtype=np.float64)
    for start, stop, counts in _resample_counts(n, resamples, rng):
        if method == "spearman":
            rt = _group_ranks(t, counts)
            diffs[start:stop] = (_weighted_r(rt, _group_ranks(b, counts), counts, n)
                                 - _weighted_r(rt, _group_ranks(a, counts), counts, n))
        else:
            diffs[start:stop] = (_weighted_r(t[None, :], b[None, :], counts, n)
                                 - _weighted_r(t[None, :], a[None, :], counts, n))
    finite = diffs[np.isfinite(diffs)]
    if finite.size == 0:
        return Interval(rb - ra, -2.0, 2.0, n, confidence)
    alpha = 1.0 - confidence
    low, high = (float(v) for v in np.quantile(finite, [alpha / 2.0, 1.0 - alpha / 2.0]))
    return Interval(rb - ra, low, high, n, confidence)
