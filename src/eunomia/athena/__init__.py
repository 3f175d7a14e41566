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
from eunomia.athena._module_server import (
    GradeFunction,
    create_module_app,
    module_url,
    start_module_server,
)

__all__ = [
    "AthenaExercise",
    "AthenaFeedback",
    "AthenaGradingCriterion",
    "AthenaGradingInstruction",
    "AthenaSubmission",
    "FeedbackRequest",
    "FeedbackResponse",
    "GradeFunction",
    "LLMRequestUsage",
    "ResponseMeta",
    "create_module_app",
    "module_url",
    "parse_feedback_response",
    "start_module_server",
]
