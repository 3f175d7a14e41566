"""Serving a model behind another OpenAI-compatible endpoint (an ``openai:`` spec): the
upstream is the outside world, faked by the provider tests' OpenAI server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import aiohttp
import pytest_asyncio
from tests.models.conftest import FakeOpenAI

from eunomia.model_server import ServedModel, start_model_server
from eunomia.models.providers.openai import OpenAIProvider

Serving = Callable[[str], AbstractAsyncContextManager[str]]


@pytest_asyncio.fixture
async def upstream() -> AsyncIterator[FakeOpenAI]:
    server = FakeOpenAI()
    await server.start()
    try:
        yield server
    finally:
        await server.close()


@pytest_asyncio.fixture
async def serving(upstream: FakeOpenAI) -> Serving:
    """Serve ``openai:<model>`` of the fake upstream; yields the base URL."""

    @asynccontextmanager
    async def serve(model: str) -> AsyncIterator[str]:
        provider = OpenAIProvider(model, base_url=upstream.url, name=f"openai:{model}")
        served = ServedModel(provider, f"openai:{model}", aliases=["gpt-upstream"])
        runner, url = await start_model_server(served)
        try:
            yield url
        finally:
            await runner.cleanup()
            await served.close()

    return serve


USER = [{"role": "user", "content": "Hello"}]


async def post(url: str, body: dict[str, object]) -> tuple[int, dict[str, str], bytes]:
    async with aiohttp.ClientSession() as session, \
            session.post(url + "/chat/completions", json=body) as r:
        return r.status, dict(r.headers), await r.read()


async def test_whole_and_streamed_answers_pass_through(serving: Serving,
                                                       upstream: FakeOpenAI) -> None:
    async with serving("ok") as url:
        status, _, raw = await post(url, {"model": "gpt-upstream", "messages": USER,
                                          "max_tokens": 50, "seed": 3})
        assert status == 200
        body = json.loads(raw)
        assert body["choices"][0]["message"]["content"] == "Hello there, student."
        assert body["model"] == "ok-2024-07-18"  # what the upstream said answered
        assert body["usage"] == {"prompt_tokens": 31, "completion_tokens": 9,
                                 "total_tokens": 40,
                                 "prompt_tokens_details": {"cached_tokens": 16}}
        sent = upstream.requests[-1]
        assert (sent["model"], sent["max_tokens"], sent["seed"]) == ("ok", 50, 3)
        assert sent["messages"] == USER

        status, headers, raw = await post(url, {"model": "gpt-upstream", "messages": USER,
                                                "stream": True,
                                                "stream_options": {"include_usage": True}})
        assert status == 200 and headers["Content-Type"].startswith("text/event-stream")
        events = [json.loads(block[6:]) for block in raw.decode().split("\n\n")
                  if block.startswith("data: {")]
        contents = [e["choices"][0]["delta"].get("content") for e in events if e["choices"]]
        assert contents == ["", "Hello there, student.", None]  # whole: one piece
        assert events[-1]["usage"]["completion_tokens"] == 9
        assert raw.endswith(b"data: [DONE]\n\n")


async def test_json_answers_are_the_json_the_provider_read(serving: Serving) -> None:
    schema = {"type": "object", "properties": {"verdict": {"type": "string"},
                                               "points": {"type": "integer"}}}
    async with serving("json") as url:  # the upstream wraps its JSON in a fence with prose
        status, _, raw = await post(url, {"model": "gpt-upstream", "messages": USER,
                                          "response_format": {"type": "json_schema",
                                                              "json_schema": {"name": "g",
                                                                              "schema": schema}}})
    assert status == 200
    content = json.loads(raw)["choices"][0]["message"]["content"]
    assert json.loads(content) == {"verdict": "correct", "points": 2}


async def test_upstream_failures_become_openai_errors(serving: Serving) -> None:
    async with serving("ratelimit") as url:
        status, headers, raw = await post(url, {"model": "gpt-upstream", "messages": USER})
    assert status == 429 and headers["Retry-After"] == "7"
    assert json.loads(raw)["error"]["type"] == "rate_limit_error"
    async with serving("boom") as url:
        status, _, raw = await post(url, {"model": "gpt-upstream", "messages": USER})
    assert status == 502
    error = json.loads(raw)["error"]
    assert error["code"] == "upstream_error" and "HTTP 500" in error["message"]
    async with serving("html") as url:  # a 200 that is not JSON: the upstream is unusable
        status, _, raw = await post(url, {"model": "gpt-upstream", "messages": USER,
                                          "stream": True})
    assert status == 502
    assert json.loads(raw)["error"]["type"] == "server_error"
