"""A kind's own figures in the leaderboard (scenarios: agreement with the tutors): a column
in the terminal and the report, unrounded columns in the CSV, ``-`` or empty for a target
without one."""

from __future__ import annotations

import csv
import io

from rich.console import Console

from eunomia.report import (
    Columns,
    ExtraFigure,
    LeaderboardRow,
    extra_columns,
    extra_text,
    leaderboard_csv,
    print_leaderboard,
)

COLUMNS = Columns("Target", "Score", 1, "Cost", "κ", detection=False)


def _row(target: str, *extras: ExtraFigure) -> LeaderboardRow:
    return LeaderboardRow(target, 10, 0, None, None, None, None, None, extras=extras)


ROWS = [_row("a", ExtraFigure("Pearson r vs tutors", "0.62 [0.21, 0.88], n=12",
                              (("tutor_pearson", 0.6234), ("tutor_cases", 12)))),
        _row("b")]


def test_terminal_and_report_show_a_column_per_figure() -> None:
    assert extra_columns(ROWS) == ["Pearson r vs tutors"]
    assert extra_text(ROWS[0], "Pearson r vs tutors") == "0.62 [0.21, 0.88], n=12"
    assert extra_text(ROWS[1], "Pearson r vs tutors") == "-"
    console = Console(width=200, record=True)
    print_leaderboard(console, ROWS, COLUMNS)
    text = console.export_text()
    assert "Pearson r vs tutors" in text and "0.62 [0.21, 0.88], n=12" in text


def test_csv_has_the_figures_unrounded() -> None:
    rows = list(csv.DictReader(io.StringIO(leaderboard_csv(ROWS, COLUMNS))))
    assert rows[0]["tutor_pearson"] == "0.6234" and rows[0]["tutor_cases"] == "12"
    assert rows[1]["tutor_pearson"] == "" and rows[1]["tutor_cases"] == ""


def test_no_figure_no_column() -> None:
    text = leaderboard_csv([_row("a")], COLUMNS)
    assert text.splitlines()[0].endswith("consistency,score_too_few")
