"""Large inputs with few distinct values are bootstrapped as counts per distinct value: the
same distribution as resampling the cases, so the same interval up to Monte Carlo noise."""

from __future__ import annotations

import numpy as np
import pytest

from eunomia.stats import _intervals
from eunomia.stats._intervals import bootstrap_mean_ci


@pytest.mark.parametrize("weighted", [False, True])
def test_counted_resampling_matches_case_resampling(weighted: bool,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    values = rng.integers(0, 6, 3000).astype(float)
    weights = rng.choice([1.0, 2.0, 3.0], 3000) if weighted else None
    _intervals._BOUNDS.clear()
    counted = bootstrap_mean_ci(values, weights, resamples=4000)
    assert counted is not None
    monkeypatch.setattr(_intervals, "_COUNTS_FROM", 10**9)  # the case-by-case path
    _intervals._BOUNDS.clear()
    cases = bootstrap_mean_ci(values, weights, resamples=4000)
    assert cases is not None
    assert counted.estimate == cases.estimate
    width = cases.high - cases.low
    assert 0.05 < width < 0.2
    assert abs(counted.low - cases.low) < 0.1 * width
    assert abs(counted.high - cases.high) < 0.1 * width


def test_counted_resampling_is_deterministic_and_handles_zero_weights() -> None:
    values = np.array([0.0, 5.0] * 600)
    weights = np.array([0.0, 1.0] * 600)  # only the fives count
    _intervals._BOUNDS.clear()
    first = bootstrap_mean_ci(values, weights)
    _intervals._BOUNDS.clear()
    assert first == bootstrap_mean_ci(values, weights)
    assert first is not None and first.low == first.high == 5.0
    means = _intervals.bootstrap_means(values, None, 500, np.random.default_rng(0))
    assert means.shape == (500,) and 2.2 < means.mean() < 2.8
