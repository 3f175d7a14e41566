"""Athena's exercise exports (the playground's ``exercise-<n>.json``, the sampled exercises of
its tests, what Artemis exports for Athena), as pydantic models: every value checked where
it enters, every problem a diagnostic naming the file, the key path and what is wrong.

The format, as the files have it: the exercise's fields (``id, course_id, title, type,
max_points, bonus_points, grading_instructions, problem_statement, example_solution`` — an
Apollon diagram as a JSON string, or "" —, ``grading_criteria`` or null, ``meta``), an
optional ``baseline_info`` (who generated the recorded feedback) and ``submissions: [{id,
model (string), text?, score?, feedbacks?, meta}]``. ``score`` is the tutor's result in
percent of ``max_points``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator

from eunomia import defaults
from eunomia.bounds import Credits, Points
from eunomia.errors import Diagnostic, EunomiaError, error
from eunomia.yamlfile import from_validation_error

AthenaId = Annotated[int, Field(ge=0, lt=2**63)]
"""Athena's ids: non-negative integers (a text id is refused, naming it)."""
Percent = Annotated[float, Field(allow_inf_nan=False, ge=0, le=defaults.MAX_POINTS)]


def _none_as_empty_dict(value: Any) -> Any:
    return {} if value is None else value


def _none_as_text(value: Any) -> Any:
    return "" if value is None else value


