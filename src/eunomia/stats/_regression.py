"""Ordinary least squares with a t-based slope interval, and the Student t quantile."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from eunomia.stats._validate import as_finite_array, check_confidence, check_same_length

_EPS = 1e-15
_TINY = 1e-300


@dataclass(frozen=True, slots=True)
class LinearFit:
    """Least-squares line ``y = slope * x + intercept``.

    ``r2`` is None when ``y`` has no variance; ``slope_low``/``slope_high`` are None when
    there are fewer than three points (no residual degrees of freedom).
    """

    slope: float
    intercept: float
    r2: float | None
    slope_low: float | None
    slope_high: float | None
    n: int


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return h


def regularized_incomplete_beta(a: float, b: float, x: float) -> float:
    """``I_x(a, b)``, the regularised incomplete beta function, for ``a, b > 0``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_continued_fraction(a, b, x) / a
    return 1.0 - front * _beta_continued_fraction(b, a, 1.0 - x) / b


def t_upper_tail(t: float, df: float) -> float:
    """``P(T > t)`` for Student's t with ``df`` degrees of freedom (``t >= 0``)."""
    return 0.5 * regularized_incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(p: float, df: float) -> float:
    """Quantile of Student's t distribution: the ``t`` with ``P(T <= t) = p``.

    Found by bisection on the CDF, computed from the regularised incomplete beta function
    (``math.lgamma`` + continued fraction), to about 1e-12 relative precision; e.g.
    ``t_quantile(0.975, 1) ≈ 12.706``, ``t_quantile(0.975, 30) ≈ 2.042``.

    Raises ValueError unless ``0 < p < 1`` and ``df > 0``.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be strictly between 0 and 1 (got {p})")
    if not df > 0.0:
        raise ValueError(f"df must be positive (got {df})")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    tail = 1.0 - p
    low, high = 0.0, 1.0
    while t_upper_tail(high, df) > tail:
        low, high = high, high * 2.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        if t_upper_tail(middle, df) > tail:
            low = middle
        else:
            high = middle
        if high - low <= 1e-13 * high:
            break
    return 0.5 * (low + high)


def linear_fit(
    x: Sequence[float], y: Sequence[float], confidence: float = 0.95
) -> LinearFit | None:
    """Ordinary least-squares fit of ``y`` on ``x`` with a t-based interval on the slope.

    ``slope = Sxy / Sxx``; ``r2 = 1 - SSE / SST``; the slope interval is
    ``slope ± t_{(1+confidence)/2, n-2} * sqrt(SSE / (n - 2) / Sxx)``.

    Edge cases: None for ``n < 2`` or when all ``x`` are equal (zero variance); ``n == 2``
    gives a fit with no slope interval (None bounds); ``r2`` is None when all ``y`` are
    equal; a perfect fit with ``n >= 3`` has ``slope_low == slope_high == slope``.

    Raises ValueError for mismatched lengths, non-finite values or ``confidence`` outside
    (0, 1).
    """
    check_confidence(confidence)
    check_same_length(x, y, "x and y")
    xs = as_finite_array(x, "x")
    ys = as_finite_array(y, "y")
    n = int(xs.shape[0])
    if n < 2 or float(np.ptp(xs)) == 0.0:
        return None
    dx = xs - xs.mean()
    dy = ys - ys.mean()
    sxx = float((dx * dx).sum())
    slope = float((dx * dy).sum()) / sxx
    intercept = float(ys.mean()) - slope * float(xs.mean())
    residuals = dy - slope * dx
    sse = float((residuals * residuals).sum())
    sst = float((dy * dy).sum())
    r2 = None if float(np.ptp(ys)) == 0.0 else max(0.0, min(1.0, 1.0 - sse / sst))
    if n < 3:
        return LinearFit(slope, intercept, r2, None, None, n)
    standard_error = math.sqrt(sse / (n - 2) / sxx)
    half_width = t_quantile(0.5 + confidence / 2.0, n - 2) * standard_error
    return LinearFit(slope, intercept, r2, slope - half_width, slope + half_width, n)
