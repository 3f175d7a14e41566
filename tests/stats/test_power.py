"""Power figures against textbook values, the case-level (cluster) bootstrap, and the
minimum number of cases."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

from eunomia import defaults
from eunomia.stats import (
    Interval,
    bootstrap_mean_ci,
    ci_text,
    cluster_mean_ci,
    detection_power,
    enough,
    exact_min_discordant,
    interval_json,
    mcnemar,
    mcnemar_cases_needed,
    mcnemar_mde,
    mcnemar_power,
    paired_bootstrap,
    paired_cases_needed,
    paired_mde,
    score_power,
    sign_flip_p,
)

Z975, Z80 = 1.959964, 0.841621  # standard normal quantiles (tables)


def test_paired_mde_is_the_textbook_formula() -> None:
    # MDE = (z_{1-a/2} + z_{1-b}) * sd / sqrt(n)
    assert paired_mde(1.0, 100) == pytest.approx((Z975 + Z80) / 10, rel=1e-5)
    assert paired_mde(26.74, 14) == pytest.approx((Z975 + Z80) * 26.74 / math.sqrt(14),
                                                  rel=1e-5)
    # a smaller alpha or a higher power needs a larger effect
    assert paired_mde(1.0, 100, alpha=0.01) > paired_mde(1.0, 100)
    assert paired_mde(1.0, 100, power=0.9) > paired_mde(1.0, 100)


def test_cases_needed_inverts_the_mde() -> None:
    # Cohen's d = 0.5 at alpha .05, power .8: (2.8016 / 0.5)^2 = 31.4 -> 32 pairs (normal
    # approximation; the t-test's exact answer is 34)
    assert paired_cases_needed(1.0, 0.5) == 32
    for sd, effect in ((10.0, 5.0), (26.74, 5.0), (3.0, 0.7)):
        n = paired_cases_needed(sd, effect)
        assert paired_mde(sd, n) <= effect < paired_mde(sd, n - 1)


def test_mcnemar_sample_size_is_connors() -> None:
    # Connor (1987): n = (z_a sqrt(psi) + z_b sqrt(psi - delta^2))^2 / delta^2
    psi, delta = 0.3, 0.1
    n = (Z975 * math.sqrt(psi) + Z80 * math.sqrt(psi - delta ** 2)) ** 2 / delta ** 2
    assert mcnemar_cases_needed(psi, delta) == math.ceil(n) == 234
    assert mcnemar_power(234, psi, delta) == pytest.approx(0.80, abs=0.005)
    assert mcnemar_power(100, psi, delta) < 0.8 < mcnemar_power(400, psi, delta)
    assert mcnemar_power(100, psi, 0.0) == 0.05  # no true difference: the test's alpha


def test_mcnemar_mde_and_the_exact_floor() -> None:
    assert exact_min_discordant(0.05) == 6  # 2 * 0.5**6 = 0.031 < 0.05 <= 2 * 0.5**5
    assert mcnemar(0, 6).p_value < 0.05 <= mcnemar(0, 5).p_value
    mde = mcnemar_mde(234, 0.3)
    assert mde is not None and mde == pytest.approx(0.1, abs=0.002)
    assert mcnemar_mde(14, 0.0) is None  # nothing discordant: nothing to plan from
    small = mcnemar_mde(14, 0.9)
    assert small is not None and small >= 6 / 14


def test_detection_power_reads_the_discordant_pairs() -> None:
    found = detection_power(14, 0, 12, effect=0.05)
    assert found.discordant == 12 and found.min_changed == 6
    assert found.mde is not None and 0.5 < found.mde < 1
    assert found.needed is not None and found.needed > 2000
    assert detection_power(5, 0, 5).too_few and detection_power(5, 0, 5).mde is None


def test_score_power_uses_the_paired_differences_then_plans_from_the_scores() -> None:
    a = [100.0, 80.0, 75.0, 100.0, 60.0, 90.0, 100.0, 75.0, 85.0, 70.0, 100.0, 95.0]
    b = [x + d for x, d in zip(a, [0, 5, -5, 0, 10, 0, 0, 5, -5, 0, 0, 5], strict=True)]
    p = score_power(a, b, effect=5)
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    sd = math.sqrt(sum((d - sum(diffs) / 12) ** 2 for d in diffs) / 11)
    assert p.sd == pytest.approx(sd) and p.mde == pytest.approx(paired_mde(sd, 12))
    assert p.needed == paired_cases_needed(sd, 5)
    same = score_power(a, a)  # an A/A of identical answers: plan from the scores' spread
    assert same.sd is not None and same.sd > 0 and "A's per-case scores" in same.basis
    few = score_power(a[:4], b[:4])
    assert few.too_few and few.mde is None


def test_the_minimum_is_one_number_in_one_place() -> None:
    assert defaults.MIN_CASES_FOR_INTERVAL == 10
    assert not enough(9) and enough(10)
    interval = bootstrap_mean_ci([1.0, 2.0])
    assert interval is not None and interval.too_few
    big = bootstrap_mean_ci([float(i % 3) for i in range(12)])
    assert big is not None and not big.too_few


def test_repeats_that_answer_alike_do_not_narrow_the_interval() -> None:
    scores = [100.0, 50.0, 100.0, 75.0, 100.0, 25.0, 100.0, 100.0, 50.0, 100.0, 75.0, 100.0,
              100.0, 50.0]
    once = cluster_mean_ci(scores, list(range(14)))
    twice = cluster_mean_ci(scores * 2, list(range(14)) * 2)
    naive = bootstrap_mean_ci(scores * 2)
    assert once is not None and twice is not None and naive is not None
    assert (twice.low, twice.high, twice.n) == (once.low, once.high, 14)
    assert once == bootstrap_mean_ci(scores)  # no repeats: the plain bootstrap's figures
    assert naive.high - naive.low < once.high - once.low  # what repeats-as-cases would say


def test_unequal_clusters_weigh_by_their_size() -> None:
    values = [1.0, 1.0, 1.0, 0.0] + [float(i % 2) for i in range(10)]
    clusters = ["a", "a", "a", "b"] + [f"c{i}" for i in range(10)]
    found = cluster_mean_ci(values, clusters)
    assert found is not None and found.n == 12
    assert found.estimate == pytest.approx(sum(values) / len(values))


def test_the_sign_flip_test_is_exact_with_few_cases() -> None:
    # all n differences one way: the exact two-sided p is 2 * 0.5**n
    assert sign_flip_p([0.0] * 8, [1.0] * 8) == pytest.approx(2 * 0.5**8)
    assert sign_flip_p([0.0] * 5, [1.0] * 5) == pytest.approx(2 * 0.5**5)  # never < 0.05
    # zero differences are left out; none at all: no evidence
    assert sign_flip_p([1.0, 2.0, 3.0], [1.0, 2.0, 4.0]) == 1.0
    assert sign_flip_p([1.0, 2.0], [1.0, 2.0]) == 1.0
    # by hand: differences +1, +2, -3: |sum| 0; every pattern reaches it
    assert sign_flip_p([0.0, 0.0, 0.0], [1.0, 2.0, -3.0]) == 1.0
    # +1, +1, +3: patterns with |sum| >= 5 are (+,+,+) and (-,-,-): 2 of 8
    assert sign_flip_p([0.0, 0.0, 0.0], [1.0, 1.0, 3.0]) == pytest.approx(0.25)


def test_the_sampled_and_the_normal_tiers_agree_with_the_formula() -> None:
    rng = np.random.default_rng(3)
    a = rng.normal(size=40).tolist()
    b = [x + d for x, d in zip(a, rng.normal(0.4, 1.0, size=40), strict=True)]
    sampled = sign_flip_p(a, b, resamples=20000)
    deltas = np.array(b) - np.array(a)
    normal = 2 * (1 - NormalDist().cdf(abs(deltas.sum()) / math.sqrt(float(deltas @ deltas))))
    assert sampled == pytest.approx(normal, abs=0.01)
    big = rng.normal(0.05, 1.0, size=3000).tolist()
    assert sign_flip_p([0.0] * 3000, big) == pytest.approx(
        2 * (1 - NormalDist().cdf(abs(sum(big)) / math.sqrt(sum(x * x for x in big)))))
    assert sign_flip_p(a, b, seed=1) == sign_flip_p(a, b, seed=1)


def test_the_sign_flip_test_holds_its_level_where_the_bootstrap_does_not() -> None:
    rng = np.random.default_rng(11)
    trials, n = 300, 14
    flip = boot = 0
    for _ in range(trials):
        a, b = rng.normal(size=n).tolist(), rng.normal(size=n).tolist()
        flip += sign_flip_p(a, b) < 0.05
        found = paired_bootstrap(a, b, resamples=1000, seed=int(rng.integers(1 << 30)))
        assert found is not None
        boot += found.p_value < 0.05
    assert flip / trials <= 0.07  # about 0.05
    assert boot > flip  # the bootstrap's p: about 0.08 at 14 cases


def test_an_interval_over_too_few_cases_is_said_so_in_a_cell_and_in_json() -> None:
    few = Interval(0.67, 0.67, 0.67, 3, 0.95)  # before: "0.67, 95% CI 0.67-0.67"
    enough = Interval(0.5, 0.25, 0.75, 10, 0.95)
    assert ci_text(few) == "0.67 (too few cases to tell, n=3)"
    assert ci_text(enough) == "0.50 [0.25, 0.75]"
    assert ci_text(Interval(0.4, 0.4, 0.4, 12, 0.95)) == "0.40"
    assert ci_text(enough, 0, scale=100, unit="%") == "50% [25%, 75%]"
    assert ci_text(None) == "-"
    assert interval_json(few) == {"estimate": 0.67, "low": None, "high": None, "n": 3,
                                  "confidence": 0.95, "too_few": True}
    got = interval_json(enough)
    assert got is not None and got["low"] == 0.25 and got["too_few"] is False
