"""The result files of a pairwise run, written from the run store.

``results/<run>/``
  ``pairwise.json``         B against A: win, tie and loss rates and B's preference with 95%
                            Wilson intervals, overall and per kind of task, category and
                            suite; the judge's position bias; the verdict; costs; failures
  ``tables/pairwise.csv``   one row per comparison (case x repeat): the outcome, each order's
                            verdict and reason, whether the verdict flipped with the order
  ``leaderboard.csv``       the two candidates, ranked by their preference over the other
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from eunomia import stats
from eunomia.exports import CsvOutput, write_json_streaming
from eunomia.judge import Winner
from eunomia.kinds import Exported
from eunomia.kinds.pairwise._result import PairResult
from eunomia.kinds.pairwise._summary import (
    FAILURES_KEPT,
    CaseValues,
    PairwiseSummary,
    Rates,
    SideFigures,
    group_rates,
    position,
    run_warnings,
    verdict,
)
from eunomia.kinds.pairwise._terminal import PAIRWISE_COLUMNS, pair_rows
from eunomia.pricing import PriceTable, TokenCount
from eunomia.report import rank, write_leaderboard
from eunomia.stats import Interval
from eunomia.store import CaseRow, RunInfo, RunStore
from eunomia.tasks import CallRecord, categories

RESULT_FILE = "pairwise.json"
TABLE_FILE = "pairwise.csv"
TABLE_COLUMNS = ("suite", "case", "repeat", "kind", "category", "status", "outcome",
                 "value_of_second", "verdict_first_shown_first", "verdict_second_shown_first",
                 "flipped", "reason_first_shown_first", "reason_second_shown_first",
                 "not_scored_reason")
METHOD = ("Each case is judged twice, the first candidate's answer shown first, then the "
          "second's; each order gives the second candidate 1 (picked), 0.5 (tie) or 0, and "
          "the case's value is the mean: above 0.5 a win, below a loss, 0.5 a tie (so a "
          "verdict that flips with the order is a tie). Rates are of cases (repeats "
          "averaged per case) with 95% Wilson score intervals.")


def _result(store: RunStore, row: CaseRow) -> PairResult | None:
    if not row.response:
        return None
    try:
        return PairResult.model_validate_json(store.get_blob(row.response))
    except ValidationError:
        return None


def stored_pairs(store: RunStore, run: RunInfo
                 ) -> Iterator[tuple[CaseRow, PairResult | None]]:
    """Every stored comparison of ``run``, suite by suite, a case's repeats together."""
    for info in store.suites(run):
        for row in store.iter_cases(run, info.name):
            yield row, _result(store, row)


def _side(settings: dict[str, Any], key: str) -> SideFigures:
    found = settings.get(key) or {}
    return SideFigures(str(found.get("label", key)), str(found.get("spec", "?")))


def _counts(calls: list[CallRecord]) -> list[TokenCount]:
    return [TokenCount(c.model, c.input_tokens, c.output_tokens, c.cached_input_tokens)
            for c in calls]


def _latency(calls: list[CallRecord]) -> float | None:
    made = [c.latency_s for c in calls if c.latency_s and not c.cached]
    return sum(made) if made else None


def pairwise_summary(store: RunStore, run: RunInfo) -> PairwiseSummary:
    """B against A over the whole run, read from the store a comparison at a time."""
    infos = store.suites(run)
    prices = PriceTable.from_json(store.get_json(infos[-1].prices)) if infos else PriceTable()
    s = PairwiseSummary(_side(run.settings, "first"), _side(run.settings, "second"),
                        str(run.settings.get("judge", "?")))
    cases: dict[tuple[str, str], CaseValues] = {}
    slots: list[tuple[Winner, Winner]] = []
    agree: list[bool] = []
    flips = 0
    counts: dict[str, list[TokenCount]] = {"A": [], "B": [], "judge": []}
    latencies: dict[str, list[float]] = {"A": [], "B": []}
    for row, result in stored_pairs(store, run):
        s.comparisons += 1
        s.input_tokens += row.input_tokens
        s.output_tokens += row.output_tokens
        status = row.status
        s.scored += status == "scored"
        s.unscored += status == "unscored"
        s.failed += status == "failed"
        s.invalid += status == "invalid"
        if status != "scored" and len(s.failures) < FAILURES_KEPT:
            reason = (result.reason if result is not None else None) or row.error or status
            s.failures.append((row.suite, row.case_name, row.repeat, status, reason))
        if result is None:
            continue
        for side, answer in (("A", result.a), ("B", result.b)):
            counts[side] += _counts(answer.calls)
            took = _latency(answer.calls)
            if took is not None:
                latencies[side].append(took)
        counts["judge"] += _counts(result.judge_calls)
        s.first.not_applicable += result.a.not_applicable is not None
        s.second.not_applicable += result.b.not_applicable is not None
        case = cases.setdefault((row.suite, result.case),
                                CaseValues(row.suite, result.kind, result.category))
        value = result.value
        if value is None:
            case.not_scored += 1
            continue
        case.values.append(value)
        one, two = (o.verdict.winner for o in result.orders)
        if one is not None and two is not None:
            slots.append((one, two))
        agree.append(result.orders[0].pick == result.orders[1].pick)
        flips += result.flipped
    titles = {c.name: c.title for c in categories()}
    if cases:
        s.overall, s.groups = group_rates(cases.values(), titles, len(infos) > 1)
    s.position = position(slots, agree, flips)
    s.verdict = verdict(s.first.label, s.second.label, s.overall)
    for side, figures in (("A", s.first), ("B", s.second)):
        figures.cost = prices.summarize(counts[side]).total_cost if counts[side] else None
        times = latencies[side]
        figures.latency_mean_s = sum(times) / len(times) if times else None
    s.judge_cost = prices.summarize(counts["judge"]).total_cost if counts["judge"] else None
    known = [c for c in (s.first.cost, s.second.cost, s.judge_cost) if c is not None]
    s.cost = sum(known) if known else None
    s.warnings = run_warnings(s)
    return s


