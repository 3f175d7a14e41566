"""AthenaTarget says what happened: ids that overwrite nothing, failure reasons that name their
causes, labelled attempts, warnings before the first request, the system's own cost figure.

The outside world is faked (scripted HTTP servers, a raw TCP server that resets connections);
Eunomia's code is the real one.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import socket
import struct
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.scripted_server import Reply, ScriptedServer, feedback_reply, usage

from eunomia.athena import (
    CASE_SLOTS,
    DEFAULT_ID_BASE,
    ID_LIMIT,
    AthenaIds,
    case_index,
    check_id_base,
)
from eunomia.errors import EunomiaError
from eunomia.scenarios import Scenario, TestCase, load_scenario
from eunomia.scheduler import CallError, RetryPolicy, call_with_retry
from eunomia.store import ResponseCache
from eunomia.targets import TargetConfig, TargetResponse, build_target
from eunomia.targets.athena import AthenaTarget

SCENARIO_DIR = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "project_management"
SECRET = "s3cr3t-T0ken-xyz"
RETRY_500 = RetryPolicy(retries=2, timeout_s=5.0, backoff_initial_s=0.001, backoff_max_s=0.002,
                        retry_500=True)


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    loaded, diags = load_scenario(SCENARIO_DIR)
    assert loaded is not None, diags
    return loaded


def renamed(scenario: Scenario, name: str) -> Scenario:
    return dataclasses.replace(scenario, name=name)


def case(scenario: Scenario, name: str = "perfect_solution") -> TestCase:
    return next(c for c in scenario.test_cases if c.name == name)


def v2(test_case: TestCase) -> TestCase:
    diagram = json.loads(test_case.submission)
    diagram.update(version="2.0.0", elements=list(diagram["elements"].values()),
                   relationships=list(diagram["relationships"].values()))
    return dataclasses.replace(test_case, name="v2", submission=json.dumps(diagram))


async def one_failure(target: AthenaTarget, scenario: Scenario, test_case: TestCase) -> CallError:
    try:
        with pytest.raises(CallError) as info:
            await target.feedback(scenario, test_case)
    finally:
        await target.close()
    return info.value


# --- ids -------------------------------------------------------------------------------------


async def test_ids_sent_are_high_per_run_and_scenario(
        scripted_server: ScriptedServer, scenario: Scenario) -> None:
    first, second = scenario.test_cases[:2]
    other = renamed(scenario, "project_management_copy")
    run_a = AthenaTarget(scripted_server.url, id_seed="run-a")
    run_b = AthenaTarget(scripted_server.url, id_seed="run-b")
    try:
        for target in (run_a, run_b):
            for sc, tc in ((scenario, first), (scenario, second), (other, first)):
                await target.feedback(sc, tc)
    finally:
        await run_a.close()
        await run_b.close()
    sent = [(r.json["exercise"]["id"], r.json["submission"]["id"],
             r.json["submission"]["exerciseId"]) for r in scripted_server.requests]
    for exercise_id, submission_id, submission_exercise in sent:
        assert DEFAULT_ID_BASE <= exercise_id < ID_LIMIT
        assert DEFAULT_ID_BASE <= submission_id < ID_LIMIT
        assert submission_exercise == exercise_id
    (a1, a2, a_other, b1, b2, b_other) = sent
    # the exercise id is the scenario's, in every run; another scenario has another
    assert a1[0] == a2[0] == b1[0] == b2[0] != a_other[0] == b_other[0]
    # submission ids: one per case, run and scenario; none repeats
    assert len({s[1] for s in sent}) == 6
    assert [case_index(s[1]) for s in sent] == [first.submission_id, second.submission_id,
                                               first.submission_id] * 2
    # the loader's ids (1..N) and exercise id are never sent
    assert all(s[1] != first.submission_id and s[0] != scenario.exercise.id for s in sent)


def test_stored_request_and_cache_key_do_not_depend_on_the_run(scenario: Scenario) -> None:
    tc = case(scenario)
    run_a = AthenaTarget("http://127.0.0.1:9/feedback_suggestions", id_seed="run-a")
    run_b = AthenaTarget("http://127.0.0.1:9/feedback_suggestions", id_seed="run-b")
    described = run_a.describe_request(scenario, tc)
    assert described == run_b.describe_request(scenario, tc)
    assert run_a.cache_identity == run_b.cache_identity
    assert ResponseCache.key(run_a.cache_identity, described, 0) == ResponseCache.key(
        run_b.cache_identity, run_b.describe_request(scenario, tc), 0)
    # what is sent differs from the stored request in submission.id only
    sent_a, sent_b = (json.loads(t.sent_request(scenario, tc)) for t in (run_a, run_b))
    stored = json.loads(described)
    assert len({sent_a["submission"]["id"], sent_b["submission"]["id"],
                stored["submission"]["id"]}) == 3
    for sent in (sent_a, sent_b):
        assert case_index(sent["submission"]["id"]) == case_index(stored["submission"]["id"])
        sent["submission"]["id"] = stored["submission"]["id"]
        assert sent == stored
    # without a seed, the stored request is exactly the one sent
    plain = AthenaTarget("http://127.0.0.1:9/feedback_suggestions")
    assert plain.sent_request(scenario, tc) == plain.describe_request(scenario, tc) == described


def test_ids_are_reproducible_and_bounded() -> None:
    ids = AthenaIds(seed="nightly-42")
    assert ids.submission_id("bpmn_loan", 7) == AthenaIds(seed="nightly-42").submission_id(
        "bpmn_loan", 7)
    assert ids.exercise_id("bpmn_loan") == AthenaIds(seed="other").exercise_id("bpmn_loan")
    top = AthenaIds(ID_LIMIT - CASE_SLOTS)
    assert top.blocks == 1
    assert top.submission_id("x", CASE_SLOTS - 1) == ID_LIMIT - 1
    assert ID_LIMIT - CASE_SLOTS <= top.exercise_id("x") < ID_LIMIT
    with pytest.raises(ValueError, match="more than"):
        ids.submission_id("x", CASE_SLOTS)
    for bad in (0, -5, ID_LIMIT - CASE_SLOTS + 1, ID_LIMIT):
        with pytest.raises(ValueError, match="between 1 and"):
            check_id_base(bad)
    low = AthenaIds(1_000_000_000_000)  # a base of the user's choice
    assert 1_000_000_000_000 <= low.submission_id("x", 1) < ID_LIMIT
    assert case_index(low.submission_id("x", 1)) == 1


def test_id_settings_reach_the_target_through_the_config() -> None:
    config = TargetConfig(server_url="http://127.0.0.1:9/feedback_suggestions",
                          id_base=10**15, id_seed="my-run")
    target = build_target("athena", config)
    assert isinstance(target, AthenaTarget)
    assert target.ids == AthenaIds(10**15, "my-run")
    with pytest.raises(EunomiaError, match="between 1 and"):
        build_target("athena", dataclasses.replace(config, id_base=ID_LIMIT))


async def test_two_scenarios_with_the_same_ids_are_refused_not_overwritten(
        scripted_server: ScriptedServer, scenario: Scenario) -> None:
    # a range of two blocks: two scenario names sharing one are quickly found
    base = ID_LIMIT - 2 * CASE_SLOTS
    ids = AthenaIds(base, "r")
    names = [f"scenario_{n}" for n in range(64)]
    first = names[0]
    clash = next(n for n in names[1:] if ids.block(n) == ids.block(first))
    target = AthenaTarget(scripted_server.url, id_base=base, id_seed="r")
    try:
        await target.feedback(renamed(scenario, first), case(scenario))
        with pytest.raises(CallError) as info:
            await target.feedback(renamed(scenario, clash), case(scenario))
        await target.feedback(renamed(scenario, first), case(scenario, "composition_reversed"))
    finally:
        await target.close()
    assert not info.value.retryable and info.value.outcome == "id clash"
    # ... and found before any request when the run's scenarios are known
    with pytest.raises(EunomiaError, match="same Athena submission ids"):
        target.check_ids([renamed(scenario, first), renamed(scenario, clash)])
    apart = next(n for n in names[1:] if ids.block(n) != ids.block(first))
    target.check_ids([renamed(scenario, first), renamed(scenario, apart)])
    assert first in info.value.reason and clash in info.value.reason
    assert len(scripted_server.requests) == 2  # the clashing case was never sent


# --- failure reasons and attempt labels ---------------------------------------------------


async def test_401_from_a_manager_names_both_causes(
        scripted_server: ScriptedServer, scenario: Scenario) -> None:
    scripted_server.default = Reply(401, {"detail": "Invalid API secret."})
    err = await one_failure(AthenaTarget(scripted_server.manager_url, secret=SECRET,
                                         secret_env="ATHENA_SECRET"), scenario, case(scenario))
    assert err.reason.startswith('HTTP 401: {"detail": "Invalid API secret."}')
    assert "$ATHENA_SECRET" in err.reason and "X-Server-URL (http://localhost)" in err.reason
    assert "http://localhost:8080" in err.reason and "--x-server-url" in err.reason
    assert not err.retryable and err.outcome == "HTTP 401"
    # a module (not a manager) has one cause
    module = await one_failure(AthenaTarget(scripted_server.url, secret=SECRET,
                                            secret_env="MY_SECRET"), scenario, case(scenario))
    assert "check $MY_SECRET" in module.reason and "X-Server-URL" not in module.reason
    # no secret at all
    unset = await one_failure(AthenaTarget(scripted_server.manager_url, secret_env="MY_SECRET"),
                              scenario, case(scenario))
    assert "no Authorization header was sent: $MY_SECRET is not set" in unset.reason
    assert SECRET not in module.reason + err.reason


async def test_500_for_a_version_2_diagram_says_so(
        scripted_server: ScriptedServer, scenario: Scenario) -> None:
    scripted_server.default = Reply(500, text="Internal Server Error")
    err = await one_failure(AthenaTarget(scripted_server.url), scenario, v2(case(scenario)))
    assert err.reason.startswith("HTTP 500: Internal Server Error (the submission is an Apollon "
                                 "version-2 diagram")
    plain = await one_failure(AthenaTarget(scripted_server.url), scenario, case(scenario))
    assert plain.reason == "HTTP 500: Internal Server Error"
    # the 500 of a v2 diagram is deterministic: not retried by default
    target = AthenaTarget(scripted_server.url)
    try:
        with pytest.raises(CallError) as info:
            await call_with_retry(lambda: target.feedback(scenario, v2(case(scenario))),
                                  RetryPolicy(retries=3, backoff_initial_s=0.001))
    finally:
        await target.close()
    assert info.value.attempt_log == ("HTTP 500",)


@contextlib.asynccontextmanager
async def uvicorn_like() -> AsyncIterator[str]:
    """Answers 500 on a fresh connection, keeps it alive, and resets it when it is reused
    (what the real module's uvicorn did after an unhandled exception)."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        answered = False
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            await reader.readexactly(length)
            if answered:
                sock = writer.get_extra_info("socket")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                writer.transport.abort()
                return
            writer.write(b"HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/plain\r\n"
                         b"content-length: 21\r\n\r\nInternal Server Error")
            await writer.drain()
            answered = True

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/feedback_suggestions"
    finally:
        server.close()


async def test_a_connection_reset_after_a_500_is_logged_as_its_own_attempt(
        scenario: Scenario) -> None:
    async with uvicorn_like() as url:
        target = AthenaTarget(url, max_connections=1)
        try:
            with pytest.raises(CallError) as info:
                await call_with_retry(lambda: target.feedback(scenario, case(scenario)),
                                      RETRY_500)
        finally:
            await target.close()
    assert info.value.attempt_log == ("HTTP 500", "connection reset", "HTTP 500")
    assert info.value.attempts == 3


async def test_refused_and_disconnected_are_labelled(scenario: Scenario) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    refused = await one_failure(AthenaTarget(f"http://127.0.0.1:{port}/x"), scenario,
                                case(scenario))
    assert refused.outcome == "cannot connect" and refused.retryable

    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.close()

    server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
    try:
        url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/x"
        gone = await one_failure(AthenaTarget(url), scenario, case(scenario))
    finally:
        server.close()
    assert gone.outcome == "server disconnected" and gone.retryable


async def test_answers_that_are_not_feedback_are_labelled(
        scripted_server: ScriptedServer, scenario: Scenario) -> None:
    scripted_server.default = Reply(200, text="<html>proxy error</html>")
    err = await one_failure(AthenaTarget(scripted_server.url), scenario, case(scenario))
    assert err.outcome == "HTTP 200, not JSON"
    scripted_server.default = Reply(200, {"data": "nope"})
    err = await one_failure(AthenaTarget(scripted_server.url), scenario, case(scenario))
    assert err.outcome == "HTTP 200, wrong shape"


# --- warnings before the first request -------------------------------------------------------


def test_warnings_before_the_first_request(scenario: Scenario) -> None:
    manager = "http://127.0.0.1:5100/modules/modeling/module_modeling_llm/feedback_suggestions"
    module = "http://127.0.0.1:5008/feedback_suggestions"
    config = TargetConfig(secret_env="EUNOMIA_TEST_UNSET_SECRET_VAR")
    unset = build_target(f"athena:{module}", config)
    assert isinstance(unset, AthenaTarget)
    [warning] = unset.warnings()
    assert warning.startswith("$EUNOMIA_TEST_UNSET_SECRET_VAR is not set")
    quiet = AthenaTarget(module, secret=SECRET, secret_env="ATHENA_SECRET")
    assert quiet.warnings() == []
    via_manager = AthenaTarget(manager, secret=SECRET)
    [warning] = via_manager.warnings()
    assert manager in warning and "http://localhost:8080" in warning
    assert AthenaTarget(manager, secret=SECRET,
                        x_server_url="http://localhost:8080").warnings() == []
    # the URL may come from the scenarios
    from_scenario = AthenaTarget(secret=SECRET)
    assert from_scenario.warnings([renamed(scenario, "a")]) == []
    on_manager = dataclasses.replace(scenario, server_url=manager)
    assert len(from_scenario.warnings([on_manager])) == 1
    assert SECRET not in " ".join(via_manager.warnings())


# --- the system's own cost figure ----------------------------------------------------------------


async def test_reported_cost_is_kept_beside_the_usage(
        scripted_server: ScriptedServer, scenario: Scenario) -> None:
    reply = feedback_reply([1], llm_requests=[usage("gpt-4o-mini", 3293, 410)])
    reply.json["meta"]["totalUsage"] = {"numInputTokens": 3293, "numOutputTokens": 410,
                                        "numTotalTokens": 3703, "cost": 0.055545}
    plain = feedback_reply([1], llm_requests=[usage("gpt-4o-mini", 1, 1)])
    wanted = case(scenario).submission_id
    scripted_server.default = lambda rec: (
        reply if case_index(rec.submission_id or 0) == wanted else plain)
    target = AthenaTarget(scripted_server.url)
    try:
        got = await target.feedback(scenario, case(scenario))
        without = await target.feedback(scenario, case(scenario, "composition_reversed"))
    finally:
        await target.close()
    assert got.reported_cost == 0.055545
    assert without.reported_cost is None
    stored: dict[str, Any] = json.loads(json.dumps(got.to_json()))
    assert stored["reported_cost"] == 0.055545
    assert TargetResponse.from_json(stored).reported_cost == 0.055545
    assert "reported_cost" not in without.to_json()
    assert TargetResponse.from_json(without.to_json()).reported_cost is None
    for bad in (True, "0.1", None):
        assert TargetResponse.from_json({**stored, "reported_cost": bad}).reported_cost is None
