"""The terminal view of a run comparison (``eunomia compare``): rich tables and a verdict."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from eunomia.stats import TOO_FEW

if TYPE_CHECKING:
    from eunomia.compare import CaseChange, ChangeKind, Comparison, MetricDelta

_MAX_CASES_SHOWN = 20
_QUALITY = ("score", "detection", "fully_correct", "credits", "tutor_mad", "failures",
            "unscored")


def _value(m: MetricDelta, v: float | None, signed: bool = False) -> str:
    return m.figure(v, signed)


def _delta(m: MetricDelta, v: float | None) -> str:
    return m.figure(v, signed=True)


def _relative(m: MetricDelta) -> str:
    if m.unit not in ("$", "s") or m.a is None or m.delta is None or m.a == 0:
        return ""
    return f" ({100 * m.delta / m.a:+.0f}%)"


def _p(p: float | None) -> str:
    return "-" if p is None else ("<0.001" if p < 0.001 else f"{p:.3f}")


def _stars(p: float | None, alpha: float) -> str:
    if p is None or p >= alpha:
        return ""
    return "***" if p < 0.001 else "**" if p < 0.01 else "*"


def _colour(direction: str) -> str:
    return {"better": "green", "worse": "red"}.get(direction, "")


def _arrow(m: MetricDelta) -> str:
    d = m.direction
    text = {"better": "better", "worse": "worse", "same": "same"}.get(d, "")
    return f"[{_colour(d)}]{text}[/]" if _colour(d) else text


def _test(m: MetricDelta) -> str:
    if m.test is None:
        return "-"
    if m.regressions is not None and m.fixes is not None:
        return f"{m.test} ({m.regressions} lost, {m.fixes} gained)"
    return m.test


def _metrics_table(c: Comparison, title: str, metrics: list[MetricDelta]) -> Table:
    ci = f"{100 * c.confidence:.0f}% CI"
    table = Table(title=title, title_justify="left")
    for col, justify in (("Metric", "left"), ("A", "right"), ("B", "right"), ("Δ (B-A)", "right"),
                         (ci, "right"), ("p", "right"), ("", "left"), ("Test", "left"),
                         ("n", "right")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for m in metrics:
        interval = ("-" if m.low is None or m.high is None
                    else f"[{_delta(m, m.low)}, {_delta(m, m.high)}]")
        if m.too_few:
            interval = TOO_FEW
        stars = _stars(m.p_value, c.alpha)
        colour = _colour(m.direction) if stars else ""
        marker = f"[bold {colour}]{stars}[/]" if stars and colour else stars
        table.add_row(
            m.label, _value(m, m.a), _value(m, m.b),
            (f"[{colour}]" if colour else "") + _delta(m, m.delta) + _relative(m)
            + ("[/]" if colour else ""),
            interval, _p(m.p_value), (marker + " " + _arrow(m)).strip(), _test(m), str(m.n),
        )
    return table


def _what_changed(case: CaseChange) -> str:
    if case.change == "newly_failed":
        return f"failed: {case.b_error or case.b_status or '?'}"
    if case.change == "fixed":
        return f"{case.a_status} in A: {case.a_error or '?'}"
    if case.change == "newly_unscored":
        return f"unscored (not failed): {case.b_error or '?'}"
    if case.change == "newly_scored":
        return f"unscored in A: {case.a_error or '?'}"
    parts: list[str] = []
    for cc in case.criteria_changes:
        bits: list[str] = []
        if cc.newly_missing and cc.newly_extra:
            bits.append(f"{', '.join(cc.newly_extra)} instead of {', '.join(cc.newly_missing)}")
        elif cc.newly_missing:
            bits.append("now missing " + ", ".join(cc.newly_missing))
        elif cc.newly_extra:
            bits.append("now extra " + ", ".join(cc.newly_extra))
        if cc.no_longer_missing and cc.no_longer_extra:
            bits.append(f"{', '.join(cc.no_longer_missing)} instead of "
                        f"{', '.join(cc.no_longer_extra)}")
        elif cc.no_longer_missing:
            bits.append("now returns " + ", ".join(cc.no_longer_missing))
        elif cc.no_longer_extra:
            bits.append("no longer returns " + ", ".join(cc.no_longer_extra))
        if bits:
            parts.append(f"{cc.criterion}: {'; '.join(bits)}")
    if case.a_detected is not None and case.b_detected is not None \
            and case.a_detected != case.b_detected:
        parts.insert(0, "detected" if case.b_detected else "no longer detected")
    if case.a_credits_met is not None and case.b_credits_met is not None \
            and case.a_credits_met != case.b_credits_met:
        parts.append("credit expectations met" if case.b_credits_met
                     else "credit expectations no longer met")
    return " | ".join(parts) or "-"


def _score(v: float | None) -> str:
    return "-" if v is None else f"{v:.4g}"


def _status_or_score(status: str | None, score: float | None) -> str:
    if status is None:
        return "-"
    if status not in ("scored", "partial"):
        return status
    return _score(score)


def _signed(v: float | None) -> str:
    return "-" if v is None else "0" if abs(v) < 1e-12 else f"{v:+.4g}"


def _cases_table(title: str, cases: tuple[CaseChange, ...], style: str,
                 with_suite: bool) -> Table:
    shown = cases[:_MAX_CASES_SHOWN]
    changed = [_what_changed(case) for case in shown]
    with_changes = any(text != "-" for text in changed)
    table = Table(title=title, title_justify="left", title_style=style)
    table.add_column("Case")
    table.add_column("A", justify="right")
    table.add_column("B", justify="right")
    table.add_column("Δ", justify="right")
    if with_changes:
        table.add_column("What changed", overflow="fold")
    for case, text in zip(shown, changed, strict=True):
        name = f"{case.suite}/{case.case}" if with_suite else case.case
        row = [escape(name), _status_or_score(case.a_status, case.a_score),
               _status_or_score(case.b_status, case.b_score), _signed(case.delta)]
        table.add_row(*row, *([escape(text)] if with_changes else []))
    return table


def print_comparison(console: Console, c: Comparison) -> None:
    """The whole comparison: overall tables, criteria, changed cases, warnings, verdict."""
    a_targets = ", ".join(c.a.targets)
    b_targets = ", ".join(c.b.targets)
    console.print(f"[bold]A[/] {escape(c.a.name)} ({escape(a_targets)})  vs  "
                  f"[bold]B[/] {escape(c.b.name)} ({escape(b_targets)}), {c.kind} runs",
                  soft_wrap=True)
    console.print(f"{escape(c.matching)}; alpha={c.alpha:g}", soft_wrap=True)
    for w in c.warnings:
        console.print(f"[yellow]warning:[/] {escape(w)}", soft_wrap=True)

    o = c.overall
    metrics = o.metrics()
    console.print(_metrics_table(
        c, f"Quality: {o.paired_cases} cases paired, {o.scored_both} scored on both sides",
        [m for m in metrics if m.key in _QUALITY]))
    console.print(_metrics_table(c, "Cost and latency",
                                 [m for m in metrics if m.key not in _QUALITY]))

    changed = [cd for cd in c.criteria if cd.regressions or cd.fixes]
    if c.criteria:
        table = Table(title=f"Criteria, worst change first ({len(changed)} of "
                            f"{len(c.criteria)} changed)", title_justify="left")
        for col, justify in (("Criterion", "left"), ("Cases", "right"),
                             ("Miss rate A", "right"), ("Miss rate B", "right"),
                             ("Δ", "right"), ("Lost", "right"), ("Gained", "right"),
                             ("p (McNemar)", "right"), ("", "left")):
            table.add_column(col, justify=justify)  # type: ignore[arg-type]
        several = len({cd.suite for cd in c.criteria}) > 1
        for cd in c.criteria:
            name = f"{cd.suite}/{cd.criterion}" if several else cd.criterion
            delta = "-" if cd.delta is None else f"{100 * cd.delta:+.1f} pts"
            colour = "red" if (cd.delta or 0) > 0 else "green" if (cd.delta or 0) < 0 else ""
            if colour:
                delta = f"[{colour}]{delta}[/]"
            table.add_row(escape(name), str(cd.n),
                          "-" if cd.a_miss_rate is None else f"{100 * cd.a_miss_rate:.1f}%",
                          "-" if cd.b_miss_rate is None else f"{100 * cd.b_miss_rate:.1f}%",
                          delta, str(cd.regressions), str(cd.fixes), _p(cd.p_value),
                          _stars(cd.p_value, c.alpha))
        console.print(table)

    several_suites = len({x.suite for x in c.cases}) > 1
    console.print("Cases: " + c.cases_text())
    sections: tuple[tuple[str, ChangeKind, str], ...] = (
        ("Regressed", "regressed", "bold red"),
        ("Newly failed", "newly_failed", "bold red"),
        ("Newly unscored", "newly_unscored", "bold yellow"),
        ("Improved", "improved", "bold green"),
        ("Fixed", "fixed", "bold green"),
        ("Newly scored", "newly_scored", "bold"),
    )
    for title, kind, style in sections:
        cases = c.cases_of(kind)
        if not cases:
            continue
        if kind == "regressed":
            cases = tuple(sorted(cases, key=lambda x: x.delta or 0.0))
        elif kind == "improved":
            cases = tuple(sorted(cases, key=lambda x: -(x.delta or 0.0)))
        console.print(_cases_table(f"{title} ({len(cases)})", cases, style, several_suites))
        if len(cases) > _MAX_CASES_SHOWN:
            console.print(f"... and {len(cases) - _MAX_CASES_SHOWN} more (--json for all)")

    if c.tutor is not None:
        for line in c.tutor.lines():
            console.print(f"Tutors: {escape(line)}", soft_wrap=True)
    if c.power is not None:
        for line in c.power.lines(c.overall.score.unit):
            console.print(f"Could detect: {escape(line)}", soft_wrap=True)
    colour = {"regression": "bold red", "improvement": "bold green"}.get(
        c.verdict.kind, "bold yellow" if c.verdict.warned else "bold")
    console.print(f"[{colour}]{escape(c.verdict.summary)}[/]", soft_wrap=True)
