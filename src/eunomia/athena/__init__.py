"""The Athena feedback-module HTTP contract: request and response models."""

from eunomia.athena._bounded import bounded_feedback
from eunomia.athena._contract import (
    AthenaExercise,
    AthenaFeedback,
    AthenaGradingCriterion,
    AthenaGradingInstruction,
    AthenaSubmission,
    FeedbackRequest,
    FeedbackResponse,
    LLMRequestUsage,
    ResponseMeta,
    parse_feedback_response,
)
from eunomia.athena._facts import (
    MANAGER_DEPLOYMENTS,
    V2_HINT,
    is_apollon_v2,
    is_manager_url,
    reported_cost,
    unauthorized_hint,
)
from eunomia.athena._ids import (
    CASE_SLOTS,
    DEFAULT_ID_BASE,
    ID_LIMIT,
    AthenaIds,
    case_index,
    check_id_base,
)

__all__ = [
    "CASE_SLOTS",
    "DEFAULT_ID_BASE",
    "ID_LIMIT",
    "MANAGER_DEPLOYMENTS",
    "V2_HINT",
    "AthenaExercise",
    "AthenaFeedback",
    "AthenaGradingCriterion",
    "AthenaGradingInstruction",
    "AthenaIds",
    "AthenaSubmission",
    "FeedbackRequest",
    "FeedbackResponse",
    "LLMRequestUsage",
    "ResponseMeta",
    "bounded_feedback",
    "case_index",
    "check_id_base",
    "is_apollon_v2",
    "is_manager_url",
    "parse_feedback_response",
    "reported_cost",
    "unauthorized_hint",
]
