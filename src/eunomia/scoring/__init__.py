"""Scoring: per test case (SGI comparison) and consistency across a case's repeats; the
summary of a scenario run is the scenario kind's (``eunomia.kinds.scenarios``)."""

from eunomia.scoring._by_change import (
    NO_CHANGE,
    ChangeRow,
    KeptCase,
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
from eunomia.scoring._metered import attribution_note, metering_json, tokens_disagree
from eunomia.scoring._outcome import CaseOutcome, CaseStatus, build_outcome
from eunomia.scoring._sgi import CaseScore, CriterionResult, MismatchPair, score_case
from eunomia.scoring._tutor import (
    AgreementPair,
    TutorAgreement,
    agreement,
    correlation_text,
    interval_text,
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
    "KeptCase",
    "LocalizationRow",
    "MismatchPair",
    "TutorAgreement",
    "agreement",
    "artemis_total",
    "attribution_note",
    "build_outcome",
    "case_consistency",
    "case_diff",
    "case_diffs",
    "case_points",
    "correlation_text",
    "groups_of",
    "interval_text",
    "localization",
    "metering_json",
    "named_elements",
    "rates_by_change",
    "score_case",
    "tokens_disagree",
]
