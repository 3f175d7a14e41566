"""A small OpenAI-compatible server on 127.0.0.1 for provider contract tests.

The model name in the request picks the behaviour, so one server covers every case:
``ok``, ``json``, ``ratelimit``, ``boom`` (500), ``bad`` (400), ``html`` (non-JSON 200),
``nochoices``, ``streamerr`` (an error inside a stream).
Streaming requests are answered as server-sent events.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest_asyncio
from aiohttp import web

STREAM_DELAY_S = 0.2
"""Pause before the first streamed token, so time-to-first-token is measurable."""


@dataclass
class FakeOpenAI:
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    queries: list[dict[str, str]] = field(default_factory=list)
    url: str = ""
    _runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}/v1"

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        self.queries.append(dict(request.query))
        model = body["model"]
        if model == "ratelimit":
            return web.json_response(
                {"error": {"message": "Rate limit reached", "type": "rate_limit"}},
                status=429,
                headers={"Retry-After": "7"},
            )
        if model == "boom":
            return web.json_response({"error": {"message": "internal"}}, status=500)
        if model == "bad":
            return web.json_response(
                {"error": {"message": "Invalid schema for response_format"}}, status=400
            )
        if model == "html":
            return web.Response(text="<html><body>Bad gateway</body></html>", status=200)
        if model == "streamerr":
            response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await response.prepare(request)
            await response.write(b'data: {"error": {"message": "overloaded, try later"}}')
            await response.write_eof()  # and no trailing newline
            return response
        if model == "nochoices":
            return web.json_response({"id": "x", "model": model})
        content = self._answer(body)
        if body.get("stream"):
            return await self._stream(request, body, content)
        return web.json_response(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": f"{model}-2024-07-18",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": 31,
                    "completion_tokens": 9,
                    "total_tokens": 40,
                    "prompt_tokens_details": {"cached_tokens": 16},
                },
            }
        )

    @staticmethod
    def _answer(body: dict[str, Any]) -> str:
        if body.get("response_format", {}).get("type") == "json_schema":
            # Wrapped in a fence with prose, to exercise tolerant parsing.
            return 'Here you go:\n```json\n{"verdict": "correct", "points": 2,}\n```'
        return "Hello there, student."

    async def _stream(
        self, request: web.Request, body: dict[str, Any], content: str
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)

        async def send(payload: Any) -> None:
            data = payload if isinstance(payload, str) else json.dumps(payload)
            await response.write(f"data: {data}\n\n".encode())

        base = {"id": "c", "object": "chat.completion.chunk", "model": body["model"]}
        await send({**base, "choices": [{"index": 0, "delta": {"role": "assistant"}}]})
        await response.write(b": keep-alive comment\n\n")
        await asyncio.sleep(STREAM_DELAY_S)
        for i in range(0, len(content), 5):
            piece = content[i : i + 5]
            await send({**base, "choices": [{"index": 0, "delta": {"content": piece}}]})
        await send({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        if body.get("stream_options", {}).get("include_usage"):
            usage = {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19}
            await send({**base, "choices": [], "usage": usage})
        await send("[DONE]")
        await response.write_eof()
        return response


@pytest_asyncio.fixture
async def fake_openai() -> AsyncIterator[FakeOpenAI]:
    server = FakeOpenAI()
    await server.start()
    try:
        yield server
    finally:
        await server.close()
