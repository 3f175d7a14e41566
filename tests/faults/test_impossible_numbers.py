"""Impossible numbers in an answer are recorded as such (issue 31, point 4): ``credits: NaN``,
``Infinity`` or ``-5`` tokens, a ``NaN`` cost fail the case with a reason naming the field and
the value, never read as null, 0 or a rounded count. Against a scripted server on 127.0.0.1:
an Athena module (through the command line), an OpenAI-compatible model and an ``http:``
system."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.support.cli import run_cli
from tests.support.scripted_server import Reply, ScriptedServer, case_names

from eunomia.athena import parse_feedback_response, reported_cost
from eunomia.models._http_config import HttpEndpoint
from eunomia.models._types import ChatMessage, ChatRequest
from eunomia.models.providers.openai import OpenAIProvider
from eunomia.scenarios import load_scenario
from eunomia.scheduler import CallError, RetryPolicy, call_with_retry
from eunomia.store import RunStore
from eunomia.targets.http import HttpTarget

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "project_management"
ONCE = RetryPolicy(retries=0, timeout_s=10)


NAN, INF = float("nan"), float("inf")


def _text(value: Any) -> Reply:
    """``value`` as the json module writes it: ``NaN`` and ``Infinity`` as such (what JSON
    writers refuse and Python's reader accepts)."""
    return Reply(text=json.dumps(value))


def _athena(credits: float = 1.0, tokens_in: float = 100, tokens_out: float = 10,
            cost: float = 0.001) -> Reply:
    return _text({"data": [{"credits": credits, "structuredGradingInstructionId": 1,
                            "title": "t", "description": "d"}],
                  "meta": {"llmRequests": [{"model": "gpt-4o", "numInputTokens": tokens_in,
                                            "numOutputTokens": tokens_out}],
                           "totalUsage": {"cost": cost}}})


ATHENA_CASES = {
    "credits NaN": (_athena(credits=NAN), "data.0.credits is NaN"),
    "credits Infinity": (_athena(credits=INF), "data.0.credits is Infinity"),
    "input tokens Infinity": (_athena(tokens_in=INF),
                              "meta.llmRequests.0.numInputTokens is Infinity"),
    "output tokens -5": (_athena(tokens_out=-5), "meta.llmRequests.0.numOutputTokens is -5"),
    "tokens 1.5": (_athena(tokens_in=1.5), "meta.llmRequests.0.numInputTokens is 1.5"),
    "cost NaN": (_athena(cost=NAN), "meta.totalUsage.cost is NaN: an impossible cost"),
    "cost -1": (_athena(cost=-1), "meta.totalUsage.cost is -1.0: an impossible cost"),
}


def test_athena_answers_with_impossible_numbers_fail_their_cases(
        threaded_server: ScriptedServer, tmp_path: Path) -> None:
    scenario, _ = load_scenario(EXAMPLE)
    assert scenario is not None
    names = sorted(c.name for c in scenario.test_cases)[:len(ATHENA_CASES)]
    threaded_server.names = case_names(scenario)
    expected: dict[str, str] = {}
    for name, (reply, fragment) in zip(names, ATHENA_CASES.values(), strict=True):
        threaded_server.script(name, reply)
        expected[name] = fragment
    threaded_server.default = _athena()  # the other cases: a plausible answer
    results = tmp_path / "results"
    got = run_cli("run", EXAMPLE, "--server-url", threaded_server.url, "--results", results,
                  "--run-name", "numbers", "--retries", "0", cwd=tmp_path, timeout=120)
    assert got.returncode == 1, got.stdout + got.stderr
    assert "Traceback" not in got.stdout + got.stderr
    folder = results / "numbers" / "project_management"
    failures = json.loads((folder / "failures.json").read_text(encoding="utf-8"))
    text = json.dumps(failures)
    for name, fragment in expected.items():
        assert fragment in text, (name, fragment, text)
    store = RunStore(results / "eunomia.db")
    try:
        rows = {r.case_name: r for r in store.iter_cases(store.require_run("numbers"))}
    finally:
        store.close()
    for name in expected:
        row = rows[name]
        assert row.status == "failed" and "impossible number" in (row.error or ""), row
        assert row.input_tokens == 0 and row.output_tokens == 0 and row.cost is None
    scored = [r for n, r in rows.items() if n not in expected]
    assert scored and all(r.status == "scored" and r.input_tokens == 100 for r in scored)
    assert all(r.input_tokens >= 0 and r.output_tokens >= 0 for r in rows.values())


def test_the_contract_refuses_impossible_numbers_and_keeps_possible_ones() -> None:
    ok = parse_feedback_response(json.loads(str(_athena().text)))
    assert ok.data[0].credits == 1.0 and ok.meta.llm_requests[0].num_input_tokens == 100
    assert reported_cost(ok.meta.total_usage) == 0.001
    assert reported_cost({"cost": "n/a"}) is None  # not a number: none reported
    assert reported_cost(None) is None
    for wrong in (NAN, INF, -0.5):
        with pytest.raises(ValueError, match="an impossible cost"):
            reported_cost({"cost": wrong})
    negative = parse_feedback_response({"data": [{"credits": -2.0}]})  # a deduction: fine
    assert negative.data[0].credits == -2.0


def _completion(usage: dict[str, Any]) -> Reply:
    return _text({"model": "m", "choices": [{"message": {"content": "ok"},
                                             "finish_reason": "stop"}], "usage": usage})


@pytest.mark.parametrize(("usage", "fragment"), [
    ({"prompt_tokens": NAN, "completion_tokens": 1}, "usage.prompt_tokens is NaN"),
    ({"prompt_tokens": 3, "completion_tokens": INF}, "usage.completion_tokens is Infinity"),
    ({"prompt_tokens": -5, "completion_tokens": 1}, "usage.prompt_tokens is -5"),
    ({"prompt_tokens": 2.5, "completion_tokens": 1}, "usage.prompt_tokens is 2.5"),
    ({"prompt_tokens": 3, "completion_tokens": 1, "prompt_tokens_details": {
        "cached_tokens": -1}}, "usage.prompt_tokens_details.cached_tokens is -1"),
])
async def test_openai_usage_with_impossible_numbers_fails_the_call(
        threaded_server: ScriptedServer, usage: dict[str, Any], fragment: str) -> None:
    threaded_server.default = _completion(usage)
    provider = OpenAIProvider("m", base_url=threaded_server.base_url + "/v1")
    request = ChatRequest(messages=(ChatMessage(role="user", content="hi"),))
    try:
        with pytest.raises(CallError) as caught:
            await call_with_retry(lambda: provider.chat(request), ONCE)
    finally:
        await provider.close()
    assert f"openai:m: the answer has an impossible number: {fragment}" in caught.value.reason
    assert caught.value.attempt_log == ("impossible number",)


async def test_openai_usage_that_is_possible_is_read(threaded_server: ScriptedServer) -> None:
    threaded_server.default = _completion({"prompt_tokens": 3.0, "completion_tokens": None})
    provider = OpenAIProvider("m", base_url=threaded_server.base_url + "/v1")
    try:
        got = await provider.chat(ChatRequest(messages=(ChatMessage(role="user",
                                                                    content="hi"),)))
    finally:
        await provider.close()
    assert (got.usage.input_tokens, got.usage.output_tokens) == (3, 0)


@pytest.mark.parametrize(("body", "config", "fragment"), [
    ({"items": [{"c": NAN, "i": 1}]}, {},
     "feedback item 0 credits: Input should be a finite number (got NaN)"),
    ({"items": [], "u": -5}, {"usage": {"input_tokens": "$.u"}},
     "the value at the usage path $.u is -5: an impossible number of tokens"),
    ({"items": [], "cost": INF}, {"cost": "$.cost"},
     "the cost path $.cost found Infinity, not a number of at least 0"),
])
async def test_http_system_answers_with_impossible_numbers_fail(
        threaded_server: ScriptedServer, body: dict[str, Any], config: dict[str, Any],
        fragment: str) -> None:
    scenario, _ = load_scenario(EXAMPLE)
    assert scenario is not None
    threaded_server.default = _text(body)
    target = HttpTarget(HttpEndpoint.model_validate({
        "url": threaded_server.base_url + "/review", "body": {"x": "{{ name }}"},
        "feedback": {"items": "$.items", "fields": {
            "credits": "$.c", "structured_grading_instruction_id": "$.i"}}, **config}),
        "http:numbers")
    try:
        with pytest.raises(CallError) as caught:
            await call_with_retry(lambda: target.feedback(scenario, scenario.test_cases[0]),
                                  ONCE)
    finally:
        await target.close()
    assert fragment in caught.value.reason

