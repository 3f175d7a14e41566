"""A fake OpenAI-compatible chat server on 127.0.0.1 that grades like an oracle.

It stands in for the outside world (a hosted model): it reads the answer schema
the engine sends (``response_format.json_schema.schema``), finds the test case from
the rendered submission at the end of the user message, and answers, per criterion
key, the SGI id of the case's expected instructions that is in that criterion's
``enum``. ``overrides`` replace the whole answer text for chosen cases (bad ids,
broken JSON...). Every request body is recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from eunomia.engine import render_submission
from eunomia.scenarios import Scenario

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "project_management"
FAKE_MODEL = "fake-grader"


@dataclass
class FakeChatServer:
    scenario: Scenario
    requests: list[dict[str, Any]] = field(default_factory=list)
    overrides: dict[str, str] = field(default_factory=dict)
    """Case name -> raw answer text."""
    url: str = ""
    _runner: web.AppRunner | None = None
    _by_rendering: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for case in self.scenario.test_cases:
            self._by_rendering[render_submission(case.submission)] = case.name

    def case_of(self, user: str) -> str:
        for rendering, name in self._by_rendering.items():
            if user.rstrip().endswith(rendering):
                return name
        raise AssertionError(f"unknown submission in prompt: {user[-200:]!r}")

    def oracle(self, name: str, schema: dict[str, Any]) -> dict[str, Any]:
        case = next(c for c in self.scenario.test_cases if c.name == name)
        expected = {str(i) for i in case.expected}
        answer: dict[str, Any] = {}
        for key, prop in schema["properties"].items():
            enum = prop["properties"]["instruction"]["enum"]
            (chosen,) = [i for i in enum if i in expected]
            answer[key] = {"feedback": f"{key} looks like instruction {chosen}.",
                           "instruction": chosen}
        return answer

    async def _chat(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append(body)
        user = body["messages"][-1]["content"]
        name = self.case_of(user)
        schema = body["response_format"]["json_schema"]["schema"]
        text = self.overrides.get(name)
        if text is None:
            text = json.dumps(self.oracle(name, schema))
        return web.json_response({
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": FAKE_MODEL,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100,
                      "prompt_tokens_details": {"cached_tokens": 800}},
        })

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = int(self._runner.addresses[0][1])
        self.url = f"http://127.0.0.1:{port}/v1"

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    @contextlib.contextmanager
    def in_thread(self) -> Iterator[None]:
        """Serve from a background thread with its own loop (for synchronous CLI tests)."""
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(loop)
            loop.run_until_complete(self.start())
            ready.set()
            loop.run_forever()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        assert ready.wait(10), "fake chat server did not start"
        try:
            yield
        finally:
            asyncio.run_coroutine_threadsafe(self.close(), loop).result(10)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)
            loop.close()
