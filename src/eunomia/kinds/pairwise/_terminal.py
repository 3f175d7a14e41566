"""The terminal summary of a pairwise run, and its two-row leaderboard."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from eunomia.kinds import KINDS
from eunomia.kinds.pairwise._summary import PairwiseSummary, Rates, SideFigures, flipped
from eunomia.report import Columns, LeaderboardRow, print_leaderboard, rank
from eunomia.stats import Interval, ci_text

PAIRWISE_COLUMNS = Columns("Model", "Preference over the other (95% CI)",
                           KINDS["pairwise"].score_digits, "Candidate cost",
                           "Order consistency", detection=False,
                           score_label="Second model's value (0-1)")
"""The leaderboard ranks the two candidates by their preference over each other; a stored
comparison's score is the second candidate's value against the first (1 = it won)."""
_MAX_FAILURES_SHOWN = 10
STYLES = {"second_better": "green", "first_better": "green", "no_difference": "yellow",
          "unknown": "bold red"}


def pct(i: Interval | None) -> str:
    """A rate with its interval, in percent: ``40% [25-57]``."""
    if i is None:
        return "-"
    if i.too_few:
        return ci_text(i, 0, scale=100, unit="%")  # "40% (too few cases to tell, n=5)"
    return f"{100 * i.estimate:.0f}% [{100 * i.low:.0f}-{100 * i.high:.0f}]"


def _num(i: Interval | None) -> str:
    return ci_text(i) if i is None or i.too_few else \
        f"{i.estimate:.2f} [{i.low:.2f}, {i.high:.2f}]"


def _row(r: Rates) -> list[Text | str]:
    overall = r.grouping == "overall"
    return ["" if overall else r.grouping, Text("all cases" if overall else r.value),
            str(r.cases), pct(r.win), pct(r.tie), pct(r.loss), _num(r.preference),
            str(r.not_scored)]


def _table(title: str, groups: list[Rates]) -> Table:
    """Every group's rates (names as plain text: no markup, no emoji codes)."""
    table = Table(title=Text(title), title_justify="left")
    for col in ("By", "Group", "Cases", "Wins [95% CI]", "Ties", "Losses",
                "Preference [95% CI]", "Not scored"):
        table.add_column(col, justify="left" if col in ("By", "Group") else "right")
    for r in groups:
        table.add_row(*_row(r), style="bold" if r.grouping == "overall" else None)
    return table


def _leader(figures: SideFigures, s: PairwiseSummary, preference: Interval | None
            ) -> LeaderboardRow:
    return LeaderboardRow(
        target=figures.label, cases=s.comparisons, failed=s.not_scored, score=preference,
        detection_rate=None, total_cost=figures.cost, mean_latency_s=figures.latency_mean_s,
        consistency=s.position.consistency)


def pair_rows(s: PairwiseSummary) -> list[LeaderboardRow]:
    """Each candidate's row: its preference over the other (the second's, and its
    complement for the first), its own calls' cost and latency, and how often the judge's
    two verdicts on a pair agreed (the same for both)."""
    preference = s.overall.preference if s.overall is not None else None
    return [_leader(s.first, s, flipped(preference)), _leader(s.second, s, preference)]


def _as_kinds(s: PairwiseSummary, grouping: str) -> bool:
    """Whether every group of ``grouping`` (category, suite) has the figures of a kind's
    group: then its rows would repeat the kinds' (one kind per suite, say)."""
    if grouping == "kind":
        return False

    def figures(r: Rates) -> tuple[int, int, int, int, int]:
        return r.cases, r.wins, r.ties, r.losses, r.not_scored

    kinds = {figures(g) for g in s.groups if g.grouping == "kind"}
    mine = [g for g in s.groups if g.grouping == grouping]
    count = sum(g.grouping == "kind" for g in s.groups)
    return len(mine) == count and all(figures(g) in kinds for g in mine)


def print_pairwise(console: Console, s: PairwiseSummary | None, folder: str) -> None:
    if s is None:
        return
    first, second = s.first.label, s.second.label
    shown = [g for g in s.groups if not _as_kinds(s, g.grouping)]
    title = (f"Pairwise: {second} against {first}, judged by {escape(s.judge)} in both "
             "orders (rates of cases; preference = wins + ties/2)")
    console.print(_table(title, [*([s.overall] if s.overall else []), *shown]))
    console.print(escape(s.position.line()), soft_wrap=True, emoji=False)
    for figures in (s.first, s.second):
        if figures.not_applicable:
            console.print(f"{escape(figures.label)}: {figures.not_applicable} comparison(s) "
                          "not applicable (a trivial baseline that cannot answer them)",
                          emoji=False)
    if s.not_scored:
        console.print(f"[bold red]{s.not_scored} of {s.comparisons} comparison(s) without "
                      "an outcome[/] (first ones below; all in pairwise.json)")
        for suite, case, repeat, status, reason in s.failures[:_MAX_FAILURES_SHOWN]:
            short = reason if len(reason) <= 200 else reason[:197] + "..."
            console.print(f"  {escape(suite)}/{escape(case)} #{repeat}: {status}: "
                          f"{escape(short)}", soft_wrap=True, emoji=False)
    print_leaderboard(console, rank(pair_rows(s)), PAIRWISE_COLUMNS)
    style = STYLES[s.verdict.level]
    console.print(f"[{style}]Pairwise verdict:[/] {escape(s.verdict.text)}", soft_wrap=True,
                  emoji=False)
    console.print(f"Results: {escape(folder)}", emoji=False)
