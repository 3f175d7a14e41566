"""Issue #30, in the small: why an unscored case has no score, and a system's own cost of a
call — carried from the ``http`` provider's answer, standing in for a missing price, and
set beside Eunomia's figure when there is one."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from tests.support.scripted_server import Reply, ScriptedServer

from eunomia.judge import Verdict
from eunomia.kinds._task_suites import call_cost, calls_cost
from eunomia.models import ChatMessage, ChatRequest, ChatResult
from eunomia.models._http_config import HttpEndpoint
from eunomia.models.providers.http import HttpProvider
from eunomia.pricing import ModelPrice, PriceTable
from eunomia.tasks import CallRecord, CaseResult, CheckResult

PRICES = PriceTable({"priced": ModelPrice(input_cost_per_million=1.0,
                                          output_cost_per_million=2.0)})


def test_the_reason_of_an_unscored_case() -> None:
    nothing = CaseResult(kind="qa", response="an answer")
    assert nothing.status == "unscored"
    assert nothing.unscored_reason(judged=False) == \
        "no checks and --judge none: nothing scores this case"
    unusable = CaseResult(kind="qa", verdicts=[Verdict(
        score=None, status="unscored", feedback="unusable answer: no JSON object", raw="hm")])
    assert unusable.unscored_reason(judged=True) == "unusable answer: no JSON object"
    scored = CaseResult(kind="qa", checks=[CheckResult(name="contains", passed=True)],
                        verdicts=[Verdict(score=5, feedback="checks: 1/1 passed")])
    assert scored.unscored_reason(judged=False) is None
    failed = CaseResult(kind="qa", error="HTTP 503 (after 4 attempts)")
    assert failed.status == "failed" and failed.unscored_reason(judged=True) is None


def test_a_reported_cost_stands_in_for_a_missing_price_only() -> None:
    bot = CallRecord(role="candidate", model="http:bot", input_tokens=100, output_tokens=20,
                     reported_cost=0.0012)
    priced = CallRecord(role="candidate", model="priced", input_tokens=1_000_000,
                        output_tokens=0, reported_cost=0.5)
    silent = CallRecord(role="candidate", model="http:bot", input_tokens=1, output_tokens=1)
    assert call_cost(bot, PRICES) == pytest.approx(0.0012)  # no price: the system's figure
    assert call_cost(priced, PRICES) == pytest.approx(1.0)  # a price: Eunomia's own
    assert calls_cost([bot, priced], PRICES) == pytest.approx(1.0012)
    assert calls_cost([bot, silent], PRICES) is None  # one call with neither: unknown
    # stored as before when nothing is reported: the field is left out
    assert "reported_cost" not in silent.model_dump()
    assert ChatResult(text="x", model="m").model_dump() == \
        ChatResult.model_validate_json(ChatResult(text="x", model="m").model_dump_json()) \
        .model_dump()
    assert "reported_cost" not in ChatResult(text="x", model="m").model_dump()


@pytest_asyncio.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    async with ScriptedServer(key=lambda r: r.path) as s:
        yield s


async def test_the_http_provider_carries_the_cost_it_reads(server: ScriptedServer) -> None:
    server.script("/ask", Reply(json={"text": "fine", "cost_usd": 0.0042}))
    endpoint = HttpEndpoint.model_validate({"url": server.base_url + "/ask", "answer": "$.text",
                                            "cost": "$.cost_usd",
                                            "body": {"q": "{{ instruction }}"}})
    provider = HttpProvider(endpoint.located("models.yml:3 [models.bot.http]"), "http:bot")
    try:
        got = await provider.chat(ChatRequest(messages=(ChatMessage(role="user",
                                                                    content="hi"),)))
    finally:
        await provider.close()
    assert got.reported_cost == pytest.approx(0.0042)
    # what the cache keeps and gives back
    assert ChatResult.model_validate_json(got.model_dump_json()).reported_cost == \
        pytest.approx(0.0042)
