"""Descriptive helpers: label stability across repeats, label shares, the Pareto front."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from itertools import pairwise


def flip_rate(sequence_of_labels: Sequence[Hashable]) -> float | None:
    """Fraction of consecutive repeats whose label differs from the previous one.

    With ``n`` labels there are ``n - 1`` transitions; returns the share that change label
    (0.0 = perfectly stable, 1.0 = changes every time). None for ``n < 2``.
    """
    n = len(sequence_of_labels)
    if n < 2:
        return None
    flips = sum(1 for previous, current in pairwise(sequence_of_labels) if previous != current)
    return flips / (n - 1)


def distribution(labels: Sequence[Hashable]) -> dict[Hashable, float]:
    """Share of each label, keyed in order of first appearance; ``{}`` for empty input."""
    n = len(labels)
    return {label: count / n for label, count in Counter(labels).items()}


def pareto_front(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indices (ascending) of the points not dominated when minimising cost, maximising quality.

    ``points[i] = (cost, quality)``. A point is dominated when another point is no worse in
    both coordinates and strictly better in at least one; identical points do not dominate
    each other, so duplicates on the front are all returned. O(n log n). Empty input → [].

    Raises ValueError for NaN coordinates.
    """
    for cost, quality in points:
        if math.isnan(cost) or math.isnan(quality):
            raise ValueError("pareto_front coordinates must not be NaN")
    # Cheapest first; at equal cost, best quality first. Every point that can dominate a
    # point comes before it, so one sweep with the best quality seen so far decides.
    order = sorted(range(len(points)), key=lambda i: (points[i][0], -points[i][1]))
    front: list[int] = []
    best_before: float | None = None
    start = 0
    while start < len(order):
        point = points[order[start]]
        stop = start
        while stop < len(order) and points[order[stop]] == point:
            stop += 1
        if best_before is None or best_before < point[1]:
            front.extend(order[start:stop])
        best_before = point[1] if best_before is None else max(best_before, point[1])
        start = stop
    return sorted(front)


def quantile(values: Sequence[float], q: float) -> float | None:
    """The ``q`` quantile (0..1) by linear interpolation between the closest ranks
    (numpy's default method); None for no values."""
    if not values:
        return None
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be within [0, 1], got {q}")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)
