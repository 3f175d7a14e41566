"""Evaluation kinds: everything kind-specific about a run, one folder per kind.

``scenarios/`` (structured-grading scenarios, ``eunomia run``), ``tasks/`` (judged task
suites, ``eunomia eval``), ``judge_check/`` (can a judge tell good from bad answers,
``eunomia judge-check``) and ``pairwise/`` (``eunomia eval --pairwise``). What a kind
implements is its :class:`Plan`, its per-case work (:class:`TargetRun`) and its summary
(:class:`Kind`); the rest has defaults (``_base.py``). The engine (:mod:`eunomia.run`)
runs any of them the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eunomia.kinds._registry import KINDS, KindEntry, all_kinds, kind_entry, kind_named, kinds_for
from eunomia.lazy import lazy_names

if TYPE_CHECKING:
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

# lazy: the registry is light (``eunomia runs`` names each stored run's command without
# loading its kind); the contract (with the report and statistics it uses) loads with a kind
__getattr__ = lazy_names(__name__, {
    "_base": ("READ_ERRORS", "DoneKeys", "Exported", "Finished", "Item", "Job", "Kind",
              "LiveExport", "NoFacts", "Part", "Plan", "PlanTargets", "RunContext", "Selection",
              "Session", "Summary", "Summary_co", "TargetRun", "Validation", "guarded_rows"),
    "_memo": ("RunMemo",),
    "_neutral": ("neutral_record", "neutral_row", "neutral_rows"),
})

__all__ = [
    "KINDS",
    "READ_ERRORS",
    "DoneKeys",
    "Exported",
    "Finished",
    "Item",
    "Job",
    "Kind",
    "KindEntry",
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
    "kind_entry",
    "kind_named",
    "kinds_for",
    "neutral_record",
    "neutral_row",
    "neutral_rows",
]
