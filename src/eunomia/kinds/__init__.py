"""Evaluation kinds: everything kind-specific about a run, one folder per kind.

``scenarios/`` (structured-grading scenarios, ``eunomia run``) and ``tasks/`` (judged task
suites, ``eunomia eval``). What a kind implements is :class:`Kind` and :class:`Plan`
(see ``_base.py``); the engine (:mod:`eunomia.run`) runs any of them the same way.
"""

from eunomia.kinds._base import (
    DoneKeys,
    Exported,
    Finished,
    Kind,
    LiveExport,
    Part,
    Plan,
    RunContext,
    Selection,
    Session,
    TargetRun,
    Validation,
)
from eunomia.kinds._memo import RunMemo
from eunomia.kinds._registry import KINDS, all_kinds, kind_named, kinds_for

__all__ = [
    "KINDS",
    "DoneKeys",
    "Exported",
    "Finished",
    "Kind",
    "LiveExport",
    "Part",
    "Plan",
    "RunContext",
    "RunMemo",
    "Selection",
    "Session",
    "TargetRun",
    "Validation",
    "all_kinds",
    "kind_named",
    "kinds_for",
]
