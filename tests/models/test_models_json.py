"""Tolerant JSON extraction from model answers."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eunomia.models import JSONExtractionError, check_required, extract_json, parse_json_answer

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["correct", "incorrect"]},
        "points": {"type": "integer"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}},
                "required": ["id"],
            },
        },
    },
    "required": ["verdict", "points"],
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ("  [1, 2]  ", [1, 2]),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('```\n{"a": 1}\n```', {"a": 1}),
        ('Sure! Here is the grading:\n\n{"a": 1}\n\nLet me know.', {"a": 1}),
        ('{"a": [1, 2,], "b": {"c": 3,},}', {"a": [1, 2], "b": {"c": 3}}),
        ('Note: {not json} but then {"a": "x}y"}', {"a": "x}y"}),
        ('{"a": "comma, inside ,}"}', {"a": "comma, inside ,}"}),
        ('{"a": 1, "b": [1, 2', {"a": 1, "b": [1, 2]}),  # cut at max_tokens
        ('{"a": 1, "b": "unfinished', {"a": 1, "b": "unfinished"}),
        ('{"a": 1, "b":', {"a": 1}),
        ('{"a": 1, "bc', {"a": 1}),
        ('text ```json\n{"a": 1,}\n``` more ```json\n{"b": 2}\n```', {"a": 1}),
        ('"just a string"', "just a string"),
    ],
)
def test_extract_json(text: str, expected: Any) -> None:
    assert extract_json(text) == expected


@pytest.mark.parametrize("text", ["", "   ", "no json at all", "{{{{"])
def test_extract_json_fails_clearly(text: str) -> None:
    with pytest.raises(JSONExtractionError):
        extract_json(text)


def test_check_required() -> None:
    assert check_required({"verdict": "correct", "points": 1}, SCHEMA) == []
    problems = check_required({"points": "1", "items": [{"id": 1}, {}]}, SCHEMA)
    assert "$: missing required key 'verdict'" in problems
    assert "$.points: expected a number, got str" in problems
    assert "$.items[1]: missing required key 'id'" in problems
    assert check_required({"verdict": "maybe", "points": 1}, SCHEMA) == [
        "$.verdict: 'maybe' is not one of ['correct', 'incorrect']"
    ]
    assert check_required([1], SCHEMA) == ["$: expected an object, got list"]
    assert check_required({"points": True, "verdict": "correct"}, SCHEMA) == [
        "$.points: expected a number, got bool"
    ]


def test_parse_json_answer_reports_schema_problems() -> None:
    assert parse_json_answer('```json\n{"verdict": "correct", "points": 2,}\n```', SCHEMA) == {
        "verdict": "correct",
        "points": 2,
    }
    with pytest.raises(JSONExtractionError, match="missing required key 'points'"):
        parse_json_answer('{"verdict": "correct"}', SCHEMA)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12,
)


@given(
    value=st.dictionaries(st.text(max_size=6), json_values, min_size=1, max_size=4),
    prose=st.sampled_from(["", "Here it is: ", "Answer:\n"]),
    fenced=st.booleans(),
    indent=st.sampled_from([None, 2]),
)
def test_round_trip_through_wrapping(
    value: dict[str, Any], prose: str, fenced: bool, indent: int | None
) -> None:
    body = json.dumps(value, indent=indent)
    text = f"{prose}```json\n{body}\n```\nThanks." if fenced else f"{prose}{body}"
    assert extract_json(text) == value


@given(st.text(max_size=200))
def test_never_crashes_on_garbage(text: str) -> None:
    with contextlib.suppress(JSONExtractionError):
        extract_json(text)
