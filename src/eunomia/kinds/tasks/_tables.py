"""The tables and JSON of a task run's results: one function per row or document.

``tables/cases.csv`` (:func:`table_row`), ``tables/summary.csv`` (:func:`summary_row`),
``tables/judge_agreement.csv``, ``tables/repeat_consistency.csv``,
``tables/inference_speed.csv`` and its plot, ``tasks_results.json`` (:func:`summary_json`),
and each case's fields appended to the suite's YAML (:func:`case_fields`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from typing import Any

from eunomia.cut import cut_optional, cut_text
from eunomia.exports import LIST_HERE, dump_yaml
from eunomia.judge import judge_trust
from eunomia.kinds._task_suites import HumanAgreement
from eunomia.kinds.tasks._figures import CaseFigures, case_figures, mean_score
from eunomia.kinds.tasks._summary import GroupStat, TasksSummary
from eunomia.kinds.tasks._summary_rows import RepeatStat, SpeedRow
from eunomia.stats import Interval, ci_text, interval_json, too_few_text
from eunomia.store import RunInfo
from eunomia.tasks import CaseMeta, CaseRecord, CaseResult, CheckResult, TaskSuite

CASE_COLUMNS = (
    "suite", "case_id", "kind", "category", "sub_category", "difficulty", "repeat", "status",
    "score", "judge_scores", "prob_score", "human_score", "checks_passed", "checks_total",
    "failed_checks",
    "latency_s", "time_to_first_token_s", "output_words", "input_tokens", "output_tokens",
    "cost", "attempts", "cached", "error",
)
SUMMARY_COLUMNS = (
    "grouping", "value", "cases", "scored", "unscored", "failed", "mean", "mean_ci_low",
    "mean_ci_high", "weighted_mean", "weighted_ci_low", "weighted_ci_high", "checks_passed",
    "checks_total",
)
SPEED_COLUMNS = (
    "suite", "case_id", "repeat", "expected_words", "output_words", "output_tokens",
    "latency_s", "time_to_first_token_s", "words_per_second", "length_adherence",
)


REPEAT_COLUMNS = ("suite", "case_id", "scores", "failed_repeats", "mean", "stdev", "min",
                  "max", "flip_rate")


def _num(value: float | None, digits: int = 4) -> str:
    return "" if value is None else f"{round(value, digits):g}"


def _check_json(c: CheckResult) -> dict[str, Any]:
    """``c.model_dump()``, written out (a check's fields are plain values)."""
    return {"name": c.name, "passed": c.passed, "detail": c.detail}


def _result_fields(result: CaseResult | None, status: str, error: str | None,
                   f: CaseFigures) -> dict[str, Any]:
    """The fields appended to a case: response, score, feedback, then the details (``f``:
    the record's figures, so as not to walk its verdicts again)."""
    if result is None:
        return {"response_candidate_model": None, "score": None,
                "judge_feedback": None, "status": status, "error": error}
    score = f.score if f.status == "scored" else \
        mean_score([v for v in f.verdicts if v is not None])  # CaseResult.score
    out: dict[str, Any] = {
        "response_candidate_model": cut_text(result.response),
        "score": None if score is None else round(score, 3),
        "judge_feedback": cut_text(result.feedback) or None,
        "status": "failed" if result.error is not None else  # CaseResult.status
        "scored" if score is not None else "unscored",
    }
    if len(result.verdicts) > 1:
        out["judge_scores"] = [v.score for v in result.verdicts]
    if f.prob is not None:
        out["judge_prob_score"] = round(f.prob, 3)
    unscored = [cut_optional(v.raw) for v in (result.all_verdicts() if result.turns
                                              else result.verdicts) if v.status == "unscored"]
    if unscored:
        out["judge_raw_unscored"] = unscored
    if result.turns:
        out["turns"] = [
            {"user": t.user, "response": cut_text(t.response), "eval_point": t.eval_point,
             "score": (None if not [v for v in t.verdicts if v.score is not None] else
                       round(sum(v.score for v in t.verdicts if v.score is not None)
                             / len([v for v in t.verdicts if v.score is not None]), 3)),
             "judge_feedback": cut_text("\n".join(v.feedback for v in t.verdicts)) or None,
             **({"check_results": [_check_json(c) for c in t.checks]} if t.checks else {})}
            for t in result.turns
        ]
    if result.checks:
        out["check_results"] = [_check_json(c) for c in result.checks]
    if result.speed is not None:
        out["speed"] = result.speed.model_dump()
    if result.error:
        out["error"] = result.error
    return out


def suite_yaml(suite: TaskSuite, records: list[CaseRecord]) -> str:
    """The suite in its own shape and key order, each case with its results appended: the
    whole file at once (exports write the same bytes a case at a time, :class:`SuiteYaml`)."""
    by_case: dict[str, list[CaseRecord]] = defaultdict(list)
    for r in records:
        by_case[r.case_name].append(r)
    cases = [case_fields(case.raw, sorted(by_case.get(case.name, []), key=lambda r: r.repeat))
             for case in suite.cases]
    if suite.shape == "list":
        return dump_yaml(cases)
    return dump_yaml({**suite.top_level, "test_cases": cases})


def case_fields(raw: dict[str, Any], mine: Sequence[CaseRecord],
                figures: Sequence[CaseFigures] | None = None) -> dict[str, Any]:
    """``raw`` (a case as written) with its records' results appended, as in the output
    (``figures``: those of ``mine``, when they are at hand)."""
    if not mine:
        return raw
    if figures is None:
        figures = [case_figures(r) for r in mine]
    if len(mine) == 1:
        r = mine[0]
        raw.update(_result_fields(r.result, r.status, r.error, figures[0]))
    else:
        scores = [f.score for f in figures if f.score is not None]
        raw["score"] = round(sum(scores) / len(scores), 3) if scores else None
        raw["repeats"] = [{"repeat": r.repeat, **_result_fields(r.result, r.status, r.error, f)}
                          for r, f in zip(mine, figures, strict=True)]
    return raw


def _interval(i: Interval | None) -> tuple[str, str, str]:
    """Estimate, low, high; no bounds below ``defaults.MIN_CASES_FOR_INTERVAL`` cases."""
    if i is None:
        return "", "", ""
    if i.too_few:
        return _num(i.estimate), "", ""
    return _num(i.estimate), _num(i.low), _num(i.high)


def summary_row(g: GroupStat) -> dict[str, Any]:
    m, w = _interval(g.mean), _interval(g.weighted)
    return {"grouping": g.grouping, "value": g.value, "cases": g.cases, "scored": g.scored,
            "unscored": g.unscored, "failed": g.failed, "mean": m[0], "mean_ci_low": m[1],
            "mean_ci_high": m[2], "weighted_mean": w[0], "weighted_ci_low": w[1],
            "weighted_ci_high": w[2], "checks_passed": g.checks_passed,
            "checks_total": g.checks_total}


def table_row(r: CaseRecord, f: CaseFigures | None = None) -> tuple[Any, ...]:
    """One row of ``cases.csv``, its values in the order of :data:`CASE_COLUMNS` (``f``: the
    record's figures, when they are at hand)."""
    if f is None:
        f = case_figures(r)
    c: CaseMeta | None = r.info
    res = r.result
    failed = ""
    if res is not None and f.checks_passed < f.checks_total:
        failed = "; ".join(f"{x.name}: {x.detail}".strip(": ")
                           for x in res.all_checks() if not x.passed)
    speed = f.speed
    calls = f.calls
    return (
        r.suite, r.case_name, c.kind if c else "", c.category if c else "",
        "; ".join(c.sub_categories) if c else "", c.difficulty if c else "", r.repeat,
        r.status, _num(f.score),
        " ".join("-" if v is None else str(v) for v in f.verdicts) if res else "",
        _num(f.prob) if res else "", _num(c.human_score) if c else "",
        f.checks_passed, f.checks_total, failed,
        _num(f.latency) if res else "", _num(speed[4]) if speed else "",
        speed[1] if speed else "",
        sum(x[2] for x in calls), sum(x[3] for x in calls),
        _num(r.cost, 8), r.attempts, r.cached, r.error or "",
    )


def speed_row(r: SpeedRow) -> dict[str, Any]:
    """One row of ``inference_speed.csv``."""
    return {"suite": r.suite, "case_id": r.case_name, "repeat": r.repeat,
            "expected_words": r.expected_words or "", "output_words": r.output_words,
            "output_tokens": r.output_tokens, "latency_s": _num(r.latency_s),
            "time_to_first_token_s": _num(r.time_to_first_token_s),
            "words_per_second": _num(r.words_per_second),
            "length_adherence": _num(r.length_adherence)}


def failure_json(f: tuple[str, str, int, str, str]) -> dict[str, Any]:
    return {"suite": f[0], "case_id": f[1], "repeat": f[2], "status": f[3], "reason": f[4]}


def agreement_rows(s: TasksSummary) -> list[dict[str, Any]]:
    a = s.agreement
    if a is None:
        return []
    return [
        {"metric": "scored_by", "value": s.scorer.lower()},  # the judge_human_* rows: its score
        {"metric": "judge_repeats", "value": a.judge_repeats},
        {"metric": "answers_scored_repeatedly", "value": a.answers},
        {"metric": "krippendorff_alpha_interval", "value": _num(a.alpha)},
        {"metric": "icc_2_1", "value": _num(a.icc)},
        {"metric": "human_scored_cases", "value": a.human_cases},
        {"metric": "judge_human_quadratic_weighted_kappa", "value": _num(a.qwk)},
        *_human_rows(a.human),
        {"metric": "judge_human_mean_absolute_difference", "value": _num(a.mad)},
    ]


def _human_rows(h: HumanAgreement | None) -> list[dict[str, Any]]:
    """The kappa's interval, and what to read of it ("too few cases to tell")."""
    if h is None:
        return []
    return [{"metric": "judge_human_kappa_ci_low", "value": _num(h.qwk.low if h.qwk else None)},
            {"metric": "judge_human_kappa_ci_high",
             "value": _num(h.qwk.high if h.qwk else None)},
            {"metric": "judge_human_agreement", "value": h.text()}]


def _speed_points(s: TasksSummary) -> tuple[list[float], list[float]]:
    """(output words, latency) of every answer with a latency."""
    xs: list[float] = []
    ys: list[float] = []
    for r in s.speed:
        if r.latency_s is not None:
            xs.append(float(r.output_words))
            ys.append(r.latency_s)
    return xs, ys


def speed_svg_lines(s: TasksSummary, width: int = 640, height: int = 400) -> Iterator[str]:
    """``inference_speed.svg``: latency against output words, one dot per answer (a 2-D
    histogram for very many) and the fitted line: the report's chart code, one standalone
    ``<svg>`` (UTF-8, no prolog needed)."""
    from eunomia.report.html import Fit, Series, scatter_chart

    xs, ys = _speed_points(s)
    fit = s.speed_fit
    line = None
    if fit is not None:
        label = f"slope {fit.slope * 100:.3g} s per 100 words"
        if fit.r2 is not None:
            label += f", R² {fit.r2:.2f}"
        line = Fit(fit.slope, fit.intercept, label)
    yield str(scatter_chart(
        [Series(s.candidate, xs, ys)], fit=line, width=width, height=height, show_title=True,
        title=f"Inference speed: latency vs output length ({s.candidate})",
        x_label="output words", y_label="latency (s)", empty="no inference-speed cases"))


def _interval_json(i: Interval | None) -> dict[str, Any] | None:
    return interval_json(i)  # with too_few (then no bounds)


def repeat_case_json(c: RepeatStat) -> dict[str, Any]:
    return {"suite": c.suite, "case_id": c.case_name, "scores": list(c.scores),
            "failed_repeats": c.failed_repeats, "mean": c.mean, "stdev": c.stdev,
            "min": c.low, "max": c.high, "flip_rate": c.flip_rate,
            "distribution": {str(k): v for k, v in c.distribution.items()}}


def repeat_row(c: RepeatStat) -> dict[str, Any]:
    """One row of ``repeat_consistency.csv``."""
    return {"suite": c.suite, "case_id": c.case_name,
            "scores": " ".join(f"{x:g}" for x in c.scores),
            "failed_repeats": c.failed_repeats, "mean": _num(c.mean),
            "stdev": _num(c.stdev), "min": _num(c.low), "max": _num(c.high),
            "flip_rate": _num(c.flip_rate)}


PROB_LABEL = "Judge score, probability-weighted (G-Eval)"


def power_text(s: TasksSummary) -> str:
    """What a future comparison of these cases could detect on the mean judge score (with
    ``--judge none``, the checks')."""
    p = s.power
    if p is None or p.too_few or p.mde is None:
        return too_few_text(0 if p is None else p.n)
    unit = "judge points" if s.scorer == "Judge" else "points of the checks' score"
    return (f"{p.mde:.2f} {unit} (0-5) at {100 * p.power:.0f}% power, alpha "
            f"{p.alpha:g}, for a future comparison of {p.n} cases (sd {p.sd or 0.0:.2f} of "
            "the case scores)")


def qwk_text(s: TasksSummary) -> str:
    """The judge-human quadratic-weighted kappa, or "too few cases to tell" (none below
    ``defaults.MIN_CASES_FOR_INTERVAL`` human-scored cases)."""
    a = s.agreement
    if a is None or not a.human_cases:
        return "-"
    return too_few_text(a.human_cases) if a.qwk is None else f"{a.qwk:.3f}"


def reported_text(s: TasksSummary) -> str | None:
    """The cost the candidate's system reports of its own calls, beside Eunomia's figure
    for the same calls, in words; None when it reports none."""
    if not s.reported_calls or s.reported_cost is None:
        return None
    theirs = f"{s.reported_cost:.6g} over {s.reported_calls} call(s)"
    ours = s.reported_cost_computed
    if ours is None:
        return f"{theirs}; no price: the cost shown is the system's"
    if s.cost_disagreements:
        return (f"{theirs}; Eunomia's {ours:.6g}: DIFFERS on {s.cost_disagreements} call(s) "
                "(more than 1%)")
    return f"{theirs}; Eunomia's {ours:.6g}: they agree"


def prob_text(s: TasksSummary) -> str | None:
    """The probability-weighted (G-Eval) judge score in words, or why there is none; None
    without a judge or without a scored case."""
    if s.judge == "none" or not (s.prob_cases or s.prob_missing):
        return None
    if s.prob_mean is None:
        return ("not available: the judge's provider gave no token log-probabilities, so "
                "every score is the judge's sampled one")
    m = s.prob_mean
    text = (f"{ci_text(m)} over {s.prob_cases} case(s) "
            f"(sampled score of the same cases: {s.prob_sampled_mean:.2f})")
    if s.prob_missing:
        text += f"; {s.prob_missing} scored case(s) without log-probabilities left out"
    return text


def summary_json(s: TasksSummary, run: RunInfo, *, streamed: bool = False,
                 warnings: list[str] | None = None) -> dict[str, Any]:
    """The summary in JSON. ``streamed``: the repeat-consistency cases are left as
    :data:`LIST_HERE`, for the caller to write one at a time."""
    a = s.agreement
    rc = s.repeat_consistency
    fit = s.speed_fit
    return {
        "run_name": run.name, "run_status": run.status, "candidate": s.candidate,
        "warnings": list(warnings or []),
        "judge": s.judge, "weights": s.weights, "cases": s.total, "scored": s.scored,
        "unscored": s.unscored, "failed": s.failed, "invalid": s.invalid,
        "overall": summary_row(s.overall) if s.overall else None,
        "overall_mean": _interval_json(s.overall.mean) if s.overall else None,
        "overall_weighted_mean": _interval_json(s.overall.weighted) if s.overall else None,
        "judge_prob_score": {"mean": _interval_json(s.prob_mean), "cases": s.prob_cases,
                             "sampled_mean_same_cases": s.prob_sampled_mean,
                             "cases_without": s.prob_missing, "note": prob_text(s)},
        "judge_trust": judge_trust(s.judge),
        "groups": [summary_row(g) for g in s.groups],
        "repeat_consistency": None if rc is None else {
            "repeats": rc.repeats, "alpha": rc.alpha, "icc": rc.icc,
            "cases": LIST_HERE if streamed else [repeat_case_json(c) for c in rc.cases]},
        "judge_agreement": None if a is None else {
            "scored_by": s.scorer.lower(),  # with --judge none, the checks are set beside people
            "judge_repeats": a.judge_repeats, "answers": a.answers, "alpha": a.alpha,
            "icc": a.icc, "human_cases": a.human_cases, "qwk": a.qwk, "mad": a.mad,
            "qwk_text": qwk_text(s),
            **({} if a.human is None else {
                "qwk_low": a.human.qwk.low if a.human.qwk else None,
                "qwk_high": a.human.qwk.high if a.human.qwk else None,
                "human_agreement": a.human.text()})},
        "power": None if s.power is None else {
            **asdict(s.power), "too_few": s.power.too_few, "text": power_text(s)},
        "speed_fit": None if fit is None else {
            "slope_s_per_word": fit.slope, "intercept_s": fit.intercept, "r2": fit.r2,
            "slope_low": fit.slope_low, "slope_high": fit.slope_high, "n": fit.n},
        "candidate_tokens": {"input": s.candidate_tokens[0], "output": s.candidate_tokens[1]},
        "judge_tokens": {"input": s.judge_tokens[0], "output": s.judge_tokens[1]},
        "cost": s.cost, "candidate_cost": s.candidate_cost, "judge_cost": s.judge_cost,
        "reported_cost": None if not s.reported_calls else {
            "by_system": s.reported_cost, "calls": s.reported_calls,
            "computed": s.reported_cost_computed, "disagreements": s.cost_disagreements,
            "note": reported_text(s)},
        "unknown_price_models": s.unknown_models,
        "latency_mean_s": s.latency_mean_s, "latency_p95_s": s.latency_p95_s,
    }
