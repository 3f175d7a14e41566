"""AthenaTarget against a scripted Athena module: the request, the answers, the failures."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from tests.support.scripted_server import (
    Reply,
    ScriptedServer,
    feedback_item,
    feedback_reply,
    free_port,
    usage,
)

from eunomia.athena import AthenaIds, case_index
from eunomia.errors import EunomiaError
from eunomia.scenarios import Scenario, load_scenario
from eunomia.scheduler import CallError, RetryPolicy, call_with_retry
from eunomia.targets.athena import AthenaTarget, check_http_url

SCENARIO_DIR = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "project_management"
SECRET = "s3cr3t-T0ken-xyz"
FAST = RetryPolicy(retries=2, timeout_s=2.0, backoff_initial_s=0.01, backoff_max_s=0.02)


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    loaded, diags = load_scenario(SCENARIO_DIR)
    assert loaded is not None, diags
    return loaded


def _case(scenario: Scenario, name: str) -> Any:
    return next(c for c in scenario.test_cases if c.name == name)


def _keys(value: Any) -> set[str]:
    """Every dict key anywhere in a decoded JSON value."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


# --- the request ----------------------------------------------------------------------


async def test_request_body_follows_the_athena_contract(
    scripted_server: ScriptedServer, scenario: Scenario
) -> None:
    target = AthenaTarget(scripted_server.url, secret=SECRET)
    case = _case(scenario, "composition_reversed")
    try:
        await target.feedback(scenario, case)
    finally:
        await target.close()

    (req,) = scripted_server.requests
    assert req.method == "POST"
    assert req.path == "/feedback_suggestions"
    body = req.json
    assert set(body) == {"exercise", "submission", "isGraded"}
    assert body["isGraded"] is True

    ex = body["exercise"]
    # Eunomia's own id range, never the loader's: see eunomia.athena._ids
    assert ex["id"] == AthenaIds().exercise_id(scenario.name) and isinstance(ex["id"], int)
    assert ex["title"] == "UML Class Diagrams: Project Management Tool"
    assert ex["type"] == "modeling"
    assert ex["maxPoints"] == 8
    assert ex["bonusPoints"] == 0
    assert ex["gradingInstructions"].startswith("1. The classes Project, Task and TeamMember")
    assert ex["problemStatement"].startswith("You are designing a simple project management")
    # exampleSolution: the Apollon JSON as a string, not an object
    assert isinstance(ex["exampleSolution"], str)
    solution = (SCENARIO_DIR / "example_solution.json").read_text(encoding="utf-8")
    assert json.loads(ex["exampleSolution"]) == json.loads(solution)
    assert ex["meta"] == {}

    criteria = ex["gradingCriteria"]
    assert [c["id"] for c in criteria] == [1, 2, 3, 4, 5, 6, 7]
    assert [c["title"] for c in criteria][:2] == ["Required Classes",
                                                  "Project-Task Relationship Type"]
    sgis = [s for c in criteria for s in c["structuredGradingInstructions"]]
    assert [s["id"] for s in sgis] == list(range(1, 16))  # numeric ids, in manifest order
    rel = criteria[1]["structuredGradingInstructions"]
    assert rel[0] == {
        "id": 3,
        "credits": 2.0,
        "gradingScale": "Composition Correct",
        "instructionDescription": "A composition relates Project and Task, with the solid "
                                  "diamond on the Project side.",
        "feedback": "Excellent! The Project-Task relationship is a composition, showing that "
                    "Tasks cannot exist without their Project.",
        "usageCount": 0,
    }
    assert [s["credits"] for s in rel] == [2.0, 1.0, 0.0]

    sub = body["submission"]
    assert set(sub) == {"id", "exerciseId", "model", "meta"}
    assert sub["id"] == AthenaIds().submission_id(scenario.name, 4)
    assert case_index(sub["id"]) == case.submission_id == 4
    assert sub["exerciseId"] == ex["id"]
    assert isinstance(sub["model"], str)  # an object gives 422 in Athena
    assert json.loads(sub["model"]) == json.loads(case.path.read_text(encoding="utf-8"))

    # camelCase on the wire: no snake_case key anywhere in the request
    assert not [k for k in _keys(body) if "_" in k]


