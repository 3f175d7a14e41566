"""Judged task suites: the YAML format, loading, categories (summarization, context
retention...) with their runners, deterministic checks and the results of a case.

Load with :func:`load_suites`; the kinds over task suites (``eunomia.kinds.tasks``,
``judge_check``, ``pairwise``) run them, each with its own summary.
"""

from eunomia.tasks._context import CaseContext, assistant, system, user
from eunomia.tasks._loader import discover, load_suite, load_suites
from eunomia.tasks._model import Entry, LoadedCase, TaskCase, TaskSuite, Turn
from eunomia.tasks._records import CaseMeta, CaseRecord
from eunomia.tasks._result import (
    CallRecord,
    CaseResult,
    CaseStatus,
    CheckResult,
    Role,
    SpeedResult,
    TurnResult,
)
from eunomia.tasks._snapshot import (
    SNAPSHOT_FORMAT,
    StoredCases,
    iter_entries,
    loaded_case,
    read_suite,
    write_snapshot,
)
from eunomia.tasks.categories import TaskCategory, categories, category_for, category_named
from eunomia.tasks.checks import (
    CHECKS,
    Answer,
    Check,
    CheckSpec,
    count_words,
    register,
    resolve_check,
    run_check,
    run_checks,
)

__all__ = [
    "CHECKS",
    "SNAPSHOT_FORMAT",
    "Answer",
    "CallRecord",
    "CaseContext",
    "CaseMeta",
    "CaseRecord",
    "CaseResult",
    "CaseStatus",
    "Check",
    "CheckResult",
    "CheckSpec",
    "Entry",
    "LoadedCase",
    "Role",
    "SpeedResult",
    "StoredCases",
    "TaskCase",
    "TaskCategory",
    "TaskSuite",
    "Turn",
    "TurnResult",
    "assistant",
    "categories",
    "category_for",
    "category_named",
    "count_words",
    "discover",
    "iter_entries",
    "load_suite",
    "load_suites",
    "loaded_case",
    "read_suite",
    "register",
    "resolve_check",
    "run_check",
    "run_checks",
    "system",
    "user",
    "write_snapshot",
]
