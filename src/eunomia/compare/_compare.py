"""Compare two stored runs case by case: :func:`compare_runs`.

Cases are paired by (suite, case): each case's repeats are averaged first, so a run
with three repeats can be compared with a run with one. When each side has a single
target, the pairing crosses targets (the usual question: same suite, new model or
prompt); with several targets, cases are paired per target name.

Scenario runs are rescored from the stored snapshots and responses (the same code as
a live run), so detection, full correctness and per-criterion answers are compared;
task runs are compared on what every stored case has: status, score, cost, latency.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

from eunomia import defaults
from eunomia.compare._facts import SCORED, Agg, Rep, aggregate
from eunomia.compare._kind import ComparedKind, RunFacts
from eunomia.compare._metrics import Settings, overall_delta
from eunomia.compare._model import (
    CaseChange,
    ChangeKind,
    Comparison,
    CriterionChange,
    CriterionDelta,
    OverallDelta,
    RunRef,
    Signal,
    Verdict,
    VerdictKind,
)
from eunomia.compare._power import comparison_power
from eunomia.compare._tutor import tutor_comparison
from eunomia.errors import EunomiaError
from eunomia.stats import enough, mcnemar, too_few_text
from eunomia.store import RunInfo, RunStore, SuiteInfo

_NAMES_SHOWN = 5
_TOL = 1e-9

CaseKey = tuple[str, str, str]
"""(suite, target, case)."""


# --- one side ------------------------------------------------------------------------------
@dataclass(slots=True)
class _Side:
    store: RunStore
    run: RunInfo
    suites: dict[str, SuiteInfo]
    facts: RunFacts
    cases: dict[CaseKey, list[Rep]]
    targets: list[str]


def _load(store: RunStore, run: RunInfo, kind: ComparedKind) -> _Side:
    suites = {s.name: s for s in store.suites(run)}
    facts = kind.run_facts(store, run)
    cases: dict[CaseKey, list[Rep]] = {}
    seen_targets: list[str] = []
    for row in store.iter_cases(run):
        known = facts.case(row) if row.status == SCORED else None
        cases.setdefault((row.suite, row.target, row.case_name), []).append(Rep(row, known))
        if row.target not in seen_targets:
            seen_targets.append(row.target)
    ordered = [t for t in run.targets if t in seen_targets]
    ordered += [t for t in seen_targets if t not in ordered]
    return _Side(store, run, suites, facts, cases, ordered)


# --- pairing --------------------------------------------------------------------------------
@dataclass(slots=True)
class _Pairing:
    pairs: dict[CaseKey, tuple[CaseKey | None, CaseKey | None]]
    """Display key -> (key in A, key in B)."""
    matching: str
    targets_a: list[str]
    targets_b: list[str]
    warnings: list[str]


def _pick(side: _Side, wanted: str | None, which: str) -> list[str]:
    if wanted is None:
        return side.targets
    if wanted not in side.targets:
        raise EunomiaError(f"run {side.run.name!r} ({which}) has no cases of target {wanted!r}; "
                           f"its targets: {', '.join(side.targets) or 'none'}")
    return [wanted]


def _pair(a: _Side, b: _Side, target_a: str | None, target_b: str | None) -> _Pairing:
    ta, tb = _pick(a, target_a, "A"), _pick(b, target_b, "B")
    warnings: list[str] = []
    if len(ta) == 1 and len(tb) == 1:
        mapping = {ta[0]: tb[0]}
        if ta[0] == tb[0]:
            matching = f"cases paired by (suite, case) on target {ta[0]}"
        else:
            matching = f"cases paired by (suite, case) across targets: {ta[0]} (A) vs {tb[0]} (B)"
    else:
        common = [t for t in ta if t in tb]
        if not common:
            raise EunomiaError(
                "the runs have no target in common; choose one target on each side with "
                "--target-a and --target-b")
        for side, mine, other in (("A", ta, tb), ("B", tb, ta)):
            only = [t for t in mine if t not in other]
            if only:
                warnings.append(f"target(s) only in {side}, not compared: {', '.join(only)}")
        mapping = {t: t for t in common}
        ta, tb = common, common
        matching = f"cases paired by (suite, target, case) for targets {', '.join(common)}"
    if max(a.run.settings.get("repeats", 1), b.run.settings.get("repeats", 1)) > 1:
        matching += "; each case's repeats averaged first"
    back = {v: k for k, v in mapping.items()}
    pairs: dict[CaseKey, tuple[CaseKey | None, CaseKey | None]] = {}
    for key in a.cases:
        if key[1] in mapping:
            pairs[key] = (key, None)
    for key in b.cases:
        if key[1] in back:
            shown = (key[0], back[key[1]], key[2])
            pairs[shown] = (pairs.get(shown, (None, None))[0], key)
    return _Pairing(dict(sorted(pairs.items())), matching, ta, tb, warnings)


# --- per case -----------------------------------------------------------------------------
def _criteria_changes(a: Agg, b: Agg) -> tuple[CriterionChange, ...]:
    out: list[CriterionChange] = []
    for criterion in sorted(set(a.missing) | set(b.missing) | set(a.extra) | set(b.extra)):
        am, bm = a.missing.get(criterion, set()), b.missing.get(criterion, set())
        ae, be = a.extra.get(criterion, set()), b.extra.get(criterion, set())
        if am != bm or ae != be:
            out.append(CriterionChange(criterion, tuple(sorted(am)), tuple(sorted(bm)),
                                       tuple(sorted(ae)), tuple(sorted(be))))
    return tuple(out)


def _all_unscored(side: Agg) -> bool:
    """Every repeat answered and none could be scored (not one failed or invalid)."""
    return side.unscored_repeats == side.repeats


def _classify(a: Agg | None, b: Agg | None) -> ChangeKind:
    if a is None:
        return "only_in_b"
    if b is None:
        return "only_in_a"
    if a.ok and not b.ok:
        return "newly_unscored" if _all_unscored(b) else "newly_failed"
    if b.ok and not a.ok:
        return "newly_scored" if _all_unscored(a) else "fixed"
    if not a.ok:
        return "unchanged"
    if a.score is not None and b.score is not None and abs(b.score - a.score) > _TOL:
        return "improved" if b.score > a.score else "regressed"
    for x, y in ((a.detected, b.detected), (a.fully, b.fully), (a.credits_ok, b.credits_ok)):
        if x is not None and y is not None and x != y:
            return "improved" if y else "regressed"
    return "unchanged"


def _case_change(shown: CaseKey, a: Agg | None, b: Agg | None,
                 b_target: str | None) -> CaseChange:
    suite, target, case = shown
    if b_target is not None and b_target != target:
        target = f"{target} -> {b_target}"
    delta = None
    if a is not None and b is not None and a.score is not None and b.score is not None:
        delta = b.score - a.score
    both = a is not None and b is not None and a.ok and b.ok
    return CaseChange(
        suite=suite, target=target, case=case,
        a_status=a.status if a else None, b_status=b.status if b else None,
        a_score=a.score if a else None, b_score=b.score if b else None, delta=delta,
        a_detected=a.detected if a else None, b_detected=b.detected if b else None,
        change=_classify(a, b),
        criteria_changes=_criteria_changes(a, b) if both and a and b else (),
        a_fully_correct=a.fully if a else None, b_fully_correct=b.fully if b else None,
        a_repeats=a.repeats if a else 0, b_repeats=b.repeats if b else 0,
        a_error=a.error if a else None, b_error=b.error if b else None,
        a_cost=a.cost if a else None, b_cost=b.cost if b else None,
        a_latency_s=a.latency if a else None, b_latency_s=b.latency if b else None,
        a_credits_met=a.credits_ok if a else None, b_credits_met=b.credits_ok if b else None,
        a_awarded=a.awarded if a else None, b_awarded=b.awarded if b else None,
        tutor=(a.tutor if a and a.tutor is not None else b.tutor if b else None),
    )


# --- per criterion (the overall deltas: _metrics.py) -------------------------------------
def _criteria(a_side: _Side, b_side: _Side,
              pairs: list[tuple[str, Agg, Agg]], s: Settings) -> list[CriterionDelta]:
    by: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for suite, a, b in pairs:
        if not (a.ok and b.ok):
            continue
        for criterion, miss_a in a.criterion_miss.items():
            miss_b = b.criterion_miss.get(criterion)
            if miss_b is not None:
                by.setdefault((suite, criterion), []).append((miss_a, miss_b))
    out: list[CriterionDelta] = []
    for (suite, criterion), values in by.items():
        title = (a_side.facts.criterion_title(suite, criterion)
                 or b_side.facts.criterion_title(suite, criterion) or criterion)
        n = len(values)
        ra, rb = fmean(x for x, _ in values), fmean(y for _, y in values)
        regressions = sum(x <= 0.5 < y for x, y in values)
        fixes = sum(y <= 0.5 < x for x, y in values)
        test = mcnemar(regressions, fixes)
        p = test.p_value if enough(n) else None  # too few cases: no test
        out.append(CriterionDelta(suite, criterion, title, n, ra, rb, rb - ra, regressions,
                                  fixes, p, test.method, p is not None and p < s.alpha))
    out.sort(key=lambda d: (-(d.delta or 0.0), d.p_value or 1.0, d.suite, d.criterion))
    return out


# --- warnings and verdict ------------------------------------------------------------------
def _names(keys: Sequence[CaseKey]) -> str:
    shown = ", ".join(f"{s}/{c}" for s, _, c in keys[:_NAMES_SHOWN])
    return shown + (f" and {len(keys) - _NAMES_SHOWN} more" if len(keys) > _NAMES_SHOWN else "")


def _suite_warnings(a: _Side, b: _Side, suites: set[str], kind: ComparedKind) -> list[str]:
    out: list[str] = []
    for name in sorted(suites):
        sa, sb = a.suites.get(name), b.suites.get(name)
        if sa is None or sb is None or sa.definition == sb.definition:
            continue
        parts = kind.definition_changes(name, a.store.get_json(sa.definition),
                                        b.store.get_json(sb.definition))
        if parts is None:
            continue
        detail = f" ({'; '.join(parts)})" if parts else ""
        out.append(f"suite {name!r} is defined differently in A and B{detail}: "
                   "deltas may come from the new definition, not from the system")
    return out


def _fmt_p(p: float | None) -> str:
    return "-" if p is None else ("p<0.001" if p < 0.001 else f"p={p:.3f}")


def _unscored_warnings(changes: Sequence[CaseChange]) -> list[str]:
    """The cases scored on one side only because nothing could score the other's answers."""
    out: list[str] = []
    for kind, scored, unscored in (("newly_unscored", "A", "B"), ("newly_scored", "B", "A")):
        cases = [c for c in changes if c.change == kind]
        if not cases:
            continue
        why = next((e for c in cases if (e := c.b_error if kind == "newly_unscored"
                                         else c.a_error)), None)
        out.append(f"{len(cases)} case(s) scored in {scored} are unscored in {unscored}, "
                   f"not failed ({why or 'answered, and nothing could score them'}); left "
                   "out of the score test: " + _names([(c.suite, c.target, c.case)
                                                        for c in cases]))
    return out


