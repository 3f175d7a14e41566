"""Pydantic models of Athena's ``feedback_suggestions`` request and response.

Fields are written in camelCase on the wire; both camelCase and snake_case are
accepted when reading, because Athena modules and the module manager differ.
Unknown fields are kept (``extra="allow"``) so nothing a server sends is lost.
"""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from eunomia.bounds import Credits, Price, TokenCount


class _Wire(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", frozen=False
    )

    def wire(self) -> dict[str, Any]:
        """The JSON-ready dict in camelCase, as sent over HTTP."""
        return self.model_dump(by_alias=True, mode="json")


def _null_as_empty(value: Any, empty: type[list[Any]] | type[dict[str, Any]]) -> Any:
    """``null`` where Athena's schema has an optional list or dict (e.g. ``elementIds:
    null`` from the modeling module) reads as the empty one; anything else is validated."""
    return empty() if value is None else value


class AthenaGradingInstruction(_Wire):
    id: int
    credits: float
    grading_scale: str = ""
    instruction_description: str = ""
    feedback: str = ""
    usage_count: int = 0


class AthenaGradingCriterion(_Wire):
    id: int
    title: str = ""
    structured_grading_instructions: list[AthenaGradingInstruction] = Field(default_factory=list)


class AthenaExercise(_Wire):
    id: int
    title: str
    type: str = "modeling"
    max_points: float
    bonus_points: float = 0.0
    grading_instructions: str = ""
    problem_statement: str = ""
    example_solution: str | None = None
    grading_criteria: list[AthenaGradingCriterion] = Field(default_factory=list)
    meta: dict[str, Any] = Field(default_factory=dict)


class AthenaSubmission(_Wire):
    id: int
    exercise_id: int
    model: str
    """The Apollon diagram, serialised as a JSON string (an object gives 422 in Athena)."""
    meta: dict[str, Any] = Field(default_factory=dict)


class FeedbackRequest(BaseModel):
    """Body of ``POST .../feedback_suggestions``. ``isGraded`` only works in camelCase."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")

    exercise: AthenaExercise
    submission: AthenaSubmission
    is_graded: bool = Field(default=True, alias="isGraded")

    def wire(self) -> dict[str, Any]:
        return {
            "exercise": self.exercise.wire(),
            "submission": self.submission.wire(),
            "isGraded": self.is_graded,
        }


class AthenaFeedback(_Wire):
    """One feedback item. Everything but the SGI id is optional in practice."""

    id: int | None = None
    title: str | None = None
    description: str | None = None
    credits: Credits = 0.0
    """Finite and within the points an exercise may have: ``NaN`` or ``Infinity`` in an answer
    fails the case (impossible numbers are never read as some plausible one)."""
    structured_grading_instruction_id: int | None = Field(
        default=None,
        validation_alias=AliasChoices(
            "structuredGradingInstructionId",
            "structured_grading_instruction_id",
            "gradingInstructionId",
            "grading_instruction_id",
        ),
    )
    is_graded: bool | None = None
    meta: dict[str, Any] = Field(default_factory=dict)
    exercise_id: int | None = None
    submission_id: int | None = None
    element_ids: list[str] = Field(default_factory=list)
    reference: str | None = None

    @field_validator("element_ids", mode="before")
    @classmethod
    def _element_ids(cls, value: Any) -> Any:
        return _null_as_empty(value, list)

    @field_validator("meta", mode="before")
    @classmethod
    def _meta(cls, value: Any) -> Any:
        return _null_as_empty(value, dict)


class LLMRequestUsage(_Wire):
    """One LLM call a module made, as reported in ``meta.llmRequests``."""

    model: str = "unknown"
    num_input_tokens: TokenCount = 0
    """Whole numbers of at least 0: ``-5``, ``Infinity`` or ``1.5`` fail the case."""
    num_output_tokens: TokenCount = 0
    num_total_tokens: TokenCount | None = None
    num_cached_input_tokens: TokenCount = Field(
        default=0,
        validation_alias=AliasChoices(
            "numCachedInputTokens",
            "num_cached_input_tokens",
            "numInputTokensCached",
            "num_input_tokens_cached",
        ),
    )
    cost_per_million_input_token: Price | None = None
    cost_per_million_output_token: Price | None = None


class ResponseMeta(_Wire):
    llm_requests: list[LLMRequestUsage] = Field(default_factory=list)
    total_usage: dict[str, Any] | None = None

    @field_validator("llm_requests", mode="before")
    @classmethod
    def _llm_requests(cls, value: Any) -> Any:
        return _null_as_empty(value, list)


class FeedbackResponse(BaseModel):
    """Either a module's ``{data, meta}`` or the manager's ``{module_name, status, data, meta}``."""

    model_config = ConfigDict(extra="allow")

    data: list[AthenaFeedback]
    meta: ResponseMeta = Field(default_factory=ResponseMeta)
    module_name: str | None = Field(
        default=None, validation_alias=AliasChoices("module_name", "moduleName")
    )
    status: int | None = None


def parse_feedback_response(payload: Any) -> FeedbackResponse:
    """Validate a decoded JSON body; raises ``pydantic.ValidationError`` on a wrong shape.

    ``meta`` may be null in the wild; it is then treated as empty.
    """
    if isinstance(payload, dict) and payload.get("meta") is None and "meta" in payload:
        payload = {**payload, "meta": {}}
    return FeedbackResponse.model_validate(payload)

