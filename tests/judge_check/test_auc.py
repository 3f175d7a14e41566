"""The AUC with its interval over clusters, against hand-computed examples."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from eunomia.stats import Interval, auc, clustered_auc_ci
from eunomia.stats._auc import _auc_from_counts, resample_weights


def brute_auc(good: list[float], bad: list[float]) -> float:
    pairs = list(itertools.product(good, bad))
    return sum(1.0 if g > b else 0.5 if g == b else 0.0 for g, b in pairs) / len(pairs)


def test_auc_by_hand() -> None:
    # good 5 and 4 against bad 0, 4, 5: 5>0, 5>4, 5=5 (half), 4>0, 4=4 (half), 4<5
    assert auc([5, 4], [0, 4, 5]) == pytest.approx(4 / 6)
    assert auc([5, 5], [0, 1]) == 1.0
    assert auc([0], [5]) == 0.0
    assert auc([3, 3], [3]) == 0.5
    assert auc([], [1]) is None and auc([1], []) is None


def test_interval_over_two_cases_by_hand() -> None:
    # Case A: good 5, bad 0. Case B: good 4, bads 4 and 5.
    # Resamples of two cases: AA (1/4) -> AUC 1; BB (1/4) -> goods 4,4 vs bads 4,5,4,5:
    # half ties, half losses -> 0.25; AB or BA (1/2) -> 4/6. The 2.5% and 97.5% quantiles
    # of that distribution are 0.25 and 1.
    found = clustered_auc_ci([[5], [4]], [[0], [4, 5]])
    assert found is not None
    assert found.estimate == pytest.approx(4 / 6)
    assert (found.low, found.high) == (pytest.approx(0.25), pytest.approx(1.0))
    assert found.n == 2 and found.confidence == 0.95


def test_interval_edge_cases() -> None:
    assert clustered_auc_ci([[], []], [[1], [2]]) is None
    assert clustered_auc_ci([[5]], [[0, 1]]) == Interval(1.0, 1.0, 1.0, 1, 0.95)
    constant = clustered_auc_ci([[5]] * 20, [[5, 5, 5]] * 20)
    assert constant == Interval(0.5, 0.5, 0.5, 20, 0.95)  # "cannot tell", exactly
    with pytest.raises(ValueError, match="one entry per cluster"):
        clustered_auc_ci([[1]], [[0], [1]])
    with pytest.raises(ValueError, match="finite"):
        clustered_auc_ci([[float("nan")]], [[0]])


def test_every_resample_is_the_auc_of_the_cases_it_drew() -> None:
    rng = np.random.default_rng(7)
    n = 12
    good = [[float(rng.integers(0, 6))] for _ in range(n)]
    bad = [[float(x) for x in rng.normal(2, 1.5, size=int(rng.integers(0, 4)))]
           for _ in range(n)]
    flat_g = [v for c in good for v in c]
    flat_b = [v for c in bad for v in c]
    values, index = np.unique(flat_g + flat_b, return_inverse=True)
    gc = np.repeat(np.arange(n), [len(c) for c in good])
    bc = np.repeat(np.arange(n), [len(c) for c in bad])
    weights = resample_weights(np.random.default_rng(3), 50, n)
    got = _auc_from_counts(index[:len(flat_g)], index[len(flat_g):], weights, weights, gc, bc,
                           values.size)
    for row, value in zip(weights, got, strict=True):
        drawn = [i for i in range(n) for _ in range(int(row[i]))]
        g = [v for i in drawn for v in good[i]]
        b = [v for i in drawn for v in bad[i]]
        if g and b:
            assert value == pytest.approx(brute_auc(g, b))
        else:
            assert np.isnan(value)
    assert clustered_auc_ci(good, bad) == clustered_auc_ci(good, bad)  # deterministic
    estimate = clustered_auc_ci(good, bad)
    assert estimate is not None and estimate.estimate == pytest.approx(brute_auc(flat_g, flat_b))


def test_separating_scores_give_an_interval_above_half_and_noise_one_around_it() -> None:
    rng = np.random.default_rng(0)
    good = [[float(rng.integers(4, 6))] for _ in range(40)]
    bad = [[float(x) for x in rng.integers(0, 3, size=3)] for _ in range(40)]
    sure = clustered_auc_ci(good, bad)
    assert sure is not None and sure.low > 0.9
    noise = [[float(rng.integers(0, 6))] for _ in range(40)]
    noisy = clustered_auc_ci(noise, [[float(x) for x in rng.integers(0, 6, size=3)]
                                     for _ in range(40)])
    assert noisy is not None and noisy.low < 0.5 < noisy.high
