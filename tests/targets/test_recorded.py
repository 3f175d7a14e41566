"""The ``recorded`` target: a case's recorded feedback replayed, never an empty answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.scenarios.test_case_data import graded_manifest
from tests.scenarios.test_loader import load_ok, write_scenario

from eunomia.errors import EunomiaError
from eunomia.scenarios import Scenario
from eunomia.scheduler import CallError
from eunomia.targets import TargetConfig, build_target
from eunomia.targets.recorded import RecordedTarget


@pytest.fixture
def scenario(tmp_path: Path) -> Scenario:
    return load_ok(write_scenario(tmp_path, graded_manifest()))


async def test_the_recorded_items_are_replayed(scenario: Scenario) -> None:
    target = build_target("recorded", TargetConfig())
    assert isinstance(target, RecordedTarget) and target.name == "recorded"
    case = scenario.case_named("perfect")
    assert case is not None
    answer = await target.feedback(scenario, case)
    first, second = answer.feedback
    assert (first.title, first.credits, first.structured_grading_instruction_id) == (
        "Classes", 1.0, scenario.by_textual_id["classes_correct"].id)
    assert first.meta == {"element": "Project"}
    assert (second.credits, second.structured_grading_instruction_id) == (-0.5, None)
    assert second.meta == {"grading_instruction_id": 7}
    assert {f.submission_id for f in answer.feedback} == {case.submission_id}
    assert answer.raw == {"recorded": "gpt-4o via Athena"}
    assert answer.usage == []  # nothing measured: the cost of these answers is not known


async def test_a_case_without_records_fails_with_its_reason(scenario: Scenario) -> None:
    case = scenario.case_named("association")
    assert case is not None
    with pytest.raises(CallError) as raised:
        await RecordedTarget().feedback(scenario, case)
    assert not raised.value.retryable
    assert "'association' has no recorded feedback" in raised.value.reason
    assert "cases.association.recorded" in raised.value.reason


async def test_the_tutors_feedback_can_be_replayed(scenario: Scenario) -> None:
    target = build_target("recorded:tutor", TargetConfig())
    assert target.name == "recorded:tutor"
    perfect, association = scenario.case_named("perfect"), scenario.case_named("association")
    assert perfect is not None and association is not None
    answer = await target.feedback(scenario, perfect)
    assert [(f.title, f.credits) for f in answer.feedback] == [("Fine", 2.0)]
    with pytest.raises(CallError, match=r"tutor\.feedback"):
        await target.feedback(scenario, association)  # a grade, no feedback


def test_the_stored_request_carries_the_diagram_and_the_records(scenario: Scenario) -> None:
    target = RecordedTarget()
    case = scenario.case_named("perfect")
    assert case is not None
    body = json.loads(target.describe_request(scenario, case))
    assert body["submission"]["model"] == case.submission  # reports draw the diagram
    assert body["recordedFeedback"]["source"] == "gpt-4o via Athena"
    assert [f["credits"] for f in body["recordedFeedback"]["feedback"]] == [1.0, -0.5]
    other = scenario.case_named("association")
    assert other is not None
    assert "recordedFeedback" not in json.loads(target.describe_request(scenario, other))


def test_an_unknown_source_is_refused() -> None:
    with pytest.raises(EunomiaError, match="recorded:tutor"):
        build_target("recorded:gpt", TargetConfig())
