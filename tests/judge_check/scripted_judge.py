"""A judge behind a scripted OpenAI-compatible server on 127.0.0.1, scoring by a rule.

The request's ``model`` picks the rule; every rule reads the judge prompt Eunomia sends (the
bundled rubric: the reference answer and the candidate's answer in their sections):

``overlap``   F1 of the words of the answer against the reference, x 5, rounded: the
              reference scores 5, another case's answer about 1, a third of it 2-3, a
              refusal 0, the reference padded with unrelated text about 3 (no verbosity bias)
``constant``  always 5 (a judge that cannot judge)
``lengthy``   one point per 25 words, at most 5 (rewards length)
``coin``      a score from a hash of the answer: unrelated to its quality
``mute``      answers prose, never the JSON asked for (every verdict unscored)
``hedging``   always writes 4, but its probabilities follow ``overlap``: half on 4, half on
              the overlap score (what probability weighting can rescue)

With ``logprobs`` asked, the answer comes with OpenAI-style token log-probabilities: the
score token ``" <d>"`` holds 0.6 of the probability, its neighbours 0.3 and 0.1 — except for
a rule named ``plain-<rule>``, a server that gives no log-probabilities, and
``strict-<rule>``, a server that refuses a request asking for them (HTTP 400, as OpenAI
answers for reasoning models).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from typing import Any

from aiohttp import web
from tests.support.local_app import LocalApp

SECTION = re.compile(r"=== (.+?) ===\n(.*?)(?=\n\n=== |\n\nReply with|\Z)", re.S)
WORD = re.compile(r"[a-z0-9]+")


def sections(prompt: str) -> dict[str, str]:
    return {m.group(1): m.group(2).strip() for m in SECTION.finditer(prompt)}


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def overlap_score(reference: str, answer: str) -> int:
    ref, ans = Counter(words(reference)), Counter(words(answer))
    common = sum((ref & ans).values())
    if not common:
        return 0
    precision, recall = common / sum(ans.values()), common / sum(ref.values())
    return round(5 * 2 * precision * recall / (precision + recall))


def rule_score(rule: str, reference: str, answer: str) -> int:
    if rule == "overlap":
        return overlap_score(reference, answer)
    if rule == "constant":
        return 5
    if rule == "lengthy":
        return min(5, len(words(answer)) // 25)
    if rule == "coin":
        return int(hashlib.sha256(answer.encode()).hexdigest(), 16) % 6
    raise ValueError(f"unknown judge rule {rule!r}")


def spread(score: int) -> dict[int, float]:
    """The probabilities at the score's position: 0.6 on the score, 0.3 and 0.1 on the
    nearest other scores."""
    near = sorted((d for d in range(6) if d != score), key=lambda d: (abs(d - score), d))
    return {score: 0.6, near[0]: 0.3, near[1]: 0.1}


def logprobs(score: int, probabilities: dict[int, float] | None = None) -> dict[str, Any]:
    """Tokens of '{"score": <d>, ...' with the top alternatives at the score's position."""
    top = [{"token": f" {d}", "logprob": math.log(p)}
           for d, p in (probabilities or spread(score)).items()]
    plain = [("{\"", None), ("score", None), ("\":", None), (f" {score}", top), (",", None)]
    return {"content": [{"token": t, "logprob": math.log(0.6) if alts else -0.01,
                         "top_logprobs": alts or [{"token": t, "logprob": -0.01}]}
                        for t, alts in plain]}


class ScriptedJudge(LocalApp):
    """The judges above, and ``parrot``: a candidate model (for ``eval``) that answers every
    question with :attr:`parrot_says`."""

    url_path = "/v1"

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.parrot_says = "I cannot help with that."

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self.answer)

    @property
    def calls(self) -> int:
        return len(self.bodies)

    async def answer(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.bodies.append(body)
        if body["model"] == "parrot":
            return web.json_response({
                "id": "c", "object": "chat.completion", "model": "parrot",
                "choices": [{"index": 0, "finish_reason": "stop", "message": {
                    "role": "assistant", "content": self.parrot_says}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 10}})
        prompt = body["messages"][-1]["content"]
        found = sections(prompt)
        rule = body["model"]
        if rule.startswith("strict-") and "logprobs" in body:
            return web.json_response({"error": {
                "message": "logprobs is not supported with this model.",
                "type": "invalid_request_error", "param": "logprobs"}}, status=400)
        plain = rule.startswith(("plain-", "strict-"))
        rule = rule.removeprefix("plain-").removeprefix("strict-")
        reference, answer = found.get("Reference answer", ""), found.get(
            "The candidate's answer", "")
        probabilities = None
        if rule == "mute":
            return web.json_response({
                "id": "c", "object": "chat.completion", "model": rule,
                "choices": [{"index": 0, "finish_reason": "stop", "message": {
                    "role": "assistant", "content": "It looks fine to me."}}]})
        if rule == "hedging":
            score, judged = 4, overlap_score(reference, answer)
            probabilities = {4: 1.0} if judged == 4 else {4: 0.5, judged: 0.5}
        else:
            score = rule_score(rule, reference, answer)
        text = json.dumps({"score": score, "feedback": f"Rule {body['model']} gave {score}."})
        choice: dict[str, Any] = {"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": text}}
        if body.get("logprobs") and not plain:
            choice["logprobs"] = logprobs(score, probabilities)
        return web.json_response({
            "id": "c", "object": "chat.completion", "model": body["model"],
            "choices": [choice],
            "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": 20}})
