"""Comparing two runs: per-case changes, paired tests, a verdict usable as a CI gate."""

from __future__ import annotations

from typing import TYPE_CHECKING

from eunomia.compare._kind import CaseFacts, ComparedKind, RunFacts
from eunomia.lazy import lazy_names

if TYPE_CHECKING:
    from eunomia.compare._compare import compare_runs
    from eunomia.compare._facts import Agg, facts_only
    from eunomia.compare._metrics import paired_overall
    from eunomia.compare._model import (
        CHANGE_KINDS,
        CaseChange,
        ChangeKind,
        Comparison,
        CriterionChange,
        CriterionDelta,
        MetricDelta,
        OverallDelta,
        RunRef,
        Signal,
        Verdict,
        VerdictKind,
        comparison_to_json,
    )

# lazy: what a kind tells a comparison is light (_kind); the comparison (statistics, numpy)
# loads when a command compares
__getattr__ = lazy_names(__name__, {
    "_compare": ("compare_runs",),
    "_facts": ("Agg", "facts_only"),
    "_metrics": ("paired_overall",),
    "_model": ("CHANGE_KINDS", "CaseChange", "ChangeKind", "Comparison", "CriterionChange",
               "CriterionDelta", "MetricDelta", "OverallDelta", "RunRef", "Signal", "Verdict",
               "VerdictKind", "comparison_to_json"),
})

__all__ = [
    "CHANGE_KINDS",
    "Agg",
    "CaseChange",
    "CaseFacts",
    "ChangeKind",
    "ComparedKind",
    "Comparison",
    "CriterionChange",
    "CriterionDelta",
    "MetricDelta",
    "OverallDelta",
    "RunFacts",
    "RunRef",
    "Signal",
    "Verdict",
    "VerdictKind",
    "compare_runs",
    "comparison_to_json",
    "facts_only",
    "paired_overall",
]
