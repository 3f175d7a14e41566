"""What people look at: the terminal summary and progress display."""

from eunomia.report._progress import CaseProgress
from eunomia.report._terminal import print_scenario_summary

__all__ = ["CaseProgress", "print_scenario_summary"]