async def test_headers_carry_raw_secret_and_x_server_url(
    scripted_server: ScriptedServer, scenario: Scenario
) -> None:
    case = _case(scenario, "perfect_solution")
    target = AthenaTarget(scripted_server.url, secret=SECRET)
    other = AthenaTarget(scripted_server.url, x_server_url="https://artemis.example.org",
                         extra_headers={"X-Module-Config": '{"debug": true}'})
    try:
        await target.feedback(scenario, case)
        await other.feedback(scenario, case)
    finally:
        await target.close()
        await other.close()
    first, second = scripted_server.requests
    assert first.headers["Authorization"] == SECRET  # raw, no "Bearer"
    assert first.headers["X-Server-URL"] == "http://localhost"
    assert first.headers["Content-Type"].startswith("application/json")
    assert "Authorization" not in second.headers  # no secret, no header
    assert second.headers["X-Server-URL"] == "https://artemis.example.org"
    assert second.headers["X-Module-Config"] == '{"debug": true}'


async def test_scenario_server_url_used_unless_overridden(
    scripted_server: ScriptedServer, scenario: Scenario
) -> None:
    assert AthenaTarget().url_for(scenario) == scenario.server_url
    assert AthenaTarget(scripted_server.manager_url).url_for(scenario) == (
        scripted_server.manager_url
    )
    no_url = Scenario(scenario.name, scenario.folder, "", scenario.exercise, scenario.criteria,
                      scenario.default_expected, scenario.test_cases)
    with pytest.raises(EunomiaError, match="no server_url"):
        AthenaTarget().url_for(no_url)
    bad = Scenario(scenario.name, scenario.folder, "ftp://host/x", scenario.exercise,
                   scenario.criteria, scenario.default_expected, scenario.test_cases)
    with pytest.raises(EunomiaError, match="only absolute http"):
        AthenaTarget().url_for(bad)


@pytest.mark.parametrize(
    "url",
    ["ftp://host/feedback", "file:///etc/passwd", "localhost:5008/feedback_suggestions",
     "http://", "//host/path", "", "javascript:alert(1)"],
)
def test_only_http_and_https_urls_accepted(url: str) -> None:
    with pytest.raises(EunomiaError, match="only absolute http"):
        check_http_url(url)
    if url:
        with pytest.raises(EunomiaError):
            AthenaTarget(url)


@pytest.mark.parametrize("url", ["http://127.0.0.1:5008/feedback_suggestions",
                                 "https://athena.example.org/modules/x"])
def test_http_and_https_urls_accepted(url: str) -> None:
    assert check_http_url(url) == url
    assert AthenaTarget(url).server_url == url


# --- the answers ------------------------------------------------------------------------


async def test_module_shape_camel_case_with_usage(
    scripted_server: ScriptedServer, scenario: Scenario
) -> None:
    reply = feedback_reply(
        [1, 3, None],
        llm_requests=[usage("gpt-4o", 1200, 300), usage("gpt-4o-mini", 50, 7,
                                                        numCachedInputTokens=20)],
    )
    reply.json["meta"]["totalUsage"] = {"numInputTokens": 1250, "cost": 99.0}
    scripted_server.default = reply
    target = AthenaTarget(scripted_server.url)
    try:
        got = await target.feedback(scenario, _case(scenario, "perfect_solution"))
    finally:
        await target.close()
    assert [f.structured_grading_instruction_id for f in got.feedback] == [1, 3, None]
    assert [f.id for f in got.feedback] == [1, 2, 3]
    assert got.feedback[0].description == "fb 1"
    assert got.feedback[0].is_graded is False and got.feedback[0].exercise_id == 1
    assert [(u.model, u.num_input_tokens, u.num_output_tokens, u.num_cached_input_tokens)
            for u in got.usage] == [("gpt-4o", 1200, 300, 0), ("gpt-4o-mini", 50, 7, 20)]
    assert got.raw == reply.json


async def test_manager_shape_snake_case(
    scripted_server: ScriptedServer, scenario: Scenario
) -> None:
    scripted_server.default = feedback_reply(
        [4, 13], manager=True, snake_case=True, llm_requests=[usage("o3-mini", 10, 20)]
    )
    target = AthenaTarget(scripted_server.manager_url)
    try:
        got = await target.feedback(scenario, _case(scenario, "composition_reversed"))
    finally:
        await target.close()
    assert scripted_server.requests[0].path.endswith(
        "/modules/modeling/module_modeling_llm/feedback_suggestions")
    assert [f.structured_grading_instruction_id for f in got.feedback] == [4, 13]
    assert [f.submission_id for f in got.feedback] == [1, 1]
    assert got.usage[0].model == "o3-mini" and got.usage[0].num_output_tokens == 20


