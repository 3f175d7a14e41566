"""The leaderboard of a matrix run: several targets (or candidate models) on the same suites.

One ranking for both kinds of evaluation: :func:`rank` takes one :class:`LeaderboardRow`
per target, marks the cost/quality Pareto front and sorts by score. Each kind makes the rows
from its summaries (``eunomia.kinds``); :class:`Columns` says what the score and consistency
mean.
"""

from __future__ import annotations

import csv
import dataclasses
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from eunomia.files import write_text_atomic
from eunomia.stats import TOO_FEW, Interval, pareto_front


@dataclass(frozen=True, slots=True)
class FloorCell:
    """A judged score read against the floor: the target's mean beside its content-free
    control's on the same cases, the paired difference with its 95% interval."""

    control_mean: float | None
    difference: float | None
    low: float | None
    high: float | None
    no_better: bool | None
    """The interval reaches 0 (None: too few cases to tell)."""

    def text(self) -> str:
        if self.difference is None or self.low is None or self.high is None:
            return "too few cases"
        said = "no better" if self.no_better else "above"
        return (f"{self.difference:+.2f} [{self.low:+.2f}, {self.high:+.2f}] {said} "
                f"(floor {self.control_mean:.2f})")


@dataclass(frozen=True, slots=True)
class ExtraFigure:
    """A kind's own figure of a target in the leaderboard (scenarios: agreement with the
    tutors), in every view: a column of the terminal's table and the report's, columns of
    the CSV."""

    column: str
    text: str
    """As the terminal and the report show it (with how far it can be trusted)."""
    values: tuple[tuple[str, float | int | None], ...] = ()
    """The CSV's columns: (name, value unrounded; None when unknown)."""


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    target: str
    cases: int
    failed: int
    score: Interval | None
    detection_rate: float | None
    """Scenarios only: share of cases whose instructions were all detected."""
    total_cost: float | None
    """What the target cost (for a task run: the candidate's calls, not the judge's)."""
    mean_latency_s: float | None
    consistency: float | None
    """Agreement across repeats (Fleiss' kappa for scenarios, Krippendorff's alpha for
    judged tasks); None with a single repeat."""
    pareto: bool = False
    floor: FloorCell | None = None
    """Judged task suites with ``eval``'s content-free control: the score against it."""
    extras: tuple[ExtraFigure, ...] = ()
    """The kind's own figures (a row without one shows ``-`` in its column)."""


FLOOR_COLUMN = "Beside content-free: Δ [95% CI]"


def extra_columns(rows: Sequence[LeaderboardRow]) -> list[str]:
    """The extra figures' columns of ``rows``, in the order they first come."""
    return list(dict.fromkeys(e.column for r in rows for e in r.extras))


def extra_text(row: LeaderboardRow, column: str) -> str:
    """``row``'s figure in ``column``, ``-`` when it has none."""
    return next((e.text for e in row.extras if e.column == column), "-")


@dataclass(frozen=True, slots=True)
class Columns:
    """What the leaderboard's score and consistency columns mean, and how to print them."""

    target: str
    score: str
    score_digits: int
    cost: str
    consistency: str
    detection: bool
    score_label: str = "Score"
    """The score's short name (a report's column of mean scores)."""


def rank(rows: Sequence[LeaderboardRow]) -> list[LeaderboardRow]:
    """Mark the Pareto front and sort, best score first (ties keep the given order).

    A target is on the front when no other target is both cheaper (or equal) and better
    (or equal) with at least one strict. Targets with unknown cost are compared at cost 0
    only when every target's cost is unknown; otherwise they are left off the front.
    """
    costs_known = all(r.total_cost is not None for r in rows)
    candidates = [(i, r) for i, r in enumerate(rows) if r.score is not None
                  and (r.total_cost is not None or not costs_known)]
    front: set[int] = set()
    if candidates:
        points = [((r.total_cost or 0.0) if costs_known else 0.0, r.score.estimate)
                  for _, r in candidates if r.score is not None]
        front = {candidates[k][0] for k in pareto_front(points)}
    marked = [dataclasses.replace(r, pareto=i in front) for i, r in enumerate(rows)]
    marked.sort(key=lambda r: -(r.score.estimate if r.score else -1.0))
    return marked


def score_text(score: Interval | None, digits: int) -> str:
    """A leaderboard score with its interval, or with "too few cases to tell" in its place
    below ``defaults.MIN_CASES_FOR_INTERVAL`` cases."""
    if score is None:
        return "-"
    if score.too_few:
        return f"{score.estimate:.{digits}f} ({TOO_FEW}, n={score.n})"
    return f"{score.estimate:.{digits}f} [{score.low:.{digits}f}, {score.high:.{digits}f}]"


