"""Judged task suites: the YAML format, loading, categories (summarization, context
retention...) with their runners, deterministic checks and the results of a case.

Load with :func:`load_suites`; the kinds over task suites (``eunomia.kinds.tasks``,
``judge_check``, ``pairwise``) run them, each with its own summary.
"""

from eunomia.tasks._altered import altered_answers
from eunomia.tasks._context import CaseContext, assistant, system, user
from eunomia.tasks._controls import (
    CONTROL_KINDS,
    ControlAnswer,
    ControlKind,
    case_reference,
    content_free,
    control_sample,
    load_templates,
    other_reference,
    other_references,
    suite_controls,
)
from eunomia.tasks._facts import (
    ALTERED_KINDS,
    FACT_KINDS,
    Altered,
    AlteredKind,
    Built,
    Skipped,
    fact_altered,
)
from eunomia.tasks._form import form_ignored
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
    "ALTERED_KINDS",
    "CHECKS",
    "CONTROL_KINDS",
    "FACT_KINDS",
    "SNAPSHOT_FORMAT",
    "Altered",
    "AlteredKind",
    "Answer",
    "Built",
    "CallRecord",
    "CaseContext",
    "CaseMeta",
    "CaseRecord",
    "CaseResult",
    "CaseStatus",
    "Check",
    "CheckResult",
    "CheckSpec",
    "ControlAnswer",
    "ControlKind",
    "Entry",
    "LoadedCase",
    "Role",
    "Skipped",
    "SpeedResult",
    "StoredCases",
    "TaskCase",
    "TaskCategory",
    "TaskSuite",
    "Turn",
    "TurnResult",
    "altered_answers",
    "assistant",
    "case_reference",
    "categories",
    "category_for",
    "category_named",
    "content_free",
    "control_sample",
    "count_words",
    "discover",
    "fact_altered",
    "form_ignored",
    "iter_entries",
    "load_suite",
    "load_suites",
    "load_templates",
    "loaded_case",
    "other_reference",
    "other_references",
    "read_suite",
    "register",
    "resolve_check",
    "run_check",
    "run_checks",
    "suite_controls",
    "system",
    "user",
    "write_snapshot",
]
