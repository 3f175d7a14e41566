"""Aggregation of a task run: per kind, category, sub-category, difficulty and suite, the flat
and difficulty-weighted mean judge score with bootstrap confidence intervals; judge
self-agreement over ``--judge-repeats`` and judge–human agreement; speed statistics; tokens,
cost and latency.

Statistical units are cases: the scores of a case's repeats are averaged first, so a case
run five times does not count five times in an interval.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import fmean, stdev

from eunomia import defaults
from eunomia.judge import SCORES
from eunomia.pricing import PriceTable, TokenCount
from eunomia.stats import (
    Interval,
    LinearFit,
    bootstrap_mean_ci,
    distribution,
    flip_rate,
    icc,
    krippendorff_alpha,
    linear_fit,
    mean_absolute_difference,
    quadratic_weighted_kappa,
    quantile,
)
from eunomia.tasks._model import LoadedCase
from eunomia.tasks._result import CaseResult, CaseStatus

GROUPINGS = ("kind", "category", "sub_category", "difficulty", "suite")


@dataclass(slots=True)
class CaseRecord:
    """One stored case (one repeat), rebuilt for summaries and exports."""

    suite: str
    case_name: str
    repeat: int
    status: CaseStatus
    case: LoadedCase | None
    result: CaseResult | None
    error: str | None = None
    cost: float | None = None
    cached: bool = False
    attempts: int = 0

    @property
    def score(self) -> float | None:
        return self.result.score if self.result is not None and self.status == "scored" \
            else None


@dataclass(frozen=True, slots=True)
class GroupStat:
    grouping: str
    """``overall``, ``kind``, ``category``, ``sub_category``, ``difficulty`` or ``suite``."""
    value: str
    cases: int
    scored: int
    unscored: int
    failed: int
    mean: Interval | None
    weighted: Interval | None
    checks_passed: int
    checks_total: int


@dataclass(frozen=True, slots=True)
class Agreement:
    judge_repeats: int
    answers: int
    """Answers scored at least twice (the units of the self-agreement)."""
    alpha: float | None
    icc: float | None
    human_cases: int
    qwk: float | None
    mad: float | None


@dataclass(frozen=True, slots=True)
class RepeatStat:
    """How one case's score moved across the candidate's ``--repeat`` runs."""

    suite: str
    case_name: str
    scores: tuple[float, ...]
    """Judge score of each scored repeat, in repeat order."""
    failed_repeats: int
    mean: float | None
    stdev: float | None
    low: float | None
    high: float | None
    flip_rate: float | None
    """Share of consecutive repeats whose (rounded) score changed."""
    distribution: dict[int, float]
    """Rounded score → share of the scored repeats."""


@dataclass(frozen=True, slots=True)
class RepeatConsistency:
    """Agreement of the candidate with itself across ``--repeat`` (cases × repeats)."""

    repeats: int
    cases: list[RepeatStat]
    alpha: float | None
    """Krippendorff's alpha (interval), repeats as coders; missing repeats allowed."""
    icc: float | None
    """ICC(2,1) over the cases scored in every repeat."""

    @property
    def unstable(self) -> list[RepeatStat]:
        """Cases whose score changed across repeats, most spread first."""
        return sorted((c for c in self.cases if c.stdev), key=lambda c: -(c.stdev or 0.0))


def repeat_consistency(records: Sequence[CaseRecord]) -> RepeatConsistency | None:
    """None when the run has a single repeat."""
    repeats = 1 + max((r.repeat for r in records), default=0)
    if repeats < 2:
        return None
    per_case: dict[tuple[str, str], dict[int, float | None]] = defaultdict(dict)
    for r in records:
        per_case[(r.suite, r.case_name)][r.repeat] = r.score
    cases: list[RepeatStat] = []
    units: list[list[float | None]] = []
    for (suite, name), by_repeat in sorted(per_case.items()):
        row = [by_repeat.get(k) for k in range(repeats)]
        units.append(row)
        scores = tuple(x for x in row if x is not None)
        labels = [round(x) for x in scores]
        cases.append(RepeatStat(
            suite=suite, case_name=name, scores=scores,
            failed_repeats=repeats - len(scores),
            mean=fmean(scores) if scores else None,
            stdev=stdev(scores) if len(scores) > 1 else None,
            low=min(scores) if scores else None, high=max(scores) if scores else None,
            flip_rate=flip_rate(labels),
            distribution={k: v for k, v in distribution(labels).items() if isinstance(k, int)},
        ))
    complete = [[float(x) for x in u if x is not None] for u in units
                if all(x is not None for x in u)]
    return RepeatConsistency(
        repeats=repeats, cases=cases,
        alpha=krippendorff_alpha(units, "interval"),
        icc=icc(complete) if len(complete) >= 2 else None,
    )


