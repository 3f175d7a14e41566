"""The ``manifest.yml`` file format, as pydantic models (the file boundary)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from eunomia.bounds import Credits, OptionalUrl, Points
from eunomia.scenarios._mutations import GeneratedCase


def _as_text_id(value: Any) -> Any:
    # YAML turns ``id: 1`` into an int; textual ids are strings.
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


class ManifestInstruction(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    grading_scale: str = ""
    instruction_description: str = ""
    feedback: str = ""
    credits: Credits

    _v_id = field_validator("id", mode="before")(_as_text_id)


class ManifestCriterion(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    title: str = ""
    instructions: list[ManifestInstruction] | None = None

    _v_id = field_validator("id", mode="before")(_as_text_id)


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


class Manifest(BaseModel):
    model_config = ConfigDict(extra="allow")

    server_url: OptionalUrl = ""
    exercise: ManifestExercise
    criteria: list[ManifestCriterion]
    default_expected: list[str] | None = None
    """The instructions a perfect solution gets; omitted, the scenario is *unlabelled*: its
    cases have no expectations and only what needs none is measured."""
    test_case_diffs: dict[str, dict[str, str] | None] = Field(default_factory=dict)
    """``{default instruction id: {test case name: replacement instruction id}}``."""
    mutations: Any = None
    """``{instruction id: [mutation rule, ...]}`` for ``eunomia mutate`` (checked by
    ``scenarios._mutations``), or in ``mutations.yml`` beside the manifest."""
    generated_cases: dict[str, GeneratedCase] = Field(default_factory=dict)
    """Cases made by ``eunomia mutate``: their seed and mutations."""

    @field_validator("server_url", mode="before")
    @classmethod
    def _url_none(cls, value: Any) -> Any:
        return "" if value is None else value

    @field_validator("test_case_diffs", mode="before")
    @classmethod
    def _diffs_none(cls, value: Any) -> Any:
        if value is None:
            return {}
        if not isinstance(value, dict):
            return value
        return {
            _as_text_id(k): (
                {_as_text_id(c): _as_text_id(r) for c, r in v.items()}
                if isinstance(v, dict) else v
            )
            for k, v in value.items()
        }

    @field_validator("default_expected", mode="before")
    @classmethod
    def _ids_as_text(cls, value: Any) -> Any:
        return [_as_text_id(v) for v in value] if isinstance(value, list) else value