def print_leaderboard(console: Console, rows: Sequence[LeaderboardRow],
                      columns: Columns) -> None:
    table = Table(title="Leaderboard (★ = on the cost/quality Pareto front)",
                  title_justify="left")
    floors = any(r.floor is not None for r in rows)
    extra = extra_columns(rows)
    names = ["", columns.target, columns.score, *(["Detected"] if columns.detection else []),
             *([FLOOR_COLUMN] if floors else []),
             "Failed", columns.cost, "Mean latency", columns.consistency, *extra]
    for i, name in enumerate(names):
        table.add_column(name, justify="left" if i < 2 else "right")
    for r in rows:
        score = score_text(r.score, columns.score_digits)
        detected = ["-" if r.detection_rate is None else f"{100 * r.detection_rate:.1f}%"]
        table.add_row(
            "★" if r.pareto else "", escape(r.target), score,
            *(detected if columns.detection else []),
            *([r.floor.text() if r.floor is not None else "-"] if floors else []),
            f"{r.failed}/{r.cases}",
            "unknown" if r.total_cost is None else f"{r.total_cost:.4f}",
            "-" if r.mean_latency_s is None else f"{r.mean_latency_s:.2f} s",
            "-" if r.consistency is None else f"{r.consistency:.3f}",
            *(escape(extra_text(r, column)) for column in extra),
        )
    console.print(table)


LEADERBOARD_FILE = "leaderboard.csv"
"""Written into the run's results folder (``results/<run>/``) for a matrix run."""


def leaderboard_csv(rows: Sequence[LeaderboardRow], columns: Columns) -> str:
    """The ranked rows as CSV, in the terminal's order, numbers unrounded.

    ``score`` is the score % (scenarios) or the mean judge score 0-5 (task suites), with
    its 95% bootstrap interval (empty, and ``score_too_few`` yes, below
    ``defaults.MIN_CASES_FOR_INTERVAL`` cases); ``consistency`` is Fleiss' kappa or
    Krippendorff's alpha across repeats (empty with one repeat); with ``eval``'s content-free
    control, ``floor_*`` its mean and the paired difference (target − control) with its
    interval, and ``no_better_than_floor``; then the kind's own figures (scenarios with
    tutor grades: ``tutor_*``); empty cells are unknown values.
    """
    def num(value: float | None) -> str:
        return "" if value is None else repr(float(value))

    def floor(f: FloorCell | None) -> list[str]:
        if f is None:
            return ["", "", "", "", ""]
        return [num(f.control_mean), num(f.difference), num(f.low), num(f.high),
                "" if f.no_better is None else ("yes" if f.no_better else "no")]

    def extra(value: float | int | None) -> str:
        return "" if value is None else str(value) if isinstance(value, int) else num(value)

    floors = any(r.floor is not None for r in rows)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    names = list(dict.fromkeys(k for r in rows for e in r.extras for k, _ in e.values))
    writer.writerow(["rank", "target", "pareto_front", "score", "score_ci_low",
                     "score_ci_high", *(["detection_rate"] if columns.detection else []),
                     "cases", "failed", "total_cost", "mean_latency_s", "consistency",
                     "score_too_few",
                     *(["floor_mean", "floor_difference", "floor_ci_low", "floor_ci_high",
                        "no_better_than_floor"] if floors else []), *names])
    for position, r in enumerate(rows, start=1):
        few = r.score is not None and r.score.too_few
        values = {k: v for e in r.extras for k, v in e.values}
        writer.writerow([
            position, r.target, "yes" if r.pareto else "no",
            num(r.score.estimate if r.score else None),
            num(r.score.low if r.score and not few else None),
            num(r.score.high if r.score and not few else None),
            *([num(r.detection_rate)] if columns.detection else []),
            r.cases, r.failed, num(r.total_cost), num(r.mean_latency_s), num(r.consistency),
            "yes" if few else "no",
            *(floor(r.floor) if floors else []),
            *(extra(values.get(k)) for k in names),
        ])
    return out.getvalue()


def write_leaderboard(run_folder: Path, rows: Sequence[LeaderboardRow],
                      columns: Columns) -> Path:
    """Write :data:`LEADERBOARD_FILE` into ``run_folder``; returns its path."""
    path = run_folder / LEADERBOARD_FILE
    write_text_atomic(path, leaderboard_csv(rows, columns))
    return path
