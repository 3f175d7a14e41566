"""Tests for the percentile bootstrap of the (weighted) mean."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from eunomia.stats import Interval, bootstrap_mean_ci


def test_empty_input_returns_none() -> None:
    assert bootstrap_mean_ci([]) is None


def test_single_value_collapses_interval() -> None:
    result = bootstrap_mean_ci([3.5])
    assert result == Interval(3.5, 3.5, 3.5, 1, 0.95)


def test_all_equal_values_collapse_interval() -> None:
    result = bootstrap_mean_ci([0.1] * 7)
    assert result is not None
    assert result.low == result.high == result.estimate == pytest.approx(0.1)
    assert result.n == 7


def test_interval_covers_true_mean_and_has_expected_width() -> None:
    values = np.random.default_rng(42).normal(loc=5.0, scale=1.0, size=500)
    result = bootstrap_mean_ci(values.tolist())
    assert result is not None
    assert result.estimate == pytest.approx(float(values.mean()))
    assert result.low < 5.0 < result.high
    assert result.low < result.estimate < result.high
    # Normal-theory width 2 * 1.96 * sd / sqrt(n).
    expected_width = 2 * 1.96 * float(values.std(ddof=1)) / np.sqrt(values.size)
    assert result.high - result.low == pytest.approx(expected_width, rel=0.15)
    assert result.n == 500 and result.confidence == 0.95


def test_coverage_is_close_to_nominal() -> None:
    rng = np.random.default_rng(7)
    covered = 0
    trials = 200
    for trial in range(trials):
        sample = rng.exponential(scale=2.0, size=60)
        result = bootstrap_mean_ci(sample.tolist(), resamples=400, seed=trial)
        assert result is not None
        covered += result.low <= 2.0 <= result.high
    assert 0.85 <= covered / trials <= 0.99


def test_deterministic_for_fixed_seed() -> None:
    values = [0.0, 1.0, 1.0, 0.0, 1.0, 0.5, 0.25, 0.75]
    first = bootstrap_mean_ci(values, seed=123)
    second = bootstrap_mean_ci(values, seed=123)
    other = bootstrap_mean_ci(values, seed=124)
    assert first == second
    assert first != other


def test_higher_confidence_gives_wider_interval() -> None:
    values = np.random.default_rng(1).uniform(size=200).tolist()
    narrow = bootstrap_mean_ci(values, confidence=0.8)
    wide = bootstrap_mean_ci(values, confidence=0.99)
    assert narrow is not None and wide is not None
    assert wide.low < narrow.low and narrow.high < wide.high
    assert wide.confidence == 0.99


def test_weighted_mean_estimate() -> None:
    result = bootstrap_mean_ci([0.0, 10.0], [3.0, 1.0])
    assert result is not None
    assert result.estimate == pytest.approx(2.5)
    assert 0.0 <= result.low <= result.high <= 10.0


def test_integer_weights_match_repetition_estimate() -> None:
    weighted = bootstrap_mean_ci([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    repeated = bootstrap_mean_ci([1.0, 2.0, 2.0, 3.0, 3.0, 3.0])
    assert weighted is not None and repeated is not None
    assert weighted.estimate == pytest.approx(repeated.estimate) == pytest.approx(14 / 6)
    assert weighted.n == 3  # cases, not total weight


def test_uniform_weights_equal_unweighted() -> None:
    values = np.random.default_rng(3).normal(size=300).tolist()
    plain = bootstrap_mean_ci(values, seed=9)
    weighted = bootstrap_mean_ci(values, [2.0] * len(values), seed=9)
    assert plain is not None and weighted is not None
    assert weighted.estimate == pytest.approx(plain.estimate)
    assert weighted.low == pytest.approx(plain.low)
    assert weighted.high == pytest.approx(plain.high)


def test_weighted_interval_tracks_heavy_case() -> None:
    # Almost all weight on the cases with value 1: the interval hugs 1.
    values = [1.0] * 10 + [0.0] * 10
    weights = [100.0] * 10 + [1.0] * 10
    result = bootstrap_mean_ci(values, weights)
    assert result is not None
    assert result.estimate == pytest.approx(1000 / 1010)
    assert result.low > 0.95


def test_zero_weight_resamples_are_discarded() -> None:
    # Resamples drawing only the zero-weight case have no mean; they must not become NaN.
    result = bootstrap_mean_ci([1.0, 100.0], [1.0, 0.0])
    assert result is not None
    assert result.estimate == result.low == result.high == 1.0


def test_all_zero_weights_return_none() -> None:
    assert bootstrap_mean_ci([1.0, 2.0], [0.0, 0.0]) is None


@pytest.mark.parametrize(
    ("values", "weights", "kwargs"),
    [
        ([1.0, 2.0], [1.0], {}),
        ([1.0, 2.0], [1.0, -1.0], {}),
        ([1.0, float("nan")], None, {}),
        ([1.0, float("inf")], None, {}),
        ([1.0, 2.0], [1.0, float("nan")], {}),
        ([1.0, 2.0], None, {"confidence": 1.0}),
        ([1.0, 2.0], None, {"confidence": 0.0}),
        ([1.0, 2.0], None, {"resamples": 0}),
    ],
)
def test_invalid_input_raises(
    values: list[float], weights: list[float] | None, kwargs: dict[str, float]
) -> None:
    with pytest.raises(ValueError):
        bootstrap_mean_ci(values, weights, **kwargs)  # type: ignore[arg-type]


def test_large_input_is_vectorised() -> None:
    values = np.random.default_rng(5).normal(size=100_000)
    result = bootstrap_mean_ci(values.tolist(), resamples=200)
    assert result is not None
    half_width = 1.96 / np.sqrt(values.size)
    assert result.high - result.low == pytest.approx(2 * half_width, rel=0.25)


def test_interval_is_frozen() -> None:
    result = bootstrap_mean_ci([1.0, 2.0])
    assert result is not None
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.low = 0.0  # type: ignore[misc]
