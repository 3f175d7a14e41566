"""The ``http`` target on a custom feedback shape, through the whole engine (scheduler, store,
scoring) with :func:`eunomia.api.run_scenarios`, and its answers' failures."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from rich.console import Console
from tests.support.scripted_server import RecordedRequest, Reply, ScriptedServer

from eunomia.api import run_scenarios
from eunomia.kinds.scenarios import load_scenarios
from eunomia.models._http_config import HttpEndpoint
from eunomia.scenarios import Scenario, discover, load_scenario
from eunomia.scheduler import CallError, RetryPolicy, RunOptions
from eunomia.store import RunStore
from eunomia.targets.http import HttpTarget

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
FAST = RunOptions(2, RetryPolicy(retries=1, timeout_s=5.0, backoff_initial_s=0.01,
                                 backoff_max_s=0.02))
CUSTOM = {
    "body": {"task": "{{ exercise.problemStatement }}", "diagram": "{{ submission.model }}",
             "id": "{{ submission.id }}",
             "rubric": "{{ exercise.gradingCriteria | map(attribute='title') | list }}"},
    "feedback": {"items": "$.result.comments", "fields": {
        "description": "$.text", "credits": "$.points",
        "structured_grading_instruction_id": "$.rubric_item", "element_ids": "$.elements"}},
    "usage": {"input_tokens": "$.tokens.prompt", "output_tokens": "$.tokens.completion",
              "model": "$.engine"},
}


@pytest_asyncio.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    def key(request: RecordedRequest) -> Any:  # the custom body's id, else Athena's
        return (request.json or {}).get("id") or request.submission_id

    async with ScriptedServer(key=key) as started:
        yield started


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    loaded, problems = load_scenario(EXAMPLES / "project_management")
    assert loaded is not None, problems
    return loaded


def _target(server: ScriptedServer, **config: Any) -> HttpTarget:
    endpoint = HttpEndpoint.model_validate({"url": server.base_url + "/review", **config})
    return HttpTarget(endpoint, "http:reviewer")


def _answer(sgi_ids: list[int], **extra: Any) -> Reply:
    return Reply(json={
        "result": {"comments": [{"text": f"about {i}", "points": 1.0, "rubric_item": i,
                                 "elements": ["el-1", "el-2"]} for i in sgi_ids]},
        "tokens": {"prompt": 400, "completion": 40}, "engine": "gpt-4o-mini", **extra})


async def test_a_custom_feedback_shape_through_the_engine(
        server: ScriptedServer, scenario: Scenario, tmp_path: Path) -> None:
    cases = scenario.test_cases[:2]
    criteria = scenario.athena_exercise().grading_criteria
    first_sgi = criteria[0].structured_grading_instructions[0].id
    server.script(cases[0].submission_id, _answer([first_sgi]))
    server.script(cases[1].submission_id, Reply(json={"result": {"note": "no comments"}}))
    loaded, _ = load_scenarios(discover([EXAMPLES / "project_management"])[0])
    target = _target(server, **CUSTOM)
    report = await run_scenarios(loaded, target, run_name="custom", results_dir=tmp_path,
                                 options=FAST, console=Console(quiet=True),
                                 settings={"paths": [str(EXAMPLES)]})
    sent = server.requests_for(cases[0].submission_id)
    assert len(sent) == 1
    body = sent[0].json
    assert body["task"] == scenario.exercise.problem_statement
    assert json.loads(body["diagram"]) == json.loads(cases[0].submission)
    assert body["rubric"] == [c.title for c in criteria]
    db = RunStore(tmp_path / "eunomia.db")
    try:
        rows = {r.case_name: r for r in db.iter_cases(db.require_run("custom"))}
        ok = rows[cases[0].name]
        stored = db.get_json(ok.response or "")
    finally:
        db.close()
    assert ok.status == "scored", ok.error
    assert (ok.input_tokens, ok.output_tokens) == (400, 40)
    item = stored["feedback"][0]
    assert item["structuredGradingInstructionId"] == first_sgi
    assert item["elementIds"] == ["el-1", "el-2"] and item["credits"] == 1.0
    assert stored["usage"][0]["model"] == "gpt-4o-mini"
    failed = rows[cases[1].name]
    assert failed.status == "failed" and failed.attempts == 1
    assert "the feedback path $.result.comments found nothing" in (failed.error or "")
    assert report is not None


async def test_items_that_do_not_fit_fail_clearly(server: ScriptedServer,
                                                  scenario: Scenario) -> None:
    case = scenario.test_cases[0]
    target = _target(server, **CUSTOM)
    try:
        server.script(case.submission_id, Reply(json={"result": {"comments": [
            {"text": "x", "points": "lots"}]}}))
        with pytest.raises(CallError) as caught:
            await target.feedback(scenario, case)
        assert "feedback item 0 credits:" in caught.value.reason and "lots" in caught.value.reason
        assert not caught.value.retryable
        server.script(case.submission_id, Reply(json={"result": {"comments": []}}))
        empty = await target.feedback(scenario, case)
        assert empty.feedback == []  # an empty list is no feedback, not a failure
    finally:
        await target.close()


async def test_athena_items_and_events(server: ScriptedServer, scenario: Scenario) -> None:
    case = scenario.test_cases[0]
    events = [{"data": [{"title": "a", "structuredGradingInstructionId": 1}]},
              {"data": [{"title": "b", "structured_grading_instruction_id": 2}]},
              {"meta": {"llmRequests": [{"model": "m", "numInputTokens": 5,
                                         "numOutputTokens": 1}]}}]
    stream = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    server.script(case.submission_id, Reply(text=stream))
    target = _target(server, body="{{ request }}", format="sse",
                     feedback={"items": "$.data"}, usage={"items": "$.meta.llmRequests"})
    try:
        got = await target.feedback(scenario, case)
    finally:
        await target.close()
    assert [(f.title, f.structured_grading_instruction_id) for f in got.feedback] == [
        ("a", 1), ("b", 2)]
    assert [(u.model, u.num_input_tokens, u.num_output_tokens) for u in got.usage] == [
        ("m", 5, 1)]
    sent = server.requests[-1].json
    assert set(sent) == {"exercise", "submission", "isGraded"}
    assert sent["submission"]["id"] == case.submission_id


def test_the_identity_follows_the_config_not_the_secret(
        server: ScriptedServer, scenario: Scenario) -> None:
    endpoint = HttpEndpoint.model_validate({
        "url": "https://r.example.com/review", "headers": {"X-Key": "${R_KEY}"}, **CUSTOM})
    one = HttpTarget(endpoint, "http:r", environ={"R_KEY": "first-secret"})
    two = HttpTarget(endpoint, "http:r", environ={"R_KEY": "second-secret"})
    other = HttpTarget(endpoint.model_copy(update={"body": {"only": "{{ submission.id }}"}}),
                       "http:r", environ={"R_KEY": "first-secret"})
    assert one.cache_identity == two.cache_identity  # a new key asks nothing anew
    assert "first-secret" not in one.cache_identity
    assert other.cache_identity != one.cache_identity  # a new template does
    case = scenario.test_cases[0]
    described = one.describe_request(scenario, case)
    assert b"first-secret" not in described and b"https://r.example.com/review" in described
    assert one.cache_across_runs is False
    assert HttpTarget(endpoint.model_copy(update={"cache_across_runs": True}), "http:r",
                      environ={"R_KEY": "k"}).cache_across_runs is True