class ExportInstruction(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: AthenaId
    credits: Credits
    grading_scale: str = ""
    instruction_description: str = ""
    feedback: str = ""

    _v_text = field_validator("grading_scale", "instruction_description", "feedback",
                              mode="before")(_none_as_text)


class ExportCriterion(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: AthenaId
    title: str = ""
    structured_grading_instructions: list[ExportInstruction] = Field(default_factory=list)

    _v_text = field_validator("title", mode="before")(_none_as_text)


class ExportFeedback(BaseModel):
    """A feedback item of a submission (a tutor's, or a system's recorded answer)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    id: int | str | None = None
    title: str = ""
    description: str = ""
    credits: Credits
    grading_instruction_id: AthenaId | None = Field(
        default=None, validation_alias=AliasChoices(
            "grading_instruction_id", "structured_grading_instruction_id",
            "structuredGradingInstructionId", "gradingInstructionId"))
    element_name: str = ""
    reference: str = ""
    element_ids: list[str] = Field(default_factory=list, validation_alias=AliasChoices(
        "element_ids", "elementIds"))
    meta: dict[str, Any] = Field(default_factory=dict)

    _v_text = field_validator("title", "description", "element_name", "reference",
                              mode="before")(_none_as_text)
    _v_meta = field_validator("meta", mode="before")(_none_as_empty_dict)

    @field_validator("element_ids", mode="before")
    @classmethod
    def _ids(cls, value: Any) -> Any:
        return [] if value is None else value


class ExportSubmission(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: AthenaId
    model: str
    """The Apollon diagram as a JSON string."""
    text: str = ""
    """The playground's label of the submission (e.g. ``1.1.1.1 Missing start event``)."""
    score: Percent | None = None
    """The tutor's result, in percent of the exercise's ``max_points``."""
    feedbacks: list[ExportFeedback] = Field(default_factory=list)
    meta: dict[str, Any] = Field(default_factory=dict)

    _v_text = field_validator("text", mode="before")(_none_as_text)
    _v_meta = field_validator("meta", mode="before")(_none_as_empty_dict)

    @field_validator("feedbacks", mode="before")
    @classmethod
    def _feedbacks(cls, value: Any) -> Any:
        return [] if value is None else value

    @field_validator("model")
    @classmethod
    def _diagram(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the submission's model (its Apollon diagram) is empty")
        try:
            data = json.loads(value)
        except ValueError as exc:
            raise ValueError(f"the submission's model is not JSON ({exc})") from None
        if not isinstance(data, dict):
            raise ValueError("the submission's model is not an Apollon diagram (a JSON "
                             f"{type(data).__name__}, not an object)")
        return value


class AthenaExport(BaseModel):
    """One exercise with its submissions."""

    model_config = ConfigDict(extra="allow")

    id: AthenaId
    course_id: AthenaId | None = None
    title: str = Field(min_length=1)
    type: str = "modeling"
    max_points: Points
    bonus_points: Points = 0.0
    grading_instructions: str = ""
    problem_statement: str = ""
    example_solution: str = ""
    grading_criteria: list[ExportCriterion] = Field(default_factory=list)
    meta: dict[str, Any] = Field(default_factory=dict)
    submissions: list[ExportSubmission] = Field(min_length=1)
    baseline_info: dict[str, Any] | None = None
    """Present in Athena's sampled exercises: the feedbacks were generated by this system."""

    _v_text = field_validator("grading_instructions", "problem_statement", "example_solution",
                              mode="before")(_none_as_text)
    _v_meta = field_validator("meta", mode="before")(_none_as_empty_dict)

    @field_validator("bonus_points", mode="before")
    @classmethod
    def _bonus(cls, value: Any) -> Any:
        return 0.0 if value is None else value

    @field_validator("grading_criteria", mode="before")
    @classmethod
    def _criteria(cls, value: Any) -> Any:
        return [] if value is None else value

    @property
    def instruction_ids(self) -> set[int]:
        return {i.id for c in self.grading_criteria for i in c.structured_grading_instructions}


def _checks(export: AthenaExport, path: Path) -> list[Diagnostic]:
    """What the models alone cannot see: ids given twice, scores above what the exercise
    gives, feedback naming an instruction the export does not have."""
    found: list[Diagnostic] = []
    if export.type != "modeling":
        found.append(error(path, f"a {export.type!r} exercise: only modeling exercises "
                                 "(Apollon diagrams) become scenarios", "type"))
    seen: dict[int, int] = {}
    for k, s in enumerate(export.submissions):
        if s.id in seen:
            found.append(error(path, f"submission id {s.id} also at submissions[{seen[s.id]}]",
                               f"submissions[{k}].id"))
        seen.setdefault(s.id, k)
    most = export.max_points + export.bonus_points
    for k, s in enumerate(export.submissions):
        if s.score is None:
            continue
        if export.max_points <= 0:
            found.append(error(path, "a score (percent of max_points) where max_points is 0",
                               f"submissions[{k}].score"))
        elif s.score * export.max_points / 100.0 > most + defaults.SCORE_TOLERANCE:
            found.append(error(path, f"score {s.score:g}% of max_points ({export.max_points:g})"
                                     f" is more than max_points + bonus_points ({most:g})",
                               f"submissions[{k}].score"))
    ids: dict[int, str] = {}
    for ci, c in enumerate(export.grading_criteria):
        for ii, ins in enumerate(c.structured_grading_instructions):
            where = f"grading_criteria[{ci}].structured_grading_instructions[{ii}]"
            if ins.id in ids:
                found.append(error(path, f"instruction id {ins.id} also at {ids[ins.id]}",
                                   f"{where}.id"))
            ids.setdefault(ins.id, where)
    if ids:
        for k, s in enumerate(export.submissions):
            for f, item in enumerate(s.feedbacks):
                if item.grading_instruction_id is not None and \
                        item.grading_instruction_id not in ids:
                    found.append(error(path, f"instruction id {item.grading_instruction_id} is "
                                             "not one of the exercise's grading instructions",
                                       f"submissions[{k}].feedbacks[{f}].grading_instruction_id"))
    return found


def read_export(path: Path) -> tuple[AthenaExport, bytes]:
    """The export at ``path`` and its bytes; :class:`EunomiaError` listing every problem."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise EunomiaError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise EunomiaError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})"
                           ) from None
    except json.JSONDecodeError as exc:
        raise EunomiaError(f"{path} is not JSON: line {exc.lineno} column {exc.colno}: "
                           f"{exc.msg}") from None
    if not isinstance(data, dict):
        raise EunomiaError(f"{path}: an Athena exercise export is a JSON object (the exercise "
                           f"with its submissions), not a {type(data).__name__}")
    try:
        export = AthenaExport.model_validate(data)
    except ValidationError as exc:
        raise EunomiaError(f"cannot import {path}", from_validation_error(path, exc)) from None
    problems = _checks(export, path)
    if problems:
        raise EunomiaError(f"cannot import {path}", problems)
    return export, raw
