"""What people look at, the same for every kind: progress, the leaderboard of a matrix run,
and the one-file HTML report (``report/html``)."""

from eunomia.report._compare_terminal import print_comparison
from eunomia.report._kind import ReportKind
from eunomia.report._leaderboard import (
    LEADERBOARD_FILE,
    Columns,
    ExtraFigure,
    FloorCell,
    LeaderboardRow,
    extra_columns,
    extra_text,
    leaderboard_csv,
    print_leaderboard,
    rank,
    write_leaderboard,
)
from eunomia.report._progress import CaseProgress

__all__ = [
    "LEADERBOARD_FILE",
    "CaseProgress",
    "Columns",
    "ExtraFigure",
    "FloorCell",
    "LeaderboardRow",
    "ReportKind",
    "extra_columns",
    "extra_text",
    "leaderboard_csv",
    "print_comparison",
    "print_leaderboard",
    "rank",
    "write_leaderboard",
]
