"""Contract tests of the Anthropic provider against a local fake Messages API."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web

from eunomia.models import ChatMessage, ChatRequest, GenerationSettings
from eunomia.scheduler import CallError

pytest.importorskip("anthropic", reason="the anthropic extra is not installed")

from eunomia.models.providers.anthropic import AnthropicProvider

SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["correct", "incorrect"]}},
    "required": ["verdict"],
}


class FakeAnthropic:
    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.url = ""
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/messages", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.bodies.append(body)
        model = body["model"]
        if model == "ratelimit":
            return web.json_response(
                {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
                status=429,
                headers={"retry-after": "3"},
            )
        if model == "overloaded":
            return web.json_response(
                {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}},
                status=529,
            )
        if model == "bad":
            return web.json_response(
                {"type": "error", "error": {"type": "invalid_request_error", "message": "no"}},
                status=400,
            )
        usage = {
            "input_tokens": 10,
            "output_tokens": 5,
            "cache_read_input_tokens": 20,
            "cache_creation_input_tokens": 2,
        }
        if body.get("stream"):
            return await self._stream(request, model)
        if body.get("tools"):
            content: list[dict[str, Any]] = [
                {"type": "tool_use", "id": "t1", "name": "answer", "input": {"verdict": "correct"}}
            ]
        else:
            content = [{"type": "text", "text": "Hello."}]
        return web.json_response(
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": f"{model}-20250101",
                "content": content,
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": usage,
            }
        )

    async def _stream(self, request: web.Request, model: str) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)

        async def event(name: str, data: dict[str, Any]) -> None:
            await response.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())

        message: dict[str, Any] = {
            "id": "msg_1", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        }
        await event("message_start", {"type": "message_start", "message": message})
        await asyncio.sleep(0.2)
        await event(
            "content_block_start",
            {"type": "content_block_start", "index": 0,
             "content_block": {"type": "text", "text": ""}},
        )
        for piece in ("Hel", "lo."):
            await event(
                "content_block_delta",
                {"type": "content_block_delta", "index": 0,
                 "delta": {"type": "text_delta", "text": piece}},
            )
        await event("content_block_stop", {"type": "content_block_stop", "index": 0})
        await event(
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
             "usage": {"output_tokens": 4}},
        )
        await event("message_stop", {"type": "message_stop"})
        await response.write_eof()
        return response


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeAnthropic]:
    server = FakeAnthropic()
    await server.start()
    try:
        yield server
    finally:
        await server.close()


def req(**kwargs: Any) -> ChatRequest:
    return ChatRequest(
        messages=(
            ChatMessage(role="system", content="Be brief."),
            ChatMessage(role="user", content="Hi"),
        ),
        settings=GenerationSettings(max_tokens=64, stop=("END",)),
        **kwargs,
    )


async def _call(fake: FakeAnthropic, model: str, **kwargs: Any) -> Any:
    provider = AnthropicProvider(model, api_key="sk-ant-test", base_url=fake.url)
    try:
        return await provider.chat(req(**kwargs))
    finally:
        await provider.close()


async def test_text_answer_and_usage(fake: FakeAnthropic) -> None:
    result = await _call(fake, "claude-test")
    assert result.text == "Hello."
    assert result.model == "claude-test-20250101"
    body = fake.bodies[0]
    assert body["system"] == "Be brief."
    assert body["messages"] == [{"role": "user", "content": "Hi"}]
    assert body["max_tokens"] == 64 and body["stop_sequences"] == ["END"]
    # cache reads and writes are part of our input tokens
    assert result.usage.input_tokens == 32
    assert result.usage.cached_input_tokens == 20
    assert result.usage.output_tokens == 5


async def test_schema_via_forced_tool(fake: FakeAnthropic) -> None:
    result = await _call(fake, "claude-test", json_schema=SCHEMA)
    assert result.parsed == {"verdict": "correct"}
    body = fake.bodies[0]
    assert body["tools"][0]["input_schema"] == SCHEMA
    assert body["tool_choice"] == {"type": "tool", "name": "answer"}


async def test_rate_limit(fake: FakeAnthropic) -> None:
    with pytest.raises(CallError) as info:
        await _call(fake, "ratelimit")
    assert info.value.rate_limited and info.value.retryable
    assert info.value.retry_after == 3.0 and info.value.status == 429


async def test_overloaded_is_retryable_and_bad_request_is_not(fake: FakeAnthropic) -> None:
    with pytest.raises(CallError) as info:
        await _call(fake, "overloaded")
    assert info.value.retryable and info.value.status == 529
    with pytest.raises(CallError) as info:
        await _call(fake, "bad")
    assert not info.value.retryable and info.value.status == 400
    assert "sk-ant-test" not in str(info.value)


async def test_streaming_time_to_first_token(fake: FakeAnthropic) -> None:
    result = await _call(fake, "claude-test", stream=True)
    assert result.text == "Hello."
    assert result.time_to_first_token_s is not None and result.time_to_first_token_s >= 0.18
    assert result.usage.output_tokens == 4


async def test_connection_refused_is_retryable() -> None:
    provider = AnthropicProvider("claude-test", api_key="k", base_url="http://127.0.0.1:9")
    try:
        with pytest.raises(CallError) as info:
            await provider.chat(req())
    finally:
        await provider.close()
    assert info.value.retryable
