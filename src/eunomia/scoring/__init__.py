"""Scoring: per test case (SGI comparison) and across the cases of a scenario."""

from eunomia.scoring._by_change import (
    NO_CHANGE,
    ChangeRow,
    LocalizationRow,
    case_diff,
    case_diffs,
    groups_of,
    localization,
    named_elements,
    rates_by_change,
)
from eunomia.scoring._consistency import CaseConsistency, ConsistencySummary, case_consistency
from eunomia.scoring._outcome import CaseOutcome, CaseStatus, build_outcome
from eunomia.scoring._sgi import CaseScore, CriterionResult, MismatchPair, score_case
from eunomia.scoring._summary import (
    CriterionStats,
    Failure,
    InstructionStats,
    ScenarioSummary,
    score_interval,
)

__all__ = [
    "NO_CHANGE",
    "CaseConsistency",
    "CaseOutcome",
    "CaseScore",
    "CaseStatus",
    "ChangeRow",
    "ConsistencySummary",
    "CriterionResult",
    "CriterionStats",
    "Failure",
    "InstructionStats",
    "LocalizationRow",
    "MismatchPair",
    "ScenarioSummary",
    "build_outcome",
    "case_consistency",
    "case_diff",
    "case_diffs",
    "groups_of",
    "localization",
    "named_elements",
    "rates_by_change",
    "score_case",
    "score_interval",
]
