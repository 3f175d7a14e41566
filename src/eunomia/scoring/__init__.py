"""Scoring: per test case (SGI comparison) and across the cases of a scenario."""

from eunomia.scoring._consistency import CaseConsistency, ConsistencySummary, case_consistency
from eunomia.scoring._credits import (
    CasePoints,
    CreditCheck,
    CreditDisagreement,
    artemis_total,
    case_points,
)
from eunomia.scoring._outcome import CaseOutcome, CaseStatus, build_outcome
from eunomia.scoring._points_out import case_points_json, points_json, points_rows
from eunomia.scoring._sgi import CaseScore, CriterionResult, MismatchPair, score_case
from eunomia.scoring._summary import (
    CriterionStats,
    Failure,
    InstructionStats,
    ScenarioSummary,
)
from eunomia.scoring._tutor import (
    AgreementPair,
    TutorAgreement,
    agreement,
    correlation_text,
    interval_text,
    tutor_agreement,
)

__all__ = [
    "AgreementPair",
    "CaseConsistency",
    "CaseOutcome",
    "CasePoints",
    "CaseScore",
    "CaseStatus",
    "ConsistencySummary",
    "CreditCheck",
    "CreditDisagreement",
    "CriterionResult",
    "CriterionStats",
    "Failure",
    "InstructionStats",
    "MismatchPair",
    "ScenarioSummary",
    "TutorAgreement",
    "agreement",
    "artemis_total",
    "build_outcome",
    "case_consistency",
    "case_points",
    "case_points_json",
    "correlation_text",
    "interval_text",
    "points_json",
    "points_rows",
    "score_case",
    "tutor_agreement",
]
