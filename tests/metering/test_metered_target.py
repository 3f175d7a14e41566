"""A metered target as a run drives it: a scripted system on 127.0.0.1 that calls its LLM
through a real ``serve-model --upstream`` relay (the LLM a fake upstream), with requests one at
a time, at once, failing and retried, and LLM calls made outside any request."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from aiohttp import web
from tests.model_server.test_usage_record import FakeUpstream
from tests.support.local_app import LocalApp

from eunomia.athena import case_index
from eunomia.errors import EunomiaError
from eunomia.metering import AttributionMethod
from eunomia.model_server import Upstream, start_model_server
from eunomia.scenarios import Scenario, load_scenario
from eunomia.scheduler import CallError
from eunomia.targets import TargetConfig, build_target
from eunomia.targets._factory import split_options
from eunomia.targets._metered import MeteredTarget
from eunomia.targets.athena import AthenaTarget

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "project_management"


@dataclass
class System(LocalApp):
    """An Athena-shaped system: for each request, ``calls[case]`` LLM calls through ``llm``
    (the relay), each after ``pause[case]`` seconds, then an answer after ``linger[case]``
    seconds; ``fail``: cases whose first attempt fails (500) after its calls."""

    llm: str = ""
    calls: dict[int, int] = field(default_factory=dict)
    pause: dict[int, float] = field(default_factory=dict)
    linger: dict[int, float] = field(default_factory=dict)
    fail: set[int] = field(default_factory=set)
    bodies: list[dict[str, Any]] = field(default_factory=list)

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/feedback_suggestions", self._answer)

    async def _answer(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.bodies.append(body)
        case = case_index(body["submission"]["id"])
        async with aiohttp.ClientSession() as session:
            for n in range(self.calls.get(case, 1)):
                await asyncio.sleep(self.pause.get(case, 0.0))
                content = "x" * (100 * case + n)  # tokens tell the calls apart
                async with session.post(self.llm + "/chat/completions", json={
                        "model": "gpt-up", "messages": [{"role": "user", "content": content}]
                        }) as r:
                    assert r.status == 200
        await asyncio.sleep(self.linger.get(case, 0.0))
        if case in self.fail:
            self.fail.discard(case)
            return web.Response(status=500, text="Internal Server Error")
        return web.json_response({"data": [], "meta": {}})


@pytest_asyncio.fixture
async def relay() -> AsyncIterator[str]:
    upstream = FakeUpstream()
    await upstream.start()
    served = Upstream(upstream.url)
    runner, url = await start_model_server(served)
    try:
        yield url
    finally:
        await runner.cleanup()
        await served.close()
        await upstream.close()


@pytest_asyncio.fixture
async def system(relay: str) -> AsyncIterator[System]:
    server = System(llm=relay)
    await server.start()
    try:
        yield server
    finally:
        await server.close()


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    loaded, diagnostics = load_scenario(EXAMPLE)
    assert loaded is not None, diagnostics
    return loaded


def metered_target(system: System, relay: str, *, graded: str = "") -> MeteredTarget:
    spec = f"athena:{system.url}/feedback_suggestions?{graded}llm_usage={relay}"
    target = build_target(spec, TargetConfig(id_base=2**52))
    assert isinstance(target, MeteredTarget) and isinstance(target.inner, AthenaTarget)
    return target


def tokens(case_index: int, n: int = 0) -> int:
    return 100 * case_index + n  # the fake upstream counts one token per character


async def test_one_request_at_a_time_each_case_gets_its_calls_exactly(
        system: System, relay: str, scenario: Scenario) -> None:
    system.calls = {1: 2, 2: 1, 3: 0}
    target = metered_target(system, relay)
    cases = scenario.test_cases[:3]
    await target.open()
    try:
        got = [await target.feedback(scenario, case) for case in cases]
    finally:
        await target.close()
    for response, case in zip(got, cases, strict=True):
        metered = response.metered
        assert metered is not None and metered.attribution is AttributionMethod.EXACT
        index = case.submission_id
        assert [c.input_tokens for c in metered.calls] == [
            tokens(index, n) for n in range(system.calls[index])]
        assert response.latency_s > 0
        # stored and read back with the response (cache, resume, export)
        assert type(response).from_json(json.loads(json.dumps(response.to_json()))
                                        ).metered == metered
    assert target.totals is not None
    assert (target.totals.calls, target.totals.exact, target.totals.unattributed) == (3, 3, 0)
    assert target.totals.input_tokens == tokens(1) + tokens(1, 1) + tokens(2)
    assert "3 of 3 call(s) exactly" in target.totals.attribution


async def test_requests_at_once_totals_exact_and_figures_flagged(
        system: System, relay: str, scenario: Scenario) -> None:
    # case 1 calls its LLM at once and answers last; case 2's request starts while case 1 is
    # in flight and calls its LLM then: that call may be case 1's as well
    system.calls = {1: 1, 2: 1}
    system.linger = {1: 0.5}
    system.pause = {2: 0.1}
    target = metered_target(system, relay)
    await target.open()
    try:
        slow = asyncio.create_task(target.feedback(scenario, scenario.test_cases[0]))
        await asyncio.sleep(0.05)
        first, second = await asyncio.gather(slow, target.feedback(scenario,
                                                                   scenario.test_cases[1]))
    finally:
        await target.close()
    assert first.metered is not None and second.metered is not None
    # each got its own call (case 2's went to the request that finished first after it) ...
    assert [c.input_tokens for c in first.metered.calls] == [tokens(1)]
    assert [c.input_tokens for c in second.metered.calls] == [tokens(2)]
    # ... and both figures say they are approximate
    assert first.metered.attribution is AttributionMethod.OVERLAP
    assert second.metered.attribution is AttributionMethod.OVERLAP
    assert target.totals is not None
    assert (target.totals.calls, target.totals.exact, target.totals.by_overlap) == (2, 1, 1)
    assert "1 by overlap" in target.totals.attribution


async def test_calls_of_a_failed_attempt_go_with_the_retry(
        system: System, relay: str, scenario: Scenario) -> None:
    system.calls = {1: 1}
    system.fail = {1}
    target = metered_target(system, relay)
    case = scenario.test_cases[0]
    await target.open()
    try:
        with pytest.raises(CallError):
            await target.feedback(scenario, case)
        response = await target.feedback(scenario, case)
    finally:
        await target.close()
    assert response.metered is not None
    assert response.metered.earlier_attempts == 1
    assert [c.input_tokens for c in response.metered.calls] == [tokens(1), tokens(1)]


async def test_calls_outside_every_request_are_in_the_totals_only(
        system: System, relay: str, scenario: Scenario) -> None:
    target = metered_target(system, relay)
    await target.open()
    other = {"model": "gpt-up", "messages": [{"role": "user", "content": "yy"}]}
    async with aiohttp.ClientSession() as session, session.post(  # someone else, meanwhile
            relay + "/chat/completions", json=other) as r:
        assert r.status == 200
    try:
        response = await target.feedback(scenario, scenario.test_cases[0])
    finally:
        await target.close()
    assert response.metered is not None and len(response.metered.calls) == 1
    assert target.totals is not None
    assert (target.totals.calls, target.totals.unattributed) == (2, 1)
    assert "1 outside every request" in target.totals.attribution


async def test_an_unreachable_meter_stops_with_a_clear_error(
        system: System, scenario: Scenario) -> None:
    target = metered_target(system, "http://127.0.0.1:9")
    with pytest.raises(EunomiaError, match="cannot read the LLM usage record"):
        await target.open()


async def test_graded_false_sends_is_graded_false(system: System, relay: str,
                                                   scenario: Scenario) -> None:
    target = metered_target(system, relay, graded="graded=false&")
    assert target.name == f"athena:{system.url}/feedback_suggestions?graded=false"
    graded = build_target(f"athena:{system.url}/feedback_suggestions", TargetConfig())
    assert target.cache_identity != graded.cache_identity
    assert b'"isGraded":false}' in target.describe_request(scenario, scenario.test_cases[0])
    await target.open()
    try:
        await target.feedback(scenario, scenario.test_cases[0])
    finally:
        await target.close()
    assert system.bodies[-1]["isGraded"] is False


def test_target_options_are_checked() -> None:
    assert split_options("athena:http://h/f?a=1&graded=no&llm_usage=http://u:8/v1") == (
        "athena:http://h/f?a=1", {"graded": "no", "llm_usage": "http://u:8/v1"})
    assert split_options("athena:http://h/f") == ("athena:http://h/f", {})
    with pytest.raises(EunomiaError, match="given twice"):
        split_options("athena:http://h/f?graded=false&graded=true")
    with pytest.raises(EunomiaError, match="needs a value"):
        split_options("athena:http://h/f?llm_usage=")
    with pytest.raises(EunomiaError, match="true or false"):
        build_target("athena:http://h/f?graded=maybe", TargetConfig())
    with pytest.raises(EunomiaError, match="--llm-usage"):
        build_target("athena:http://h/f?llm_usage=ftp://x", TargetConfig())
    plain = build_target("athena?graded=false", TargetConfig(server_url="http://h/f"))
    assert isinstance(plain, AthenaTarget) and not plain.graded
    # the run-wide settings, overridden per target
    config = TargetConfig(athena_graded=False, llm_usage="http://127.0.0.1:8000")
    metered = build_target("athena:http://h/f?graded=true", config)
    assert isinstance(metered, MeteredTarget) and isinstance(metered.inner, AthenaTarget)
    assert metered.inner.graded and metered.usage_url == "http://127.0.0.1:8000/eunomia/usage"
    assert not isinstance(build_target("baseline:default", config), MeteredTarget)


def test_metering_refuses_a_remote_executor(scenario: Scenario) -> None:
    import types

    from eunomia.executors import target_work
    from eunomia.scheduler import RetryPolicy

    target = build_target("athena:http://h/f?llm_usage=http://127.0.0.1:8000", TargetConfig())
    remote = types.SimpleNamespace(remote=True, name="ray")
    with pytest.raises(EunomiaError, match="needs the local executor"):
        target_work(target, [scenario], RetryPolicy(), remote, None)  # type: ignore[arg-type]
