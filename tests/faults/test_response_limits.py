"""Answers are read within a size limit (issue 31, point 1): a body past it fails the case with
a reason naming the limit, before or as soon as it is passed, for the Athena target, ``http:``
systems and the OpenAI-compatible provider; a large valid answer within it is kept whole once
in the store and cut, saying so, in the case files. Against a misbehaving server on 127.0.0.1.
"""

from __future__ import annotations

import glob
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from tests.support.cli import run_cli
from tests.support.hostile_server import HostileServer, feedback_body
from tests.support.store_size import stored_blob_bytes

from eunomia import defaults
from eunomia.athena import AthenaFeedback, bounded_feedback
from eunomia.model_server import Upstream, start_model_server
from eunomia.models._http_config import HttpEndpoint
from eunomia.models._types import ChatMessage, ChatRequest
from eunomia.models.providers.openai import OpenAIProvider
from eunomia.scenarios import Scenario, load_scenario
from eunomia.scheduler import CallError, RetryPolicy, call_with_retry
from eunomia.scheduler._body import response_limit
from eunomia.store import RunStore
from eunomia.targets.athena import AthenaTarget
from eunomia.targets.http import HttpTarget

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "project_management"
MB = 1_000_000
SMALL = RetryPolicy(retries=2, timeout_s=30, backoff_initial_s=0.01, backoff_max_s=0.01,
                    max_response_bytes=200_000)


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileServer]:
    server = HostileServer()
    with server.in_thread():
        yield server


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    loaded, problems = load_scenario(EXAMPLE)
    assert loaded is not None, problems
    return loaded


async def _athena(url: str, scenario: Scenario, policy: RetryPolicy = SMALL) -> Any:
    target = AthenaTarget(url)
    try:
        return await call_with_retry(lambda: target.feedback(scenario, scenario.test_cases[0]),
                                     policy)
    finally:
        await target.close()


@pytest.mark.parametrize("chunked", ["0", "1"])
async def test_athena_answer_over_the_limit_fails_once_naming_it(
        hostile: HostileServer, scenario: Scenario, chunked: str) -> None:
    before = hostile.sent["/big"]
    with pytest.raises(CallError) as caught:
        await _athena(f"{hostile.base_url}/big?bytes={20 * MB}&chunked={chunked}", scenario)
    error = caught.value
    assert "larger than the 200 KB response limit" in error.reason
    assert "raise the limit: --max-response-mb <megabytes>" in error.reason
    assert error.attempts == 1 and error.attempt_log == ("answer over 200 KB",)  # not retried
    assert ("Content-Length is 20,000,000 bytes" in error.reason) == (chunked == "0")
    frames, tb = [], error.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    assert frames[-1] == "call_with_retry"  # not the frames holding what was read
    assert error.__context__ is None  # nothing of the answer is kept with the error
    # the rest of the body was not read (the server could write what the sockets' buffers
    # hold, far less than 20 MB)
    assert hostile.sent["/big"] - before < 12 * MB


async def test_an_answer_without_end_fails_at_the_limit(hostile: HostileServer,
                                                        scenario: Scenario) -> None:
    with pytest.raises(CallError) as caught:
        await _athena(f"{hostile.base_url}/endless", scenario)
    assert "more than 200,000 bytes came" in caught.value.reason


async def test_a_huge_error_page_is_read_only_at_its_start(hostile: HostileServer,
                                                           scenario: Scenario) -> None:
    before = hostile.sent["/error"]
    with pytest.raises(CallError) as caught:
        await _athena(f"{hostile.base_url}/error?bytes={20 * MB}", scenario,
                      RetryPolicy(retries=0, timeout_s=30))
    assert caught.value.reason.startswith("HTTP 500: EEEE") and caught.value.status == 500
    assert hostile.sent["/error"] - before < 10 * MB