@dataclass(frozen=True, slots=True)
class SpeedRow:
    suite: str
    case_name: str
    repeat: int
    expected_words: int | None
    output_words: int
    output_tokens: int
    latency_s: float | None
    time_to_first_token_s: float | None
    words_per_second: float | None
    length_adherence: float | None


@dataclass(slots=True)
class TasksSummary:
    candidate: str
    judge: str
    weights: dict[str, float]
    total: int = 0
    scored: int = 0
    unscored: int = 0
    failed: int = 0
    invalid: int = 0
    overall: GroupStat | None = None
    groups: list[GroupStat] = field(default_factory=list)
    agreement: Agreement | None = None
    repeat_consistency: RepeatConsistency | None = None
    """With ``--repeat`` > 1: how the candidate's scores moved across repeats."""
    speed: list[SpeedRow] = field(default_factory=list)
    speed_fit: LinearFit | None = None
    """Latency (s) against output words."""
    candidate_tokens: tuple[int, int] = (0, 0)
    judge_tokens: tuple[int, int] = (0, 0)
    cost: float | None = None
    unknown_models: list[str] = field(default_factory=list)
    latency_mean_s: float | None = None
    latency_p95_s: float | None = None
    cache_hits: int = 0
    failures: list[tuple[str, str, int, str, str]] = field(default_factory=list)
    """(suite, case, repeat, status, reason) of every case not scored."""



def _category(case: LoadedCase) -> str:
    """The category, spelled as its kind's title when it names one (case-insensitive)."""
    from eunomia.tasks.kinds import kind_for_category

    kind = kind_for_category(case.category)
    return kind.title if kind is not None else case.category


def _group_keys(rec: CaseRecord) -> dict[str, list[str]]:
    case = rec.case
    if case is None:
        return {"suite": [rec.suite]}
    return {
        "kind": [case.kind],
        "category": [_category(case)],
        "sub_category": case.case.sub_categories or ["(none)"],
        "difficulty": [case.difficulty],
        "suite": [rec.suite],
    }


def _stat(grouping: str, value: str, records: Sequence[CaseRecord],
          weights: Mapping[str, float]) -> GroupStat:
    by_case: dict[tuple[str, str], list[float]] = defaultdict(list)
    weight_of: dict[tuple[str, str], float] = {}
    for r in records:
        key = (r.suite, r.case_name)
        weight_of[key] = weights.get(r.case.difficulty if r.case else "", 1.0)
        if r.score is not None:
            by_case[key].append(r.score)
    keys = list(by_case)
    values = [fmean(by_case[k]) for k in keys]
    w = [weight_of[k] for k in keys]
    opts = {"confidence": defaults.CONFIDENCE, "resamples": defaults.BOOTSTRAP_RESAMPLES,
            "seed": defaults.BOOTSTRAP_SEED}
    checks = [c for r in records if r.result is not None for c in r.result.all_checks()]
    return GroupStat(
        grouping, value, cases=len(records),
        scored=sum(r.status == "scored" for r in records),
        unscored=sum(r.status == "unscored" for r in records),
        failed=sum(r.status in ("failed", "invalid") for r in records),
        mean=bootstrap_mean_ci(values, **opts),  # type: ignore[arg-type]
        weighted=bootstrap_mean_ci(values, w, **opts),  # type: ignore[arg-type]
        checks_passed=sum(c.passed for c in checks), checks_total=len(checks),
    )


