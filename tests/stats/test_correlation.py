"""Pearson's and Spearman's correlation with their intervals, against textbook values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eunomia.stats import (
    average_ranks,
    correlation,
    correlation_difference,
    fisher_interval,
    pearson,
    spearman,
)
from eunomia.stats._correlation import _group_ranks, _weighted_r

# Anscombe's quartet, set I (Anscombe 1973): r = 0.816 (0.81642 to five places).
ANSCOMBE_X = [10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5]
ANSCOMBE_Y1 = [8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68]
# Spearman's textbook example (IQ against hours of television a week): rho = -29/165.
IQ = [106, 100, 86, 101, 99, 103, 97, 113, 112, 110]
TV = [7, 27, 2, 50, 28, 29, 20, 12, 6, 17]


def test_pearson_of_anscombe_set_one() -> None:
    r = pearson(ANSCOMBE_X, ANSCOMBE_Y1)
    assert r == pytest.approx(0.81642, abs=5e-6)


def test_spearman_of_the_textbook_example() -> None:
    assert spearman(IQ, TV) == pytest.approx(-29 / 165, abs=1e-12)


def test_spearman_with_ties_by_hand() -> None:
    # ranks x = 1, 2.5, 2.5, 4 and y = 1, 3, 2, 4: sxy = 4.5, sxx = 4.5, syy = 5
    assert spearman([1, 2, 2, 3], [1, 3, 2, 4]) == pytest.approx(4.5 / math.sqrt(4.5 * 5))
    assert list(average_ranks([3.0, 1.0, 3.0, 2.0, 3.0])) == [4.0, 1.0, 4.0, 2.0, 4.0]


def test_perfect_and_inverse_relations() -> None:
    x = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert pearson(x, [2 * v + 1 for v in x]) == pytest.approx(1.0)
    assert spearman(x, [v ** 3 for v in x]) == pytest.approx(1.0)  # monotone, not linear
    assert pearson(x, [v ** 3 for v in x]) < 1.0
    assert pearson(x, [-v for v in x]) == pytest.approx(-1.0)


def test_undefined_cases_are_none() -> None:
    assert pearson([1.0, 2.0], [3.0, 1.0]) is None  # two points always lie on a line
    assert pearson([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]) is None  # no spread
    assert spearman([2.0, 2.0, 2.0, 2.0], [1.0, 2.0, 3.0, 4.0]) is None
    result = correlation([1.0, 1.0, 1.0], [1.0, 2.0, 3.0])
    assert result.estimate is None and result.low is None and result.fisher_low is None


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="same length"):
        pearson([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="finite"):
        spearman([1.0, math.nan, 3.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="unknown correlation"):
        correlation([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], "kendall")


def test_fisher_interval_by_hand() -> None:
    # r = 0.5, n = 28: z = atanh(0.5) = 0.5493, se = 1/5 = 0.2, z_.975 = 1.95996
    # -> tanh(0.15731) = 0.1560 and tanh(0.94130) = 0.7358
    low, high = fisher_interval(0.5, 28)
    assert low == pytest.approx(0.1560, abs=5e-4)
    assert high == pytest.approx(0.7358, abs=5e-4)
    # Spearman's (Bonett-Wright) is wider: se = sqrt(1.125)/5
    s_low, s_high = fisher_interval(0.5, 28, method="spearman")
    assert s_low < low and s_high > high
    assert fisher_interval(0.9, 3) == (-1.0, 1.0)  # too few pairs to say anything


def test_bootstrap_interval_contains_the_estimate_and_shrinks_with_n() -> None:
    rng = np.random.default_rng(7)
    widths = []
    for n in (8, 40, 400):
        x = rng.normal(size=n)
        y = x + rng.normal(size=n)
        c = correlation(list(x), list(y), "pearson")
        assert c.estimate is not None and c.low is not None and c.high is not None
        assert c.low <= c.estimate <= c.high
        assert c.low >= -1.0 and c.high <= 1.0
        widths.append(c.high - c.low)
    assert widths[0] > widths[1] > widths[2]
    assert widths[0] > 0.3  # eight pairs: little is known


def test_three_pairs_say_nothing() -> None:
    c = correlation([1.0, 2.0, 3.0], [1.0, 3.0, 2.0], "spearman")
    assert c.estimate == pytest.approx(0.5)
    assert (c.low, c.high, c.fisher_low, c.fisher_high) == (-1.0, 1.0, -1.0, 1.0)


def test_the_bootstrap_is_deterministic() -> None:
    a = correlation(IQ, TV, "spearman", seed=3)
    b = correlation(IQ, TV, "spearman", seed=3)
    assert a == b
    assert a.resamples == 2000 and 0 <= a.undefined_resamples < 2000


def test_resampled_ranks_equal_ranks_of_the_expanded_resample() -> None:
    """The counts-based Spearman of a resample is the Spearman of the values drawn."""
    rng = np.random.default_rng(11)
    x = np.array([3.0, 1.0, 3.0, 2.0, 5.0, 4.0, 4.0])
    y = np.array([1.0, 2.0, 2.0, 7.0, 3.0, 3.0, 6.0])
    counts = rng.multinomial(len(x), np.full(len(x), 1 / len(x)), size=50).astype(float)
    fast = _weighted_r(_group_ranks(x, counts), _group_ranks(y, counts), counts, len(x))
    for row, value in zip(counts, fast, strict=True):
        index = np.repeat(np.arange(len(x)), row.astype(int))
        slow = spearman(list(x[index]), list(y[index]))
        if slow is None:
            assert math.isnan(value)
        else:
            assert value == pytest.approx(slow, abs=1e-12)


def test_the_difference_of_two_correlations_with_the_same_cases() -> None:
    rng = np.random.default_rng(3)
    tutor = rng.uniform(0, 10, 40).tolist()
    close = [t + rng.normal(0, 1) for t in tutor]
    loose = [t + rng.normal(0, 6) for t in tutor]
    d = correlation_difference(tutor, close, loose)
    assert d is not None and d.n == 40
    r_close, r_loose = pearson(tutor, close), pearson(tutor, loose)
    assert r_close is not None and r_loose is not None
    assert d.estimate == pytest.approx(r_loose - r_close)
    assert d.low <= d.estimate <= d.high < 0  # the looser one agrees less, and it shows
    # a paired resampling: the same system on both sides changes by exactly nothing
    same = correlation_difference(tutor, close, close, "spearman")
    assert same is not None and (same.estimate, same.low, same.high) == (0.0, 0.0, 0.0)
    assert correlation_difference(tutor, close, loose, seed=5) == \
        correlation_difference(tutor, close, loose, seed=5)
    # undefined on one side: no difference at all; three pairs: the whole range
    assert correlation_difference([1, 2, 3, 4], [1, 2, 3, 4], [2, 2, 2, 2]) is None
    few = correlation_difference([1, 2, 3], [1, 2, 3], [3, 2, 1])
    assert few is not None and (few.estimate, few.low, few.high) == (-2.0, -2.0, 2.0)
    with pytest.raises(ValueError, match="same length"):
        correlation_difference([1, 2, 3], [1, 2], [1, 2, 3])
