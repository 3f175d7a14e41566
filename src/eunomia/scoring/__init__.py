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
from eunomia.scoring._credits import (
    CasePoints,
    CreditCheck,
    CreditDisagreement,
    artemis_total,
    case_points,
)
from eunomia.scoring._metered import metering_json
from eunomia.scoring._outcome import CaseOutcome, CaseStatus, build_outcome
from eunomia.scoring._points_out import case_points_json, points_json, points_rows
from eunomia.scoring._sgi import CaseScore, CriterionResult, MismatchPair, score_case
from eunomia.scoring._summary import (
    CriterionStats,
    Failure,
    InstructionStats,
    ScenarioSummary,
    score_interval,
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
    "NO_CHANGE",
    "AgreementPair",
    "CaseConsistency",
    "CaseOutcome",
    "CasePoints",
    "CaseScore",
    "CaseStatus",
    "ChangeRow",
    "ConsistencySummary",
    "CreditCheck",
    "CreditDisagreement",
    "CriterionResult",
    "CriterionStats",
    "Failure",
    "InstructionStats",
    "LocalizationRow",
    "MismatchPair",
    "ScenarioSummary",
    "TutorAgreement",
    "agreement",
    "artemis_total",
    "build_outcome",
    "case_consistency",
    "case_diff",
    "case_diffs",
    "case_points",
    "case_points_json",
    "correlation_text",
    "groups_of",
    "interval_text",
    "localization",
    "metering_json",
    "named_elements",
    "points_json",
    "points_rows",
    "rates_by_change",
    "score_case",
    "score_interval",
    "tutor_agreement",
]
