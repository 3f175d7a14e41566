"""Probability-weighted (G-Eval) judge scores: from the score token's log-probabilities to
the judge's verdicts and the check's weighted AUC."""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web
from tests.judge_check.conftest import EXAMPLE_SUITE, answers_of, invoke, ten_case_suite
from tests.judge_check.scripted_judge import ScriptedJudge, logprobs
from tests.support.local_app import LocalApp

from eunomia.judge import Judge, JudgeItem, expected_score
from eunomia.judge._judge import JudgeCall
from eunomia.models import ChatRequest, ChatResult
from eunomia.models.providers._scores import score_distribution
from eunomia.models.providers.openai import OpenAIProvider

DIGITS = ("0", "1", "2", "3", "4", "5")


def lp(p: float) -> float:
    return math.log(p)


def test_the_score_position_and_its_alternatives() -> None:
    tokens = [("{\"", [("{\"", lp(1))]), ("score", [("score", lp(1))]),
              ("\":", [("\":", lp(1))]),
              (" 4", [(" 4", lp(0.5)), (" 3", lp(0.3)), ("3", lp(0.05)), (" 5", lp(0.1)),
                      (" 4", lp(0.5)), (" x", lp(0.05))]),
              (",", [(",", lp(1))]), (" 2", [(" 2", lp(1))])]
    found = score_distribution(tokens, DIGITS)
    assert found is not None
    # " 4" counted once (listed twice); "3" without the space counts for 3 too (spaces
    # aside, the same leading punctuation); " x" is no score; the feedback's 2 is not read
    assert found == pytest.approx({"0": 0, "1": 0, "2": 0, "3": 0.35, "4": 0.5, "5": 0.1})
    assert expected_score(found) == pytest.approx((3 * 0.35 + 4 * 0.5 + 5 * 0.1) / 0.95)


def test_merged_tokens_two_digit_scores_and_no_score() -> None:
    merged = [("{\"score\":", [("{\"score\":", 0.0)]),
              ("\":4", [("\":4", lp(0.7)), ("\":5", lp(0.2)), (" 5", lp(0.1))])]
    assert score_distribution(merged, DIGITS) == pytest.approx(
        {"0": 0, "1": 0, "2": 0, "3": 0, "4": 0.7, "5": 0.2})  # " 5" has other punctuation
    assert score_distribution([("{\"score\": ", []), ("10", [("10", 0.0)]), (" 3", [])],
                              DIGITS) is None  # not a score of the scale: no guess after it
    assert score_distribution([("Looks good.", [("Looks good.", 0.0)])], DIGITS) is None
    assert expected_score(None) is None and expected_score({"4": 0.0}) is None


async def test_the_judge_weighs_only_when_asked_and_when_the_score_is_there() -> None:
    item = JudgeItem(instruction="Q", expected_response="A", response="A")
    plain, weighted = Judge(weighted=False), Judge(weighted=True)
    assert Judge().weighted is True  # eval's judge asks for them by default
    assert plain.request(item).score_logprobs is None
    assert weighted.request(item).score_logprobs == DIGITS
    # the request of a judge that does not weigh is the same text as before the option
    assert "score_logprobs" not in plain.request(item).model_dump_json()

    def caller(distribution: dict[str, float] | None) -> Any:
        async def call(request: ChatRequest, k: int, validate: Any) -> JudgeCall:
            text = json.dumps({"score": 4, "feedback": "ok"})
            return JudgeCall(ChatResult(text=text, parsed=json.loads(text), model="m",
                                        score_distribution=distribution), 1, False)
        return call

    (v,) = await weighted.score(item, caller({"3": 0.2, "4": 0.6, "5": 0.2}))
    assert v.score == 4 and v.weighted_score == pytest.approx(4.0)
    (v,) = await weighted.score(item, caller({"3": 0.5, "4": 0.0, "5": 0.5}))
    assert v.weighted_score is None  # the distribution is not at the written score
    (v,) = await weighted.score(item, caller(None))
    assert v.score == 4 and v.weighted_score is None


