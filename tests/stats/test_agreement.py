"""Tests for inter-rater agreement statistics against hand-computed and textbook values."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import pytest

from eunomia.stats import (
    fleiss_kappa,
    icc,
    krippendorff_alpha,
    mean_absolute_difference,
    percent_agreement,
    quadratic_weighted_kappa,
)

# --- quadratic weighted kappa -------------------------------------------------------------


def test_qwk_hand_computed_example() -> None:
    # O = 1/4 on (1,1), (2,3), (3,3), (1,2); weights (i-j)^2/4.
    # sum(W*O) = 0.125; marginals a = (.5, .25, .25), b = (.25, .25, .5); sum(W*E) = 0.40625.
    kappa = quadratic_weighted_kappa([1, 2, 3, 1], [1, 3, 3, 2], [1, 2, 3])
    assert kappa == pytest.approx(1 - 0.125 / 0.40625) == pytest.approx(9 / 13)


def test_qwk_is_symmetric_and_ignores_trailing_unused_category() -> None:
    a, b = [1, 2, 3, 1, 2], [1, 3, 3, 2, 2]
    base = quadratic_weighted_kappa(a, b, [1, 2, 3])
    assert quadratic_weighted_kappa(b, a, [1, 2, 3]) == pytest.approx(base)
    assert quadratic_weighted_kappa(a, b, [1, 2, 3, 4]) == pytest.approx(base)


def test_qwk_perfect_agreement_and_perfect_disagreement() -> None:
    assert quadratic_weighted_kappa([1, 2, 3], [1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    assert quadratic_weighted_kappa([1, 3], [3, 1], [1, 2, 3]) == pytest.approx(-1.0)


def test_qwk_penalises_far_disagreement_more() -> None:
    near = quadratic_weighted_kappa([1, 2, 3, 4, 5], [1, 2, 3, 4, 4], [1, 2, 3, 4, 5])
    far = quadratic_weighted_kappa([1, 2, 3, 4, 5], [1, 2, 3, 4, 1], [1, 2, 3, 4, 5])
    assert near is not None and far is not None
    assert near > far


def test_qwk_undefined_cases_return_none() -> None:
    assert quadratic_weighted_kappa([], [], [1, 2]) is None
    assert quadratic_weighted_kappa([2, 2, 2], [2, 2, 2], [1, 2, 3]) is None
    assert quadratic_weighted_kappa([1, 1], [1, 1], [1]) is None


def test_qwk_invalid_input_raises() -> None:
    with pytest.raises(ValueError):
        quadratic_weighted_kappa([1, 2], [1], [1, 2])
    with pytest.raises(ValueError):
        quadratic_weighted_kappa([1, 5], [1, 2], [1, 2])
    with pytest.raises(ValueError):
        quadratic_weighted_kappa([1, 2], [1, 2], [1, 2, 2])


# --- mean absolute difference --------------------------------------------------------------


def test_mean_absolute_difference() -> None:
    assert mean_absolute_difference([1.0, 2.0, 3.0], [2.0, 2.0, 5.0]) == pytest.approx(1.0)
    assert mean_absolute_difference([], []) is None
    with pytest.raises(ValueError):
        mean_absolute_difference([1.0], [1.0, 2.0])


# --- Fleiss' kappa ------------------------------------------------------------------------

# Fleiss (1971) / Wikipedia: 10 subjects, 14 raters, 5 categories; counts per category.
_FLEISS_COUNTS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def _expand(counts: Sequence[Sequence[int]]) -> list[list[Hashable]]:
    return [
        [f"c{category}" for category, count in enumerate(row) for _ in range(count)]
        for row in counts
    ]


def test_fleiss_classic_example() -> None:
    ratings = _expand(_FLEISS_COUNTS)
    assert fleiss_kappa(ratings) == pytest.approx(0.210, abs=5e-4)
    assert percent_agreement(ratings) == pytest.approx(0.378, abs=5e-4)


def test_fleiss_hand_computed_small_example() -> None:
    # P_i = 1, 0, 1 → P̄ = 2/3; p_a = p_b = 1/2 → P_e = 1/2; kappa = (2/3 - 1/2) / (1/2).
    ratings = [["a", "a"], ["a", "b"], ["b", "b"]]
    assert fleiss_kappa(ratings) == pytest.approx(1 / 3)
    assert percent_agreement(ratings) == pytest.approx(2 / 3)


def test_fleiss_skips_items_with_fewer_than_two_ratings() -> None:
    ratings = _expand(_FLEISS_COUNTS)
    assert fleiss_kappa([*ratings, ["c0"], []]) == pytest.approx(fleiss_kappa(ratings))
    assert percent_agreement([*ratings, ["c0"]]) == pytest.approx(percent_agreement(ratings))


def test_fleiss_perfect_agreement_over_several_categories_is_one() -> None:
    assert fleiss_kappa([["x", "x", "x"], ["y", "y", "y"], [1, 1, 1]]) == pytest.approx(1.0)


def test_fleiss_single_category_is_undefined_but_percent_agreement_is_one() -> None:
    ratings = [["pass", "pass"], ["pass", "pass", "pass"]]
    assert fleiss_kappa(ratings) is None
    assert percent_agreement(ratings) == 1.0


def test_fleiss_no_usable_items() -> None:
    assert fleiss_kappa([]) is None
    assert fleiss_kappa([["a"], ["b"]]) is None
    assert percent_agreement([]) is None
    assert percent_agreement([["a"]]) is None


# --- Krippendorff's alpha ------------------------------------------------------------------

_N = None
# Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 observers × 12 units,
# given here as units × coders.
_OBSERVERS = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, _N, _N, _N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _N, 3],
    [_N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _N],
]
_PAPER_UNITS: list[list[float | None]] = [list(unit) for unit in zip(*_OBSERVERS, strict=True)]

# Wikipedia's computational example: 3 coders × 15 units.
_WIKI_CODERS = [
    [_N, _N, _N, _N, _N, 3, 4, 1, 2, 1, 1, 3, 3, _N, 3],
    [1, _N, 2, 1, 3, 3, 4, 3, _N, _N, _N, _N, _N, _N, _N],
    [_N, _N, 2, 1, 3, 4, 4, _N, 2, 1, 1, 3, 3, _N, 4],
]
_WIKI_UNITS: list[list[float | None]] = [list(unit) for unit in zip(*_WIKI_CODERS, strict=True)]


@pytest.mark.parametrize(
    ("level", "expected"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)],
)
def test_krippendorff_paper_example(level: str, expected: float) -> None:
    alpha = krippendorff_alpha(_PAPER_UNITS, level)  # type: ignore[arg-type]
    assert alpha == pytest.approx(expected, abs=5e-4)


def test_krippendorff_wikipedia_example() -> None:
    assert krippendorff_alpha(_WIKI_UNITS, "nominal") == pytest.approx(0.691, abs=5e-4)
    assert krippendorff_alpha(_WIKI_UNITS) == pytest.approx(0.811, abs=5e-4)


def test_krippendorff_nan_is_missing() -> None:
    with_nan = [[float("nan") if v is None else v for v in unit] for unit in _PAPER_UNITS]
    assert krippendorff_alpha(with_nan) == pytest.approx(krippendorff_alpha(_PAPER_UNITS))


def test_krippendorff_ordinal_depends_only_on_order() -> None:
    # A monotone relabelling leaves ordinal (and nominal) alpha unchanged, not interval alpha.
    squared = [[None if v is None else v**3 for v in unit] for unit in _PAPER_UNITS]
    assert krippendorff_alpha(squared, "ordinal") == pytest.approx(
        krippendorff_alpha(_PAPER_UNITS, "ordinal")
    )
    assert krippendorff_alpha(squared, "nominal") == pytest.approx(
        krippendorff_alpha(_PAPER_UNITS, "nominal")
    )
    assert krippendorff_alpha(squared, "interval") != pytest.approx(
        krippendorff_alpha(_PAPER_UNITS, "interval")
    )


def test_krippendorff_perfect_agreement_is_one() -> None:
    units: list[list[float | None]] = [[1, 1, None], [2, 2, 2], [5, None, 5]]
    for level in ("nominal", "ordinal", "interval"):
        assert krippendorff_alpha(units, level) == pytest.approx(1.0)


def test_krippendorff_undefined_cases_return_none() -> None:
    assert krippendorff_alpha([]) is None
    assert krippendorff_alpha([[1.0, None], [None, 2.0]]) is None  # nothing pairable
    assert krippendorff_alpha([[3.0, 3.0], [3.0, 3.0, None]]) is None  # one value only


def test_krippendorff_invalid_input_raises() -> None:
    with pytest.raises(ValueError):
        krippendorff_alpha([[1.0, 2.0]], "ratio")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        krippendorff_alpha([[1.0, float("inf")]])


# --- ICC(2,1) ------------------------------------------------------------------------------

# Shrout & Fleiss (1979), Table 2: 6 targets × 4 judges; ICC(2,1) = 0.29.
_SHROUT_FLEISS = [
    [9.0, 2.0, 5.0, 8.0],
    [6.0, 1.0, 3.0, 2.0],
    [8.0, 4.0, 6.0, 8.0],
    [7.0, 1.0, 2.0, 6.0],
    [10.0, 5.0, 6.0, 9.0],
    [6.0, 2.0, 4.0, 7.0],
]


def test_icc_shrout_fleiss_example() -> None:
    assert icc(_SHROUT_FLEISS) == pytest.approx(0.2898, abs=5e-4)


def test_icc_perfect_agreement_is_one() -> None:
    assert icc([[1.0, 1.0, 1.0], [3.0, 3.0, 3.0], [7.0, 7.0, 7.0]]) == pytest.approx(1.0)


def test_icc_absolute_agreement_penalises_rater_offset() -> None:
    shifted = icc([[1.0, 6.0], [2.0, 7.0], [3.0, 8.0], [4.0, 9.0]])
    assert shifted is not None
    assert shifted < 0.5


def test_icc_undefined_cases_return_none() -> None:
    assert icc([]) is None
    assert icc([[1.0, 2.0]]) is None  # one target
    assert icc([[1.0], [2.0]]) is None  # one rater
    assert icc([[4.0, 4.0], [4.0, 4.0]]) is None  # no variance
    assert icc([[0.0, 1.0], [1.0, 0.0]]) is None  # zero denominator


def test_icc_ragged_rows_raise() -> None:
    with pytest.raises(ValueError):
        icc([[1.0, 2.0], [1.0]])