async def test_meta_null_or_missing_and_alias_grading_instruction_id(
    scripted_server: ScriptedServer, scenario: Scenario
) -> None:
    case = _case(scenario, "perfect_solution")
    scripted_server.script(case.submission_id, [
        Reply(200, {"data": [feedback_item(3)], "meta": None}),
        Reply(200, {"data": [{"credits": 1.0, "gradingInstructionId": 6}]}),
    ])
    target = AthenaTarget(scripted_server.url)
    try:
        first = await target.feedback(scenario, case)
        second = await target.feedback(scenario, case)
    finally:
        await target.close()
    assert first.usage == [] and first.feedback[0].structured_grading_instruction_id == 3
    assert second.usage == [] and second.feedback[0].structured_grading_instruction_id == 6


@pytest.mark.parametrize(("body", "meta"), [
    (b'{"data": [], "meta": {"x": NaN}}', "nan"),  # the json module reads NaN
    (b'{"data": [], "meta": {"x": 123456789012345678901234567890}}',
     123456789012345678901234567890),  # beyond 64 bits
    (b'{"data": [], "meta": {"x": "caf\xe9"}}', "caf\ufffd"),  # not UTF-8: replaced
])
async def test_answers_orjson_refuses_are_read_as_the_json_module_reads_them(
    scripted_server: ScriptedServer, scenario: Scenario, body: bytes, meta: Any
) -> None:
    scripted_server.default = Reply(200, text=body)
    target = AthenaTarget(scripted_server.url)
    try:
        got = await target.feedback(scenario, _case(scenario, "perfect_solution"))
    finally:
        await target.close()
    assert got.feedback == [] and got.usage == []
    x = got.raw["meta"]["x"]
    assert (str(x) if isinstance(x, float) else x) == meta


# --- failures ----------------------------------------------------------------------------


async def _one_attempt(server: ScriptedServer, scenario: Scenario, reply: Reply,
                       secret: str | None = None) -> CallError:
    server.default = reply
    target = AthenaTarget(server.url, secret=secret)
    try:
        with pytest.raises(CallError) as info:
            await target.feedback(scenario, _case(scenario, "perfect_solution"))
    finally:
        await target.close()
    return info.value


@pytest.mark.parametrize(
    ("reply", "retryable", "fragment"),
    [
        (Reply(400, {"error": "bad request"}), False, "HTTP 400"),
        (Reply(401, {"error": "missing X-Server-URL"}), False, "HTTP 401"),
        (Reply(404, text="Not Found"), False, "HTTP 404: Not Found"),
        (Reply(422, {"detail": [{"loc": "submission.model"}]}), False, "HTTP 422"),
        (Reply(408), True, "HTTP 408"),
        (Reply(500, text="Internal Server Error"), True, "HTTP 500: Internal Server Error"),
        (Reply(502, text=""), True, "HTTP 502"),
        (Reply(503, {"error": "busy"}), True, "HTTP 503"),
        (Reply(200, text="<html>gateway</html>"), True, "response is not JSON"),
        (Reply(200, {"feedback": []}), True, "wrong shape: data"),
        (Reply(200, {"data": "nope", "meta": {}}), True, "wrong shape: data"),
        (Reply(200, [1, 2]), True, "wrong shape"),
        (Reply(200, {"data": [{"credits": "many"}]}), True, "wrong shape: data.0.credits"),
    ],
)
async def test_failed_answers_are_classified(
    scripted_server: ScriptedServer, scenario: Scenario, reply: Reply, retryable: bool,
    fragment: str,
) -> None:
    err = await _one_attempt(scripted_server, scenario, reply)
    assert err.retryable is retryable
    assert fragment in err.reason
    if reply.status >= 400:
        assert err.status == reply.status


async def test_a_404_names_the_url_it_posted_to(scripted_server: ScriptedServer,
                                              scenario: Scenario) -> None:
    err = await _one_attempt(scripted_server, scenario, Reply(404, text="Not Found"))
    assert f"POST {scripted_server.url}" in err.reason and "no such route" in err.reason
    assert "--server-url" in err.reason


