"""Comparing two runs: per-case changes, paired tests, a verdict usable as a CI gate."""

from eunomia.compare._compare import compare_runs, paired_overall
from eunomia.compare._facts import Agg, CaseFacts, ComparedKind, RunFacts, facts_only
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
