"""Tests for the least-squares fit and the Student t quantile."""

from __future__ import annotations

import pytest

from eunomia.stats import LinearFit, linear_fit, t_quantile


@pytest.mark.parametrize(
    ("p", "df", "expected"),
    [
        (0.975, 1, 12.706),
        (0.975, 5, 2.571),
        (0.975, 30, 2.042),
        (0.975, 3, 3.182),
        (0.95, 10, 1.812),
        (0.995, 20, 2.845),
        (0.9995, 1, 636.619),
    ],
)
def test_t_quantile_known_values(p: float, df: float, expected: float) -> None:
    assert t_quantile(p, df) == pytest.approx(expected, abs=1e-3)


def test_t_quantile_symmetry_and_limits() -> None:
    assert t_quantile(0.5, 4) == 0.0
    assert t_quantile(0.025, 5) == pytest.approx(-t_quantile(0.975, 5))
    assert t_quantile(0.975, 1e7) == pytest.approx(1.959964, abs=1e-5)
    assert t_quantile(0.975, 1) == pytest.approx(12.7062047, abs=1e-6)  # tan(0.475 pi)


@pytest.mark.parametrize(("p", "df"), [(0.0, 3), (1.0, 3), (0.9, 0), (0.9, -1)])
def test_t_quantile_invalid_arguments(p: float, df: float) -> None:
    with pytest.raises(ValueError):
        t_quantile(p, df)


def test_linear_fit_hand_computed() -> None:
    # xbar = 3, ybar = 4, Sxx = 10, Sxy = 6 → slope 0.6, intercept 2.2; SSE = 2.4, SST = 6.
    # SE = sqrt(2.4 / 3 / 10) = sqrt(0.08); t(0.975, 3) = 3.182446.
    fit = linear_fit([1, 2, 3, 4, 5], [2, 4, 5, 4, 5])
    assert fit is not None
    half_width = 3.182446 * 0.08**0.5
    assert fit.slope == pytest.approx(0.6)
    assert fit.intercept == pytest.approx(2.2)
    assert fit.r2 == pytest.approx(0.6)
    assert fit.slope_low == pytest.approx(0.6 - half_width, abs=1e-5)
    assert fit.slope_high == pytest.approx(0.6 + half_width, abs=1e-5)
    assert fit.n == 5


def test_lower_confidence_narrows_slope_interval() -> None:
    wide = linear_fit([1, 2, 3, 4, 5], [2, 4, 5, 4, 5], 0.99)
    narrow = linear_fit([1, 2, 3, 4, 5], [2, 4, 5, 4, 5], 0.8)
    assert wide is not None and narrow is not None
    assert wide.slope_low is not None and narrow.slope_low is not None
    assert wide.slope_low < narrow.slope_low


def test_linear_fit_perfect_line() -> None:
    fit = linear_fit([0.0, 1.0, 2.0, 3.0], [1.0, 3.0, 5.0, 7.0])
    assert fit is not None
    assert fit.slope == pytest.approx(2.0)
    assert fit.intercept == pytest.approx(1.0)
    assert fit.r2 == pytest.approx(1.0)
    assert fit.slope_low == pytest.approx(2.0)
    assert fit.slope_high == pytest.approx(2.0)


def test_linear_fit_two_points_has_no_interval() -> None:
    assert linear_fit([0.0, 2.0], [1.0, 2.0]) == LinearFit(0.5, 1.0, 1.0, None, None, 2)


def test_linear_fit_constant_y_has_no_r2() -> None:
    fit = linear_fit([1.0, 2.0, 3.0], [4.0, 4.0, 4.0])
    assert fit is not None
    assert fit.slope == 0.0 and fit.intercept == 4.0
    assert fit.r2 is None


def test_linear_fit_undefined_cases() -> None:
    assert linear_fit([], []) is None
    assert linear_fit([1.0], [2.0]) is None
    assert linear_fit([3.0, 3.0, 3.0], [1.0, 2.0, 3.0]) is None


def test_linear_fit_invalid_input() -> None:
    with pytest.raises(ValueError):
        linear_fit([1.0, 2.0], [1.0])
    with pytest.raises(ValueError):
        linear_fit([1.0, float("nan")], [1.0, 2.0])
    with pytest.raises(ValueError):
        linear_fit([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], confidence=1.5)
