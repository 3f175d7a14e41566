"""Judged task suites: candidate models on YAML test cases, scored by a judge model.

Load with :func:`load_suites`, run with :func:`run_tasks`, summarize with
:func:`summarize`. Kinds of task live in :mod:`eunomia.tasks.kinds`.
"""

from eunomia.tasks._loader import discover, load_suite, load_suites
from eunomia.tasks._model import CheckSpec, LoadedCase, TaskCase, TaskSuite, Turn
from eunomia.tasks._result import (
    CallRecord,
    CaseResult,
    CheckResult,
    SpeedResult,
    TurnResult,
)
from eunomia.tasks._runner import TaskRunReport, TaskSelection, run_tasks
from eunomia.tasks._summary import CaseRecord, GroupStat, TasksSummary, summarize
from eunomia.tasks.checks import count_words, run_check, run_checks

__all__ = [
    "CallRecord",
    "CaseRecord",
    "CaseResult",
    "CheckResult",
    "CheckSpec",
    "GroupStat",
    "LoadedCase",
    "SpeedResult",
    "TaskCase",
    "TaskRunReport",
    "TaskSelection",
    "TaskSuite",
    "TasksSummary",
    "Turn",
    "TurnResult",
    "count_words",
    "discover",
    "load_suite",
    "load_suites",
    "run_check",
    "run_checks",
    "run_tasks",
    "summarize",
]