def _verdict(c_a: RunRef, c_b: RunRef, overall: OverallDelta, newly_failed: int,
             max_new_failures: int, alpha: float, newly_unscored: int = 0) -> Verdict:
    signals: list[Signal] = []
    score = overall.score
    if score.p_value is not None and score.p_value < alpha and score.delta is not None:
        unit = " points" if score.unit == "%" else ""
        signals.append(Signal(
            "score", score.delta < 0,
            f"score {score.delta:+.2f}{unit} (CI {score.low:+.2f} to {score.high:+.2f}, "
            f"{_fmt_p(score.p_value)})"))
    det = overall.detection
    if det is not None and det.p_value is not None and det.p_value < alpha \
            and det.regressions is not None and det.fixes is not None \
            and det.regressions != det.fixes:
        worse = det.regressions > det.fixes
        signals.append(Signal(
            "detection", worse,
            f"detection {'lost' if worse else 'gained'} in "
            f"{max(det.regressions, det.fixes)} case(s), "
            f"{'gained' if worse else 'lost'} in {min(det.regressions, det.fixes)} "
            f"(McNemar {_fmt_p(det.p_value)})"))
    if newly_failed > max_new_failures:
        signals.append(Signal(
            "new_failures", True,
            f"{newly_failed} case(s) scored in A failed in B (allowed: {max_new_failures})"))
    if newly_unscored:  # a warning: neither a failure nor a pass, whatever the verdict
        signals.append(Signal(
            "new_unscored", False,
            f"WARNING: {newly_unscored} case(s) scored in A could not be scored in B "
            "(unscored, not failed): the verdict cannot tell how they changed", warning=True))
    caution = "".join(f"; {x.message}" for x in signals if x.warning)
    kind: VerdictKind
    if not enough(overall.scored_both) and not any(x.regression for x in signals):
        return Verdict("no_significant_change", tuple(signals),
                       f"TOO FEW CASES TO TELL whether {c_b.name} differs from {c_a.name}: "
                       f"{overall.scored_both} case(s) scored on both sides, at least "
                       f"{defaults.MIN_CASES_FOR_INTERVAL} are needed; no verdict on score or "
                       f"detection{caution}")
    if any(x.regression for x in signals):
        kind = "regression"
        head = f"REGRESSION: {c_b.name} is worse than {c_a.name}"
        reasons = [x.message for x in signals if x.regression]
    elif any(not x.warning for x in signals):
        kind = "improvement"
        head = f"IMPROVEMENT: {c_b.name} is better than {c_a.name}"
        reasons = [x.message for x in signals if not x.warning]
    else:
        kind = "no_significant_change"
        head = f"NO SIGNIFICANT CHANGE from {c_a.name} to {c_b.name}"
        reasons = [f"alpha={alpha:g}, {overall.scored_both} case(s) scored on both sides"]
    return Verdict(kind, tuple(signals), f"{head}: {'; '.join(reasons)}{caution}")


