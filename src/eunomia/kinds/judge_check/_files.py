"""The result files of a judge check, written from the run store.

``results/<run>/`` (with several judges, ``results/<run>/<judge>/``)
  ``judge_check.json``         per suite and over all suites: AUC (sampled and probability-
                               weighted) with 95% intervals, mean score per kind of answer,
                               verbosity bias, self-agreement, the verdict; the answers that
                               look right and are wrong (``looks_right_is_wrong``: per kind
                               mean, AUC against the reference, drop; lenient, blind to
                               errors, blind to form); failures
  ``tables/judge_check.csv``   one row per case: the judge's score of each controlled answer
                               (mean over its repeats) and the probability-weighted score
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from eunomia.exports import CsvOutput, write_json_streaming
from eunomia.files import file_safe
from eunomia.kinds import Exported, Selection
from eunomia.kinds._task_suites import CONTROLS, split_row_name, unchecked
from eunomia.kinds.judge_check._summary import (
    Answer,
    CaseAnswers,
    GroupCheck,
    JudgeCheckSummary,
    JudgeVerdict,
    group_check,
)
from eunomia.kinds.judge_check._work import CheckedAnswer
from eunomia.stats import Interval, interval_json
from eunomia.store import CaseRow, RunInfo, RunStore
from eunomia.tasks import read_suite

RESULT_FILE = "judge_check.json"
TABLE_FILE = "judge_check.csv"
TABLE_COLUMNS = ("suite", "case", "category",
                 *CONTROLS, *(f"{k}_weighted" for k in CONTROLS), "not_scored")


def stored_answer(store: RunStore, row: CaseRow) -> CheckedAnswer | None:
    """A stored row's judged answer (None: none stored, or unreadable)."""
    if not row.response:
        return None
    try:
        return CheckedAnswer.model_validate_json(store.get_blob(row.response))
    except ValidationError:
        return None


def _answer(control: str, row: CaseRow, checked: CheckedAnswer | None,
            judge_repeats: int) -> Answer:
    if checked is None:
        return Answer(control, row.status, row.score, None, [])
    by_repeat: dict[int, float | None] = {v.repeat: (None if v.score is None else
                                                     float(v.score)) for v in checked.verdicts}
    repeats = [by_repeat.get(k) for k in range(judge_repeats)] if checked.verdicts else []
    return Answer(control, checked.status, checked.score, checked.weighted, repeats,
                  checked.human_score)


def stored_cases(store: RunStore, run: RunInfo, target: str
                 ) -> Iterator[tuple[CaseAnswers, list[tuple[str, str, str, str]], CaseRow]]:
    """Each case of ``target`` (a judge) with its judged answers, in store order, with the
    answers not scored (suite, row, status, reason) and a stored row (for costs)."""
    repeats = int(run.settings.get("judge_repeats", 1) or 1)
    for info in store.suites(run):
        current: CaseAnswers | None = None
        failures: list[tuple[str, str, str, str]] = []
        last: CaseRow | None = None
        for row in store.iter_cases(run, info.name, target):
            case, control = split_row_name(row.case_name)
            checked = stored_answer(store, row)
            if current is None or current.case != case:
                if current is not None and last is not None:
                    yield current, failures, last
                current = CaseAnswers(info.name, case, checked.category if checked else "")
                failures = []
            current.answers[control] = _answer(control, row, checked, repeats)
            if row.status != "scored":
                reason = row.error or (_unscored_reason(checked) if checked else "") or "-"
                failures.append((info.name, row.case_name, row.status, reason))
            last = row
        if current is not None and last is not None:
            yield current, failures, last


def _unscored_reason(checked: CheckedAnswer) -> str:
    return "; ".join(v.feedback for v in checked.verdicts if v.status == "unscored")


def judge_summary(store: RunStore, run: RunInfo, target: str) -> JudgeCheckSummary:
    """One judge's check, from the store."""
    settings = run.settings
    repeats = int(settings.get("judge_repeats", 1) or 1)
    summary = JudgeCheckSummary(target, repeats, bool(settings.get("weighted", False)))
    by_suite: dict[str, list[CaseAnswers]] = {}
    costs: list[float] = []
    latencies: list[float] = []
    for info in store.suites(run):
        by_suite[info.name] = []
    for row in store.iter_cases(run, None, target):
        if row.cost is not None:
            costs.append(row.cost)
        if row.latency_s is not None and not row.cached:
            latencies.append(row.latency_s)
        summary.input_tokens += row.input_tokens
        summary.output_tokens += row.output_tokens
    for case, failures, _row in stored_cases(store, run, target):
        by_suite.setdefault(case.suite, []).append(case)
        summary.failures += failures
    for name, cases in by_suite.items():
        if cases:
            summary.suites.append(group_check(target, name, cases, repeats))
    if len(summary.suites) > 1:
        summary.overall = group_check(target, None, [c for v in by_suite.values() for c in v],
                                      repeats)
    selection = Selection.from_json(settings.get("selection"))
    summary.unchecked = sum(unchecked(read_suite(store, info), selection)
                            for info in store.suites(run))
    summary.cost = sum(costs) if costs else None
    summary.latency_mean_s = sum(latencies) / len(latencies) if latencies else None
    return summary


