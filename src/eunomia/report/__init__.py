"""What people look at: the terminal summary and progress display."""

from eunomia.report._leaderboard import (
    LEADERBOARD_FILE,
    SCENARIO_COLUMNS,
    TASK_COLUMNS,
    Columns,
    LeaderboardRow,
    leaderboard,
    leaderboard_csv,
    print_leaderboard,
    rank,
    scenario_row,
    write_leaderboard,
)
from eunomia.report._progress import CaseProgress
from eunomia.report._terminal import print_consistency, print_scenario_summary

__all__ = [
    "LEADERBOARD_FILE",
    "SCENARIO_COLUMNS",
    "TASK_COLUMNS",
    "CaseProgress",
    "Columns",
    "LeaderboardRow",
    "leaderboard",
    "leaderboard_csv",
    "print_consistency",
    "print_leaderboard",
    "print_scenario_summary",
    "rank",
    "scenario_row",
    "write_leaderboard",
]
