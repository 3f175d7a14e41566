"""Evaluation kinds: everything kind-specific about a run, one folder per kind.

``scenarios/`` (structured-grading scenarios, ``eunomia run``), ``tasks/`` (judged task
suites, ``eunomia eval``), ``judge_check/`` (can a judge tell good from bad answers,
``eunomia judge-check``) and ``pairwise/`` (``eunomia eval --pairwise``). What a kind
implements is its :class:`Plan`, its per-case work (:class:`TargetRun`) and its summary
(:class:`Kind`); the rest has defaults (``_base.py``). The engine (:mod:`eunomia.run`)
runs any of them the same way.
"""

from eunomia.kinds._base import (
    READ_ERRORS,
    DoneKeys,
    Exported,
    Finished,
    Item,
    Job,
    Kind,
    LiveExport,
    NoFacts,
    Part,
    Plan,
    PlanTargets,
    RunContext,
    Selection,
    Session,
    Summary,
    Summary_co,
    TargetRun,
    Validation,
    guarded_rows,
)
from eunomia.kinds._memo import RunMemo
from eunomia.kinds._neutral import neutral_record, neutral_row, neutral_rows
from eunomia.kinds._registry import KINDS, all_kinds, kind_named, kinds_for

__all__ = [
    "KINDS",
    "READ_ERRORS",
    "DoneKeys",
    "Exported",
    "Finished",
    "Item",
    "Job",
    "Kind",
    "LiveExport",
    "NoFacts",
    "Part",
    "Plan",
    "PlanTargets",
    "RunContext",
    "RunMemo",
    "Selection",
    "Session",
    "Summary",
    "Summary_co",
    "TargetRun",
    "Validation",
    "all_kinds",
    "guarded_rows",
    "kind_named",
    "kinds_for",
    "neutral_record",
    "neutral_row",
    "neutral_rows",
]
