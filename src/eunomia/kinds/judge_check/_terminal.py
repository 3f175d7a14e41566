"""The terminal summary of a judge check, its verdict lines, and a judge's leaderboard row."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from eunomia.judge import KIND_WORDS
from eunomia.kinds._task_suites import EASY_CONTROLS, FLOOR_CONTROLS
from eunomia.kinds.judge_check._summary import GroupCheck, JudgeCheckSummary, JudgeVerdict
from eunomia.report import LeaderboardRow
from eunomia.stats import Interval, ci_text

_MAX_FAILURES_SHOWN = 10
STYLES = {"good": "green", "weak": "yellow", "cannot_tell": "bold red", "unknown": "bold red"}


def _ci(i: Interval | None, digits: int = 2, sign: str = "") -> str:
    return ci_text(i, digits, sign)  # "too few cases to tell" below the minimum


def _opt(value: float | None, fmt: str = "{:.2f}") -> str:
    return "-" if value is None else fmt.format(value)


def _group_row(g: GroupCheck) -> list[str]:
    return [escape(g.suite or "all suites"), str(g.cases),
            f"{g.scored}/{g.answers}", _ci(g.auc), _ci(g.weighted_auc),
            *(_opt(m.estimate) if (m := g.means.get(k)) is not None else "-"
              for k in EASY_CONTROLS),
            _ci(g.verbosity, sign="+")]


def _floor_cell(g: GroupCheck, kind: str) -> str:
    f = g.floor.get(kind)
    if f is None or f.mean is None:
        return "-"
    return f"{f.mean.estimate:.2f}" + ("" if f.auc is None else f" / {f.auc.estimate:.2f}")


def _print_floor(console: Console, s: JudgeCheckSummary) -> None:
    """The answers that look right and are wrong: per kind its mean and the reference's AUC
    against it; then each finding (lenient, blind to errors, to form) in words."""
    groups = [*s.suites, *([s.overall] if s.overall is not None else [])]
    if not any(g.floor for g in groups):
        return
    table = Table(title="Answers that look right and are wrong: mean score / AUC of the "
                        "reference against them (0.5: a coin)", title_justify="left")
    table.add_column("Suite")
    for k in ("good", *FLOOR_CONTROLS):
        table.add_column(KIND_WORDS.get(k, k), justify="right")
    for g in groups:
        table.add_row(escape(g.suite or "all suites"),
                      *(_floor_cell(g, k) for k in ("good", *FLOOR_CONTROLS)),
                      style="bold" if g.suite is None else None)
    console.print(table)
    head = s.headline
    for v in head.floor_verdicts if head is not None else ():
        style = "bold red" if v.level == "yes" else "yellow" if v.level == "weakly" else ""
        text = escape(f"{s.judge}: {v.text}" + (f"; {v.evidence}" if v.evidence else ""))
        console.print(f"[{style}]{text}[/]" if style else text, soft_wrap=True)


def print_verdicts(console: Console, verdicts: Sequence[JudgeVerdict]) -> None:
    """One line per verdict, coloured by what it says (for ``eval --judge-check`` too)."""
    for v in verdicts:
        style = STYLES[v.level]
        console.print(f"[{style}]Judge check:[/] {escape(v.line())}", soft_wrap=True)


def print_judge_check(console: Console, s: JudgeCheckSummary | None, folder: str) -> None:
    if s is None:
        return
    table = Table(title=f"Judge check: {escape(s.judge)} (mean score of each kind of answer "
                        "built from the cases' references; AUC = P(good scored above bad))",
                  title_justify="left")
    for col in ("Suite", "Cases", "Scored", "AUC [95% CI]", "Weighted AUC", "Good",
                "Other case", "First third", "Refusal", "Padded", "Padded - good"):
        table.add_column(col, justify="left" if col == "Suite" else "right")
    for g in s.suites:
        table.add_row(*_group_row(g))
    if s.overall is not None:
        table.add_row(*_group_row(s.overall), style="bold")
    console.print(table)
    _print_floor(console, s)
    head = s.headline
    if head is not None and s.judge_repeats > 1:
        console.print(f"Self-agreement over {s.judge_repeats} scorings: Krippendorff alpha "
                      f"{_opt(head.alpha, '{:.3f}')}, ICC(2,1) {_opt(head.icc, '{:.3f}')}")
    for g in [*s.suites, *([s.overall] if s.overall is not None else [])]:
        if g.human is not None:
            console.print(f"Judge vs human scores on {escape(g.suite or 'all suites')} "
                          f"(answers people scored with eunomia label): "
                          f"{escape(g.human.text())}", soft_wrap=True)
    if s.weighted_asked and head is not None and head.weighted_auc is None:
        console.print("Probability-weighted scores: not available (the judge's provider "
                      "gives no token log-probabilities)")
    if s.unchecked:
        console.print(f"{s.unchecked} selected case(s) have no reference answer or are "
                      "conversations: not checkable, left out")
    not_scored = s.not_scored
    if not_scored:
        console.print(f"[bold red]{not_scored} of {s.answers} answer(s) not scored[/] "
                      "(unusable judge answers or failed calls; first ones below)")
        for suite, answer, status, reason in s.failures[:_MAX_FAILURES_SHOWN]:
            short = reason if len(reason) <= 200 else reason[:197] + "..."
            console.print(f"  {escape(suite)}/{escape(answer)}: {status}: {escape(short)}",
                          soft_wrap=True)
    print_verdicts(console, s.verdicts)
    console.print(f"Results: {escape(folder)}")


def judge_row(target: str, s: JudgeCheckSummary) -> LeaderboardRow:
    """One judge's leaderboard row: its AUC over all suites (interval over cases), its
    cost, mean latency, and self-agreement with ``--judge-repeats`` > 1."""
    head = s.headline
    return LeaderboardRow(
        target=target, cases=s.answers, failed=s.not_scored,
        score=head.auc if head is not None else None, detection_rate=None,
        total_cost=s.cost, mean_latency_s=s.latency_mean_s,
        consistency=head.alpha if head is not None else None)
