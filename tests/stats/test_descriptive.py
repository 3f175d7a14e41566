"""Tests for flip rate, label distribution and the Pareto front."""

from __future__ import annotations

import itertools
import random

import pytest

from eunomia.stats import distribution, flip_rate, pareto_front


def test_flip_rate() -> None:
    assert flip_rate(["a", "a", "b", "b", "a"]) == pytest.approx(2 / 4)
    assert flip_rate([1, 1, 1]) == 0.0
    assert flip_rate([True, False, True]) == 1.0
    assert flip_rate(["a"]) is None
    assert flip_rate([]) is None


def test_distribution() -> None:
    shares = distribution(["pass", "fail", "pass", "pass"])
    assert shares == {"pass": 0.75, "fail": 0.25}
    assert list(shares) == ["pass", "fail"]
    assert distribution([]) == {}


def test_pareto_front_with_ties() -> None:
    points = [(1.0, 0.5), (2.0, 0.7), (2.0, 0.6), (3.0, 0.7), (1.0, 0.5), (0.5, 0.2)]
    # (2, .6) is beaten by (2, .7); (3, .7) costs more for the same quality; the duplicate
    # (1, .5) points are both kept.
    assert pareto_front(points) == [0, 1, 4, 5]


def test_pareto_front_edge_cases() -> None:
    assert pareto_front([]) == []
    assert pareto_front([(1.0, 1.0)]) == [0]
    assert pareto_front([(1.0, 1.0), (1.0, 1.0)]) == [0, 1]
    assert pareto_front([(2.0, 0.1), (1.0, 0.9)]) == [1]
    with pytest.raises(ValueError):
        pareto_front([(float("nan"), 1.0)])


def _brute_force(points: list[tuple[float, float]]) -> list[int]:
    def dominates(p: tuple[float, float], q: tuple[float, float]) -> bool:
        return p[0] <= q[0] and p[1] >= q[1] and p != q

    return [i for i, q in enumerate(points) if not any(dominates(p, q) for p in points)]


def test_pareto_front_matches_brute_force() -> None:
    rng = random.Random(0)
    for size in itertools.chain(range(1, 10), [40, 80]):
        for _ in range(20):
            points = [(float(rng.randint(0, 5)), float(rng.randint(0, 5))) for _ in range(size)]
            assert pareto_front(points) == _brute_force(points)
