"""The headline deltas of paired cases (B - A): score, detection, full correctness,
failures, cost, latency, credit expectations, distance from the tutors, each with its
interval and test (:func:`overall_delta`, :func:`paired_overall`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import fmean

from eunomia import defaults
from eunomia.compare._facts import Agg
from eunomia.compare._model import MetricDelta, OverallDelta
from eunomia.stats import enough, mcnemar, paired_bootstrap, quantile, sign_flip_p

SIGN_FLIP = "sign-flip test"
"""How a mean delta's p-value is computed (its interval: a paired bootstrap)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """The tests' level, the intervals' confidence, the resamples and their seed."""

    alpha: float
    confidence: float
    resamples: int
    seed: int


def _mean(values: Sequence[float]) -> float | None:
    return fmean(values) if values else None


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def _bootstrapped(key: str, label: str, a: list[float], b: list[float], s: Settings, *,
                  unit: str, higher_is_better: bool, with_p: bool = True) -> MetricDelta:
    """The mean delta with its paired-bootstrap interval and, with ``with_p``, the sign-flip
    test's p-value (exact level at any size, where the bootstrap's p runs ~8% at 14 cases
    for a nominal 5%: docs/statistics.md)."""
    ma, mb = _mean(a), _mean(b)
    if not enough(len(a)):  # below the minimum: the delta, no interval, no test
        return MetricDelta(key, label, ma, mb, _diff(ma, mb), n=len(a), unit=unit,
                           higher_is_better=higher_is_better, too_few=True,
                           test=SIGN_FLIP if with_p else None)
    pd = paired_bootstrap(a, b, confidence=s.confidence, resamples=s.resamples, seed=s.seed)
    if pd is None:
        return MetricDelta(key, label, ma, mb, _diff(ma, mb), n=0, unit=unit,
                           higher_is_better=higher_is_better)
    p = sign_flip_p(a, b, resamples=s.resamples, seed=s.seed) if with_p else None
    return MetricDelta(key, label, ma, mb, pd.mean_delta, pd.low, pd.high, p,
                       SIGN_FLIP if with_p else None, pd.n, higher_is_better,
                       p is not None and p < s.alpha, unit=unit)


def _binary(key: str, label: str, pairs: list[tuple[Agg, Agg]],
            rate: Callable[[Agg], float | None], flag: Callable[[Agg], bool | None],
            s: Settings) -> MetricDelta:
    """A yes/no metric: rates with a bootstrap CI of their delta, McNemar's p."""
    a_rates: list[float] = []
    b_rates: list[float] = []
    regressions = fixes = 0
    for a, b in pairs:
        ra, rb, fa, fb = rate(a), rate(b), flag(a), flag(b)
        if ra is None or rb is None:
            continue
        a_rates.append(ra)
        b_rates.append(rb)
        regressions += bool(fa and not fb)
        fixes += bool(fb and not fa)
    base = _bootstrapped(key, label, a_rates, b_rates, s, unit="rate", higher_is_better=True,
                         with_p=False)
    test = mcnemar(regressions, fixes)
    if base.too_few:
        return MetricDelta(key, label, base.a, base.b, base.delta, n=base.n, test=test.method,
                           regressions=regressions, fixes=fixes, unit="rate", too_few=True)
    return MetricDelta(key, label, base.a, base.b, base.delta, base.low, base.high,
                       test.p_value, test.method, base.n, True,
                       base.n > 0 and test.p_value < s.alpha, regressions, fixes, "rate")


