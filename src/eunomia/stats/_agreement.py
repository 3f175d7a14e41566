"""Agreement between raters: kappas, Krippendorff's alpha, ICC and simple differences."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Literal

import numpy as np

from eunomia.stats._validate import as_finite_array, check_same_length


def quadratic_weighted_kappa(
    a: Sequence[int], b: Sequence[int], categories: Sequence[int]
) -> float | None:
    """Cohen's kappa between two raters with quadratic disagreement weights.

    ``categories`` lists the possible ratings in their order; the weight of a disagreement
    between the categories at positions ``i`` and ``j`` is ``(i - j)**2 / (k - 1)**2``.
    ``kappa = 1 - sum(W * O) / sum(W * E)`` with ``O`` the observed joint proportions and
    ``E`` the outer product of the two raters' marginal proportions.

    Returns None when kappa is undefined: no pairs, fewer than two categories, or both
    raters used one and the same category for every item (expected disagreement 0).

    Raises ValueError for mismatched lengths, duplicate categories or a rating that is not
    one of ``categories``.
    """
    check_same_length(a, b, "a and b")
    position = {category: i for i, category in enumerate(categories)}
    if len(position) != len(categories):
        raise ValueError("categories must not contain duplicates")
    k = len(categories)
    n = len(a)
    if n == 0 or k < 2:
        return None
    try:
        rows = np.fromiter((position[x] for x in a), dtype=np.intp, count=n)
        cols = np.fromiter((position[y] for y in b), dtype=np.intp, count=n)
    except KeyError as exc:
        raise ValueError(f"rating {exc.args[0]!r} is not one of the categories") from None
    observed = np.zeros((k, k), dtype=np.float64)
    np.add.at(observed, (rows, cols), 1.0)
    observed /= n
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    grid = np.arange(k, dtype=np.float64)
    weights = (grid[:, None] - grid[None, :]) ** 2 / float((k - 1) ** 2)
    single = np.unique(np.concatenate([rows, cols]))
    if single.size == 1:
        return None
    expected_disagreement = float((weights * expected).sum())
    if expected_disagreement <= 0.0:
        return None
    return 1.0 - float((weights * observed).sum()) / expected_disagreement


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Cohen's kappa between two raters' nominal labels of the same items.

    ``kappa = (p_o - p_e) / (1 - p_e)`` with ``p_o`` the share of items both raters gave the
    same label and ``p_e`` the agreement expected from each rater's own label shares.
    Returns None when kappa is undefined: no items, or both raters used one and the same
    label throughout (``p_e == 1``). Raises ValueError for mismatched lengths.
    """
    check_same_length(a, b, "a and b")
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    shares_a, shares_b = Counter(a), Counter(b)
    expected = math.fsum(shares_a[k] * shares_b[k] for k in shares_a) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def mean_absolute_difference(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Mean of ``|a_i - b_i|`` over paired values; None for empty input.

    Raises ValueError for mismatched lengths or non-finite values.
    """
    check_same_length(a, b, "a and b")
    x = as_finite_array(a, "a")
    y = as_finite_array(b, "b")
    if x.size == 0:
        return None
    return float(np.abs(x - y).mean())


def _pairwise_agreement(counts: Counter[Hashable], m: int) -> float:
    """Share of ordered pairs of distinct ratings of one item that agree."""
    return sum(c * (c - 1) for c in counts.values()) / (m * (m - 1))


def percent_agreement(ratings: Sequence[Sequence[Hashable]]) -> float | None:
    """Mean pairwise agreement across items (Fleiss' observed agreement ``P̄``).

    For each item with at least two ratings, the share of pairs of its ratings that carry
    the same label; averaged over those items. Well defined where Fleiss' kappa is not
    (e.g. every rating identical → 1.0). Items with fewer than two ratings are skipped;
    None when no item has two ratings.
    """
    shares = [_pairwise_agreement(Counter(item), len(item)) for item in ratings if len(item) >= 2]
    if not shares:
        return None
    return math.fsum(shares) / len(shares)


def fleiss_kappa(ratings: Sequence[Sequence[Hashable]]) -> float | None:
    """Fleiss' kappa for items × raters' category labels.

    ``ratings[i]`` holds the labels the raters gave item ``i``. Items with fewer than two
    ratings are skipped. Classically every item has the same number of ratings ``m``; when
    the counts differ, the usual generalisation is used (each item's agreement is computed
    over its own ``m_i``; the category shares pool all ratings), which reduces to Fleiss'
    formula for equal counts. ``kappa = (P̄ - P_e) / (1 - P_e)``.

    Returns None when undefined: no item with two ratings, or a single category used for
    every rating (expected agreement ``P_e == 1``) — in particular perfect agreement on a
    single category returns None; use :func:`percent_agreement` to report that case.
    """
    items = [Counter(item) for item in ratings if len(item) >= 2]
    if not items:
        return None
    totals: Counter[Hashable] = Counter()
    for counts in items:
        totals.update(counts)
    if len(totals) < 2:
        return None
    n_ratings = sum(totals.values())
    observed = math.fsum(
        _pairwise_agreement(counts, sum(counts.values())) for counts in items
    ) / len(items)
    expected = math.fsum((count / n_ratings) ** 2 for count in totals.values())
    return (observed - expected) / (1.0 - expected)


def krippendorff_alpha(
    units: Sequence[Sequence[float | None]],
    level: Literal["nominal", "ordinal", "interval"] = "interval",
) -> float | None:
    """Krippendorff's alpha for units × coders, ``None`` (or NaN) marking a missing value.

    Standard coincidence-matrix formulation: every unit with ``m_u >= 2`` values
    contributes each ordered pair of values from different coders with weight
    ``1 / (m_u - 1)``; ``alpha = 1 - (n - 1) * sum(o_ck * d_ck) / sum(n_c * n_k * d_ck)``
    with ``n`` the number of pairable values and ``n_c`` the marginals. Distances ``d``:

    * ``nominal``: 0 for equal values, 1 otherwise;
    * ``interval``: ``(c - k)**2``;
    * ``ordinal``: ``(sum_{g=c..k} n_g - (n_c + n_k) / 2)**2``, i.e. the squared difference
      of the values' mid-ranks in the pooled pairable values.

    Computed in O(values) without materialising the matrix. Units with fewer than two
    values are not pairable and are ignored. Returns None when alpha is undefined: no
    pairable unit, or all pairable values equal (expected disagreement 0).

    Raises ValueError for an unknown ``level`` or an infinite value.
    """
    if level not in ("nominal", "ordinal", "interval"):
        raise ValueError(f"unknown level of measurement {level!r}")
    pairable: list[list[float]] = []
    for unit in units:
        present = [float(v) for v in unit if v is not None and not math.isnan(v)]
        if any(math.isinf(v) for v in present):
            raise ValueError("krippendorff_alpha values must be finite")
        if len(present) >= 2:
            pairable.append(present)
    if not pairable:
        return None
    pooled = Counter(v for unit in pairable for v in unit)
    if len(pooled) < 2:
        return None
    n = sum(pooled.values())

    if level == "nominal":
        observed = math.fsum(
            (len(unit) ** 2 - sum(c * c for c in Counter(unit).values())) / (len(unit) - 1)
            for unit in pairable
        )
        expected = float(n * n - sum(c * c for c in pooled.values()))
        return 1.0 - (n - 1) * observed / expected

    if level == "ordinal":
        rank: dict[float, float] = {}
        below = 0
        for value in sorted(pooled):
            rank[value] = below + pooled[value] / 2.0
            below += pooled[value]
        pairable = [[rank[v] for v in unit] for unit in pairable]
        pooled = Counter({rank[v]: c for v, c in pooled.items()})

    # Interval distance: sum_{i != j} (v_i - v_j)^2 = 2 m sum (v - mean)^2 within a unit,
    # and sum_{c,k} n_c n_k (c - k)^2 = 2 n sum_c n_c (c - mean)^2 over the pooled values.
    observed = 0.0
    for unit in pairable:
        values = np.asarray(unit, dtype=np.float64)
        m = values.size
        observed += 2.0 * m * float(((values - values.mean()) ** 2).sum()) / (m - 1)
    levels = np.fromiter(pooled.keys(), dtype=np.float64, count=len(pooled))
    counts = np.fromiter(pooled.values(), dtype=np.float64, count=len(pooled))
    grand_mean = float((levels * counts).sum() / n)
    expected = 2.0 * n * float((counts * (levels - grand_mean) ** 2).sum())
    if expected <= 0.0:
        return None
    return 1.0 - (n - 1) * observed / expected


def icc(units: Sequence[Sequence[float]]) -> float | None:
    """ICC(2,1): two-way random effects, absolute agreement, single rating (Shrout & Fleiss).

    ``units[i][j]`` is the score of target ``i`` by rater (or repeat) ``j``; every row must
    have the same number ``k`` of scores. From the two-way ANOVA mean squares (rows
    ``MSR``, columns ``MSC``, residual ``MSE``) with ``n`` targets::

        ICC = (MSR - MSE) / (MSR + (k - 1) * MSE + k * (MSC - MSE) / n)

    Returns None when undefined: fewer than two targets or two raters, all scores equal,
    or a zero denominator. Raises ValueError for ragged rows or non-finite scores.
    """
    n = len(units)
    if n == 0:
        return None
    k = len(units[0])
    if any(len(row) != k for row in units):
        raise ValueError("icc requires the same number of scores for every unit")
    if n < 2 or k < 2:
        return None
    data = np.asarray(units, dtype=np.float64)
    if not np.all(np.isfinite(data)):
        raise ValueError("icc scores must be finite")
    if float(np.ptp(data)) == 0.0:
        return None
    grand = float(data.mean())
    ss_total = float(((data - grand) ** 2).sum())
    ss_rows = k * float(((data.mean(axis=1) - grand) ** 2).sum())
    ss_cols = n * float(((data.mean(axis=0) - grand) ** 2).sum())
    ss_error = max(ss_total - ss_rows - ss_cols, 0.0)
    ms_rows = ss_rows / (n - 1)
    ms_cols = ss_cols / (k - 1)
    ms_error = ss_error / ((n - 1) * (k - 1))
    denominator = ms_rows + (k - 1) * ms_error + k * (ms_cols - ms_error) / n
    if denominator <= 1e-12 * ss_total / (n * k - 1):
        return None
    return (ms_rows - ms_error) / denominator
