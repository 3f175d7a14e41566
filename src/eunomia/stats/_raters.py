"""How much several raters (human labellers) agree on nominal labels of the same items, with
a bootstrap interval over the items; and any statistic of two raters' paired scores with one
(:func:`paired_statistic_ci`).

Two raters: Cohen's kappa over the items both labelled. More: Fleiss' kappa over the items
at least two labelled (each item's agreement over its own raters, :func:`fleiss_kappa`).
The interval resamples items (cases) with replacement, so it says how far the figure could
move with other cases of the same kind; with few items it is wide, and ``n`` says how few.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from eunomia.stats._agreement import cohen_kappa, fleiss_kappa, percent_agreement
from eunomia.stats._intervals import Interval, percentile_bounds
from eunomia.stats._validate import FloatArray, check_confidence

Method = Literal["cohen", "fleiss"]


@dataclass(frozen=True, slots=True)
class RaterAgreement:
    """Agreement of ``raters`` raters over ``items`` items each rated by at least two."""

    method: Method
    kappa: float | None
    """None when undefined (every rating the same label, or no item rated twice)."""
    interval: Interval | None
    """Percentile bootstrap over the items; None when kappa is undefined."""
    percent: float | None
    """Observed agreement: the share of pairs of ratings of an item that agree."""
    items: int
    raters: int


def _codes(items: Sequence[Mapping[str, Hashable]]) -> dict[Hashable, int]:
    labels: dict[Hashable, int] = {}
    for r in items:
        for label in r.values():
            labels.setdefault(label, len(labels))
    return labels


def _cohen_replicates(items: Sequence[Mapping[str, Hashable]], raters: tuple[str, ...],
                      index: npt.NDArray[np.intp]) -> FloatArray:
    """Cohen's kappa of each resample (a row of ``index``); NaN where undefined."""
    codes = _codes(items)
    a = np.array([codes[r[raters[0]]] for r in items], dtype=np.intp)[index]
    b = np.array([codes[r[raters[1]]] for r in items], dtype=np.intp)[index]
    observed = (a == b).mean(axis=1)
    expected = np.zeros(index.shape[0], dtype=np.float64)
    for c in range(len(codes)):
        expected += (a == c).mean(axis=1) * (b == c).mean(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = np.where(expected < 1.0, (observed - expected) / (1.0 - expected),
                                   np.nan)
    return out


def _fleiss_replicates(items: Sequence[Mapping[str, Hashable]],
                       index: npt.NDArray[np.intp]) -> FloatArray:
    """Fleiss' kappa (as :func:`fleiss_kappa`) of each resample; NaN where undefined."""
    codes = _codes(items)
    counts = np.zeros((len(items), len(codes)), dtype=np.float64)
    for i, r in enumerate(items):
        for label in r.values():
            counts[i, codes[label]] += 1.0
    m = counts.sum(axis=1)
    per_item = (counts * (counts - 1.0)).sum(axis=1) / (m * (m - 1.0))
    observed = per_item[index].mean(axis=1)
    totals = counts[index].sum(axis=1)
    shares = totals / totals.sum(axis=1, keepdims=True)
    expected = (shares ** 2).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = np.where(expected < 1.0 - 1e-12,
                                   (observed - expected) / (1.0 - expected), np.nan)
    return out


def rater_agreement(
    ratings: Sequence[Mapping[str, Hashable]],
    *,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> RaterAgreement | None:
    """Agreement of the raters of ``ratings`` (per item: rater name → label).

    Items with fewer than two ratings say nothing about agreement and are left out (with
    two raters, so are the items only one of them rated). Returns None when no item is
    left. Deterministic for a ``seed``; raises ValueError for ``confidence`` outside (0, 1)
    or ``resamples < 1``.
    """
    check_confidence(confidence)
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1 (got {resamples})")
    raters = tuple(sorted({name for r in ratings for name in r}))
    method: Method = "cohen" if len(raters) == 2 else "fleiss"
    if method == "cohen":
        usable = [r for r in ratings if raters[0] in r and raters[1] in r]
    else:
        usable = [r for r in ratings if len(r) >= 2]
    if not usable:
        return None
    if method == "cohen":
        a = [r[raters[0]] for r in usable]
        kappa = cohen_kappa(a, [r[raters[1]] for r in usable])
    else:
        kappa = fleiss_kappa([list(r.values()) for r in usable])
    percent = percent_agreement([list(r.values()) for r in usable])
    interval = None
    if kappa is not None:
        n = len(usable)
        index = np.random.default_rng(seed).integers(0, n, size=(resamples, n), dtype=np.intp)
        replicates = _cohen_replicates(usable, raters, index) if method == "cohen" \
            else _fleiss_replicates(usable, index)
        bounds = percentile_bounds(replicates, confidence)
        low, high = bounds if bounds is not None else (kappa, kappa)
        interval = Interval(kappa, low, high, n, confidence)
    return RaterAgreement(method, kappa, interval, percent, len(usable), len(raters))


def paired_statistic_ci(
    a: Sequence[float],
    b: Sequence[float],
    statistic: Callable[[Sequence[float], Sequence[float]], float | None],
    *,
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
) -> Interval | None:
    """``statistic(a, b)`` of paired values (two raters' scores of the same items) with a
    percentile-bootstrap interval over the pairs; None when the statistic is undefined on
    the data (resamples where it is undefined are left out). Deterministic for a ``seed``.
    """
    check_confidence(confidence)
    if len(a) != len(b):
        raise ValueError(f"a and b must have the same length (got {len(a)} and {len(b)})")
    estimate = statistic(a, b) if a else None
    if estimate is None:
        return None
    n = len(a)
    rng = np.random.default_rng(seed)
    replicates = np.full(resamples, np.nan, dtype=np.float64)
    for k in range(resamples):
        drawn = rng.integers(0, n, size=n)
        value = statistic([a[i] for i in drawn], [b[i] for i in drawn])
        if value is not None:
            replicates[k] = value
    bounds = percentile_bounds(replicates, confidence)
    low, high = bounds if bounds is not None else (estimate, estimate)
    return Interval(estimate, low, high, n, confidence)
