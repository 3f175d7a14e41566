"""The result files of a task run, regenerated from the run store.

``results/<run>/``
  ``tasks/<suite>.yaml``           each suite as written (same shape, same key order) with
                                   the candidate's response, score and judge feedback appended
  ``tables/cases.csv``             one row per case and repeat
  ``tables/summary.csv``           per kind, category, sub-category, difficulty and suite: flat
                                   and difficulty-weighted mean score with 95% bootstrap CIs
  ``tables/judge_agreement.csv``   judge self-agreement (alpha, ICC) and judge–human (QWK, MAD)
  ``tables/repeat_consistency.csv`` with ``--repeat``: each case's scores across repeats
  ``tables/inference_speed.csv``   latency, time to first token, words, words/s, adherence
  ``inference_speed.svg``          latency against output length, with the fitted line
  ``tasks_results.json``           the summary in JSON; ``failures.json`` every unscored case
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

import yaml

from eunomia.files import write_text_atomic
from eunomia.pricing import PriceTable
from eunomia.stats import Interval
from eunomia.store import RunInfo, RunStore
from eunomia.tasks._model import LoadedCase, TaskSuite
from eunomia.tasks._result import CaseResult
from eunomia.tasks._summary import CaseRecord, GroupStat, TasksSummary, summarize

CASE_COLUMNS = (
    "suite", "case_id", "kind", "category", "sub_category", "difficulty", "repeat", "status",
    "score", "judge_scores", "human_score", "checks_passed", "checks_total", "failed_checks",
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


@dataclass(slots=True)
class ExportedTasks:
    folder: Path
    summary: TasksSummary
    files: list[Path] = field(default_factory=list)


REPEAT_COLUMNS = ("suite", "case_id", "scores", "failed_repeats", "mean", "stdev", "min",
                  "max", "flip_rate")


def _num(value: float | None, digits: int = 4) -> str:
    return "" if value is None else f"{round(value, digits):g}"


# --- reading the store ------------------------------------------------------------------
def task_records(store: RunStore, run: RunInfo) -> tuple[list[TaskSuite], list[CaseRecord],
                                                         PriceTable]:
    suites: list[TaskSuite] = []
    records: list[CaseRecord] = []
    prices = PriceTable()
    for info in store.suites(run):
        suite = TaskSuite.from_json(store.get_json(info.definition))
        prices = PriceTable.from_json(store.get_json(info.prices))
        suites.append(suite)
        by_name = {c.name: c for c in suite.cases}
        for row in store.iter_cases(run, info.name):
            result = None
            if row.response:
                result = CaseResult.model_validate(store.get_json(row.response))
            records.append(CaseRecord(
                suite=info.name, case_name=row.case_name, repeat=row.repeat,
                status=row.status,  # type: ignore[arg-type]
                case=by_name.get(row.case_name), result=result, error=row.error,
                cost=row.cost, cached=row.cached, attempts=row.attempts,
            ))
    return suites, records, prices


# --- writing ---------------------------------------------------------------------------------
def _write(path: Path, text: str) -> Path:
    return write_text_atomic(path, text)


def _csv(path: Path, columns: tuple[str, ...], rows: list[dict[str, Any]]) -> Path:
    import io

    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return _write(path, buf.getvalue())


class _Dumper(yaml.SafeDumper):
    """Block style (``|``) for multi-line text, so prompts and answers stay readable."""

    _CACHED_MAX = 80

    def analyze_scalar(self, scalar: str) -> Any:
        # A pure function of the text (and allow_unicode, fixed per dumper), called for
        # every scalar: keys and short values repeat in every case, so remember them.
        if len(scalar) > self._CACHED_MAX:
            return super().analyze_scalar(scalar)
        cache: dict[str, Any] = self.__dict__.setdefault("_analyses", {})
        found = cache.get(scalar)
        if found is None:
            found = cache[scalar] = super().analyze_scalar(scalar)
        return found


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _str)


def dump_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def _result_fields(result: CaseResult | None, status: str, error: str | None
                   ) -> dict[str, Any]:
    """The fields appended to a case: response, score, feedback, then the details."""
    if result is None:
        return {"response_candidate_model": None, "score": None,
                "judge_feedback": None, "status": status, "error": error}
    out: dict[str, Any] = {
        "response_candidate_model": result.response,
        "score": None if result.score is None else round(result.score, 3),
        "judge_feedback": result.feedback or None,
        "status": result.status,
    }
    if len(result.verdicts) > 1:
        out["judge_scores"] = [v.score for v in result.verdicts]
    unscored = [v.raw for v in result.all_verdicts() if v.status == "unscored"]
    if unscored:
        out["judge_raw_unscored"] = unscored
    if result.turns:
        out["turns"] = [
            {"user": t.user, "response": t.response, "eval_point": t.eval_point,
             "score": (None if not [v for v in t.verdicts if v.score is not None] else
                       round(sum(v.score for v in t.verdicts if v.score is not None)
                             / len([v for v in t.verdicts if v.score is not None]), 3)),
             "judge_feedback": "\n".join(v.feedback for v in t.verdicts) or None,
             **({"check_results": [c.model_dump() for c in t.checks]} if t.checks else {})}
            for t in result.turns
        ]
    if result.checks:
        out["check_results"] = [c.model_dump() for c in result.checks]
    if result.speed is not None:
        out["speed"] = result.speed.model_dump()
    if result.error:
        out["error"] = result.error
    return out


def suite_yaml(suite: TaskSuite, records: list[CaseRecord]) -> str:
    """The suite in its own shape and key order, each case with its results appended."""
    by_case: dict[str, list[CaseRecord]] = defaultdict(list)
    for r in records:
        by_case[r.case_name].append(r)
    cases: list[dict[str, Any]] = []
    for case in suite.cases:
        raw = case.raw
        mine = sorted(by_case.get(case.name, []), key=lambda r: r.repeat)
        if not mine:
            cases.append(raw)
            continue
        if len(mine) == 1:
            raw.update(_result_fields(mine[0].result, mine[0].status, mine[0].error))
        else:
            scores = [r.score for r in mine if r.score is not None]
            raw["score"] = round(sum(scores) / len(scores), 3) if scores else None
            raw["repeats"] = [{"repeat": r.repeat, **_result_fields(r.result, r.status, r.error)}
                              for r in mine]
        cases.append(raw)
    if suite.shape == "list":
        return dump_yaml(cases)
    return dump_yaml({**suite.top_level, "test_cases": cases})


def _interval(i: Interval | None) -> tuple[str, str, str]:
    if i is None:
        return "", "", ""
    return _num(i.estimate), _num(i.low), _num(i.high)


def summary_row(g: GroupStat) -> dict[str, Any]:
    m, w = _interval(g.mean), _interval(g.weighted)
    return {"grouping": g.grouping, "value": g.value, "cases": g.cases, "scored": g.scored,
            "unscored": g.unscored, "failed": g.failed, "mean": m[0], "mean_ci_low": m[1],
            "mean_ci_high": m[2], "weighted_mean": w[0], "weighted_ci_low": w[1],
            "weighted_ci_high": w[2], "checks_passed": g.checks_passed,
            "checks_total": g.checks_total}


def case_rows(records: list[CaseRecord]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for r in records:
        c: LoadedCase | None = r.case
        res = r.result
        checks = res.all_checks() if res else []
        ins = sum(x.input_tokens for x in res.calls) if res else 0
        outs = sum(x.output_tokens for x in res.calls) if res else 0
        rows.append({
            "suite": r.suite, "case_id": r.case_name, "kind": c.kind if c else "",
            "category": c.category if c else "",
            "sub_category": "; ".join(c.case.sub_categories) if c else "",
            "difficulty": c.difficulty if c else "", "repeat": r.repeat, "status": r.status,
            "score": _num(r.score),
            "judge_scores": " ".join("-" if v.score is None else str(v.score)
                                     for v in res.all_verdicts()) if res else "",
            "human_score": _num(c.case.human_score) if c else "",
            "checks_passed": sum(x.passed for x in checks), "checks_total": len(checks),
            "failed_checks": "; ".join(f"{x.name}: {x.detail}".strip(": ")
                                       for x in checks if not x.passed),
            "latency_s": _num(res.candidate_latency_s) if res else "",
            "time_to_first_token_s": _num(res.speed.time_to_first_token_s)
            if res and res.speed else "",
            "output_words": res.speed.output_words if res and res.speed else "",
            "input_tokens": ins, "output_tokens": outs, "cost": _num(r.cost, 8),
            "attempts": r.attempts, "cached": r.cached, "error": r.error or "",
        })
    return rows


def agreement_rows(s: TasksSummary) -> list[dict[str, Any]]:
    a = s.agreement
    if a is None:
        return []
    return [
        {"metric": "judge_repeats", "value": a.judge_repeats},
        {"metric": "answers_scored_repeatedly", "value": a.answers},
        {"metric": "krippendorff_alpha_interval", "value": _num(a.alpha)},
        {"metric": "icc_2_1", "value": _num(a.icc)},
        {"metric": "human_scored_cases", "value": a.human_cases},
        {"metric": "judge_human_quadratic_weighted_kappa", "value": _num(a.qwk)},
        {"metric": "judge_human_mean_absolute_difference", "value": _num(a.mad)},
    ]


def speed_svg(s: TasksSummary, width: int = 640, height: int = 400) -> str:
    """Latency against output words: one dot per answer and the fitted line."""
    pts = [(float(r.output_words), r.latency_s) for r in s.speed if r.latency_s is not None]
    left, right, top, bottom = 60, 20, 40, 50
    pw, ph = width - left - right, height - top - bottom
    xmax = max([x for x, _ in pts] + [1.0]) * 1.05
    ymax = max([y for _, y in pts] + [0.001]) * 1.1

    def sx(x: float) -> float:
        return left + pw * x / xmax

    def sy(y: float) -> float:
        return top + ph * (1 - y / ymax)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        '<rect width="100%" height="100%" fill="white"/>',
        f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">'
        f'Inference speed: latency vs output length ({escape(s.candidate)})</text>',
        f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="black"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="black"/>',
        f'<text x="{left + pw / 2}" y="{height - 10}" text-anchor="middle">output words</text>',
        f'<text x="15" y="{top + ph / 2}" text-anchor="middle" '
        f'transform="rotate(-90 15 {top + ph / 2})">latency (s)</text>',
    ]
    for i in range(6):
        xv, yv = xmax * i / 5, ymax * i / 5
        parts.append(f'<text x="{sx(xv):.1f}" y="{top + ph + 16}" text-anchor="middle">'
                     f'{xv:.0f}</text>')
        parts.append(f'<text x="{left - 6}" y="{sy(yv) + 4:.1f}" text-anchor="end">'
                     f'{yv:.2g}</text>')
        parts.append(f'<line x1="{left}" y1="{sy(yv):.1f}" x2="{left + pw}" y2="{sy(yv):.1f}" '
                     'stroke="#eee"/>')
    for x, y in pts:
        parts.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="4" fill="#1f77b4"/>')
    fit = s.speed_fit
    if fit is not None:
        x0, x1 = 0.0, xmax
        y0, y1 = fit.intercept, fit.intercept + fit.slope * xmax
        parts.append(f'<line x1="{sx(x0):.1f}" y1="{sy(y0):.1f}" x2="{sx(x1):.1f}" '
                     f'y2="{sy(y1):.1f}" stroke="#d62728" stroke-width="2"/>')
        label = f"slope {fit.slope * 100:.3g} s per 100 words"
        if fit.r2 is not None:
            label += f", R² {fit.r2:.2f}"
        parts.append(f'<text x="{left + 8}" y="{top + 14}" fill="#d62728">{escape(label)}</text>')
    if not pts:
        parts.append(f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle">'
                     'no inference-speed cases</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _interval_json(i: Interval | None) -> dict[str, Any] | None:
    if i is None:
        return None
    return {"estimate": i.estimate, "low": i.low, "high": i.high, "n": i.n,
            "confidence": i.confidence}


def summary_json(s: TasksSummary, run: RunInfo) -> dict[str, Any]:
    a = s.agreement
    rc = s.repeat_consistency
    fit = s.speed_fit
    return {
        "run_name": run.name, "run_status": run.status, "candidate": s.candidate,
        "judge": s.judge, "weights": s.weights, "cases": s.total, "scored": s.scored,
        "unscored": s.unscored, "failed": s.failed, "invalid": s.invalid,
        "overall": summary_row(s.overall) if s.overall else None,
        "overall_mean": _interval_json(s.overall.mean) if s.overall else None,
        "overall_weighted_mean": _interval_json(s.overall.weighted) if s.overall else None,
        "groups": [summary_row(g) for g in s.groups],
        "repeat_consistency": None if rc is None else {
            "repeats": rc.repeats, "alpha": rc.alpha, "icc": rc.icc,
            "cases": [{"suite": c.suite, "case_id": c.case_name, "scores": list(c.scores),
                       "failed_repeats": c.failed_repeats, "mean": c.mean, "stdev": c.stdev,
                       "min": c.low, "max": c.high, "flip_rate": c.flip_rate,
                       "distribution": {str(k): v for k, v in c.distribution.items()}}
                      for c in rc.cases]},
        "judge_agreement": None if a is None else {
            "judge_repeats": a.judge_repeats, "answers": a.answers, "alpha": a.alpha,
            "icc": a.icc, "human_cases": a.human_cases, "qwk": a.qwk, "mad": a.mad},
        "speed_fit": None if fit is None else {
            "slope_s_per_word": fit.slope, "intercept_s": fit.intercept, "r2": fit.r2,
            "slope_low": fit.slope_low, "slope_high": fit.slope_high, "n": fit.n},
        "candidate_tokens": {"input": s.candidate_tokens[0], "output": s.candidate_tokens[1]},
        "judge_tokens": {"input": s.judge_tokens[0], "output": s.judge_tokens[1]},
        "cost": s.cost, "unknown_price_models": s.unknown_models,
        "latency_mean_s": s.latency_mean_s, "latency_p95_s": s.latency_p95_s,
    }


def export_task_run(store: RunStore, run: RunInfo, results_dir: Path) -> ExportedTasks:
    """Write every result file of a task run from the store; returns the summary."""
    from eunomia.exports._from_store import write_run_file

    base = results_dir / run.name
    write_run_file(store, run, base)
    suites, records, prices = task_records(store, run)
    settings = run.settings
    summary = summarize(records, candidate=run.targets[0] if run.targets else "?",
                        judge=str(settings.get("judge", "?")),
                        weights=settings.get("weights") or {},
                        judge_repeats=int(settings.get("judge_repeats", 1)), prices=prices)
    out = ExportedTasks(base, summary)
    by_suite: dict[str, list[CaseRecord]] = defaultdict(list)
    for r in records:
        by_suite[r.suite].append(r)
    for suite in suites:
        out.files.append(_write(base / "tasks" / f"{suite.name}.yaml",
                                suite_yaml(suite, by_suite[suite.name])))
    tables = base / "tables"
    out.files.append(_csv(tables / "cases.csv", CASE_COLUMNS, case_rows(records)))
    out.files.append(_csv(tables / "summary.csv", SUMMARY_COLUMNS,
                          [summary_row(g) for g in
                           ([summary.overall] if summary.overall else []) + summary.groups]))
    out.files.append(_csv(tables / "judge_agreement.csv", ("metric", "value"),
                          agreement_rows(summary)))
    rc = summary.repeat_consistency
    if rc is not None:
        out.files.append(_csv(tables / "repeat_consistency.csv", REPEAT_COLUMNS, [
            {"suite": c.suite, "case_id": c.case_name,
             "scores": " ".join(f"{x:g}" for x in c.scores),
             "failed_repeats": c.failed_repeats, "mean": _num(c.mean),
             "stdev": _num(c.stdev), "min": _num(c.low), "max": _num(c.high),
             "flip_rate": _num(c.flip_rate)} for c in rc.cases]))
    if summary.speed:
        out.files.append(_csv(tables / "inference_speed.csv", SPEED_COLUMNS, [
            {"suite": r.suite, "case_id": r.case_name, "repeat": r.repeat,
             "expected_words": r.expected_words or "", "output_words": r.output_words,
             "output_tokens": r.output_tokens, "latency_s": _num(r.latency_s),
             "time_to_first_token_s": _num(r.time_to_first_token_s),
             "words_per_second": _num(r.words_per_second),
             "length_adherence": _num(r.length_adherence)} for r in summary.speed]))
        out.files.append(_write(base / "inference_speed.svg", speed_svg(summary)))
    out.files.append(_write(base / "tasks_results.json",
                            json.dumps(summary_json(summary, run), indent=2)))
    out.files.append(_write(base / "failures.json", json.dumps(
        [{"suite": f[0], "case_id": f[1], "repeat": f[2], "status": f[3], "reason": f[4]}
         for f in summary.failures], indent=2)))
    return out