def interval_json(i: Interval | None) -> dict[str, object] | None:
    """With ``too_few`` (then no bounds: too few cases to tell)."""
    return stats.interval_json(i)


def rates_json(r: Rates) -> dict[str, Any]:
    return {"grouping": r.grouping, "value": r.value, "cases": r.cases, "wins": r.wins,
            "ties": r.ties, "losses": r.losses, "not_scored": r.not_scored,
            "win_rate": interval_json(r.win), "tie_rate": interval_json(r.tie),
            "loss_rate": interval_json(r.loss), "preference": interval_json(r.preference)}


def summary_json(s: PairwiseSummary, run: RunInfo) -> dict[str, Any]:
    p = s.position
    return {
        "run": run.name, "method": METHOD,
        "first": {"label": s.first.label, "spec": s.first.spec},
        "second": {"label": s.second.label, "spec": s.second.spec},
        "judge": s.judge, "settings": run.settings,
        "verdict": {"level": s.verdict.level, "text": s.verdict.text},
        "overall": rates_json(s.overall) if s.overall is not None else None,
        "groups": [rates_json(g) for g in s.groups],
        "position_bias": {"pairs": p.pairs, "decisive_verdicts": p.decisive,
                          "first_shown_preferred": p.first,
                          "first_shown_rate": interval_json(p.first_rate),
                          "flipped_pairs": p.flipped, "consistent_pairs": p.consistent,
                          "biased": p.biased, "text": p.line()},
        "comparisons": s.comparisons, "scored": s.scored, "unscored": s.unscored,
        "failed": s.failed, "invalid": s.invalid,
        "not_applicable": {"first": s.first.not_applicable,
                           "second": s.second.not_applicable},
        "cost": {"first": s.first.cost, "second": s.second.cost, "judge": s.judge_cost,
                 "total": s.cost},
        "latency_mean_s": {"first": s.first.latency_mean_s,
                           "second": s.second.latency_mean_s},
        "tokens": {"input": s.input_tokens, "output": s.output_tokens},
        "warnings": s.warnings,
        "failures": [{"suite": f[0], "case": f[1], "repeat": f[2], "status": f[3],
                      "reason": f[4]} for f in s.failures],
    }


def _table_row(row: CaseRow, result: PairResult | None) -> dict[str, Any]:
    out: dict[str, Any] = {"suite": row.suite, "case": row.case_name, "repeat": row.repeat,
                           "status": row.status}
    if result is None:
        out["not_scored_reason"] = row.error or row.status
        return out
    by_order = {o.shown_first: o for o in result.orders}
    a_first, b_first = by_order.get("A"), by_order.get("B")
    out.update({
        "kind": result.kind, "category": result.category, "outcome": result.outcome or "",
        "value_of_second": "" if result.value is None else result.value,
        "verdict_first_shown_first": (a_first.pick or "unusable") if a_first else "",
        "verdict_second_shown_first": (b_first.pick or "unusable") if b_first else "",
        "flipped": "yes" if result.flipped else "no",
        "reason_first_shown_first": a_first.verdict.reason if a_first else "",
        "reason_second_shown_first": b_first.verdict.reason if b_first else "",
        "not_scored_reason": result.reason if row.status != "scored" else "",
    })
    return out


def export_pairwise(store: RunStore, run: RunInfo,
                    results_dir: Path) -> list[Exported[PairwiseSummary]]:
    """Every result file of a pairwise run."""
    base = results_dir / run.name
    summary = pairwise_summary(store, run)
    with CsvOutput(base / "tables" / TABLE_FILE, TABLE_COLUMNS) as table:
        for row, result in stored_pairs(store, run):
            table.row(_table_row(row, result))
    target = run.targets[0] if run.targets else "?"
    out = Exported(target, base, summary, failed=summary.failed + summary.invalid,
                   warnings=list(summary.warnings))
    out.files.append(table.path)
    out.files.append(write_json_streaming(base / RESULT_FILE, summary_json(summary, run),
                                          None))
    out.files.append(write_leaderboard(base, rank(pair_rows(summary)), PAIRWISE_COLUMNS))
    return [out]
