"""The terminal summary of a scenario run (rich tables), and a target's leaderboard row."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from eunomia.kinds.scenarios._figures import rate_text
from eunomia.kinds.scenarios._files import summary_rows
from eunomia.kinds.scenarios._points_out import agreement_figures
from eunomia.kinds.scenarios._summary import ScenarioSummary, score_interval
from eunomia.kinds.scenarios._terminal_points import print_case_points
from eunomia.report import LeaderboardRow, rank
from eunomia.scoring import ConsistencySummary

_TOP_INSTRUCTIONS = 10
_MAX_FAILURES_SHOWN = 20


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.1f}%"


def print_scenario_summary(console: Console, summary: ScenarioSummary, folder: str) -> None:
    sc = summary.scenario
    metrics = Table(title=f"Scenario {escape(sc.name)}", show_header=True, title_justify="left")
    metrics.add_column("Metric")
    metrics.add_column("Value", justify="right")
    for name, value in summary_rows(summary):
        style = "bold red" if name == "Failed Cases" and summary.failed else None
        if name == "Total Cost" and summary.cost_unknown:  # the CSV: the known part, or ""
            value = (f"{value} + unknown ({summary.cost_unknown} case(s))" if value
                     else f"unknown ({summary.cost_unknown} case(s))")
        metrics.add_row(name, value or "-", style=style)
    console.print(metrics)
    print_case_points(console, summary)  # credits missed, graded cases furthest from tutors

    if not sc.labelled:  # nothing expected: no miss to show
        _print_failures(console, summary)
        console.print(f"Results: {escape(folder)}")
        return
    criteria = Table(title="Where it struggles: criteria", title_justify="left")
    criteria.add_column("Criterion")
    criteria.add_column("Cases", justify="right")
    criteria.add_column("Missed", justify="right")
    criteria.add_column("Miss rate", justify="right")
    ranked = sorted(
        sc.criteria, key=lambda c: -(summary.criteria[c.id].miss_rate or 0.0)
    )
    for c in ranked:
        st = summary.criteria[c.id]
        criteria.add_row(escape(c.textual_id), str(st.cases), str(st.missed), _pct(st.miss_rate))
    console.print(criteria)

    instructions = [
        (i, summary.instructions[i.id])
        for i in sc.instructions.values()
        if summary.instructions[i.id].missed or summary.instructions[i.id].returned_unexpected
    ]
    if instructions:
        table = Table(title="Instructions most often missed", title_justify="left")
        table.add_column("Instruction")
        table.add_column("Expected", justify="right")
        table.add_column("Missed", justify="right")
        table.add_column("Miss rate", justify="right")
        table.add_column("Returned unexpectedly", justify="right")
        instructions.sort(key=lambda pair: (-(pair[1].miss_rate or 0.0), -pair[1].missed))
        for ins, ist in instructions[:_TOP_INSTRUCTIONS]:
            table.add_row(escape(ins.textual_id), str(ist.expected), str(ist.missed),
                          _pct(ist.miss_rate), str(ist.returned_unexpected))
        console.print(table)

    print_by_change(console, summary)
    _print_failures(console, summary)
    console.print(f"Results: {escape(folder)}")


_GROUPINGS = {"element_type": "element type", "change": "change", "operator": "operator"}


def print_by_change(console: Console, summary: ScenarioSummary) -> None:
    """Detection by element type, kind of change and operator (worst first, the first
    :data:`_TOP_INSTRUCTIONS` of each), and localization per element type."""
    if not summary.by_change:
        return
    table = Table(title="Where it struggles: element types and changes (each case once)",
                  title_justify="left")
    table.add_column("By")
    table.add_column("Element type / change / operator")
    table.add_column("Cases", justify="right")
    table.add_column("Generated", justify="right")
    table.add_column("Detected correctly (95% CI)", justify="right")
    shown: dict[str, int] = {}
    for r in summary.by_change:
        shown[r.grouping] = shown.get(r.grouping, 0) + 1
        if shown[r.grouping] <= _TOP_INSTRUCTIONS:
            table.add_row(_GROUPINGS[r.grouping], escape(r.key), str(r.cases),
                          str(r.generated), escape(rate_text(r)))
    console.print(table)
    hidden = sum(max(0, n - _TOP_INSTRUCTIONS) for n in shown.values())
    if hidden:
        console.print(f"... and {hidden} more rows in tables/element_types.csv")
    located = [r for r in summary.localized if r.items]
    if located:
        console.print("Localization (feedback on a changed instruction naming a changed "
                      "element): " + "; ".join(
                          f"{escape(r.element_type)} {r.on_change}/{r.naming}"
                          for r in located[:_TOP_INSTRUCTIONS]))


def _print_failures(console: Console, summary: ScenarioSummary) -> None:
    if summary.failures:
        table = Table(title=f"Failed cases ({len(summary.failures)})", title_justify="left",
                      style="red")
        table.add_column("Test case")
        table.add_column("Status")
        table.add_column("Attempts", justify="right")
        table.add_column("Reason", overflow="fold")
        for f in summary.failures[:_MAX_FAILURES_SHOWN]:
            table.add_row(escape(f.case), f.status.value, str(f.attempts), escape(f.reason))
        console.print(table)
        if len(summary.failures) > _MAX_FAILURES_SHOWN:
            console.print(f"... and {len(summary.failures) - _MAX_FAILURES_SHOWN} more "
                          "in failures.json")
    if summary.unknown_models:
        console.print(
            "[yellow]warning:[/] no price for "
            + ", ".join(escape(m) for m in sorted(summary.unknown_models))
            + " in llm_cost.yml; their cost is unknown"
        )


def print_consistency(console: Console, consistency: ConsistencySummary) -> None:
    """Where answers change across repeats (shown when a run has ``--repeat`` > 1)."""
    sc = consistency.scenario
    kappa = consistency.fleiss_kappa
    agreement = consistency.percent_agreement
    flips = consistency.mean_flip_rate
    console.print(
        f"Consistency across repeats: Fleiss' kappa "
        f"{'-' if kappa is None else f'{kappa:.3f}'}, agreement "
        f"{_pct(agreement)}, mean flip rate {_pct(flips)}, "
        f"{consistency.consistent_cases}/{len(consistency.cases)} cases fully consistent"
    )
    unstable = consistency.inconsistent
    if not unstable:
        return
    table = Table(title="Where feedback is inconsistent", title_justify="left")
    table.add_column("Test case")
    table.add_column("Flip rate", justify="right")
    table.add_column("Score mean ± sd", justify="right")
    table.add_column("Instructions returned only sometimes", overflow="fold")
    for c in unstable[:_TOP_INSTRUCTIONS]:
        spread = "-" if c.score_mean is None else (
            f"{c.score_mean:.1f}" + ("" if c.score_stdev is None else f" ± {c.score_stdev:.1f}"))
        shares = "; ".join(f"{escape(sc.instructions[i].textual_id)} {100 * s:.0f}%"
                           for i, s in c.instruction_share.items() if s < 1.0)
        table.add_row(escape(c.case), _pct(c.flip_rate), spread, shares)
    console.print(table)


def scenario_row(target: str, summaries: Sequence[ScenarioSummary],
                 kappas: Sequence[float | None] = ()) -> LeaderboardRow:
    """One target over all its scenarios: the score % with a bootstrap interval over cases;
    ``kappas``: each scenario's Fleiss' kappa across repeats (their mean is shown)."""
    total = sum(s.total for s in summaries)
    scored = sum(s.scored for s in summaries)
    known = [s.total_cost for s in summaries if s.total_cost is not None]
    timed = sum(s.request_timed for s in summaries)
    known_kappas = [k for k in kappas if k is not None]
    return LeaderboardRow(
        target=target,
        cases=total,
        failed=total - scored,
        score=score_interval(summaries),  # a case's repeats are one cluster
        detection_rate=(sum(s.detected for s in summaries) / total)
        if total and all(s.labelled for s in summaries) else None,
        total_cost=sum(known) if known else None,
        mean_latency_s=(sum(s.request_time_sum for s in summaries) / timed
                        if timed else None),
        consistency=sum(known_kappas) / len(known_kappas) if known_kappas else None,
        extras=agreement_figures(summaries),  # agreement with the tutors, pooled
    )


def leaderboard(
    per_target: Sequence[tuple[str, Sequence[ScenarioSummary], Sequence[ConsistencySummary]]],
) -> list[LeaderboardRow]:
    """The ranked leaderboard of a scenario run: one row per target over its scenarios."""
    return rank([scenario_row(t, s, [c.fleiss_kappa for c in cs]) for t, s, cs in per_target])
