"""The answer schema built from the grading criteria, and the tolerant reading of answers."""

from __future__ import annotations

import json
from typing import Any

import pytest

from eunomia.athena import AthenaExercise, AthenaGradingCriterion, AthenaGradingInstruction
from eunomia.llm_feedback import AnswerSchema, slug
from eunomia.scenarios import Scenario
from eunomia.scheduler import CallError

KEYS = [
    "required_classes",
    "project_task_relationship_type",
    "multiplicities",
    "task_assignment_to_team_members",
    "class_attributes",
    "naming_conventions",
    "no_extraneous_elements",
]
ENUMS = [["1", "2"], ["3", "4", "5"], ["6", "7"], ["8", "9"], ["10", "11"], ["12", "13"],
         ["14", "15"]]


@pytest.fixture
def schema(example_scenario: Scenario) -> AnswerSchema:
    return AnswerSchema(example_scenario.athena_exercise(), feedback_max_chars=120)


def _walk(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found += _walk(value)
    elif isinstance(node, list):
        for value in node:
            found += _walk(value)
    return found


def test_one_fixed_property_per_criterion_with_an_enum_of_its_sgi_ids(
    schema: AnswerSchema,
) -> None:
    js = schema.json_schema()
    assert js["type"] == "object"
    assert list(js["properties"]) == KEYS
    assert js["required"] == KEYS
    assert js["additionalProperties"] is False
    for key, enum in zip(KEYS, ENUMS, strict=True):
        prop = js["properties"][key]
        assert prop["required"] == ["feedback", "instruction"]
        assert prop["additionalProperties"] is False
        assert prop["properties"]["instruction"] == {"type": "string", "enum": enum}
        assert prop["properties"]["feedback"] == {"type": "string", "maxLength": 120}


def test_no_free_length_arrays_and_no_integer_bounds(schema: AnswerSchema) -> None:
    """llama.cpp's grammar ignores array lengths and integer bounds: none are relied on."""
    for node in _walk(schema.json_schema()):
        assert node.get("type") not in ("array", "integer", "number")
        if node.get("type") == "array":  # pragma: no cover - documents the rule
            assert "maxItems" in node
        assert not {"minimum", "maximum", "minItems"} & set(node)
    json.dumps(schema.json_schema())  # JSON-ready


def test_feedback_length_limit_is_optional(example_scenario: Scenario) -> None:
    js = AnswerSchema(example_scenario.athena_exercise()).json_schema()
    assert js["properties"]["multiplicities"]["properties"]["feedback"] == {"type": "string"}


def test_keys_are_unique_slugs_with_a_fallback() -> None:
    sgi = [AthenaGradingInstruction(id=7, credits=1.0)]
    exercise = AthenaExercise(id=1, title="t", max_points=3, grading_criteria=[
        AthenaGradingCriterion(id=1, title="Naming!", structured_grading_instructions=sgi),
        AthenaGradingCriterion(id=2, title="naming", structured_grading_instructions=sgi),
        AthenaGradingCriterion(id=3, title="???", structured_grading_instructions=sgi),
        AthenaGradingCriterion(id=4, title="No SGIs at all"),
    ])
    assert AnswerSchema(exercise).keys == ["naming", "naming_2", "c3"]
    assert slug("Project-Task Relationship Type") == "project_task_relationship_type"


def test_prompt_lists_every_instruction_with_id_and_credits(schema: AnswerSchema) -> None:
    text = schema.describe()
    assert text.splitlines()[0] == "required_classes:"
    assert '  "4" Composition Reversed (1 pt): Project and Task are related by a composition' \
        in text
    assert schema.answer_format().startswith('{"required_classes": {"feedback": ')


def _answer(ids: list[str]) -> dict[str, Any]:
    return {k: {"feedback": f"about {k}", "instruction": i} for k, i in zip(KEYS, ids,
                                                                             strict=True)}


GOOD = ["1", "5", "6", "8", "10", "12", "14"]


def test_a_good_answer_maps_to_sgis_in_criterion_order(schema: AnswerSchema) -> None:
    choices = schema.parse(_answer(GOOD))
    assert [c.instruction.id for c in choices] == [int(i) for i in GOOD]
    assert [c.slot.criterion.title for c in choices][:2] == [
        "Required Classes", "Project-Task Relationship Type"]
    assert choices[0].feedback == "about required_classes"


def test_tolerated_variants(schema: AnswerSchema) -> None:
    answer: dict[str, Any] = _answer(GOOD)
    answer["required_classes"] = {"instruction": 1, "feedback": None}  # a number, no text
    answer["Project-Task Relationship Type"] = answer.pop("project_task_relationship_type")
    answer["multiplicities"] = "6"  # a bare id
    answer["task_assignment_to_team_members"] = {"id": "#8", "comment": " Good. "}
    answer["class_attributes"] = {"instruction": "Attributes Missing", "feedback": "x"}  # label
    answer["NAMING_CONVENTIONS"] = answer.pop("naming_conventions")
    answer["no_extraneous_elements"] = {"instruction": 14.0, "feedback": "y"}
    choices = schema.parse(answer)
    assert [c.instruction.id for c in choices] == [1, 5, 6, 8, 11, 12, 14]
    assert choices[0].feedback == ""
    assert choices[3].feedback == "Good."


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ([], "expected a JSON object, got list"),
        ({**_answer(GOOD), "multiplicities": {"instruction": "3", "feedback": ""}},
         "criterion 'multiplicities': instruction '3' is not one of its ids 6, 7"),
        ({**_answer(GOOD), "multiplicities": {"instruction": "99"}},
         "instruction '99' is not one of its ids"),
        ({k: v for k, v in _answer(GOOD).items() if k != "class_attributes"},
         "no answer for criterion 'class_attributes'"),
        ({**_answer(GOOD), "class_attributes": {"feedback": "no id"}},
         "criterion 'class_attributes': no instruction id"),
        ({**_answer(GOOD), "class_attributes": ["10"]},
         "criterion 'class_attributes': expected an object, got list"),
        ({**_answer(GOOD), "class_attributes": {"instruction": True}},
         "criterion 'class_attributes'"),
    ],
    ids=["not_object", "other_criterion_id", "unknown_id", "missing_criterion", "no_id",
         "list_value", "bool_id"],
)
def test_unusable_answers_are_retryable_failures_never_guesses(
    schema: AnswerSchema, answer: Any, reason: str
) -> None:
    with pytest.raises(CallError) as info:
        schema.parse(answer)
    assert info.value.retryable is True
    assert reason in info.value.reason
    assert info.value.reason.startswith("unusable answer: ")