def agreement(records: Sequence[CaseRecord], judge_repeats: int) -> Agreement:
    """The judge's agreement with itself (across repeats) and with the human scores."""
    units: list[list[float | None]] = []
    for r in records:
        if r.result is None:
            continue
        groups = [r.result.verdicts, *(t.verdicts for t in r.result.turns)]
        for verdicts in groups:
            if len(verdicts) >= 2:
                units.append([float(v.score) if v.score is not None else None
                              for v in verdicts])
    complete = [[float(x) for x in u if x is not None] for u in units
                if all(x is not None for x in u)]
    human: list[float] = []
    judged: list[float] = []
    per_case: dict[tuple[str, str], list[float]] = defaultdict(list)
    humans: dict[tuple[str, str], float] = {}
    for r in records:
        if r.case is None or r.case.case.human_score is None:
            continue
        key = (r.suite, r.case_name)
        humans[key] = r.case.case.human_score
        if r.score is not None:
            per_case[key].append(r.score)
    for key, scores in per_case.items():
        human.append(humans[key])
        judged.append(fmean(scores))
    return Agreement(
        judge_repeats=judge_repeats, answers=len(units),
        alpha=krippendorff_alpha(units, "interval") if units else None,
        icc=icc(complete) if complete else None,
        human_cases=len(human),
        qwk=quadratic_weighted_kappa([round(h) for h in human], [round(j) for j in judged],
                                     list(SCORES)) if human else None,
        mad=mean_absolute_difference(human, judged) if human else None,
    )


def summarize(records: Iterable[CaseRecord], *, candidate: str, judge: str,
              weights: Mapping[str, float], judge_repeats: int = 1,
              prices: PriceTable | None = None) -> TasksSummary:
    recs = list(records)
    out = TasksSummary(candidate, judge, dict(weights), total=len(recs))
    for r in recs:
        if r.status == "scored":
            out.scored += 1
        elif r.status == "unscored":
            out.unscored += 1
        elif r.status == "invalid":
            out.invalid += 1
        else:
            out.failed += 1
        if r.status != "scored":
            reason = r.error or (r.result.feedback if r.result is not None else "") or r.status
            out.failures.append((r.suite, r.case_name, r.repeat, r.status, reason))
        out.cache_hits += int(r.cached)
    usable = [r for r in recs if r.status != "invalid"]
    out.overall = _stat("overall", "all", usable, weights)
    for grouping in GROUPINGS:
        members: dict[str, list[CaseRecord]] = defaultdict(list)
        for r in usable:
            for value in _group_keys(r).get(grouping, []):
                members[value].append(r)
        for value in sorted(members):
            out.groups.append(_stat(grouping, value, members[value], weights))
    out.agreement = agreement(usable, judge_repeats)
    out.repeat_consistency = repeat_consistency(usable)
    results = [r.result for r in usable if r.result is not None]
    ci = sum(a for res in results for a in [res.usage("candidate")[0]])
    co = sum(res.usage("candidate")[1] for res in results)
    ji = sum(res.usage("judge")[0] for res in results)
    jo = sum(res.usage("judge")[1] for res in results)
    out.candidate_tokens, out.judge_tokens = (ci, co), (ji, jo)
    if prices is not None:
        counts = [TokenCount(c.model, c.input_tokens, c.output_tokens, c.cached_input_tokens)
                  for res in results for c in res.calls]
        cost = prices.summarize(counts)
        out.cost = cost.total_cost
        out.unknown_models = sorted(set(cost.unknown_models))
    latencies = [res.candidate_latency_s for res in results
                 if res.candidate_latency_s is not None]
    out.latency_mean_s = fmean(latencies) if latencies else None
    out.latency_p95_s = quantile(latencies, 0.95)
    for r in usable:
        if r.result is None or r.result.speed is None:
            continue
        s = r.result.speed
        out.speed.append(SpeedRow(r.suite, r.case_name, r.repeat, s.expected_words,
                                  s.output_words, s.output_tokens, s.latency_s,
                                  s.time_to_first_token_s, s.words_per_second,
                                  s.length_adherence))
    points = [(float(s.output_words), s.latency_s) for s in out.speed if s.latency_s]
    if len(points) >= 2 and len({x for x, _ in points}) >= 2:
        out.speed_fit = linear_fit([x for x, _ in points], [y for _, y in points],
                                   defaults.CONFIDENCE)
    return out
