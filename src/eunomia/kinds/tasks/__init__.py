"""The judged task-suite kind (``eunomia eval``).

:class:`TaskPlan` is what to run (suites x candidate models, one judge); the kind itself
(:data:`KIND`) validates suite files and exports, prints and ranks their results; its
summary is :class:`TasksSummary`, built a case at a time by :class:`SummaryBuilder`. What
it shares with the other kinds over task suites (model calls, rubrics, candidates,
baselines) is :mod:`eunomia.kinds._task_suites`.
"""

from eunomia.kinds.tasks._controls import (
    CONTROL_WORDS,
    CONTROLS_SETTING,
    CONTROLS_SUFFIX,
    Floor,
    FloorLine,
    StoredControls,
    control_candidates,
    parse_controls,
    parse_sample,
    read_floor,
    stored_controls,
)
from eunomia.kinds.tasks._files import export_tasks, stored_record, stored_summary, task_records
from eunomia.kinds.tasks._kind import TASKS, TaskKind
from eunomia.kinds.tasks._plan import TaskPlan
from eunomia.kinds.tasks._records_out import check_pass_score
from eunomia.kinds.tasks._summary import GroupStat, TasksSummary
from eunomia.kinds.tasks._summary_builder import SummaryBuilder, summarize
from eunomia.kinds.tasks._summary_rows import RepeatConsistency, RepeatStat, SpeedRow
from eunomia.kinds.tasks._tables import suite_yaml
from eunomia.kinds.tasks._terminal import print_tasks_summary, task_row
from eunomia.kinds.tasks._work import TaskJob, case_row, checks_verdict

KIND = TASKS

__all__ = [
    "CONTROLS_SETTING",
    "CONTROLS_SUFFIX",
    "CONTROL_WORDS",
    "KIND",
    "Floor",
    "FloorLine",
    "GroupStat",
    "RepeatConsistency",
    "RepeatStat",
    "SpeedRow",
    "StoredControls",
    "SummaryBuilder",
    "TaskJob",
    "TaskKind",
    "TaskPlan",
    "TasksSummary",
    "case_row",
    "check_pass_score",
    "checks_verdict",
    "control_candidates",
    "export_tasks",
    "parse_controls",
    "parse_sample",
    "print_tasks_summary",
    "read_floor",
    "stored_controls",
    "stored_record",
    "stored_summary",
    "suite_yaml",
    "summarize",
    "task_records",
    "task_row",
]
