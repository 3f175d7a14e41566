"""The ``manifest.yml`` file format, as pydantic models (the file boundary)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from eunomia import defaults
from eunomia.bounds import Credits, OptionalUrl, Points, TextId, check_text_id
from eunomia.scenarios._grades import CreditExpectation, parse_credit_expectation
from eunomia.scenarios._mutations import GeneratedCase


class ManifestInstruction(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: TextId
    grading_scale: str = ""
    instruction_description: str = ""
    feedback: str = ""
    credits: Credits


class ManifestCriterion(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: TextId
    title: str = ""
    instructions: list[ManifestInstruction] | None = None


class ManifestExercise(BaseModel):
    """Unknown keys (``course_id`` in real scenarios) are tolerated and ignored."""

    model_config = ConfigDict(extra="allow")

    title: str
    type: str = "modeling"
    max_points: Points
    bonus_points: Points = 0.0
    grading_instructions: str = ""
    problem_statement: str = ""
    example_solution: str | None = None
    """A file name in the scenario folder; its contents are sent as a string."""
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("meta", mode="before")
    @classmethod
    def _meta_none(cls, value: Any) -> Any:
        return {} if value is None else value


Expectation = Annotated[CreditExpectation, BeforeValidator(parse_credit_expectation)]
"""``== 0.0``, ``>= 1.0`` or a number: checked (finite, in range) as the file is read."""
Percent = Annotated[float, Field(allow_inf_nan=False, ge=0, le=defaults.MAX_POINTS)]
"""A tutor's result in percent of ``max_points`` (above 100 only with bonus points)."""


def _empty_dict(value: Any) -> Any:
    return {} if value is None else value


def _text_id_or_none(value: Any) -> Any:
    return None if value is None else check_text_id(value)


class ManifestFeedbackItem(BaseModel):
    """One recorded feedback item (a tutor's, or a system's captured elsewhere)."""

    model_config = ConfigDict(extra="allow")

    title: str = ""
    description: str = ""
    credits: Credits
    instruction: str | None = None
    """The instruction it names (an instruction id of this manifest), if any."""
    element: str = ""
    meta: dict[str, Any] = Field(default_factory=dict)

    _v_instruction = field_validator("instruction", mode="before")(_text_id_or_none)
    _v_meta = field_validator("meta", mode="before")(_empty_dict)


class ManifestRecorded(BaseModel):
    """Feedback a system gave elsewhere: ``--target recorded`` replays it."""

    model_config = ConfigDict(extra="allow")

    source: str = ""
    """Who gave it (e.g. ``azure_openai_gpt-4o through Athena's basic approach``)."""
    feedback: list[ManifestFeedbackItem]


class ManifestTutor(BaseModel):
    """The tutor's grade: ``points``, or ``percent`` of ``max_points``; and feedback."""

    model_config = ConfigDict(extra="allow")

    points: Points | None = None
    percent: Percent | None = None
    feedback: list[ManifestFeedbackItem] | None = None
    source: str = ""


class ManifestCase(BaseModel):
    """What one test case carries beside its diagram (``cases: {<test case>: ...}``)."""

    model_config = ConfigDict(extra="allow")

    expected_credits: dict[TextId, Expectation] | None = None
    """``{instruction id: expectation}``, replacing the scenario's for those instructions."""
    tutor: ManifestTutor | None = None
    recorded: ManifestRecorded | None = None



class Manifest(BaseModel):
    model_config = ConfigDict(extra="allow")

    server_url: OptionalUrl = ""
    exercise: ManifestExercise
    criteria: list[ManifestCriterion]
    default_expected: list[TextId] | None = None
    """The instructions a perfect solution gets; omitted, the scenario is *unlabelled*: its
    cases have no expectations and only what needs none is measured."""
    test_case_diffs: dict[TextId, dict[TextId, TextId] | None] = Field(default_factory=dict)
    """``{default instruction id: {test case name: replacement instruction id}}``."""
    expected_credits: dict[TextId, Expectation] | None = None
    """``{instruction id: expectation}`` on the credits given under it, for every case."""
    cases: dict[TextId, ManifestCase] = Field(default_factory=dict)
    """``{test case name: credit expectations, tutor grade, recorded feedback}``."""
    mutations: Any = None
    """``{instruction id: [mutation rule, ...]}`` for ``eunomia mutate`` (checked by
    ``scenarios._mutations``), or in ``mutations.yml`` beside the manifest."""
    generated_cases: dict[str, GeneratedCase] = Field(default_factory=dict)
    """Cases made by ``eunomia mutate``: their seed and mutations."""

    _v_cases = field_validator("cases", mode="before")(_empty_dict)

    @field_validator("server_url", mode="before")
    @classmethod
    def _url_none(cls, value: Any) -> Any:
        return "" if value is None else value

    @field_validator("test_case_diffs", mode="before")
    @classmethod
    def _diffs_none(cls, value: Any) -> Any:
        return {} if value is None else value
