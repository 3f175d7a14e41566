"""A fake OpenAI-compatible chat server on 127.0.0.1 that grades like an oracle.

It stands in for the outside world (a hosted model): it reads the answer schema
the engine sends (``response_format.json_schema.schema``), finds the test case from
the rendered submission at the end of the user message, and answers, per criterion
key, the SGI id of the case's expected instructions that is in that criterion's
``enum``. ``overrides`` replace the whole answer text for chosen cases (bad ids,
broken JSON...). Every request body is recorded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web
from tests.support.local_app import LocalApp

from eunomia.llm_feedback import render_submission
from eunomia.scenarios import Scenario

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "project_management"
FAKE_MODEL = "fake-grader"


@dataclass
class FakeChatServer(LocalApp):
    scenario: Scenario
    requests: list[dict[str, Any]] = field(default_factory=list)
    overrides: dict[str, str] = field(default_factory=dict)
    """Case name -> raw answer text."""
    url: str = ""
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

    url_path = "/v1"

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self._chat)
