"""How well scores separate good from bad items: the AUC, with a bootstrap interval over
clusters (cases that each hold several scored items)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from eunomia.stats._intervals import BoundsCache, Interval, percentile_bounds
from eunomia.stats._validate import FloatArray, as_finite_array, check_confidence

_MAX_BLOCK_CELLS = 1 << 22
"""Upper bound on the cells of one block of resampled weights (bounded memory)."""

IntArray = npt.NDArray[np.intp]


def auc(good: Sequence[float], bad: Sequence[float]) -> float | None:
    """``P(g > b) + 0.5 P(g == b)`` over every pair of a good score ``g`` and a bad score
    ``b`` (the Mann–Whitney statistic divided by the number of pairs; 1: every good item
    scores above every bad one, 0.5: no better than a coin). None when either side is empty.

    Raises ValueError for non-finite scores.
    """
    g = as_finite_array(good, "good")
    b = as_finite_array(bad, "bad")
    if g.size == 0 or b.size == 0:
        return None
    levels, index = np.unique(np.concatenate([g, b]), return_inverse=True)
    ones = np.ones(1, dtype=np.float64)
    value = _auc_from_counts(index[:g.size], index[g.size:], ones, ones,
                             np.zeros(g.size, np.intp), np.zeros(b.size, np.intp),
                             levels.size)
    return float(value[0])


def _auc_from_counts(good_level: IntArray, bad_level: IntArray, good_weights: FloatArray,
                     bad_weights: FloatArray, good_cluster: IntArray, bad_cluster: IntArray,
                     levels: int) -> FloatArray:
    """The AUC of each row of cluster weights (``*_weights``: rows x clusters, or a single
    row), items weighted by their cluster's weight; NaN for a row without good or bad."""
    gw = np.atleast_2d(good_weights)[:, good_cluster] if good_cluster.size else \
        np.zeros((np.atleast_2d(good_weights).shape[0], 0))
    bw = np.atleast_2d(bad_weights)[:, bad_cluster] if bad_cluster.size else \
        np.zeros((np.atleast_2d(bad_weights).shape[0], 0))
    rows = gw.shape[0]
    offsets = (np.arange(rows, dtype=np.intp) * levels)[:, None]
    hist_good = np.bincount((offsets + good_level[None, :]).ravel(), weights=gw.ravel(),
                            minlength=rows * levels).reshape(rows, levels)
    hist_bad = np.bincount((offsets + bad_level[None, :]).ravel(), weights=bw.ravel(),
                           minlength=rows * levels).reshape(rows, levels)
    below = np.cumsum(hist_bad, axis=1) - hist_bad  # bad weight strictly below each level
    wins = (hist_good * below).sum(axis=1) + 0.5 * (hist_good * hist_bad).sum(axis=1)
    pairs = hist_good.sum(axis=1) * hist_bad.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = np.where(pairs > 0, wins / pairs, np.nan)
    return out


def clustered_auc_ci(
    good: Sequence[Sequence[float]],
    bad: Sequence[Sequence[float]],
    *,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> Interval | None:
    """The :func:`auc` of every good against every bad score, with a percentile-bootstrap
    interval that resamples the clusters: ``good[i]`` and ``bad[i]`` are the scores of
    cluster ``i`` (a case and the answers made from it), which are not independent of each
    other, so they are drawn together. ``n`` of the interval is the number of clusters.

    Exact for ties (scores are grouped by value, each resample's AUC computed from weighted
    counts per value), vectorised in bounded-memory blocks, deterministic for a ``seed``.

    Edge cases: no good or no bad score at all → None; one cluster, or one score value
    for every item → ``low == high == estimate``; resamples that draw no good (or no bad)
    score are discarded.

    Raises ValueError for ``good`` and ``bad`` of different lengths, non-finite scores,
    ``confidence`` outside (0, 1) or ``resamples < 1``.
    """
    check_confidence(confidence)
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1 (got {resamples})")
    if len(good) != len(bad):
        raise ValueError(f"good and bad must have one entry per cluster (got {len(good)} and "
                         f"{len(bad)})")
    n = len(good)
    g = as_finite_array([v for c in good for v in c], "good")
    b = as_finite_array([v for c in bad for v in c], "bad")
    if g.size == 0 or b.size == 0:
        return None
    g_cluster = np.repeat(np.arange(n, dtype=np.intp), [len(c) for c in good])
    b_cluster = np.repeat(np.arange(n, dtype=np.intp), [len(c) for c in bad])
    values, index = np.unique(np.concatenate([g, b]), return_inverse=True)
    levels = int(values.size)
    g_level, b_level = index[:g.size].astype(np.intp), index[g.size:].astype(np.intp)
    estimate = float(_auc_from_counts(g_level, b_level, np.ones(n), np.ones(n), g_cluster,
                                      b_cluster, levels)[0])
    if n == 1 or levels == 1:
        return Interval(estimate, estimate, estimate, n, confidence)
    inputs = (g.tobytes(), b.tobytes(), g_cluster.tobytes(), b_cluster.tobytes(),
              f"{confidence}|{resamples}|{seed}".encode())

    def resample() -> tuple[float, float] | None:
        rng = np.random.default_rng(seed)
        replicates = np.empty(resamples, dtype=np.float64)
        block = max(1, _MAX_BLOCK_CELLS // max(n, g.size, b.size))
        for start in range(0, resamples, block):
            stop = min(resamples, start + block)
            weights = resample_weights(rng, stop - start, n)
            replicates[start:stop] = _auc_from_counts(g_level, b_level, weights, weights,
                                                      g_cluster, b_cluster, levels)
        return percentile_bounds(replicates, confidence)

    return _BOUNDS.interval(estimate, n, confidence, inputs, resample)


def resample_weights(rng: np.random.Generator, rows: int, n: int) -> FloatArray:
    """``rows`` bootstrap resamples of ``n`` clusters, each as how many times every cluster
    was drawn (rows x n)."""
    draws = rng.integers(0, n, size=(rows, n), dtype=np.intp)
    offsets = (np.arange(rows, dtype=np.intp) * n)[:, None]
    counts = np.bincount((draws + offsets).ravel(), minlength=rows * n).reshape(rows, n)
    out: FloatArray = counts.astype(np.float64)
    return out


_BOUNDS = BoundsCache()
