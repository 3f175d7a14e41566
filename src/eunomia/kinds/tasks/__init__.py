"""The judged task-suite kind (``eunomia eval``).

:class:`TaskPlan` is what to run (suites x candidate models, one judge); the kind itself
(:data:`KIND`) validates suite files and exports, prints and ranks their results.
"""

from eunomia.kinds.tasks._baselines import (
    NOT_APPLICABLE,
    BaselineAnswer,
    baseline_of,
    selected_answers,
)
from eunomia.kinds.tasks._calls import ModelCaller, chat_attempt
from eunomia.kinds.tasks._files import export_tasks, stored_record, stored_summary, task_records
from eunomia.kinds.tasks._judge_check import StoredCheck, StoredVerdict, stored_check
from eunomia.kinds.tasks._kind import TASKS, TaskKind
from eunomia.kinds.tasks._plan import NO_JUDGE, Candidate, TaskPlan, price_table
from eunomia.kinds.tasks._suites import Guidance, suite_rubrics
from eunomia.kinds.tasks._tables import suite_yaml
from eunomia.kinds.tasks._terminal import print_tasks_summary, task_row
from eunomia.kinds.tasks._work import (
    ModelContext,
    case_row,
    checks_verdict,
    invalid_cases,
    selected_entries,
)

KIND = TASKS

__all__ = [
    "KIND",
    "NOT_APPLICABLE",
    "NO_JUDGE",
    "BaselineAnswer",
    "Candidate",
    "Guidance",
    "ModelCaller",
    "ModelContext",
    "StoredCheck",
    "StoredVerdict",
    "TaskKind",
    "TaskPlan",
    "baseline_of",
    "case_row",
    "chat_attempt",
    "checks_verdict",
    "export_tasks",
    "invalid_cases",
    "price_table",
    "print_tasks_summary",
    "selected_answers",
    "selected_entries",
    "stored_check",
    "stored_record",
    "stored_summary",
    "suite_rubrics",
    "suite_yaml",
    "task_records",
    "task_row",
]