async def test_a_large_valid_answer_within_the_limit_is_scored_and_its_items_cut(
        hostile: HostileServer, scenario: Scenario) -> None:
    sgi = scenario.athena_exercise().grading_criteria[0].structured_grading_instructions[0].id
    got = await _athena(f"{hostile.base_url}/big?bytes=150000&kind=feedback&sgi={sgi}",
                        scenario)
    response = got.value
    (item,) = response.feedback
    whole = len(json.loads(feedback_body(150000, sgi))["data"][0]["description"])
    assert item.structured_grading_instruction_id == sgi
    assert item.description.startswith("y" * 1000)
    assert item.description.endswith(f"… [cut by Eunomia at {defaults.FEEDBACK_TEXT_MAX:,} "
                                     f"of {whole:,} characters; the whole answer is kept in "
                                     "the run store]")
    assert len(response.raw["data"][0]["description"]) == whole  # kept whole


async def test_http_system_answers_past_the_limit(hostile: HostileServer,
                                                  scenario: Scenario) -> None:
    case = scenario.test_cases[0]
    for path, fragment in ((f"/big?bytes={MB}", "Content-Length is 1,000,000 bytes"),
                           ("/endless", "more than 200,000 bytes came"),
                           ("/endless?sse=1", "more than 200,000 bytes came")):
        target = HttpTarget(HttpEndpoint.model_validate(
            {"url": hostile.base_url + path, "body": {"x": "{{ name }}"},
             "feedback": {"items": "$.data"}}), "http:hostile")
        try:
            with pytest.raises(CallError) as caught:
                await call_with_retry(lambda t=target: t.feedback(scenario, case), SMALL)
        finally:
            await target.close()
        assert "http:hostile: the answer is larger than the 200 KB response limit" in \
            caught.value.reason, path
        assert fragment in caught.value.reason and caught.value.attempts == 1


@pytest.mark.parametrize("stream", [False, True])
async def test_openai_provider_answers_past_the_limit(hostile: HostileServer,
                                                      stream: bool) -> None:
    request = ChatRequest(messages=(ChatMessage(role="user", content="hi"),), stream=stream)
    big = OpenAIProvider("m", base_url=f"{hostile.base_url}/big/v1?x=1")
    big.url = f"{hostile.base_url}/big?bytes={MB}&kind=openai&chunked=1"
    endless = OpenAIProvider("m", base_url=hostile.base_url)
    endless.url = f"{hostile.base_url}/endless?sse=1"
    try:
        for provider in (big, endless):
            with pytest.raises(CallError) as caught:
                await call_with_retry(lambda p=provider: p.chat(request), SMALL)
            assert "openai:m: the answer is larger than the 200 KB response limit" in \
                caught.value.reason
        fits = OpenAIProvider("m", base_url=hostile.base_url)
        fits.url = f"{hostile.base_url}/big?bytes=150000&kind=openai"
        got = await call_with_retry(lambda: fits.chat(request.model_copy(
            update={"stream": False})), SMALL)
        assert len(got.value.text) > 140_000
        await fits.close()
    finally:
        await big.close()
        await endless.close()


def test_the_limit_is_the_default_outside_a_call() -> None:
    assert response_limit() == defaults.MAX_RESPONSE_BYTES == 10 * MB
    assert RetryPolicy().max_response_bytes is None
    with pytest.raises(ValueError, match="max_response_bytes must be at least 1"):
        RetryPolicy(max_response_bytes=0)


# --- as a user runs it ----------------------------------------------------------------------


def _case_files(results: Path) -> dict[str, dict[str, Any]]:
    return {Path(p).stem: json.loads(Path(p).read_text(encoding="utf-8")) for p in
            glob.glob(str(results / "*" / "project_management" / "test_cases" / "*.json"))}


