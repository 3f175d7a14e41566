"""Confidence intervals for a (weighted) mean by the percentile bootstrap."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from eunomia import defaults
from eunomia.stats._validate import (
    FloatArray,
    as_finite_array,
    check_confidence,
    check_same_length,
)

# Upper bound on the number of cells of one block of resample indices; keeps the memory of
# a bootstrap of 100k values at a few tens of MB whatever the number of resamples.
_MAX_BLOCK_CELLS = 1 << 22
# From this many cases, data with at most _FEW_DISTINCT distinct (value, weight) pairs (scores
# 0-5, 0/1 outcomes...) are resampled as counts per distinct pair (one multinomial draw per
# resample): the same bootstrap distribution, in time independent of the number of cases.
_COUNTS_FROM = 512
_FEW_DISTINCT = 64


@dataclass(frozen=True, slots=True)
class Interval:
    """A point estimate with a two-sided confidence interval.

    ``n`` is the number of cases the estimate is based on; ``confidence`` the nominal
    coverage of ``[low, high]`` (e.g. 0.95).
    """

    estimate: float
    low: float
    high: float
    n: int
    confidence: float

    @property
    def too_few(self) -> bool:
        """Fewer cases than an interval needs to mean something
        (``defaults.MIN_CASES_FOR_INTERVAL``): show "too few cases to tell", not the
        bounds, and draw no verdict from it."""
        return self.n < defaults.MIN_CASES_FOR_INTERVAL


def bootstrap_means(
    values: FloatArray,
    weights: FloatArray | None,
    resamples: int,
    rng: np.random.Generator,
) -> FloatArray:
    """Means of ``resamples`` bootstrap resamples of the cases (values with their weights).

    Resamples are drawn in blocks so memory stays bounded for large inputs; the result only
    depends on the generator state, the data and ``resamples``. A resample whose weights sum
    to zero has no weighted mean and yields NaN.
    """
    n = values.shape[0]
    if n >= _COUNTS_FROM:
        pairs = values[:, None] if weights is None else np.column_stack((values, weights))
        distinct, counts = np.unique(pairs, axis=0, return_counts=True)
        if distinct.shape[0] <= _FEW_DISTINCT:
            return _counted_means(distinct, counts / n, n, resamples, rng)
    block = max(1, _MAX_BLOCK_CELLS // n)
    means = np.empty(resamples, dtype=np.float64)
    weighted = None if weights is None else values * weights
    index_type = np.int32 if n < 2**31 else np.int64
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        index = rng.integers(0, n, size=(stop - start, n), dtype=index_type)
        if weights is None or weighted is None:
            means[start:stop] = values[index].mean(axis=1)
        else:
            totals = weights[index].sum(axis=1)
            sums = weighted[index].sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                means[start:stop] = np.where(totals > 0, sums / totals, np.nan)
    return means


def _counted_means(distinct: FloatArray, shares: FloatArray, n: int, resamples: int,
                   rng: np.random.Generator) -> FloatArray:
    """:func:`bootstrap_means` of ``n`` cases taking the rows of ``distinct`` (value, and
    weight when there is a second column) in proportions ``shares``: each resample is how
    many of its ``n`` draws fell on each row, a multinomial draw."""
    drawn = rng.multinomial(n, shares, size=resamples).astype(np.float64)
    values = distinct[:, 0]
    if distinct.shape[1] == 1:
        means: FloatArray = drawn @ values / n
        return means
    weights = distinct[:, 1]
    totals = drawn @ weights
    sums = drawn @ (values * weights)
    with np.errstate(invalid="ignore", divide="ignore"):
        weighted: FloatArray = np.where(totals > 0, sums / totals, np.nan)
    return weighted


def percentile_bounds(replicates: FloatArray, confidence: float) -> tuple[float, float] | None:
    """Percentile interval of the finite replicates; None when there are none."""
    finite = replicates[np.isfinite(replicates)]
    if finite.size == 0:
        return None
    alpha = 1.0 - confidence
    low, high = np.quantile(finite, [alpha / 2.0, 1.0 - alpha / 2.0])
    return float(low), float(high)


def bootstrap_mean_ci(
    values: Sequence[float],
    weights: Sequence[float] | None = None,
    *,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> Interval | None:
    """Percentile-bootstrap confidence interval of the (weighted) mean.

    Cases are resampled with replacement together with their weights; each resample's
    weighted mean ``sum(w*v)/sum(w)`` is computed (vectorised with numpy, in bounded-memory
    blocks) and the interval is the ``(1-confidence)/2`` and ``(1+confidence)/2`` quantiles
    of those means. Deterministic for a fixed ``seed``.

    Edge cases:

    * ``n == 0`` → None.
    * weights summing to zero (all zero) → None (the weighted mean is undefined).
    * ``n == 1`` or all values equal → ``low == high == estimate`` (no resampling needed).
    * resamples that draw only zero-weight cases are discarded; if every resample is
      discarded the interval collapses to the estimate.

    Raises ValueError for non-finite values/weights, negative weights, mismatched lengths,
    ``confidence`` outside (0, 1) or ``resamples < 1``.
    """
    check_confidence(confidence)
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1 (got {resamples})")
    data = as_finite_array(values, "values")
    w: FloatArray | None = None
    if weights is not None:
        check_same_length(values, weights, "values and weights")
        w = as_finite_array(weights, "weights")
        if np.any(w < 0):
            raise ValueError("weights must be non-negative")
    n = int(data.shape[0])
    if n == 0:
        return None
    if w is None:
        estimate = float(data.mean())
    else:
        total = float(w.sum())
        if total <= 0.0:
            return None
        estimate = float(np.dot(data, w) / total)
    if n == 1 or float(np.ptp(data)) == 0.0:
        return Interval(estimate, estimate, estimate, n, confidence)
    inputs = (data.tobytes(), b"" if w is None else w.tobytes(),
              f"{confidence}|{resamples}|{seed}".encode())
    return _BOUNDS.interval(estimate, n, confidence, inputs, lambda: percentile_bounds(
        bootstrap_means(data, w, resamples, np.random.default_rng(seed)), confidence))


def cluster_mean_ci(
    values: Sequence[float],
    clusters: Sequence[Hashable],
    *,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> Interval | None:
    """The mean of ``values`` with a case-level (cluster) bootstrap interval: values of one
    cluster (a case's repeats) are not independent, so whole clusters are resampled. The
    estimate is the mean of all values; ``n`` of the interval is the number of clusters.

    Equivalent to :func:`bootstrap_mean_ci` of the cluster means weighted by the cluster
    sizes (a resample's mean is the sum of its clusters' values over their count); with
    clusters of one size, of the plain cluster means (the same figures without repeats). A run
    whose repeats answer identically gets the interval of a single repeat, not a narrower
    one. Clusters keep the order of their first value.
    """
    check_same_length(values, clusters, "values and clusters")
    sums: dict[Hashable, float] = {}
    sizes: dict[Hashable, int] = {}
    for value, cluster in zip(values, clusters, strict=True):
        sums[cluster] = sums.get(cluster, 0.0) + float(value)
        sizes[cluster] = sizes.get(cluster, 0) + 1
    means = [sums[c] / sizes[c] for c in sums]
    weights = None if len(set(sizes.values())) <= 1 else [float(sizes[c]) for c in sums]
    return bootstrap_mean_ci(means, weights, confidence=confidence, resamples=resamples,
                             seed=seed)


class BoundsCache:
    """Bootstrap bounds computed lately, by a digest of their inputs (the last ``kept``): the
    same figures are asked for by the summary, the terminal, the files and the report, a
    summary's groups are often the same cases (one kind, one category, one suite), and a
    bootstrap of thousands of cases costs tens of milliseconds. The bounds depend only on the
    inputs, so an interval is the same either way."""

    def __init__(self, kept: int = 64) -> None:
        self._bounds: dict[bytes, tuple[float, float] | None] = {}
        self._kept = kept

    def clear(self) -> None:
        self._bounds.clear()

    def interval(self, estimate: float, n: int, confidence: float, inputs: Sequence[bytes],
                 resample: Callable[[], tuple[float, float] | None]) -> Interval:
        """``estimate`` between the bounds ``resample()`` gives for these ``inputs`` (asked
        once); a point when it gives none."""
        key = hashlib.blake2b(b"|".join(inputs)).digest()
        if key in self._bounds:
            bounds = self._bounds[key]
        else:
            bounds = resample()
            if len(self._bounds) >= self._kept:
                self._bounds.pop(next(iter(self._bounds)))
            self._bounds[key] = bounds
        if bounds is None:
            return Interval(estimate, estimate, estimate, n, confidence)
        return Interval(estimate, bounds[0], bounds[1], n, confidence)


_BOUNDS = BoundsCache()
