"""The Athena feedback-module HTTP contract: request and response models."""

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

__all__ = [
    "AthenaExercise",
    "AthenaFeedback",
    "AthenaGradingCriterion",
    "AthenaGradingInstruction",
    "AthenaSubmission",
    "FeedbackRequest",
    "FeedbackResponse",
    "LLMRequestUsage",
    "ResponseMeta",
    "parse_feedback_response",
]
