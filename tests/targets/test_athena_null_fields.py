"""``null`` where Athena's schema has an optional list or dict reads as the empty one: the
modeling module's ``ModelingFeedback.element_ids`` is ``Optional[List[str]]``, and a
feedback item with ``"elementIds": null`` must be read (as no element), not fail the case.
The same for an item's ``meta: null`` and ``meta.llmRequests: null``; a value of another
type is still refused."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from pydantic import ValidationError
from tests.support.scripted_server import Reply, ScriptedServer, feedback_item

from eunomia.athena._contract import AthenaFeedback, FeedbackResponse
from eunomia.models._http_config import HttpEndpoint
from eunomia.scenarios import Scenario, load_scenario
from eunomia.targets.athena import AthenaTarget
from eunomia.targets.http import HttpTarget

SCENARIO_DIR = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "project_management"


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    loaded, diags = load_scenario(SCENARIO_DIR)
    assert loaded is not None, diags
    return loaded


@pytest.mark.parametrize("key", ["elementIds", "element_ids"])
def test_null_element_ids_are_no_element_ids(key: str) -> None:
    item = AthenaFeedback.model_validate({"credits": 1.0, key: None, "meta": None})
    assert item.element_ids == [] and item.meta == {}
    assert item.wire()["elementIds"] == []
    meta = FeedbackResponse.model_validate({"data": [], "meta": {"llmRequests": None}}).meta
    assert meta.llm_requests == []


@pytest.mark.parametrize("bad", ["el-1", {"a": 1}, [None], 3])
def test_element_ids_of_another_type_are_still_refused(bad: Any) -> None:
    with pytest.raises(ValidationError):
        AthenaFeedback.model_validate({"elementIds": bad})


async def test_an_athena_answer_with_null_element_ids_is_read(
        scripted_server: ScriptedServer, scenario: Scenario) -> None:
    case = scenario.test_cases[0]
    items = [{**feedback_item(3), "elementIds": None},
             {**feedback_item(4), "elementIds": ["el-9"], "meta": None}]
    scripted_server.script(case.submission_id, Reply(200, {
        "data": items, "meta": {"llmRequests": None}}))
    target = AthenaTarget(scripted_server.url)
    try:
        got = await target.feedback(scenario, case)
    finally:
        await target.close()
    assert [(f.structured_grading_instruction_id, f.element_ids) for f in got.feedback] == [
        (3, []), (4, ["el-9"])]
    assert got.usage == []


@pytest_asyncio.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    async with ScriptedServer(key=lambda r: (r.json or {}).get("id")) as started:
        yield started


async def test_a_mapped_element_ids_field_that_is_null_is_no_element_ids(
        server: ScriptedServer, scenario: Scenario) -> None:
    case = scenario.test_cases[0]
    server.script(case.submission_id, Reply(json={"comments": [
        {"text": "a", "rubric_item": 3, "elements": None},
        {"text": "b", "rubric_item": 4, "elements": ["el-1", "el-2"]}]}))
    endpoint = HttpEndpoint.model_validate({
        "url": server.base_url + "/review", "body": {"id": "{{ submission.id }}"},
        "feedback": {"items": "$.comments", "fields": {
            "description": "$.text", "structured_grading_instruction_id": "$.rubric_item",
            "element_ids": "$.elements"}}})
    target = HttpTarget(endpoint, "http:reviewer")
    try:
        got = await target.feedback(scenario, case)
    finally:
        await target.close()
    assert [(f.description, f.element_ids) for f in got.feedback] == [
        ("a", []), ("b", ["el-1", "el-2"])]
