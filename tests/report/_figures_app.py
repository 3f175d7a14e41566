"""The outside world of the figure tests: a support bot and a judge behind one HTTP server on
127.0.0.1, as ``models.yml`` describes them (docs/http-targets.md).

- ``POST /api/ask``: the bot answers ``answer to QUESTION``, reports 100 input and 20 output
  tokens and its own cost, :data:`BOT_COST` dollars per call.
- ``POST /judge``: a judge that answers the JSON verdict the rubric asks for, a score that
  depends on the question (1-5), with 700 input and 30 output tokens.
"""

from __future__ import annotations

import json
from pathlib import Path

from aiohttp import web
from tests.support.local_app import LocalApp

BOT_COST = 0.0012
"""What the bot says each call cost (its price in models.yml makes it 0.00008)."""
BOT_TOKENS = (100, 20)
JUDGE_TOKENS = (700, 30)


class FigureApps(LocalApp):
    def __init__(self) -> None:
        self.judged = 0

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/api/ask", self._ask)
        app.router.add_post("/judge", self._judge)

    async def _ask(self, request: web.Request) -> web.Response:
        body = await request.json()
        return web.json_response({
            "result": {"text": f"answer to {body.get('question', '')}"},
            "meta": {"tokens": {"in": BOT_TOKENS[0], "out": BOT_TOKENS[1]}},
            "cost_usd": BOT_COST})

    async def _judge(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.judged += 1
        score = 1 + len(str(body.get("question", ""))) % 5
        return web.json_response({
            "result": {"text": json.dumps({"score": score, "feedback": "scripted"})},
            "meta": {"tokens": {"in": JUDGE_TOKENS[0], "out": JUDGE_TOKENS[1]}}})


def write_models(folder: Path, base_url: str) -> None:
    """``models.yml``: the bot without a price (its reported cost is all there is), the same
    bot with a price (both figures, which disagree), and the judge with a price."""
    bot = f"""\
    http:
      url: {base_url}/api/ask
      body: {{question: "{{{{ instruction }}}}"}}
      answer: $.result.text
      usage: {{input_tokens: $.meta.tokens.in, output_tokens: $.meta.tokens.out}}
      cost: $.cost_usd
"""
    (folder / "models.yml").write_text(f"""\
models:
  support-bot:
{bot}  support-bot-priced:
{bot}    price: {{input_cost_per_million: 0.5, output_cost_per_million: 1.5}}
  judge-bot:
    http:
      url: {base_url}/judge
      body: {{question: "{{{{ instruction }}}}"}}
      answer: $.result.text
      usage: {{input_tokens: $.meta.tokens.in, output_tokens: $.meta.tokens.out}}
    price: {{input_cost_per_million: 2.0, output_cost_per_million: 8.0}}
""", encoding="utf-8")


SUITE = """\
metadata: {name: figures, category: General Knowledge}
test_cases:
  - {case_id: c1, instruction: What is six times seven?, checks: [{contains: "six"}],
     difficulty_level: easy}
  - {case_id: c2, instruction: Name a colour., checks: [{contains: "purple"}],
     difficulty_level: easy}
  - {case_id: c3, instruction: Is water wet?, checks: [{contains: "water"}, {contains: "dry"}],
     difficulty_level: medium}
  - {case_id: c4, instruction: Say hello., checks: [{contains: "hello"}],
     difficulty_level: hard}
  - {case_id: u1, instruction: Tell me a story., difficulty_level: easy}
  - {case_id: u2, instruction: What is love?, difficulty_level: medium}
  - {case_id: u3, instruction: Why is the sky blue?, difficulty_level: hard}
"""
"""Four cases with checks (scored 5, 0, 2 or 3, 5 without a judge) and three without."""
