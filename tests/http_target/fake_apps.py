"""The outside world of the ``http`` tests: three systems on one server on 127.0.0.1, one per
example of docs/http-targets.md, each checking its own credential header.

- ``POST /v1/chat/completions``: an OpenAI-compatible app route answering as server-sent
  events, a piece every few milliseconds, usage in the last event.
- ``POST /api/ask``: a JSON API of its own shape. Questions script failures: ``RATE`` (429
  with Retry-After once), ``FLAKY`` (503 once), ``BAD`` (400), ``HTML`` (a proxy's page),
  ``EMPTY`` (an answer without the text).
- ``POST /athena/v2/modeling/feedback``: an Athena module behind a gateway route; it names
  the first grading instruction of the exercise, and echoes the gateway key back in its
  answer (which must never reach the results).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from tests.support.local_app import LocalApp

STREAM_DELAY_S = 0.02
APP_KEY = "sk-app-4f9c1e27d3"
BOT_KEY = "bot-key-77a1c0ffee"
GATEWAY_KEY = "gw-secret-5b2d8e11"
KEYS = {"MYAPP_API_KEY": APP_KEY, "SUPPORT_BOT_KEY": BOT_KEY,
        "ATHENA_GATEWAY_KEY": GATEWAY_KEY}
"""The credentials the apps check, as the environment variables docs/http-targets.md names."""
RETRY_AFTER_S = 1


@dataclass(slots=True)
class Seen:
    path: str
    headers: dict[str, str]
    json: Any
    at: float


class FakeApps(LocalApp):
    def __init__(self, *, app_key: str = "", bot_key: str = "", gateway_key: str = "") -> None:
        self.app_key = app_key
        self.bot_key = bot_key
        self.gateway_key = gateway_key
        self.seen: list[Seen] = []
        self.asked: Counter[str] = Counter()

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/api/ask", self._ask)
        app.router.add_post("/athena/v2/modeling/feedback", self._athena)

    def requests(self, path: str) -> list[Seen]:
        return [s for s in self.seen if s.path == path]

    async def _record(self, request: web.Request) -> Any:
        body = await request.json()
        self.seen.append(Seen(request.path, dict(request.headers), body, time.monotonic()))
        return body

    # --- an OpenAI-compatible route, streamed ------------------------------------------
    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await self._record(request)
        if request.headers.get("Authorization") != f"Bearer {self.app_key}":
            return web.json_response({"error": {"message": "bad key"}}, status=401)
        messages = body["messages"]
        question = messages[-1]["content"]
        turns = sum(m["role"] == "user" for m in messages)
        answer = f"The answer to {question} is 42 (turn {turns})"
        if not body.get("stream"):
            return web.json_response({"model": "shop-model-1", "choices": [
                {"message": {"content": answer}}], "usage": {}})
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)

        async def send(chunk: dict[str, Any]) -> None:
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())

        await send({"model": "shop-model-1", "choices": [{"delta": {"role": "assistant",
                                                                     "content": ""}}]})
        await response.write(b": keep-alive\n\n")
        for word in answer.split(" "):
            await asyncio.sleep(STREAM_DELAY_S)
            await send({"model": "shop-model-1", "choices": [{"delta": {"content": word + " "}}]})
        await send({"model": "shop-model-1", "choices": [],
                    "usage": {"prompt_tokens": 11 * turns, "completion_tokens": 7}})
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    # --- a JSON API of its own shape ----------------------------------------------------
    async def _ask(self, request: web.Request) -> web.Response:
        body = await self._record(request)
        if request.headers.get("X-Api-Key") != self.bot_key:
            return web.json_response({"error": "bad key"}, status=401)
        question = str(body.get("question", ""))
        self.asked[question] += 1
        first = self.asked[question] == 1
        if question == "RATE" and first:
            return web.json_response({"error": "slow down"}, status=429,
                                     headers={"Retry-After": str(RETRY_AFTER_S)})
        if question == "FLAKY" and first:
            return web.json_response({"error": "oops"}, status=503)
        if question == "BAD":
            return web.json_response({"error": "this question is not allowed"}, status=400)
        if question == "HTML":
            return web.Response(text="<html><body>502 from the proxy</body></html>",
                                content_type="text/html")
        if question == "EMPTY":
            return web.json_response({"result": {"status": "thinking"}})
        history = body.get("history") or []
        return web.json_response({
            "result": {"text": f"answer to {question} after {len(history)} earlier turns"},
            "meta": {"tokens": {"in": 10, "out": 5}},
        })

    # --- an Athena module behind a gateway ------------------------------------------------
    async def _athena(self, request: web.Request) -> web.Response:
        body = await self._record(request)
        key = request.headers.get("X-Gateway-Key", "")
        if key != self.gateway_key:
            return web.json_response({"detail": "forbidden"}, status=403)
        exercise, submission = body["exercise"], body["submission"]
        first = exercise["gradingCriteria"][0]["structuredGradingInstructions"][0]
        return web.json_response({
            "data": [{
                "id": 1, "title": "first instruction",
                "description": f"reviewed through the gateway with key {key}",
                "credits": first["credits"], "structuredGradingInstructionId": first["id"],
                "exerciseId": exercise["id"], "submissionId": submission["id"],
                "elementIds": [],
            }],
            "meta": {"llmRequests": [{"model": "gpt-4o-mini", "numInputTokens": 1000,
                                      "numOutputTokens": 100}],
                     "echo": {"key": key}},
        })
