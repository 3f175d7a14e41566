"""The terminal's per-case view of points (``eunomia run``): the cases whose credits miss
their expectations, and the graded cases furthest from their tutors' points. The full
table of every case is ``tables/test_case_results.csv`` (its points columns)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from eunomia.kinds.scenarios._points_out import tutor_agreement
from eunomia.kinds.scenarios._summary import ScenarioSummary

SHOWN = 10
"""Rows of each table; the rest are in the case table (CSV)."""


def print_case_points(console: Console, summary: ScenarioSummary) -> None:
    """The two tables, each only when it has a row."""
    known = summary.scenario.instructions
    misses = summary.unmet_credit_checks
    if misses:
        table = Table(title=f"Credit expectations not met ({len(misses)} of "
                            f"{summary.cases_with_credit_checks} case(s) with some)",
                      title_justify="left", style="red")
        table.add_column("Test case")
        table.add_column("Instruction")
        table.add_column("Expected", justify="right")
        table.add_column("Credits given", justify="right")
        for case, repeat, checks in misses[:SHOWN]:
            name = case if not repeat else f"{case} (repeat {repeat})"
            for check in checks:
                table.add_row(escape(name), escape(known[check.instruction].textual_id),
                              str(check.expectation),
                              "none named it" if check.credits is None else f"{check.credits:g}")
        console.print(table)
        if len(misses) > SHOWN:
            console.print(f"... and {len(misses) - SHOWN} more case(s) in "
                          "tables/test_case_results.csv")
    found = tutor_agreement(summary)
    if found is None or not found.pairs:
        return
    furthest = sorted(found.pairs, key=lambda p: (-abs(p.system - p.tutor), p.case))[:SHOWN]
    table = Table(title=f"Furthest from the tutors ({len(furthest)} of {found.n} graded "
                        "case(s))", title_justify="left")
    table.add_column("Test case")
    table.add_column("Tutor points", justify="right")
    table.add_column("Awarded points", justify="right")
    table.add_column("System - tutor", justify="right")
    for p in furthest:
        table.add_row(escape(p.case), f"{p.tutor:g}", f"{p.system:.4g}",
                      f"{p.system - p.tutor:+.4g}")
    console.print(table)