def overall_delta(score_label: tuple[str, str], detects: bool, aggs: list[tuple[Agg, Agg]],
             s: Settings) -> OverallDelta:
    both = [(a, b) for a, b in aggs if a.ok and b.ok]
    scored = [(a.score, b.score) for a, b in both if a.score is not None and b.score is not None]
    label, unit = score_label
    score = _bootstrapped("score", label, [x for x, _ in scored], [y for _, y in scored], s,
                          unit=unit, higher_is_better=True)
    detection = fully = None
    if detects:
        detection = _binary("detection", "Detected correctly", both, lambda x: x.detection,
                            lambda x: x.detected, s)
        fully = _binary("fully_correct", "Fully correct", both, lambda x: x.fully_correct,
                        lambda x: x.fully, s)
    # failed (or invalid): no scored repeat, and not only unscored ones
    newly_failed = sum(a.ok and not b.ok and b.unscored_repeats < b.repeats for a, b in aggs)
    fixed = sum(b.ok and not a.ok and a.unscored_repeats < a.repeats for a, b in aggs)
    fa = sum(a.failed_repeats - a.unscored_repeats for a, _ in aggs)
    fb = sum(b.failed_repeats - b.unscored_repeats for _, b in aggs)
    test = mcnemar(newly_failed, fixed)
    few = not enough(len(aggs))
    failures = MetricDelta("failures", "Failed cases", fa, fb, fb - fa,
                           p_value=None if few else test.p_value, test=test.method,
                           n=len(aggs), higher_is_better=False,
                           significant=not few and test.p_value < s.alpha,
                           regressions=newly_failed, fixes=fixed, unit="count", too_few=few)
    ua, ub = sum(a.unscored_repeats for a, _ in aggs), sum(b.unscored_repeats for _, b in aggs)
    unscored = MetricDelta("unscored", "Unscored cases", ua, ub, ub - ua, n=len(aggs),
                           higher_is_better=None, unit="count") if ua or ub else None
    costs_a = [c for a, _ in aggs for c in a.costs]
    costs_b = [c for _, b in aggs for c in b.costs]
    ta, tb = (sum(costs_a) if costs_a else None), (sum(costs_b) if costs_b else None)
    cost_total = MetricDelta("cost_total", "Total cost", ta, tb, _diff(ta, tb), n=len(aggs),
                             higher_is_better=False, unit="$")
    cost_pairs = [(a.cost, b.cost) for a, b in aggs if a.cost is not None and b.cost is not None]
    cost_mean = _bootstrapped("cost_mean", "Mean cost per case", [x for x, _ in cost_pairs],
                              [y for _, y in cost_pairs], s, unit="$", higher_is_better=False)
    lat_pairs = [(a.latency, b.latency) for a, b in aggs
                 if a.latency is not None and b.latency is not None]
    latency_mean = _bootstrapped("latency_mean", "Mean latency", [x for x, _ in lat_pairs],
                                 [y for _, y in lat_pairs], s, unit="s", higher_is_better=False)
    lat_a = [v for a, _ in aggs for v in a.latencies]
    lat_b = [v for _, b in aggs for v in b.latencies]
    pcts = []
    for key, label, q in (("latency_p50", "Latency p50", 0.5),
                          ("latency_p95", "Latency p95", 0.95)):
        pa, pb = quantile(lat_a, q), quantile(lat_b, q)
        pcts.append(MetricDelta(key, label, pa, pb, _diff(pa, pb), n=len(aggs),
                                higher_is_better=False, unit="s"))
    checked = [(a, b) for a, b in both if a.credits_met is not None and b.credits_met is not None]
    credits = _binary("credits", "Credit expectations met", checked, lambda x: x.credits_met,
                      lambda x: x.credits_ok, s) if checked else None
    graded = [(abs(a.awarded - a.tutor), abs(b.awarded - a.tutor)) for a, b in both
              if a.tutor is not None and a.awarded is not None and b.awarded is not None]
    tutor_mad = _bootstrapped(
        "tutor_mad", "Mean absolute difference from tutors (% of max)",
        [x for x, _ in graded], [y for _, y in graded], s, unit="%",
        higher_is_better=False) if graded else None
    return OverallDelta(len(aggs), len(both), score, detection, fully, failures, cost_total,
                        cost_mean, latency_mean, pcts[0], pcts[1], credits, tutor_mad,
                        unscored=unscored)


def paired_overall(pairs: list[tuple[Agg, Agg]], score: tuple[str, str], detects: bool, *,
                   alpha: float = defaults.COMPARE_ALPHA,
                   confidence: float = defaults.COMPARE_CONFIDENCE,
                   resamples: int = defaults.COMPARE_RESAMPLES,
                   seed: int = defaults.COMPARE_SEED) -> OverallDelta:
    """The headline deltas (B - A) of paired cases, with the tests of ``eunomia compare``;
    ``score``: the score's label and unit; ``detects``: test detection and full correctness."""
    return overall_delta(score, detects, pairs, Settings(alpha, confidence, resamples, seed))
