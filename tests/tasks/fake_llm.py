"""A fake OpenAI-compatible chat server on 127.0.0.1: scripted candidate answers and scripted
judge JSON. A stand-in for the outside world (a hosted model); the real ``openai`` provider
talks to it.

Requests whose ``model`` is :attr:`FakeLLM.judge_model` are judge calls; the others are
candidate calls. Rules map a substring of the last user message to a queue of replies (the
last reply of a queue repeats); the first matching rule answers; otherwise a candidate
model named in :attr:`FakeLLM.model_answers` gives its own answer. Streaming requests are
answered as server-sent events, word by word. Every request body is recorded and counted.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from tests.support.local_app import LocalApp

JUDGE_MODEL = "fake-judge"
CANDIDATE_MODEL = "fake-candidate"
DEFAULT_VERDICT = json.dumps({"score": 4, "feedback": "Mostly right, one detail missing."})


@dataclass
class FakeLLM(LocalApp):
    judge_model: str = JUDGE_MODEL
    candidate_rules: list[tuple[str, list[str]]] = field(default_factory=list)
    judge_rules: list[tuple[str, list[str]]] = field(default_factory=list)
    default_answer: str = "A helpful answer about the product, in a few plain words."
    model_answers: dict[str, str] = field(default_factory=dict)
    """Candidate model -> its answer to every question no rule matches (matrix runs)."""
    default_verdict: str = DEFAULT_VERDICT
    stream_delay_s: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    url: str = ""
    _served: Counter[tuple[str, str]] = field(default_factory=Counter)

    def candidate(self, needle: str, *replies: str) -> FakeLLM:
        self.candidate_rules.append((needle, list(replies)))
        return self

    def judge(self, needle: str, *replies: str) -> FakeLLM:
        self.judge_rules.append((needle, list(replies)))
        return self

    @property
    def judge_requests(self) -> int:
        return self.counts[self.judge_model]

    @property
    def candidate_requests(self) -> int:
        return sum(n for m, n in self.counts.items() if m != self.judge_model)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def _reply(self, role: str, text: str, model: str = "") -> str:
        rules = self.judge_rules if role == "judge" else self.candidate_rules
        for needle, replies in rules:
            if needle in text:
                n = self._served[(role, needle)]
                self._served[(role, needle)] += 1
                return replies[min(n, len(replies) - 1)]
        if role == "judge":
            return self.default_verdict
        if model in self.model_answers:
            return self.model_answers[model]
        asked = re.search(r"Answer in about (\d+) words", text)
        if asked:  # a speed case: answer with the asked length
            return " ".join(["word"] * int(asked.group(1)))
        return self.default_answer

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        model = str(body.get("model"))
        self.counts[model] += 1
        role = "judge" if model == self.judge_model else "candidate"
        last_user = next(m["content"] for m in reversed(body["messages"])
                         if m["role"] == "user")
        text = self._reply(role, last_user, model)
        usage = {"prompt_tokens": 100 + len(last_user) // 4,
                 "completion_tokens": max(1, len(text.split())), "total_tokens": 0}
        if body.get("stream"):
            resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await resp.prepare(request)
            words = text.split(" ")
            for i, w in enumerate(words):
                if self.stream_delay_s:
                    await asyncio.sleep(self.stream_delay_s)
                chunk = {"model": model, "choices": [{"index": 0, "delta": {
                    "content": w if i == 0 else " " + w}, "finish_reason": None}]}
                await resp.write(f"data: {json.dumps(chunk)}\n\n".encode())
            end = {"model": model, "choices": [{"index": 0, "delta": {},
                                                "finish_reason": "stop"}]}
            await resp.write(f"data: {json.dumps(end)}\n\n".encode())
            await resp.write(f"data: {json.dumps({'model': model, 'choices': [], 'usage': usage})}"
                             "\n\ndata: [DONE]\n\n".encode())
            await resp.write_eof()
            return resp
        return web.json_response({
            "id": "chatcmpl-fake", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": usage,
        })

    url_path = "/v1"

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self._chat)
