"""Agreement between labellers: Cohen's kappa against a textbook value, Fleiss' for more
raters, and the bootstrap interval over items."""

from __future__ import annotations

import pytest

from eunomia.stats import cohen_kappa, fleiss_kappa, rater_agreement


def test_cohen_kappa_textbook_example() -> None:
    # Cohen (1960)-style 2x2 table: yes/yes 20, yes/no 5, no/yes 10, no/no 15 (n = 50).
    a = ["y"] * 25 + ["n"] * 25
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    # p_o = 35/50 = .7; p_e = .5*.6 + .5*.4 = .5; kappa = .2/.5 = .4
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_cohen_kappa_edge_cases() -> None:
    assert cohen_kappa([], []) is None
    assert cohen_kappa(["x", "x"], ["x", "x"]) is None  # one label throughout: undefined
    assert cohen_kappa(["x", "y"], ["x", "y"]) == pytest.approx(1.0)
    assert cohen_kappa(["x", "y"], ["y", "x"]) == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="same length"):
        cohen_kappa(["x"], [])


def test_two_raters_use_cohen_over_the_items_both_rated() -> None:
    items = [{"anna": "met", "bob": "met"}, {"anna": "met", "bob": "not"},
             {"anna": "not", "bob": "not"}, {"anna": "not"}, {"bob": "met"},
             {"anna": "met", "bob": "met"}]
    got = rater_agreement(items, resamples=500)
    assert got is not None and got.method == "cohen" and got.raters == 2
    assert got.items == 4  # the two items rated once say nothing
    assert got.kappa == pytest.approx(cohen_kappa(["met", "met", "not", "met"],
                                                  ["met", "not", "not", "met"]))
    assert got.percent == pytest.approx(0.75)
    assert got.interval is not None and got.interval.n == 4
    assert got.interval.low <= got.kappa <= got.interval.high
    assert got.interval.low >= -1.0 and got.interval.high <= 1.0


def test_more_raters_use_fleiss_and_the_interval_narrows_with_more_items() -> None:
    few = [{"a": "x", "b": "x", "c": "y"}, {"a": "y", "b": "y", "c": "y"},
           {"a": "x", "b": "x", "c": "x"}, {"a": "y", "b": "x"}]
    got = rater_agreement(few, resamples=1000)
    assert got is not None and got.method == "fleiss" and got.raters == 3 and got.items == 4
    assert got.kappa == pytest.approx(fleiss_kappa([list(r.values()) for r in few]))
    many = rater_agreement(few * 10, resamples=1000)
    assert many is not None and many.kappa == pytest.approx(got.kappa)
    assert got.interval is not None and many.interval is not None
    assert (many.interval.high - many.interval.low) < (got.interval.high - got.interval.low)


def test_undefined_and_empty_agreement() -> None:
    assert rater_agreement([]) is None
    assert rater_agreement([{"anna": "x"}, {"bob": "y"}]) is None  # nobody rated twice
    same = rater_agreement([{"a": "x", "b": "x"}, {"a": "x", "b": "x"}])
    assert same is not None and same.kappa is None and same.interval is None
    assert same.percent == pytest.approx(1.0)


def test_the_interval_is_deterministic_for_a_seed() -> None:
    items = [{"a": "x", "b": "y"}, {"a": "x", "b": "x"}, {"a": "y", "b": "y"},
             {"a": "y", "b": "x"}, {"a": "x", "b": "x"}]
    first = rater_agreement(items, seed=3)
    assert first == rater_agreement(items, seed=3)
    with pytest.raises(ValueError):
        rater_agreement(items, confidence=1.0)


def test_a_paired_statistic_with_its_interval() -> None:
    from eunomia.stats import mean_absolute_difference, paired_statistic_ci

    human = [4.0, 1.0, 4.0, 5.0, 3.0, 2.0]
    judge = [4.0, 2.0, 4.0, 4.0, 3.0, 4.0]
    got = paired_statistic_ci(human, judge, mean_absolute_difference, resamples=500)
    assert got is not None and got.n == 6
    assert got.estimate == pytest.approx(4 / 6)
    assert 0.0 <= got.low <= got.estimate <= got.high <= 2.0
    assert paired_statistic_ci([], [], mean_absolute_difference) is None
    with pytest.raises(ValueError, match="same length"):
        paired_statistic_ci([1.0], [], mean_absolute_difference)
