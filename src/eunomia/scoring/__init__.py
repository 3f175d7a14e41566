"""Scoring: per test case (SGI comparison) and across the cases of a scenario."""

from eunomia.scoring._consistency import CaseConsistency, ConsistencySummary, case_consistency
from eunomia.scoring._metered import metering_json
from eunomia.scoring._outcome import CaseOutcome, CaseStatus, build_outcome
from eunomia.scoring._sgi import CaseScore, CriterionResult, MismatchPair, score_case
from eunomia.scoring._summary import (
    CriterionStats,
    Failure,
    InstructionStats,
    ScenarioSummary,
)

__all__ = [
    "CaseConsistency",
    "CaseOutcome",
    "CaseScore",
    "CaseStatus",
    "ConsistencySummary",
    "CriterionResult",
    "CriterionStats",
    "Failure",
    "InstructionStats",
    "MismatchPair",
    "ScenarioSummary",
    "build_outcome",
    "case_consistency",
    "metering_json",
    "score_case",
]
