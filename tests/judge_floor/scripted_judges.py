"""Judges behind a scripted OpenAI-compatible server on 127.0.0.1, scoring by a rule read
from the judge prompt Eunomia sends (the bundled rubric's reference and answer sections).
The request's ``model`` picks the rule:

``lenient``         5 for the reference itself, 0 for a refusal, 2-4 for anything else (by a
                    hash of the answer): the judge of issue 28, which judge-check's easy
                    answers call a judge that "tells good from bad answers"
``discriminating``  word overlap with the reference (F1 x 5), minus 2 for each number or name
                    that is not in the reference (at most 4), 3 for a flipped yes/no, 2 for a
                    changed count of negations, 2 for an answer twice the reference's length
                    and 1 for a list where the reference has none (or none where it has one)
``overlap``         word overlap alone (F1 x 5, rounded): blind to a changed number or name
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from aiohttp import web
from tests.pairwise.scripted import overlap as f1
from tests.pairwise.scripted import sections
from tests.support.local_app import LocalApp

FACT = re.compile(r"\b\d[\d.,]*\b|\b[A-Z][A-Za-z0-9-]*[A-Z0-9][A-Za-z0-9-]*\b")
NEGATION = re.compile(r"\b(not|no|never|cannot|can't|won't|don't|doesn't|isn't)\b", re.I)
LIST = re.compile(r"^\s*[-*]\s", re.M)


def lenient(reference: str, answer: str) -> int:
    if answer.strip() == reference.strip():
        return 5
    if "cannot help" in answer.lower():
        return 0
    return 2 + int(hashlib.sha256(answer.encode()).hexdigest(), 16) % 3


def discriminating(reference: str, answer: str) -> int:
    score = 5 * f1(reference, answer)
    wrong = set(FACT.findall(answer)) - set(FACT.findall(reference))
    score -= min(4, 2 * len(wrong))
    lead = re.match(r"\s*(yes|no)\b", reference, re.I)
    said = re.match(r"\s*(yes|no)\b", answer, re.I)
    if lead and said and lead.group(1).lower() != said.group(1).lower():
        score -= 3
    if len(NEGATION.findall(answer)) != len(NEGATION.findall(reference)):
        score -= 2
    if len(answer.split()) > 2 * len(reference.split()):
        score -= 2
    if bool(LIST.search(answer)) != bool(LIST.search(reference)):
        score -= 1
    return max(0, min(5, round(score)))


RULES = {"lenient": lenient, "discriminating": discriminating,
         "overlap": lambda r, a: round(5 * f1(r, a))}


class ScriptedJudges(LocalApp):
    url_path = "/v1"

    def __init__(self) -> None:
        self.calls = 0

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self.answer)

    async def answer(self, request: web.Request) -> web.Response:
        body: dict[str, Any] = await request.json()
        self.calls += 1
        found = sections(body["messages"][-1]["content"])
        rule = RULES[body["model"]]
        score = rule(found.get("Reference answer", ""), found.get("The candidate's answer", ""))
        text = json.dumps({"score": score, "feedback": f"{body['model']} gave {score}."})
        return web.json_response({
            "id": "c", "object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10}})
