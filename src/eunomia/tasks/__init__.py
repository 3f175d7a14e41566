"""Judged task suites: the YAML format, loading, categories (summarization, context
retention...) with their runners, deterministic checks, results and their summary.

Load with :func:`load_suites`; ``eunomia.kinds.tasks`` runs them; :func:`summarize` (or
:class:`SummaryBuilder`, a case at a time) aggregates the results.
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
from eunomia.tasks._rows import RepeatConsistency, RepeatStat, SpeedRow
from eunomia.tasks._snapshot import (
    SNAPSHOT_FORMAT,
    StoredCases,
    iter_entries,
    loaded_case,
    read_suite,
    write_snapshot,
)
from eunomia.tasks._summary import (
    GroupStat,
    SummaryBuilder,
    TasksSummary,
    summarize,
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
    "GroupStat",
    "LoadedCase",
    "RepeatConsistency",
    "RepeatStat",
    "Role",
    "Skipped",
    "SpeedResult",
    "SpeedRow",
    "StoredCases",
    "SummaryBuilder",
    "TaskCase",
    "TaskCategory",
    "TaskSuite",
    "TasksSummary",
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
    "summarize",
    "system",
    "user",
    "write_snapshot",
]