class StreamsLogprobs(LocalApp):
    url_path = "/v1"

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self.answer)

    async def answer(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.bodies.append(body)
        entries = logprobs(2)["content"]
        texts = [e["token"] for e in entries]
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for text, entry in zip(texts, entries, strict=True):
            choice = {"index": 0, "delta": {"content": text}, "finish_reason": None}
            if body.get("logprobs"):
                choice["logprobs"] = {"content": [entry]}
            await response.write(f"data: {json.dumps({'choices': [choice]})}\n\n".encode())
        rest = {"choices": [{"index": 0, "delta": {"content": ' "feedback": "ok"}'}}]}
        await response.write(f"data: {json.dumps(rest)}\n\n".encode())
        end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        await response.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
        await response.write_eof()
        return response


@pytest_asyncio.fixture
async def streams() -> AsyncIterator[StreamsLogprobs]:
    fake = StreamsLogprobs()
    await fake.start()
    try:
        yield fake
    finally:
        await fake.close()


async def test_the_openai_provider_reads_logprobs_streamed_or_not(
        streams: StreamsLogprobs) -> None:
    provider = OpenAIProvider("m", base_url=streams.url)
    request = Judge(weighted=True).request(JudgeItem(response="x"))
    try:
        streamed = await provider.chat(request.model_copy(update={"stream": True}))
        plain = Judge(weighted=False).request(JudgeItem(response="x"))
        unasked = await provider.chat(plain.model_copy(update={"stream": True}))
    finally:
        await provider.close()
    assert streams.bodies[0]["logprobs"] is True and streams.bodies[0]["top_logprobs"] == 20
    assert "logprobs" not in streams.bodies[1] and "top_logprobs" not in streams.bodies[1]
    assert streamed.parsed == {"score": 2, "feedback": "ok"}
    assert streamed.score_distribution == pytest.approx(
        {"0": 0, "1": 0.3, "2": 0.6, "3": 0.1, "4": 0, "5": 0})
    assert unasked.score_distribution is None


def test_weighted_scores_rescue_a_judge_that_always_writes_the_same_score(
        judges: ScriptedJudge, tmp_path: Path) -> None:
    suite = str(ten_case_suite(tmp_path))  # 10 cases: enough for a verdict
    code, out = invoke("judge-check", suite, "--judge", "openai:hedging", "--results",
                       str(tmp_path), "--run-name", "hedge")
    assert code == 0, out
    assert ("cannot tell good from bad answers on this suite; its scores are not evidence "
            "(AUC 0.50, 95% CI 0.50-0.50); its probability-weighted scores separate them "
            "better (AUC 1.00, 95% CI 1.00-1.00)") in " ".join(out.split())
    data = json.loads((tmp_path / "hedge" / "judge_check.json").read_text(encoding="utf-8"))
    group = data["suites"][0]
    assert group["weighted_answers"] == answers_of(Path(suite))
    assert group["mean_weighted_score"]["good"] > group["mean_weighted_score"]["refusal"]


def test_without_weights_or_without_logprobs(judges: ScriptedJudge, tmp_path: Path) -> None:
    suite = str(EXAMPLE_SUITE / "summarization.yaml")
    code, out = invoke("judge-check", suite, "--judge", "openai:overlap", "--no-weighted",
                       "--results", str(tmp_path), "--run-name", "plain")
    assert code == 0, out
    assert all("logprobs" not in b for b in judges.bodies)
    data = json.loads((tmp_path / "plain" / "judge_check.json").read_text(encoding="utf-8"))
    assert data["weighted_asked"] is False and data["suites"][0]["weighted_auc"] is None
    assert "not available" not in out
    code, out = invoke("judge-check", suite, "--judge", "openai:plain-overlap", "--results",
                       str(tmp_path), "--run-name", "nologprobs")
    assert code == 0, out
    assert "Probability-weighted scores: not available" in out
    assert judges.bodies[-1]["logprobs"] is True