def _ref(side: _Side, targets: list[str]) -> RunRef:
    r = side.run
    return RunRef(r.name, str(side.store.path), r.kind, r.status, r.created, tuple(targets))



# --- entry point ------------------------------------------------------------------------------
def compare_runs(
    store_a: RunStore,
    run_a: RunInfo,
    store_b: RunStore,
    run_b: RunInfo,
    kind: ComparedKind,
    *,
    alpha: float = defaults.COMPARE_ALPHA,
    max_new_failures: int = defaults.COMPARE_MAX_NEW_FAILURES,
    target_a: str | None = None,
    target_b: str | None = None,
    confidence: float = defaults.COMPARE_CONFIDENCE,
    resamples: int = defaults.COMPARE_RESAMPLES,
    seed: int = defaults.COMPARE_SEED,
    effect: float | None = None,
) -> Comparison:
    """Compare run B against run A (the baseline); every delta is ``B - A``.

    The verdict is a regression when B is significantly worse (``p < alpha``) on the
    score (sign-flip test of the per-case score deltas, with a paired-bootstrap interval)
    or on detection (McNemar, with more cases lost than gained), or when more than
    ``max_new_failures`` cases scored in A failed in B. Cases scored in A whose every
    repeat in B is unscored (nothing could score them) are no failure: the verdict carries
    a warning signal instead. With fewer cases scored on both sides than
    ``defaults.MIN_CASES_FOR_INTERVAL`` there is no interval, no p-value and no verdict on
    score or detection ("too few cases to tell"). ``power`` says what the comparison could
    have detected; ``effect`` (in the score's unit) asks how many cases detecting it takes.
    """
    if effect is not None and (not math.isfinite(effect) or effect == 0):
        raise EunomiaError(f"--effect must be a finite non-zero number, got {effect:g}")
    if not 0 < alpha < 1:
        raise EunomiaError(f"alpha must be between 0 and 1, got {alpha:g}")
    if max_new_failures < 0:
        raise EunomiaError(f"the allowed new failures must be 0 or more, got {max_new_failures}")
    if run_a.kind != run_b.kind:
        raise EunomiaError(f"cannot compare a {run_a.kind} run ({run_a.name}) with a "
                           f"{run_b.kind} run ({run_b.name})")
    settings = Settings(alpha, confidence, resamples, seed)
    a, b = _load(store_a, run_a, kind), _load(store_b, run_b, kind)
    pairing = _pair(a, b, target_a, target_b)
    warnings = list(pairing.warnings)

    changes: list[CaseChange] = []
    paired: list[tuple[Agg, Agg]] = []
    by_suite: list[tuple[str, Agg, Agg]] = []
    only_a: list[CaseKey] = []
    only_b: list[CaseKey] = []
    for shown, (ka, kb) in pairing.pairs.items():
        agg_a = aggregate(a.cases[ka]) if ka else None
        agg_b = aggregate(b.cases[kb]) if kb else None
        changes.append(_case_change(shown, agg_a, agg_b, kb[1] if kb else None))
        if agg_a is not None and agg_b is not None:
            paired.append((agg_a, agg_b))
            by_suite.append((shown[0], agg_a, agg_b))
        elif agg_a is not None:
            only_a.append(shown)
        else:
            only_b.append(shown)
    if not paired:
        raise EunomiaError(f"runs {run_a.name!r} and {run_b.name!r} have no case in common "
                           f"({pairing.matching})")

    suites_a = {k[0] for k in a.cases} | set(a.suites)
    suites_b = {k[0] for k in b.cases} | set(b.suites)
    for side, mine, other in (("A", suites_a, suites_b), ("B", suites_b, suites_a)):
        if mine - other:
            warnings.append(f"suite(s) only in {side}, not compared: "
                            + ", ".join(sorted(mine - other)))
    for side, keys in (("A", only_a), ("B", only_b)):
        if keys:
            warnings.append(f"{len(keys)} case(s) only in {side}, not compared: {_names(keys)}")
    warnings += _suite_warnings(a, b, suites_a & suites_b, kind)
    warnings += _unscored_warnings(changes)
    for side, info in (("A", run_a), ("B", run_b)):
        if info.status != "complete":
            warnings.append(f"run {side} ({info.name}) is {info.status}, not complete")
    reps_a, reps_b = run_a.settings.get("repeats", 1), run_b.settings.get("repeats", 1)
    if reps_a != reps_b:
        warnings.append(f"the runs have different repeats (A: {reps_a}, B: {reps_b}); "
                        "each case's repeats are averaged")

    overall = overall_delta(kind.compare_score, kind.detects, paired, settings)
    if not enough(overall.scored_both):
        warnings.append(f"only {overall.scored_both} case(s) scored on both sides: "
                        f"{too_few_text(overall.scored_both).split(' (')[0]}, so no interval, "
                        "p-value or verdict on score or detection (at least "
                        f"{defaults.MIN_CASES_FOR_INTERVAL} cases are needed)")
    power = comparison_power(paired, overall, alpha, effect, kind.detects)
    criteria = _criteria(a, b, by_suite, settings) if kind.detects else []
    ref_a, ref_b = _ref(a, pairing.targets_a), _ref(b, pairing.targets_b)
    newly_failed = sum(c.change == "newly_failed" for c in changes)
    newly_unscored = sum(c.change == "newly_unscored" for c in changes)
    verdict = _verdict(ref_a, ref_b, overall, newly_failed, max_new_failures, alpha,
                       newly_unscored)
    return Comparison(
        a=ref_a, b=ref_b, kind=run_a.kind, matching=pairing.matching, alpha=alpha,
        max_new_failures=max_new_failures, overall=overall, criteria=tuple(criteria),
        cases=tuple(changes), verdict=verdict, warnings=tuple(warnings),
        confidence=confidence, resamples=resamples, power=power,
        tutor=tutor_comparison(paired, confidence=confidence, resamples=resamples, seed=seed),
    )
