"""The leaderboard of a matrix run: several targets on the same scenarios."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from eunomia.scoring import ConsistencySummary, ScenarioSummary
from eunomia.stats import Interval, bootstrap_mean_ci, pareto_front


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    target: str
    cases: int
    failed: int
    score: Interval | None
    detection_rate: float | None
    total_cost: float | None
    mean_latency_s: float | None
    fleiss_kappa: float | None
    pareto: bool = False


def leaderboard(
    per_target: Sequence[tuple[str, Sequence[ScenarioSummary], Sequence[ConsistencySummary]]],
) -> list[LeaderboardRow]:
    """One row per target over all its scenarios, best mean score first.

    A target is on the Pareto front when no other target is both cheaper (or equal)
    and better (or equal) with at least one strict. Targets with unknown cost are
    compared at cost 0 only when every target's cost is unknown.
    """
    rows: list[LeaderboardRow] = []
    for target, summaries, consistencies in per_target:
        scores = [v for s in summaries for v in s.score_values]
        total = sum(s.total for s in summaries)
        scored = sum(s.scored for s in summaries)
        known = [s.total_cost for s in summaries if s.total_cost is not None]
        timed = sum(s.request_timed for s in summaries)
        kappas = [k for c in consistencies if (k := c.fleiss_kappa) is not None]
        rows.append(LeaderboardRow(
            target=target,
            cases=total,
            failed=total - scored,
            score=bootstrap_mean_ci(scores),
            detection_rate=(sum(s.detected for s in summaries) / total) if total else None,
            total_cost=sum(known) if known else None,
            mean_latency_s=(sum(s.request_time_sum for s in summaries) / timed
                            if timed else None),
            fleiss_kappa=sum(kappas) / len(kappas) if kappas else None,
        ))
    costs_known = all(r.total_cost is not None for r in rows)
    candidates = [(i, r) for i, r in enumerate(rows) if r.score is not None
                  and (r.total_cost is not None or not costs_known)]
    front = set()
    if candidates:
        points = [((r.total_cost or 0.0) if costs_known else 0.0, r.score.estimate)
                  for _, r in candidates if r.score is not None]
        front = {candidates[k][0] for k in pareto_front(points)}
    rows = [
        LeaderboardRow(r.target, r.cases, r.failed, r.score, r.detection_rate, r.total_cost,
                       r.mean_latency_s, r.fleiss_kappa, i in front)
        for i, r in enumerate(rows)
    ]
    rows.sort(key=lambda r: -(r.score.estimate if r.score else -1.0))
    return rows


def print_leaderboard(console: Console, rows: Sequence[LeaderboardRow]) -> None:
    table = Table(title="Leaderboard (★ = on the cost/quality Pareto front)",
                  title_justify="left")
    for name, justify in (("", "left"), ("Target", "left"), ("Score % (95% CI)", "right"),
                          ("Detected", "right"), ("Failed", "right"), ("Cost", "right"),
                          ("Mean latency", "right"), ("Fleiss κ", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for r in rows:
        score = "-" if r.score is None else (
            f"{r.score.estimate:.1f} [{r.score.low:.1f}, {r.score.high:.1f}]")
        table.add_row(
            "★" if r.pareto else "", escape(r.target), score,
            "-" if r.detection_rate is None else f"{100 * r.detection_rate:.1f}%",
            f"{r.failed}/{r.cases}",
            "unknown" if r.total_cost is None else f"{r.total_cost:.4f}",
            "-" if r.mean_latency_s is None else f"{r.mean_latency_s:.2f} s",
            "-" if r.fleiss_kappa is None else f"{r.fleiss_kappa:.3f}",
        )
    console.print(table)
