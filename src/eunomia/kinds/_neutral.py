"""What every kind falls back to: a stored case as the neutral record of the CI outputs, and a
target's leaderboard row from what every stored case has (status, score, cost, latency)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from eunomia.exports import ResultRecord, outcome_of
from eunomia.report import LeaderboardRow
from eunomia.stats import bootstrap_mean_ci

if TYPE_CHECKING:
    from eunomia.report import Columns
    from eunomia.report.html import GroupReport
    from eunomia.store import CaseRow, RunInfo


def neutral_record(run: RunInfo, row: CaseRow, *, passed: bool | None = None,
                   reason: str | None = None, score_scale: str = "",
                   category: str | None = None, answer: str | None = None,
                   judge_feedback: str | None = None,
                   answer_kind: str | None = None) -> ResultRecord:
    """``row`` as a record: passed when scored (unless ``passed`` says otherwise), else the
    reason (the error, or the status; ``reason`` when given)."""
    passed = row.status == "scored" if passed is None else passed
    if reason is None and not passed and row.status != "scored":
        reason = row.error or row.status
    return ResultRecord(
        run=run.name, kind=run.kind, suite=row.suite, case=row.case_name, target=row.target,
        repeat=row.repeat, status=row.status, outcome=outcome_of(row.status, passed),
        passed=passed, score=row.score, score_scale=score_scale, reason=reason,
        error=row.error, cost=row.cost, latency_s=row.latency_s,
        input_tokens=row.input_tokens, output_tokens=row.output_tokens,
        attempts=row.attempts, cached=row.cached, category=category,
        answer_kind=answer_kind, answer=answer, judge_feedback=judge_feedback,
    )


def neutral_rows(targets: Sequence[str],
                 groups: Sequence[GroupReport]) -> Iterator[LeaderboardRow]:
    """One row per target over its report groups: the cases' mean scores (a bootstrap
    interval), failures, cost and the latency of the requests made."""
    for target in targets:
        mine = [g for g in groups if g.target == target]
        scores = [s for g in mine for s in g.case_scores.values()]
        costs = [g.cost for g in mine if g.cost is not None]
        latencies = [v for g in mine for v in g.latency.values]
        yield LeaderboardRow(
            target=target, cases=sum(g.total for g in mine),
            failed=sum(g.failed for g in mine), score=bootstrap_mean_ci(scores),
            detection_rate=None, total_cost=sum(costs) if costs else None,
            mean_latency_s=sum(latencies) / len(latencies) if latencies else None,
            consistency=None)


def neutral_row(row: LeaderboardRow, columns: Columns) -> str:
    """A leaderboard row in one line (a kind's default terminal summary)."""
    d = columns.score_digits
    score = "-" if row.score is None else (
        f"{row.score.estimate:.{d}f} [{row.score.low:.{d}f}, {row.score.high:.{d}f}]")
    cost = "unknown" if row.total_cost is None else f"{row.total_cost:.4f}"
    latency = "-" if row.mean_latency_s is None else f"{row.mean_latency_s:.2f} s"
    return (f"{row.target}: {columns.score} {score}; {row.failed}/{row.cases} failed; "
            f"{columns.cost} {cost}; mean latency {latency}")
