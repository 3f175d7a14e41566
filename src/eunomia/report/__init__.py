"""What people look at: the terminal summary and progress display."""

from eunomia.report._leaderboard import LeaderboardRow, leaderboard, print_leaderboard
from eunomia.report._progress import CaseProgress
from eunomia.report._terminal import print_consistency, print_scenario_summary

__all__ = [
    "CaseProgress",
    "LeaderboardRow",
    "leaderboard",
    "print_consistency",
    "print_leaderboard",
    "print_scenario_summary",
]
