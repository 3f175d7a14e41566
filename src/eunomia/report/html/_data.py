"""The report of a run, built from the run store only (no HTML here).

Every run, whatever its kind, gets the generic per-case table, the latency distribution and
the cost per model; each suite and target gets a :class:`GroupReport`, which the run's kind
fills in (a structured-grading scenario: per-criterion detection, confusion matrices, worst
cases with their diagram, consistency across repeats) or leaves generic.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from eunomia import defaults
from eunomia.report._kind import ReportKind
from eunomia.report.html._costs import CostBook
from eunomia.report.html._model import (
    CaseLine,
    FailedCase,
    GroupReport,
    LatencyStats,
    Metric,
    RunListing,
    RunReport,
)
from eunomia.store import CaseRow, RunInfo, RunStore, status_hint


def build_run_report(store: RunStore, run: RunInfo, kind: ReportKind, *,
                     worst_cases: int = defaults.REPORT_WORST_CASES) -> RunReport:
    """Everything the HTML report shows about one run (of ``kind``), read from the store."""
    rows = list(store.iter_cases(run))
    totals = store.run_totals(run)
    columns = kind.columns
    report = RunReport(
        name=run.name, kind=run.kind, status=run.status, created=run.created,
        finished=run.finished, targets=list(run.targets), eunomia_version=run.eunomia_version,
        store_path=str(store.path), repeats=int(run.settings.get("repeats", 1) or 1),
        total=totals.cases, failed=totals.failed, unscored=totals.unscored,
        invalid=totals.invalid, mean_score=totals.mean_score,
        cost=totals.cost, duration_s=totals.duration_s,
        score_label=columns.score_label, score_digits=columns.score_digits,
        leaderboard_columns=columns,
        # the kind's command, when the kind says it (kinds do): `eunomia run --resume NAME`
        status_hint=status_hint(run, getattr(kind, "command", None)),
    )
    report.cases = [_case_line(r) for r in rows]
    report.latency = latencies(rows)
    costs = CostBook()
    for suite in store.suites(run):
        suite_rows = [r for r in rows if r.suite == suite.name]
        groups = kind.report_groups(store, run, suite, suite_rows, costs, report.notes,
                                    worst_cases=worst_cases, repeats=report.repeats)
        if groups is None:
            groups = [generic_group(suite.name, target, run.kind,
                                    [r for r in suite_rows if r.target == target], costs)
                      for target in targets_of(run, suite_rows)]
        report.groups += groups
    report.model_costs = costs.result()
    report.case_points = {(g.suite, g.target, case, repeat): cells for g in report.groups
                          for (case, repeat), cells in g.case_points.items()}
    report.warnings = [f"{g.key}: {w}" for g in report.groups for w in g.warnings]
    # the kind's own score of each target (the terminal's figure, with its interval): the
    # summary shows it per target, never one mean over several targets' cases
    rows_ranked = kind.report_leaderboard(store, run, report.groups, report.notes)
    report.target_scores = [(r.target, r.score) for r in rows_ranked]
    if len(run.targets) > 1:
        report.leaderboard = rows_ranked
    return report


def targets_of(run: RunInfo, rows: Iterable[CaseRow]) -> list[str]:
    """The targets with cases among ``rows`` (the run's first one when there are none)."""
    return sorted({r.target for r in rows}) or run.targets[:1]


def _case_line(r: CaseRow) -> CaseLine:
    return CaseLine(r.suite, r.target, r.case_name, r.repeat, r.status, r.score, r.latency_s,
                    r.cost, r.cached, r.error, r.output_tokens)


def latencies(rows: Iterable[CaseRow]) -> LatencyStats:
    """Latencies of the requests actually made (cached answers took no time)."""
    return LatencyStats(tuple(r.latency_s for r in rows
                              if r.latency_s is not None and not r.cached))


FAILED = ("failed", "invalid")
"""The statuses of a case without an answer (after the retries) or with an unusable file."""
UNSCORED = "unscored"
"""A case answered that nothing could score: neither failed nor scored."""


def reason_of(row: CaseRow) -> str:
    """Why a case is not scored, as stored (a run stored before the reason of an unscored
    case was kept says so)."""
    if row.error:
        return row.error
    return "no reason stored (run stored by an older Eunomia)" if row.status == UNSCORED \
        else "unknown"


def generic_group(suite: str, target: str, kind: str, rows: Sequence[CaseRow],
                  costs: CostBook, *, book: bool = True) -> GroupReport:
    """What every stored case has: status, score, cost, latency (costs booked per target,
    unless the kind books them itself per model: ``book=False``)."""
    scored = [r.score for r in rows if r.status == "scored" and r.score is not None]
    known = [r.cost for r in rows if r.cost is not None]
    group = GroupReport(suite, target, kind)
    group.total = len(rows)
    group.failed = sum(r.status == "failed" for r in rows)
    invalid = sum(r.status == "invalid" for r in rows)
    group.unscored = sum(r.status == UNSCORED for r in rows)
    group.mean_score = sum(scored) / len(scored) if scored else None
    group.cost = sum(known) if known else None
    group.latency = latencies(rows)
    group.failures = [FailedCase(r.case_name, r.repeat, r.status, reason_of(r), r.attempts)
                      for r in rows if r.status in FAILED]
    group.unscored_cases = [FailedCase(r.case_name, r.repeat, r.status, reason_of(r),
                                       r.attempts) for r in rows if r.status == UNSCORED]
    by_case: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if r.status == "scored" and r.score is not None:
            by_case[r.case_name].append(r.score)
    group.case_scores = {c: sum(v) / len(v) for c, v in by_case.items()}
    for r in rows if book else ():
        if r.cost is not None or r.input_tokens or r.output_tokens:
            costs.add(target, 1, r.input_tokens, r.output_tokens, r.cost)
    group.metrics = [
        Metric("Cases", group.total, "int"),
        Metric("Failed cases", group.failed, "int"),
        *([Metric("Invalid cases", invalid, "int")] if invalid else []),
        *([Metric("Unscored cases", group.unscored, "int")] if group.unscored else []),
        Metric("Mean score", group.mean_score, "score2"),
        Metric("Total cost", group.cost, "cost"),
        Metric("Mean latency", group.latency.mean, "seconds"),
    ]
    return group


def list_run_listings(store: RunStore) -> list[RunListing]:
    """Every run of the store, newest first."""
    out: list[RunListing] = []
    for run in reversed(store.list_runs()):
        totals = store.run_totals(run)
        out.append(RunListing(
            run.name, run.kind, run.status, run.created, tuple(run.targets),
            tuple(s.name for s in store.suites(run)), totals.cases, totals.failed,
            totals.mean_score, totals.cost, totals.duration_s, status_hint(run),
            unscored=totals.unscored, invalid=totals.invalid))
    return out
