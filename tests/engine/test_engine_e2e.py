"""The engine end to end through the real ``openai`` provider, against a fake chat server.

(a) ``LLMTarget`` on the example scenario through ``run_scenarios``;
(b) the ``eunomia serve`` app on 127.0.0.1, evaluated through ``AthenaTarget``;
plus the HTTP error mapping of the module app and the retry of unusable answers.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from tests.engine.fake_chat import EXAMPLE, FAKE_MODEL, FakeChatServer

from eunomia.api import CaseSelection, RunOptions, RunReport, load_all, run_scenarios
from eunomia.athena import AthenaFeedback, FeedbackRequest, LLMRequestUsage
from eunomia.athena.server import create_module_app, start_module_server
from eunomia.llm_feedback import FeedbackEngine
from eunomia.llm_feedback.server import start_engine_server
from eunomia.models import get_model
from eunomia.scenarios import Scenario, discover
from eunomia.scheduler import CallError, RetryPolicy
from eunomia.targets import FeedbackTarget, TargetConfig, build_target
from eunomia.targets.athena import AthenaTarget
from eunomia.targets.llm import LLMTarget

FAST = RetryPolicy(retries=2, timeout_s=10.0, backoff_initial_s=0.01, backoff_max_s=0.02)
SPEC = f"openai:{FAKE_MODEL}"


async def _run(target: FeedbackTarget | list[FeedbackTarget], results: Path,
               cases: tuple[str, ...] = ()) -> RunReport:
    sources, problems = discover([EXAMPLE.parent])
    assert not problems
    loaded, _ = load_all(sources)
    return await run_scenarios(
        loaded, target, run_name="r1", results_dir=results,
        options=RunOptions(4, FAST), selection=CaseSelection(cases),
    )


def _scenario_results(results: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (results / "r1" / "project_management" / "scenario_results.json").read_text("utf-8"))
    return data


async def test_llm_target_on_the_example_scenario(
    fake_chat: FakeChatServer, no_model_config: Path, tmp_path: Path,
    example_scenario: Scenario,
) -> None:
    target = LLMTarget(SPEC)
    assert target.name == f"llm:{SPEC}" and target.max_concurrency is None
    report = await _run(target, tmp_path / "results")
    assert report.failed_cases == 0
    data = _scenario_results(tmp_path / "results")
    assert (data["total_cases"], data["scored_cases"], data["fully_correct_cases"]) == (14, 14, 14)
    assert data["average_test_case_score"] == pytest.approx(100.0)
    assert (data["input_tokens"], data["output_tokens"]) == (14 * 1000, 14 * 100)

    assert len(fake_chat.requests) == 14
    systems = {r["messages"][0]["content"] for r in fake_chat.requests}
    assert len(systems) == 1  # one shared prefix for the whole scenario
    body = fake_chat.requests[0]
    assert body["model"] == FAKE_MODEL and body["temperature"] == 0.0
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["multiplicities"]["properties"]["instruction"]["enum"] == [
        "6", "7"]


async def test_llm_target_feedback_items_and_usage(
    fake_chat: FakeChatServer, no_model_config: Path, example_scenario: Scenario
) -> None:
    target = LLMTarget(SPEC)
    await target.open()
    try:
        case = next(c for c in example_scenario.test_cases if c.name == "composition_reversed")
        response = await target.feedback(example_scenario, case)
    finally:
        await target.close()
    assert [f.structured_grading_instruction_id for f in response.feedback] == [
        1, 4, 6, 8, 10, 12, 14]
    item = response.feedback[1]
    assert item.title == "Project-Task Relationship Type"
    assert item.description == "project_task_relationship_type looks like instruction 4."
    assert item.credits == 1.0
    assert (item.exercise_id, item.submission_id) == (example_scenario.exercise.id,
                                                      case.submission_id)
    (usage,) = response.usage
    assert (usage.model, usage.num_input_tokens, usage.num_output_tokens,
            usage.num_cached_input_tokens) == (FAKE_MODEL, 1000, 100, 800)
    assert response.raw["project_task_relationship_type"]["instruction"] == "4"
    assert response.latency_s > 0


async def test_unusable_answers_fail_the_case_after_retries(
    fake_chat: FakeChatServer, no_model_config: Path, tmp_path: Path,
) -> None:
    fake_chat.overrides["extra_class"] = json.dumps({"required_classes": {
        "feedback": "?", "instruction": "42"}})
    fake_chat.overrides["missing_attributes"] = "I think the diagram is fine."
    report = await _run(LLMTarget(SPEC), tmp_path / "results",
                        ("extra_class", "missing_attributes", "perfect_solution"))
    assert report.failed_cases == 2
    data = _scenario_results(tmp_path / "results")
    failures = {f["test_case"]: f for f in data["failures"]}
    assert set(failures) == {"extra_class", "missing_attributes"}
    assert all(f["attempts"] == 3 for f in failures.values())  # retried, then failed
    assert "unusable answer" in failures["extra_class"]["reason"]
    assert "unusable answer" in failures["missing_attributes"]["reason"]
    names = [fake_chat.case_of(r["messages"][-1]["content"]) for r in fake_chat.requests]
    assert names.count("extra_class") == 3


async def test_engine_maps_its_own_tolerant_reading(
    fake_chat: FakeChatServer, no_model_config: Path, example_scenario: Scenario
) -> None:
    """An answer in a code fence, with an empty feedback sentence, still maps to the SGIs."""
    from tests.engine.test_prompt import _request

    answer = fake_chat.oracle(example_scenario.test_cases[0].name,
                              {"properties": {k: {"properties": {"instruction": {"enum": e}}}
                                              for k, e in _enums().items()}})
    answer["multiplicities"]["feedback"] = ""
    fake_chat.overrides[example_scenario.test_cases[0].name] = (
        "Here you go:\n```json\n" + json.dumps(answer) + "\n```")
    provider = get_model(SPEC)
    try:
        engine = FeedbackEngine(provider)
        feedback, usage = await engine.grade(_request(example_scenario))
    finally:
        await provider.close()
    assert [f.structured_grading_instruction_id for f in feedback] == [1, 5, 6, 8, 10, 12, 14]
    # no sentence from the model: the SGI's own feedback is used
    assert feedback[2].description == example_scenario.instructions[6].feedback
    assert usage[0].num_total_tokens == 1100


def _enums() -> dict[str, list[str]]:
    return {"required_classes": ["1", "2"], "project_task_relationship_type": ["3", "4", "5"],
            "multiplicities": ["6", "7"], "task_assignment_to_team_members": ["8", "9"],
            "class_attributes": ["10", "11"], "naming_conventions": ["12", "13"],
            "no_extraneous_elements": ["14", "15"]}


@pytest_asyncio.fixture
async def served(fake_chat: FakeChatServer, no_model_config: Path) -> AsyncIterator[str]:
    provider = get_model(SPEC)
    runner, url = await start_engine_server(FeedbackEngine(provider), "127.0.0.1", 0,
                                            secret="serve-secret-123")
    try:
        yield url
    finally:
        await runner.cleanup()
        await provider.close()


async def test_serve_through_the_athena_target(
    served: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert served.startswith("http://127.0.0.1:") and served.endswith("/feedback_suggestions")
    target = AthenaTarget(served, secret="serve-secret-123")
    report = await _run(target, tmp_path / "results")
    assert report.failed_cases == 0
    data = _scenario_results(tmp_path / "results")
    assert (data["scored_cases"], data["fully_correct_cases"]) == (14, 14)
    assert (data["input_tokens"], data["output_tokens"]) == (14 * 1000, 14 * 100)

    # the manager path wraps the answer; a wrong secret is refused
    manager = served.replace("/feedback_suggestions",
                             "/modules/modeling/module_modeling_llm/feedback_suggestions")
    scenario = load_all(discover([EXAMPLE.parent])[0])[0][0].scenario
    body = AthenaTarget(None).request_body(scenario, scenario.test_cases[0])
    async with aiohttp.ClientSession() as session:
        headers = {"X-Server-URL": "http://localhost", "Authorization": "serve-secret-123",
                   "Content-Type": "application/json"}
        async with session.post(manager, data=body, headers=headers) as r:
            answer = await r.json()
            assert r.status == 200
        assert (answer["module_name"], answer["status"]) == ("module_modeling_llm", 200)
        assert len(answer["data"]) == 7
        assert answer["meta"]["llmRequests"][0]["model"] == FAKE_MODEL
        assert answer["meta"]["totalUsage"] == {
            "numInputTokens": 1000, "numOutputTokens": 100, "numTotalTokens": 1100}
        async with session.post(served, data=body,
                                headers={**headers, "Authorization": "wrong"}) as r:
            assert r.status == 401


async def test_build_target_makes_llm_targets(
    fake_chat: FakeChatServer, no_model_config: Path, tmp_path: Path
) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "user.txt").write_text("Diagram:\n{submission}\n", "utf-8")
    target = build_target(f"llm:{SPEC}", TargetConfig(prompt_dir=tmp_path / "prompts"))
    assert isinstance(target, LLMTarget)
    assert target.prompts.templates.user.path == tmp_path / "prompts" / "user.txt"
    with pytest.raises(Exception, match="llm:<model spec>"):
        build_target("llm:", TargetConfig())
    local = build_target("llm:local:qwen2.5-coder-0.5b", TargetConfig())
    assert isinstance(local, LLMTarget) and local.max_concurrency == 1


async def _grade_raises(exc: Exception) -> str:
    async def grade(_: FeedbackRequest) -> tuple[list[AthenaFeedback], list[LLMRequestUsage]]:
        raise exc

    runner, url = await start_module_server(create_module_app(grade))
    try:
        scenario = load_all(discover([EXAMPLE.parent])[0])[0][0].scenario
        body = AthenaTarget(None).request_body(scenario, scenario.test_cases[0])
        async with aiohttp.ClientSession() as session, session.post(
            url, data=body, headers={"X-Server-URL": "x"}
        ) as r:
            return f"{r.status} {(await r.json())['error']}"
    finally:
        await runner.cleanup()


async def test_module_app_maps_grade_failures_to_5xx() -> None:
    assert await _grade_raises(CallError("model busy", retryable=True)) == (
        "503 grading failed: model busy")
    assert await _grade_raises(CallError("context overflow", retryable=False)) == (
        "500 grading failed: context overflow")
    assert await _grade_raises(KeyError("oops")) == "500 grading failed: KeyError: 'oops'"
