"""The leaderboard (terminal and CSV) says "too few cases to tell" rather than an interval
over fewer than 10 cases."""

from __future__ import annotations

import csv
import io

from rich.console import Console

from eunomia.report import Columns, LeaderboardRow, leaderboard_csv, print_leaderboard
from eunomia.stats import Interval

COLUMNS = Columns("Target", "Score % (95% CI)", 1, "Cost", "Fleiss κ", detection=False)


def _row(target: str, n: int) -> LeaderboardRow:
    return LeaderboardRow(target, n, 0, Interval(80.0, 70.0, 90.0, n, 0.95), None, 1.0,
                          None, None)


def test_too_few_cases_are_said_in_the_terminal_and_the_csv() -> None:
    rows = [_row("small", 3), _row("large", 40)]
    console = Console(record=True, width=200)
    print_leaderboard(console, rows, COLUMNS)
    text = console.export_text()
    assert "80.0 (too few cases to tell, n=3)" in text
    assert "80.0 [70.0, 90.0]" in text and "[70.0, 90.0]" not in text.split("\n")[
        next(i for i, line in enumerate(text.split("\n")) if "small" in line)]
    parsed = list(csv.DictReader(io.StringIO(leaderboard_csv(rows, COLUMNS))))
    small, large = parsed
    assert (small["score_ci_low"], small["score_ci_high"], small["score_too_few"]) == \
        ("", "", "yes")
    assert (large["score_ci_low"], large["score_too_few"]) == ("70.0", "no")
