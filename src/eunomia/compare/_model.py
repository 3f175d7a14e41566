"""The result of comparing two runs: a pure, frozen data model.

Everything a renderer needs (terminal, HTML report, JSON) is here, already computed;
nothing in this module touches the store. Deltas are always ``B - A``; whether a
positive delta is good depends on the metric (``higher_is_better``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from eunomia.compare._tutor import TutorComparison
from eunomia.stats import DetectionPower, Power, too_few_text

ChangeKind = Literal[
    "improved", "regressed", "unchanged", "newly_failed", "fixed", "newly_unscored",
    "newly_scored", "only_in_a", "only_in_b"
]
"""How one case changed from A to B.

* ``improved`` / ``regressed``: scored on both sides, and the score went up / down (or,
  with equal scores, detection and then full correctness changed);
* ``newly_failed``: scored in A, no scored answer in B and some repeat failed or invalid;
  ``fixed``: the reverse;
* ``newly_unscored``: scored in A, and every repeat in B answered but unscored (nothing
  could score it: no check with ``--judge none``, an unusable judge answer) — not a failure,
  and out of the score test; ``newly_scored``: the reverse;
* ``unchanged``: the same headline result (criteria may still show different answers), or
  no scored answer on either side;
* ``only_in_a`` / ``only_in_b``: the case was run on one side only (not compared).
"""

CHANGE_KINDS: tuple[ChangeKind, ...] = (
    "regressed", "newly_failed", "newly_unscored", "improved", "fixed", "newly_scored",
    "unchanged", "only_in_a", "only_in_b"
)
CHANGE_LABELS: dict[ChangeKind, str] = {
    "regressed": "regressed", "newly_failed": "newly failed",
    "newly_unscored": "newly unscored", "improved": "improved", "fixed": "fixed",
    "newly_scored": "newly scored", "unchanged": "unchanged", "only_in_a": "only in A",
    "only_in_b": "only in B"}
"""How every view names a kind of change (in :data:`CHANGE_KINDS` order)."""

VerdictKind = Literal["regression", "improvement", "no_significant_change"]

JSON_FORMAT = 2
"""Version of the JSON written by :func:`comparison_to_json` (2: the change kinds
``newly_unscored`` and ``newly_scored``, a verdict signal's ``warning``)."""


@dataclass(frozen=True, slots=True)
class CriterionChange:
    """What changed in one criterion of one case (instruction textual ids)."""

    criterion: str
    a_missing: tuple[str, ...]
    b_missing: tuple[str, ...]
    a_extra: tuple[str, ...]
    b_extra: tuple[str, ...]

    @property
    def newly_missing(self) -> tuple[str, ...]:
        return tuple(i for i in self.b_missing if i not in self.a_missing)

    @property
    def no_longer_missing(self) -> tuple[str, ...]:
        return tuple(i for i in self.a_missing if i not in self.b_missing)

    @property
    def newly_extra(self) -> tuple[str, ...]:
        return tuple(i for i in self.b_extra if i not in self.a_extra)

    @property
    def no_longer_extra(self) -> tuple[str, ...]:
        return tuple(i for i in self.a_extra if i not in self.b_extra)

    @property
    def got_worse(self) -> bool:
        return bool(self.newly_missing or self.newly_extra)

    @property
    def got_better(self) -> bool:
        return bool(self.no_longer_missing or self.no_longer_extra)


@dataclass(frozen=True, slots=True)
class CaseChange:
    """One case (all its repeats averaged) on both sides."""

    suite: str
    target: str
    """The target in A (``a_target -> b_target`` when the pairing crosses targets)."""
    case: str
    a_status: str | None
    """``scored``, ``failed``, ``invalid``, ``unscored``, ``partial`` (some repeats
    scored) or ``None`` when the case is not in A."""
    b_status: str | None
    a_score: float | None
    """Mean score over the scored repeats."""
    b_score: float | None
    delta: float | None
    """``b_score - a_score`` when both are known."""
    a_detected: bool | None
    """Detected correctly in more than half of the scored repeats (scenario runs)."""
    b_detected: bool | None
    change: ChangeKind
    criteria_changes: tuple[CriterionChange, ...] = ()
    """Criteria whose missing or extra instructions differ (scenario runs)."""
    a_fully_correct: bool | None = None
    b_fully_correct: bool | None = None
    a_repeats: int = 0
    b_repeats: int = 0
    a_error: str | None = None
    b_error: str | None = None
    """The first error of a side that has no scored repeat."""
    a_cost: float | None = None
    """Mean cost per repeat (when known)."""
    b_cost: float | None = None
    a_latency_s: float | None = None
    """Mean latency per repeat (when known)."""
    b_latency_s: float | None = None
    a_credits_met: bool | None = None
    """Every credit expectation met in most scored repeats (scenario cases with some)."""
    b_credits_met: bool | None = None
    a_awarded: float | None = None
    """Mean points awarded, % of the maximum (scenario runs)."""
    b_awarded: float | None = None
    tutor: float | None = None
    """The tutor's points, % of the maximum (cases with a tutor's grade)."""

    @property
    def label(self) -> str:
        """How the views name its kind of change (``newly failed``...)."""
        return CHANGE_LABELS[self.change]


@dataclass(frozen=True, slots=True)
class MetricDelta:
    """One overall metric on both sides, with its delta and (when it applies) a test."""

    key: str
    label: str
    a: float | None
    b: float | None
    delta: float | None
    low: float | None = None
    """Confidence interval of the delta (paired bootstrap), when computed."""
    high: float | None = None
    p_value: float | None = None
    test: str | None = None
    """How ``p_value`` was computed (``sign-flip test``, ``McNemar ...``)."""
    n: int = 0
    """Pairs (cases) the metric and its test are computed over."""
    higher_is_better: bool | None = True
    """``None`` when neither direction is better (plain counts)."""
    significant: bool = False
    """``p_value < alpha``."""
    regressions: int | None = None
    """For paired yes/no metrics: cases right in A and wrong in B (McNemar's discordant
    pairs), and ``fixes`` the reverse."""
    fixes: int | None = None
    unit: str = ""
    """``%`` (0-100), ``rate`` (0-1), ``$``, ``s``, ``count`` or ``score``."""
    too_few: bool = False
    """Fewer pairs than a test needs (``defaults.MIN_CASES_FOR_INTERVAL``): no interval,
    no p-value, never significant; views say "too few cases to tell"."""

    @property
    def direction(self) -> Literal["better", "worse", "same", "unknown"]:
        if self.delta is None or self.higher_is_better is None:
            return "unknown"
        if abs(self.delta) < 1e-12:
            return "same"
        return "better" if (self.delta > 0) == self.higher_is_better else "worse"

    def figure(self, value: float | None, signed: bool = False) -> str:
        """``value`` (one side, or with ``signed`` a change: ``+1.5 pts``, a count's ``0``)
        in the metric's unit, as every view of a comparison writes it."""
        if value is None:
            return "-"
        sign = "+" if signed else ""
        if self.unit == "rate":
            return f"{100 * value:{sign}.1f}" + (" pts" if signed else "%")
        if self.unit == "count" and signed and not value:
            return "0"
        return (f"{value:{sign}{_DIGITS.get(self.unit, '.3f')}}"
                + (" s" if self.unit == "s" else ""))


_DIGITS = {"%": ".2f", "$": ".4f", "s": ".3f", "count": "g"}
"""How each unit's figures are written (others, e.g. a judge's score: three decimals)."""


@dataclass(frozen=True, slots=True)
class CriterionDelta:
    """One criterion of one suite, over the cases scored on both sides that expect it."""

    suite: str
    criterion: str
    title: str
    n: int
    a_miss_rate: float | None
    b_miss_rate: float | None
    delta: float | None
    """``b_miss_rate - a_miss_rate``: positive is worse."""
    regressions: int
    """Cases where the criterion was right in A and missed in B."""
    fixes: int
    p_value: float | None
    """McNemar on the per-case "criterion correct" pairs."""
    test: str | None
    significant: bool


@dataclass(frozen=True, slots=True)
class OverallDelta:
    """The headline metrics; rates and means are over the cases scored on both sides."""

    paired_cases: int
    """Cases present on both sides."""
    scored_both: int
    """... of which scored on both sides (the pairs of the score and rate tests)."""
    score: MetricDelta
    detection: MetricDelta | None
    fully_correct: MetricDelta | None
    failures: MetricDelta
    cost_total: MetricDelta
    cost_mean: MetricDelta
    latency_mean: MetricDelta
    latency_p50: MetricDelta
    latency_p95: MetricDelta
    credits: MetricDelta | None = None
    """Cases meeting every credit expectation (scenario cases with some): McNemar."""
    tutor_mad: MetricDelta | None = None
    """Mean absolute difference from the tutors' points, % of the maximum (cases with a
    tutor's grade): lower is better; sign-flip test."""
    unscored: MetricDelta | None = None
    """Cases (repeats) answered that nothing could score, when a side has any: apart from
    :attr:`failures` (failed or invalid)."""

    def metrics(self) -> tuple[MetricDelta, ...]:
        """Every metric, in display order (detection and full correctness only for scenarios;
        credit expectations and the difference from the tutors where cases have them;
        unscored cases only when a side has some)."""
        rows = [self.score, self.detection, self.fully_correct, self.credits, self.tutor_mad,
                self.failures, self.unscored, self.cost_total, self.cost_mean,
                self.latency_mean, self.latency_p50, self.latency_p95]
        return tuple(m for m in rows if m is not None)


@dataclass(frozen=True, slots=True)
class Signal:
    """One reason for the verdict."""

    kind: Literal["score", "detection", "new_failures", "new_unscored"]
    regression: bool
    """``True``: B is worse; ``False``: B is better (or, with :attr:`warning`, neither)."""
    message: str
    warning: bool = False
    """Neither worse nor better: what the verdict could not test (cases scored in A that
    nothing could score in B); said with the verdict, never a regression."""


@dataclass(frozen=True, slots=True)
class Verdict:
    kind: VerdictKind
    signals: tuple[Signal, ...]
    summary: str
    """One line for people."""

    @property
    def regression(self) -> bool:
        return self.kind == "regression"

    @property
    def warned(self) -> bool:
        """Some signal is a warning (:attr:`Signal.warning`), whatever the verdict."""
        return any(s.warning for s in self.signals)


@dataclass(frozen=True, slots=True)
class ComparisonPower:
    """The minimum detectable effects of a comparison, at ``score.power`` and its alpha."""

    score: Power
    """On the score (its unit): from the spread of the paired per-case differences."""
    detection: DetectionPower | None
    """McNemar on detection (scenario runs)."""

    def lines(self, unit: str = "") -> list[str]:
        """The figures in words, for every view."""
        s = self.score
        pts = " points" if unit == "%" else ""
        out: list[str] = []
        if s.too_few:
            out.append(f"score: {too_few_text(s.n)}")
        elif s.mde is not None:
            out.append(f"score: with {s.n} cases this comparison detects a true change of "
                       f"{s.mde:.2f}{pts} or more {100 * s.power:.0f}% of the time "
                       f"(alpha {s.alpha:g}; sd {s.sd:.2f} from {s.basis})")
        if s.effect is not None and s.needed is not None:
            out.append(f"score: detecting {s.effect:g}{pts} with {100 * s.power:.0f}% power "
                       f"needs {s.needed} cases (this one has {s.n})")
        d = self.detection
        if d is not None:
            if d.too_few:
                out.append(f"detection: {too_few_text(d.n)}")
            else:
                mde = ("no detectable difference can be planned from these runs (no case "
                       "changed its detection)" if d.mde is None else
                       f"a change of {100 * d.mde:.0f} points in the detection rate or more is "
                       f"detected {100 * d.power:.0f}% of the time")
                out.append(f"detection (McNemar): {mde}; at least {d.min_changed} of the "
                           f"{d.n} cases must change one way for p < {d.alpha:g}")
            if d.effect is not None and d.needed is not None:
                out.append(f"detection: a change of {100 * d.effect:.0f} points needs "
                           f"{d.needed} cases")
        return out


@dataclass(frozen=True, slots=True)
class RunRef:
    name: str
    store: str
    kind: str
    status: str
    created: str
    targets: tuple[str, ...]
    """The targets compared on this side."""


@dataclass(frozen=True, slots=True)
class Comparison:
    a: RunRef
    b: RunRef
    kind: str
    """``scenarios`` or ``tasks``."""
    matching: str
    """How the cases were paired, in words."""
    alpha: float
    max_new_failures: int
    overall: OverallDelta
    criteria: tuple[CriterionDelta, ...]
    """Sorted by delta, the worst first."""
    cases: tuple[CaseChange, ...]
    verdict: Verdict
    warnings: tuple[str, ...] = field(default=())
    confidence: float = 0.95
    resamples: int = 10000
    power: ComparisonPower | None = None
    """What this comparison could have detected (its size and spread)."""
    tutor: TutorComparison | None = None
    """Agreement with the tutors on each side and its change (cases with a tutor's grade
    scored on both sides)."""

    def cases_of(self, *kinds: ChangeKind) -> tuple[CaseChange, ...]:
        return tuple(c for c in self.cases if c.change in kinds)

    def counts(self, cases: Iterable[CaseChange] | None = None) -> dict[ChangeKind, int]:
        """Cases (all, or ``cases``) per kind of change, every kind present (possibly 0)."""
        out: dict[ChangeKind, int] = dict.fromkeys(CHANGE_KINDS, 0)
        for c in self.cases if cases is None else cases:
            out[c.change] += 1
        return out

    def cases_text(self) -> str:
        """``3 newly unscored, 11 unchanged``: the kinds of change that occur."""
        return ", ".join(f"{n} {CHANGE_LABELS[k]}" for k, n in self.counts().items() if n)


def _case_json(c: CaseChange) -> dict[str, Any]:
    data = asdict(c)
    data["criteria_changes"] = [
        {**asdict(cc), "newly_missing": list(cc.newly_missing),
         "no_longer_missing": list(cc.no_longer_missing), "newly_extra": list(cc.newly_extra),
         "no_longer_extra": list(cc.no_longer_extra)}
        for cc in c.criteria_changes
    ]
    return data


def _metric_json(m: MetricDelta) -> dict[str, Any]:
    return {**asdict(m), "direction": m.direction}


def comparison_to_json(c: Comparison) -> dict[str, Any]:
    """Plain JSON-ready data (``eunomia compare --json``)."""
    overall = c.overall
    return {
        "format": JSON_FORMAT,
        "a": asdict(c.a),
        "b": asdict(c.b),
        "kind": c.kind,
        "matching": c.matching,
        "alpha": c.alpha,
        "confidence": c.confidence,
        "resamples": c.resamples,
        "max_new_failures": c.max_new_failures,
        "verdict": {"kind": c.verdict.kind, "regression": c.verdict.regression,
                    "summary": c.verdict.summary,
                    "warning": c.verdict.warned,
                    "signals": [asdict(s) for s in c.verdict.signals]},
        "warnings": list(c.warnings),
        "counts": dict(c.counts()),
        "overall": {
            "paired_cases": overall.paired_cases,
            "scored_both": overall.scored_both,
            "metrics": {m.key: _metric_json(m) for m in overall.metrics()},
        },
        "power": None if c.power is None else {
            "score": {**asdict(c.power.score), "too_few": c.power.score.too_few},
            "detection": None if c.power.detection is None else {
                **asdict(c.power.detection), "too_few": c.power.detection.too_few},
            "summary": c.power.lines(c.overall.score.unit)},
        "criteria": [asdict(d) for d in c.criteria],
        "tutor_agreement": None if c.tutor is None else c.tutor.to_json(),
        "cases": [_case_json(x) for x in c.cases],
    }
