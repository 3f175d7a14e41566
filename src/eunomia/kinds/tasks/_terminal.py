"""The terminal summary of a task run (rich tables), and a candidate's leaderboard row."""

from __future__ import annotations

import heapq

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from eunomia.judge import judge_trust
from eunomia.kinds.tasks._summary import GroupStat, TasksSummary
from eunomia.kinds.tasks._tables import power_text, prob_text, reported_text
from eunomia.report import FloorCell, LeaderboardRow
from eunomia.stats import Interval, ci_text
from eunomia.tasks import categories

_MAX_FAILURES_SHOWN = 20
_MAX_SPEED_ROWS_SHOWN = 50
_SHOWN_GROUPINGS = ("kind", "category", "difficulty")


def _ci(i: Interval | None) -> str:
    return ci_text(i)  # "too few cases to tell" below the minimum


def _opt(value: float | None, fmt: str = "{:.3f}") -> str:
    return "-" if value is None else fmt.format(value)


def _group_table(title: str, groups: list[GroupStat]) -> Table:
    table = Table(title=title, title_justify="left")
    for col, just in (("Group", "left"), ("Cases", "right"), ("Scored", "right"),
                      ("Unscored", "right"), ("Failed", "right"),
                      ("Mean (0-5) [95% CI]", "right"), ("Weighted [95% CI]", "right"),
                      ("Checks passed", "right")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    for g in groups:
        checks = f"{g.checks_passed}/{g.checks_total}" if g.checks_total else "-"
        table.add_row(escape(g.value), str(g.cases), str(g.scored), str(g.unscored),
                      str(g.failed), _ci(g.mean), _ci(g.weighted), checks)
    return table


def print_tasks_summary(console: Console, s: TasksSummary | None, folder: str) -> None:
    if s is None:
        return
    metrics = Table(title=f"Tasks: {escape(s.candidate)} judged by {escape(s.judge)}",
                    title_justify="left")
    metrics.add_column("Metric")
    metrics.add_column("Value", justify="right")
    weights = ", ".join(f"{k}={v:g}" for k, v in s.weights.items())
    prob = prob_text(s)
    rows = [
        ("Cases", str(s.total)), ("Scored", str(s.scored)), ("Unscored", str(s.unscored)),
        ("Failed", str(s.failed)), ("Invalid", str(s.invalid)),
        ("Mean score (0-5) [95% CI]", _ci(s.overall.mean if s.overall else None)),
        (f"Difficulty-weighted mean ({weights})",
         _ci(s.overall.weighted if s.overall else None)),
        *((("Probability-weighted judge score (G-Eval)", prob),) if prob else ()),
        ("Could detect (a future comparison of equal size)", power_text(s)),
        ("Candidate tokens (in/out)", f"{s.candidate_tokens[0]}/{s.candidate_tokens[1]}"),
        ("Judge tokens (in/out)", f"{s.judge_tokens[0]}/{s.judge_tokens[1]}"),
        ("Cost", _opt(s.cost, "{:.4f}")),
        ("Candidate cost / judge cost", f"{_opt(s.candidate_cost, '{:.4f}')} / "
                                        f"{_opt(s.judge_cost, '{:.4f}')}"),
        *((("Cost the system reports", reported_text(s) or "-"),) if s.reported_calls else ()),
        ("Candidate latency mean / p95 (s)",
         f"{_opt(s.latency_mean_s, '{:.2f}')} / {_opt(s.latency_p95_s, '{:.2f}')}"),
    ]
    for name, value in rows:
        style = "bold red" if name in ("Failed", "Invalid") and value != "0" else \
            "yellow" if name == "Unscored" and value != "0" else None
        metrics.add_row(name, value, style=style)
    console.print(metrics)
    _print_floor(console, s)
    trust = judge_trust(s.judge)
    if trust:
        console.print(f"How far this judge can be trusted: {escape(trust)}", soft_wrap=True)

    titles = {k.title for k in categories()}
    for grouping in _SHOWN_GROUPINGS:
        groups = [g for g in s.groups if g.grouping == grouping]
        if grouping == "category" and all(g.value in titles for g in groups):
            continue  # the same as "By kind"
        if groups:
            console.print(_group_table(f"By {grouping.replace('_', ' ')}", groups))
    a = s.agreement
    if a is not None and (a.judge_repeats > 1 or a.human_cases):
        who = s.scorer  # with --judge none, the checks' score is what people are set beside
        table = Table(title="Judge reliability" if who == "Judge" else
                      "Reliability of the checks' score (no judge)", title_justify="left")
        table.add_column("Measure")
        table.add_column("Value", justify="right")
        if a.judge_repeats > 1:
            table.add_row(f"Self-agreement over {a.judge_repeats} scorings: "
                          "Krippendorff alpha (interval)", _opt(a.alpha))
            table.add_row("Self-agreement: ICC(2,1)", _opt(a.icc))
            table.add_row("Answers scored repeatedly", str(a.answers))
        if a.human is not None:
            table.add_row(f"{who} vs human: quadratic-weighted kappa [95% CI]",
                          a.human.kappa_text())
            table.add_row(f"{who} vs human: mean absolute difference", _opt(a.mad))
            table.add_row("Cases with a human score", str(a.human_cases))
        console.print(table)
    rc = s.repeat_consistency
    if rc is not None:
        console.print(f"Consistency over {rc.repeats} repeats: Krippendorff alpha "
                      f"{_opt(rc.alpha)}, ICC(2,1) {_opt(rc.icc)}, "
                      f"{rc.unstable_count}/{len(rc.cases)} cases changed score")
        unstable = rc.most_unstable(10)
        if unstable:
            table = Table(title="Where the candidate is inconsistent", title_justify="left")
            for col in ("Case", "Scores", "Mean ± sd", "Flip rate"):
                table.add_column(col, justify="left" if col in ("Case", "Scores") else "right")
            for c in unstable:
                table.add_row(escape(f"{c.suite}/{c.case_name}"),
                              " ".join(f"{x:g}" for x in c.scores),
                              f"{_opt(c.mean, '{:.2f}')} ± {_opt(c.stdev, '{:.2f}')}",
                              _opt(c.flip_rate, "{:.2f}"))
            console.print(table)
    if s.speed:
        table = Table(title="Inference speed", title_justify="left")
        for col in ("Case", "Asked words", "Words", "Latency (s)", "TTFT (s)", "Words/s",
                    "Length adherence"):
            table.add_column(col, justify="left" if col == "Case" else "right")
        shown = heapq.nsmallest(_MAX_SPEED_ROWS_SHOWN, s.speed,
                                key=lambda r: (r.expected_words or 0, r.case_name))
        for r in shown:
            table.add_row(escape(f"{r.suite}/{r.case_name}"), str(r.expected_words or "-"),
                          str(r.output_words), _opt(r.latency_s, "{:.2f}"),
                          _opt(r.time_to_first_token_s, "{:.2f}"),
                          _opt(r.words_per_second, "{:.1f}"),
                          _opt(r.length_adherence, "{:.2f}"))
        console.print(table)
        if len(s.speed) > len(shown):
            console.print(f"... and {len(s.speed) - len(shown)} more in "
                          "tables/inference_speed.csv")
        fit = s.speed_fit
        if fit is not None:
            ci = ""
            if fit.slope_low is not None and fit.slope_high is not None:
                ci = f" [95% CI {fit.slope_low * 100:.3g}, {fit.slope_high * 100:.3g}]"
            r2 = f", R² {fit.r2:.2f}" if fit.r2 is not None else ""
            console.print(f"Latency grows by {fit.slope * 100:.3g} s per 100 output words{ci}"
                          f"{r2} (n={fit.n}); plot: inference_speed.svg")
    if s.failures:
        table = Table(title=f"Cases not scored ({s.failure_count})", title_justify="left",
                      style="red")
        table.add_column("Case")
        table.add_column("Repeat", justify="right")
        table.add_column("Status")
        table.add_column("Reason", overflow="fold")
        for suite, case, repeat, status, reason in s.failures[:_MAX_FAILURES_SHOWN]:
            short = reason if len(reason) <= 300 else reason[:297] + "..."
            table.add_row(escape(f"{suite}/{case}"), str(repeat), status, escape(short))
        console.print(table)
        if s.failure_count > _MAX_FAILURES_SHOWN:
            console.print(f"... and {s.failure_count - _MAX_FAILURES_SHOWN} more in "
                          "failures.json")
    if s.unknown_models:
        console.print("[yellow]warning:[/] no price for "
                      + ", ".join(escape(m) for m in s.unknown_models)
                      + " (models.yml); their cost is unknown")
    console.print(f"Results: {escape(folder)}")


def _print_floor(console: Console, s: TasksSummary) -> None:
    """The candidate beside each control: means, the paired difference and the verdict."""
    if s.floor is None or not s.floor.lines:
        return
    table = Table(title=f"Beside the controls (judged by {escape(s.floor.link.judge)}, run "
                        f"{escape(s.floor.link.run)})", title_justify="left")
    for col in ("Control", "Suite", "Cases", "Candidate", "Control mean",
                "Difference [95% CI]", "Verdict"):
        table.add_column(col, justify="left" if col in ("Control", "Suite", "Verdict")
                         else "right")
    for f in s.floor.lines:
        c, d = f.comparison, f.comparison.delta
        verdict = "too few cases" if c.no_better is None else (
            "no better than it" if c.no_better else "above it")
        table.add_row(f.control, escape(f.suite or "all"), str(c.cases),
                      _opt(c.candidate_mean, "{:.2f}"), _opt(c.control_mean, "{:.2f}"),
                      "-" if d is None else
                      f"{d.mean_delta:+.2f} [{d.low:+.2f}, {d.high:+.2f}]", verdict,
                      style="bold red" if f.no_better else None)
    console.print(table)


def task_row(target: str, s: TasksSummary) -> LeaderboardRow:
    """One candidate model's leaderboard row: its mean judge score (0-5, bootstrap interval
    over cases), its own calls' cost (not the judge's), mean latency, and Krippendorff's
    alpha across ``--repeat`` runs."""
    rc = s.repeat_consistency
    line = s.floor.overall() if s.floor is not None else None
    c = line.comparison if line is not None else None
    floor = None if c is None else FloorCell(
        c.control_mean, c.delta.mean_delta if c.delta else None,
        c.delta.low if c.delta else None, c.delta.high if c.delta else None, c.no_better)
    return LeaderboardRow(
        target=target, cases=s.total, failed=s.failed + s.invalid,
        score=s.overall.mean if s.overall is not None else None, detection_rate=None,
        total_cost=s.candidate_cost, mean_latency_s=s.latency_mean_s,
        consistency=rc.alpha if rc is not None else None, floor=floor,
    )
