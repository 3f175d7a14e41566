"""Candidates and judges behind a scripted OpenAI-compatible server on 127.0.0.1.

The request's ``model`` says who answers. Candidates:

``oracle``   answers a task with the case's expected response (looked up by its instruction
             in :attr:`Scripted.references`), else "I do not know."
``parrot``   "I cannot help with that." to everything

Judges read the prompt Eunomia sends (its ``=== section ===`` headings): the pairwise prompt
(two answers, ``Response 1`` and ``Response 2``) or the 0-5 rubric (``The candidate's
answer``), and answer by a rule:

``overlap``  the answer whose words overlap the reference more (F1) wins, equal is a tie;
             on the rubric, the F1 x 5, rounded
``first``    always Response 1 (a judge that only looks at the position)
``sloppy``   as ``overlap``, written loosely: a fenced block, ``{"Winner": "Response 2",
             "explanation": ...}``
``mute``     prose, never the JSON asked for
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from aiohttp import web
from tests.support.local_app import LocalApp

SECTION = re.compile(r"=== (.+?) ===\n(.*?)(?=\n\n=== |\n\nReply with|\Z)", re.S)
WORD = re.compile(r"[a-z0-9]+")
NONE = "(none)"


def sections(prompt: str) -> dict[str, str]:
    return {m.group(1): m.group(2).strip() for m in SECTION.finditer(prompt)}


def overlap(reference: str, answer: str) -> float:
    ref, ans = Counter(WORD.findall(reference.lower())), Counter(WORD.findall(answer.lower()))
    common = sum((ref & ans).values())
    if not common:
        return 0.0
    precision, recall = common / sum(ans.values()), common / sum(ref.values())
    return 2 * precision * recall / (precision + recall)


def references(*suites: Path) -> dict[str, str]:
    """Instruction -> expected response of every case of ``suites`` that has both."""
    out: dict[str, str] = {}
    for path in suites:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for case in data["test_cases"] if isinstance(data, dict) else data:
            if case.get("instruction") and case.get("expected_response"):
                out[str(case["instruction"]).strip()] = str(case["expected_response"]).strip()
    return out


class Scripted(LocalApp):
    url_path = "/v1"

    def __init__(self, known: dict[str, str] | None = None) -> None:
        self.references = known or {}
        self.bodies: list[dict[str, Any]] = []
        self.counts: Counter[str] = Counter()

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self.answer)

    @staticmethod
    def reply(model: str, text: str) -> web.Response:
        return web.json_response({
            "id": "c", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 10}})

    async def answer(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.bodies.append(body)
        model = str(body["model"])
        self.counts[model] += 1
        last = body["messages"][-1]["content"]
        if model == "oracle":
            return self.reply(model, self.references.get(last.strip(), "I do not know."))
        if model == "parrot":
            return self.reply(model, "I cannot help with that.")
        found = sections(last)
        if model == "mute":
            return self.reply(model, "Both look fine to me.")
        reference = found.get("Reference answer", "")
        if reference == NONE:
            reference = found.get("Instruction given to the assistants", "")
        if "Response 1" in found:
            one, two = found["Response 1"], found["Response 2"]
            if model == "first":
                winner = "1"
            else:
                a, b = overlap(reference, one), overlap(reference, two)
                winner = "tie" if abs(a - b) < 1e-9 else "1" if a > b else "2"
            text = json.dumps({"winner": winner, "reason": f"Rule {model}."})
            if model == "sloppy":
                loose = {"1": "Response 1", "2": "Response 2", "tie": "a tie"}[winner]
                text = ("Here is my verdict:\n```json\n"
                        + json.dumps({"Winner": loose, "explanation": "closer"}) + "\n```")
            return self.reply(model, text)
        score = round(5 * overlap(reference, found.get("The candidate's answer", "")))
        return self.reply(model, json.dumps({"score": score, "feedback": f"Rule {model}."}))
