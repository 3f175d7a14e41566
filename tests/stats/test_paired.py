"""Tests for McNemar's test and the paired bootstrap."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eunomia.stats import PairedDelta, TestResult, mcnemar, paired_bootstrap

# --- McNemar -------------------------------------------------------------------------------


def test_mcnemar_no_discordant_pairs() -> None:
    result = mcnemar(0, 0)
    assert result.p_value == 1.0
    assert result.statistic == 0.0


def test_mcnemar_exact_hand_computed() -> None:
    # n = 6, P(X <= 1) = (1 + 6) / 64 → two-sided p = 14 / 64.
    result = mcnemar(1, 5)
    assert result == TestResult(1.0, 14 / 64, "mcnemar-exact")
    assert mcnemar(5, 1).p_value == pytest.approx(14 / 64)


def test_mcnemar_exact_just_below_threshold() -> None:
    result = mcnemar(3, 21)
    expected = 2 * (1 + 24 + 276 + 2024) / 2**24
    assert result.method == "mcnemar-exact"
    assert result.p_value == pytest.approx(expected)
    assert mcnemar(12, 12).p_value == 1.0  # capped at 1


def test_mcnemar_chi_square_hand_computed() -> None:
    # b + c = 35 >= 25: statistic (|10 - 25| - 1)^2 / 35 = 5.6; chi2(1) sf(5.6) = 0.01796.
    result = mcnemar(10, 25)
    assert result.method == "mcnemar-chi2"
    assert result.statistic == pytest.approx(5.6)
    assert result.p_value == pytest.approx(0.017961, abs=1e-5)


def test_mcnemar_switches_method_at_25() -> None:
    assert mcnemar(12, 12).method == "mcnemar-exact"
    assert mcnemar(12, 13).method == "mcnemar-chi2"
    assert mcnemar(12, 13).p_value == 1.0  # |b - c| - 1 == 0


def test_mcnemar_chi_square_close_to_exact() -> None:
    b, c = 20, 40
    exact = min(1.0, 2 * sum(math.comb(60, i) for i in range(b + 1)) / 2**60)
    approx = mcnemar(b, c)
    assert approx.method == "mcnemar-chi2"
    assert approx.p_value == pytest.approx(exact, abs=0.005)
    assert approx.p_value < 0.05


def test_mcnemar_negative_counts_raise() -> None:
    with pytest.raises(ValueError):
        mcnemar(-1, 3)


# --- paired bootstrap ----------------------------------------------------------------------


def test_paired_bootstrap_empty_and_single() -> None:
    assert paired_bootstrap([], []) is None
    assert paired_bootstrap([1.0], [3.0]) == PairedDelta(2.0, 2.0, 2.0, 1.0, 1)


def test_paired_bootstrap_mismatched_lengths_raise() -> None:
    with pytest.raises(ValueError):
        paired_bootstrap([1.0, 2.0], [1.0])


def test_paired_bootstrap_clear_improvement() -> None:
    rng = np.random.default_rng(11)
    a = rng.normal(size=200)
    b = a + 1.0 + rng.normal(scale=0.2, size=200)
    result = paired_bootstrap(a.tolist(), b.tolist(), resamples=2000)
    assert result is not None
    assert result.mean_delta == pytest.approx(float((b - a).mean()))
    assert 0.0 < result.low < result.mean_delta < result.high
    assert result.p_value == pytest.approx(1 / 2001)
    assert result.n == 200


def test_paired_bootstrap_symmetric_deltas_give_p_one() -> None:
    a = [0.0] * 6
    b = [-1.0, 1.0, -2.0, 2.0, -0.5, 0.5]
    result = paired_bootstrap(a, b, resamples=1000)
    assert result is not None
    assert result.mean_delta == 0.0
    assert result.p_value == 1.0
    assert result.low < 0.0 < result.high


def test_paired_bootstrap_p_value_matches_normal_theory() -> None:
    rng = np.random.default_rng(2024)
    deltas = rng.normal(size=400)
    deltas = deltas - deltas.mean() + 2.0 * deltas.std(ddof=1) / np.sqrt(deltas.size)  # z ≈ 2
    result = paired_bootstrap([0.0] * deltas.size, deltas.tolist(), resamples=20000)
    assert result is not None
    z = float(deltas.mean() / (deltas.std(ddof=1) / np.sqrt(deltas.size)))
    assert result.p_value == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), abs=0.015)


def test_paired_bootstrap_deterministic_for_fixed_seed() -> None:
    a = [0.1, 0.4, 0.35, 0.8, 0.5, 0.9]
    b = [0.2, 0.5, 0.3, 0.9, 0.7, 0.85]
    assert paired_bootstrap(a, b, seed=5) == paired_bootstrap(a, b, seed=5)
    assert paired_bootstrap(a, b, seed=5) != paired_bootstrap(a, b, seed=6)


def test_paired_bootstrap_constant_nonzero_delta() -> None:
    result = paired_bootstrap([1.0, 2.0, 3.0], [2.0, 3.0, 4.0], resamples=99)
    assert result == PairedDelta(1.0, 1.0, 1.0, 1 / 100, 3)