def _interval(i: Interval | None) -> dict[str, object] | None:
    """The interval with ``too_few`` (then no bounds: too few cases to tell)."""
    return interval_json(i)


def verdict_json(v: JudgeVerdict) -> dict[str, Any]:
    return {"judge": v.judge, "suite": v.suite, "level": v.level, "trusted": v.trusted,
            "lenient": v.lenient,
            "text": v.text, "auc": _interval(v.auc), "weighted_auc": _interval(v.weighted_auc),
            "verbosity_bias": _interval(v.verbosity)}


def group_json(g: GroupCheck) -> dict[str, Any]:
    return {
        "suite": g.suite, "cases": g.cases, "answers": g.answers, "scored": g.scored,
        "unscored": g.unscored, "failed": g.failed, "auc": _interval(g.auc),
        "weighted_auc": _interval(g.weighted_auc), "weighted_answers": g.weighted_answers,
        "auc_by_bad_kind": g.auc_by_control,
        "mean_score": {k: _interval(v) for k, v in g.means.items()},
        "mean_weighted_score": g.weighted_means,
        "verbosity_bias": _interval(g.verbosity),
        "self_agreement": {"krippendorff_alpha": g.alpha, "icc": g.icc},
        "judge_vs_human": None if g.human is None else {
            "cases": g.human.cases, "quadratic_weighted_kappa": _interval(g.human.qwk),
            "mean_absolute_difference": g.human.mad, "text": g.human.text()},
        "verdict": verdict_json(g.verdict),
        "looks_right_is_wrong": {
            "kinds": {k: {"answers": f.answers, "mean": _interval(f.mean),
                          "auc_against_reference": _interval(f.auc),
                          "drop_from_reference": None if f.drop is None else {
                              "estimate": f.drop.mean_delta, "low": f.drop.low,
                              "high": f.drop.high, "n": f.drop.n}}
                      for k, f in g.floor.items()},
            "verdicts": [{"finding": v.finding, "level": v.level, "holds": v.holds,
                          "text": v.text, "evidence": v.evidence}
                         for v in g.floor_verdicts]},
    }


def summary_json(s: JudgeCheckSummary, run: RunInfo) -> dict[str, Any]:
    return {
        "run": run.name, "judge": s.judge, "judge_repeats": s.judge_repeats,
        "weighted_asked": s.weighted_asked, "settings": run.settings,
        "verdicts": [verdict_json(v) for v in s.verdicts],
        "suites": [group_json(g) for g in s.suites],
        "overall": group_json(s.overall) if s.overall is not None else None,
        "cases_not_checkable": s.unchecked,
        "judge_tokens": {"input": s.input_tokens, "output": s.output_tokens},
        "cost": s.cost, "latency_mean_s": s.latency_mean_s,
        "failures": [{"suite": f[0], "answer": f[1], "status": f[2], "reason": f[3]}
                     for f in s.failures],
    }


def _table_row(case: CaseAnswers) -> dict[str, Any]:
    row: dict[str, Any] = {"suite": case.suite, "case": case.case, "category": case.category}
    for control in CONTROLS:
        a = case.answers.get(control)
        row[control] = "" if a is None or a.score is None else round(a.score, 4)
        row[f"{control}_weighted"] = "" if a is None or a.weighted is None else \
            round(a.weighted, 4)
    row["not_scored"] = " ".join(f"{k}:{a.status}" for k, a in case.answers.items()
                                 if a.status != "scored")
    return row


def export_judge_check(store: RunStore, run: RunInfo,
                       results_dir: Path) -> list[Exported[JudgeCheckSummary]]:
    """Every result file of a judge check: one set per judge."""
    base = results_dir / run.name
    targets = run.targets or ["?"]
    if len(targets) == 1:
        return [_export_judge(store, run, targets[0], base)]
    return [_export_judge(store, run, t, base / file_safe(t)) for t in targets]


def _export_judge(store: RunStore, run: RunInfo, target: str,
                  base: Path) -> Exported[JudgeCheckSummary]:
    summary = judge_summary(store, run, target)
    with CsvOutput(base / "tables" / TABLE_FILE, TABLE_COLUMNS) as table:
        for case, _failures, _row in stored_cases(store, run, target):
            table.row(_table_row(case))
    out = Exported(target, base, summary,
                   failed=sum(g.failed for g in summary.suites))
    out.files.append(table.path)
    out.files.append(write_json_streaming(base / RESULT_FILE, summary_json(summary, run),
                                          None))
    return out


def stored_verdicts(store: RunStore, run: RunInfo) -> list[JudgeVerdict]:
    """Every verdict of a stored judge check (each judge's per suite, then over all)."""
    return [v for t in run.targets for v in judge_summary(store, run, t).verdicts]