async def test_rate_limited_answer_carries_retry_after(
    scripted_server: ScriptedServer, scenario: Scenario
) -> None:
    err = await _one_attempt(scripted_server, scenario,
                             Reply(429, {"error": "slow down"}, headers={"Retry-After": "1"}))
    assert err.retryable and err.rate_limited
    assert err.status == 429 and err.retry_after == 1.0


async def test_connection_refused_is_reported_and_retryable(scenario: Scenario) -> None:
    url = f"http://127.0.0.1:{free_port()}/feedback_suggestions"
    target = AthenaTarget(url, secret=SECRET)
    try:
        with pytest.raises(CallError) as info:
            await call_with_retry(
                lambda: target.feedback(scenario, scenario.test_cases[0]), FAST)
    finally:
        await target.close()
    assert info.value.retryable
    assert info.value.reason.startswith(f"cannot connect to {url}")
    assert info.value.attempts == 3
    assert SECRET not in info.value.reason


@pytest.mark.parametrize(
    ("replies", "requests", "ok"),
    [
        ([Reply(503), feedback_reply([1])], 2, True),
        ([Reply(429, headers={"Retry-After": "0"}), feedback_reply([1])], 2, True),
        ([Reply(200, text="not json"), feedback_reply([1])], 2, True),
        ([Reply(502)], 3, False),  # 1 + 2 retries, then give up
        ([Reply(500)], 1, False),  # a 500 is retried only with RetryPolicy(retry_500=True)
        ([Reply(400)], 1, False),  # a 4xx is never retried
        ([Reply(422)], 1, False),
    ],
)
async def test_retry_policy_per_status(
    scripted_server: ScriptedServer, scenario: Scenario, replies: list[Reply], requests: int,
    ok: bool,
) -> None:
    case = _case(scenario, "perfect_solution")
    scripted_server.script(case.submission_id, replies)
    target = AthenaTarget(scripted_server.url)
    try:
        if ok:
            got = await call_with_retry(lambda: target.feedback(scenario, case), FAST)
            assert got.attempts == requests
        else:
            with pytest.raises(CallError) as info:
                await call_with_retry(lambda: target.feedback(scenario, case), FAST)
            assert info.value.attempts == requests
    finally:
        await target.close()
    assert scripted_server.counts[case.submission_id] == requests


async def test_retry_after_is_honoured(
    scripted_server: ScriptedServer, scenario: Scenario
) -> None:
    case = _case(scenario, "perfect_solution")
    scripted_server.script(case.submission_id,
                           [Reply(429, headers={"Retry-After": "1"}), feedback_reply([1])])
    target = AthenaTarget(scripted_server.url)
    try:
        got = await call_with_retry(lambda: target.feedback(scenario, case), FAST)
    finally:
        await target.close()
    assert got.attempts == 2
    first, second = scripted_server.requests
    assert second.at - first.at >= 0.95  # not the 0.01 s backoff


async def test_slow_answer_times_out(scripted_server: ScriptedServer, scenario: Scenario) -> None:
    scripted_server.default = feedback_reply([1], delay_s=3.0)
    target = AthenaTarget(scripted_server.url)
    started = time.monotonic()
    try:
        with pytest.raises(CallError) as info:
            await call_with_retry(lambda: target.feedback(scenario, scenario.test_cases[0]),
                                  RetryPolicy(retries=1, timeout_s=0.2, backoff_initial_s=0.01))
    finally:
        await target.close()
    assert info.value.reason == "timed out after 0.2 s"
    assert info.value.retryable and info.value.attempts == 2
    assert time.monotonic() - started < 2.0
    assert len(scripted_server.requests) == 2


async def test_secret_never_in_error_texts(
    scripted_server: ScriptedServer, scenario: Scenario
) -> None:
    echo = (f"unauthorized: got Authorization {SECRET} for token={SECRET} "
            f'{{"authorization": "{SECRET}"}}')
    for reply in (Reply(500, text=echo), Reply(401, {"error": echo}),
                  Reply(429, text=echo, headers={"Retry-After": "0"})):
        err = await _one_attempt(scripted_server, scenario, reply, secret=SECRET)
        assert SECRET not in err.reason
        assert SECRET not in str(err)
        assert "***" in err.reason
    assert all(r.headers["Authorization"] == SECRET for r in scripted_server.requests)