def test_cli_default_limit_fails_a_12_mb_answer_and_a_raised_one_scores_it(
        hostile: HostileServer, scenario: Scenario, tmp_path: Path) -> None:
    sgi = scenario.athena_exercise().grading_criteria[0].structured_grading_instructions[0].id
    url = f"{hostile.base_url}/big?bytes={12 * MB}&kind=feedback&sgi={sgi}&chunked=1"
    results = tmp_path / "results"
    common = ("run", EXAMPLE, "--server-url", url, "--max-cases", "2", "--results", results)
    refused = run_cli(*common, "--run-name", "default", cwd=tmp_path, timeout=120)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "Traceback" not in refused.stdout + refused.stderr
    cases = _case_files(results)
    assert len(cases) == 2
    for case in cases.values():
        assert case["status"] == "failed" and case["attempts"] == 1
        assert "larger than the 10 MB response limit" in case["error"]

    raised = run_cli(*common, "--run-name", "raised", "--max-response-mb", "13",
                     cwd=tmp_path, timeout=120)
    assert raised.returncode == 0, raised.stdout + raised.stderr
    files = list((results / "raised" / "project_management" / "test_cases").glob("*.json"))
    assert len(files) == 2
    for path in files:
        assert path.stat().st_size < 2 * defaults.FEEDBACK_TEXT_MAX  # not 12 MB
        case = json.loads(path.read_text(encoding="utf-8"))
        assert case["status"] == "scored"
        assert "… [cut by Eunomia at 100,000 of 11,999," in case["feedback"][0]["description"]
    # the store keeps the whole answer once: both cases refer to one response blob
    store = RunStore(results / "eunomia.db")
    try:
        rows = list(store.iter_cases(store.require_run("raised")))
        assert len({r.response for r in rows}) == 1
        whole = store.get_json(rows[0].response)["raw"]["data"][0]["description"]
        assert len(whole) > 11_900_000
    finally:
        store.close()
    stored = stored_blob_bytes(results / "eunomia.db")
    assert stored < MB  # compressed, once

    for value, said in (("0", "must be positive, got 0"), ("-3", "must be positive"),
                        ("nan", "must be positive, got nan"),
                        ("1e999", "must be at most 100000, got inf"),
                        ("200000", "must be at most 100000"),
                        ("ten", "Invalid value for '--max-response-mb'")):
        wrong = run_cli(*common, "--run-name", "wrong", "--max-response-mb", value,
                        cwd=tmp_path)
        assert wrong.returncode == 2 and "Traceback" not in wrong.stderr, value
        assert said in wrong.stderr, (value, wrong.stderr)
    assert not (results / "wrong").exists()  # refused before anything ran


def test_items_of_a_short_answer_are_not_looked_at() -> None:
    """An answer shorter than the text limit cannot hold a text over it: its items are
    returned as they are (the usual answer costs nothing)."""
    items = [AthenaFeedback(description="d" * 50)]
    assert bounded_feedback(items, 1_000) is items
    cut = bounded_feedback(items, 1_000, limit=10)
    assert cut is not items and cut[0].description.startswith("d" * 10 + "… [cut by Eunomia")
    assert bounded_feedback(items, None, limit=10)[0].description != items[0].description


async def _relay_chat(url: str) -> tuple[int, Any, Any]:
    """POST a chat completion to a served model (``url``: its base, ending in /v1); its
    status, its JSON and the server's usage record."""
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{url}/chat/completions", json={
                "model": "m", "messages": [{"role": "user", "content": "hi"}]}) as resp:
            status, body = resp.status, await resp.json(content_type=None)
        async with session.get(f"{url.removesuffix('/v1')}/eunomia/usage") as resp:
            usage = await resp.json(content_type=None)
    return status, body, usage


async def test_serve_model_relay_refuses_an_upstream_answer_over_the_limit(
        hostile: HostileServer) -> None:
    """``eunomia serve-model --upstream``: an upstream answering 12 MB is not read whole nor
    relayed: the client gets a 502 naming the limit, and the call is recorded as failed."""
    for size, expected in ((12 * MB, 502), (150_000, 200)):
        served = Upstream(f"{hostile.base_url}/openai/{size}")
        runner, url = await start_model_server(served)
        try:
            status, body, usage = await _relay_chat(url)
        finally:
            await runner.cleanup()
            await served.close()
        assert status == expected, body
        assert usage["calls"][-1]["status"] == expected
        if expected == 502:
            assert "larger than the 10 MB response limit" in body["error"]["message"]
        else:
            assert len(body["choices"][0]["message"]["content"]) > 140_000
