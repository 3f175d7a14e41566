"""Answers that are not what was asked for are read as what they are, or fail the call with
the reason — never taken for an empty answer (issue 12: a server that ignores
``"stream": true`` made every inference-speed case 0 words, 0 tokens, a few milliseconds).

Scripted OpenAI-compatible servers on 127.0.0.1 that misbehave the ways real servers and
proxies do; the real ``openai`` provider (and, end to end, ``eunomia eval``) reads them.
"""

from __future__ import annotations

import csv
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web
from tests.support.local_app import LocalApp
from typer.testing import CliRunner

from eunomia.cli import app
from eunomia.models import ChatMessage, ChatRequest
from eunomia.models.providers.openai import OpenAIProvider
from eunomia.scheduler import CallError

ANSWER = "Forty two words would be too many, so here are just nine."
USAGE = {"prompt_tokens": 21, "completion_tokens": 13, "total_tokens": 34}


def completion(model: str, content: Any = ANSWER, finish: str = "stop",
               **message: Any) -> dict[str, Any]:
    msg = {"role": "assistant", **({"content": content} if content is not ... else {}),
           **message}
    return {"id": "c1", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "message": msg, "finish_reason": finish}], "usage": USAGE}


def chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> str:
    return "data: " + json.dumps({"model": model, "choices": [
        {"index": 0, "delta": delta, "finish_reason": finish}]}) + "\n\n"


class Misbehaving(LocalApp):
    """The request's ``model`` picks the behaviour (see :meth:`answer`)."""

    url_path = "/v1"

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self.answer)

    async def answer(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.bodies.append(body)
        model = body["model"]
        if model == "json-always":  # ignores "stream": true
            return web.json_response(completion(model))
        if model == "json-as-text":  # the same, with no JSON content type
            return web.Response(text=json.dumps(completion(model)), content_type="text/plain")
        if model == "empty-body":
            return web.Response(status=200, body=b"", content_type="text/event-stream")
        if model == "html":
            return web.Response(text="<html><body>proxy says hello</body></html>",
                                content_type="text/html")
        if model == "no-content":
            return web.json_response(completion(model, content=...))
        if model == "null-cut":
            return web.json_response(completion(model, content=None, finish="length",
                                                reasoning_content="Let me think..."))
        if model == "really-empty":
            return web.json_response(completion(model, content=""))
        events = {
            "malformed": ["data: {\"choices\": [{\"delta\": {\"content\": \"Hel\n\n"],
            "not-object": ["data: [1, 2, 3]\n\n", "data: [DONE]\n\n"],
            "cut-short": [chunk(model, {"content": "Forty two"}),
                          chunk(model, {"content": " words"})],
            "only-done": ["data: [DONE]\n\n"],
            "whole-message": ["data: " + json.dumps(completion(model)) + "\n\n",
                              "data: [DONE]\n\n"],
            "empty-stream": [chunk(model, {"role": "assistant"}),
                             chunk(model, {}, "stop"), "data: [DONE]\n\n"],
            "no-done": [chunk(model, {"content": ANSWER}), chunk(model, {}, "stop")],
        }[model]
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for event in events:
            await response.write(event.encode())
        await response.write_eof()
        return response


@pytest_asyncio.fixture
async def server() -> AsyncIterator[Misbehaving]:
    fake = Misbehaving()
    await fake.start()
    try:
        yield fake
    finally:
        await fake.close()


def ask(stream: bool = True) -> ChatRequest:
    return ChatRequest(messages=(ChatMessage(role="user", content="Answer in nine words."),),
                       stream=stream)


async def chat(server: Misbehaving, model: str, stream: bool = True) -> Any:
    provider = OpenAIProvider(model, base_url=server.url)
    try:
        return await provider.chat(ask(stream))
    finally:
        await provider.close()


@pytest.mark.parametrize("model", ["json-always", "json-as-text"])
async def test_a_json_answer_to_a_streamed_request_is_read_as_json(
        server: Misbehaving, model: str) -> None:
    result = await chat(server, model)
    assert server.bodies[0]["stream"] is True
    assert result.text == ANSWER
    assert (result.usage.input_tokens, result.usage.output_tokens) == (21, 13)
    assert result.time_to_first_token_s is None  # not streamed: nothing to measure
    assert result.latency_s > 0 and result.model == model


@pytest.mark.parametrize(("model", "reason", "retryable"), [
    ("empty-body", "empty body to a streamed request", True),
    ("html", "neither server-sent events nor JSON", True),
    ("malformed", "is not JSON", True),
    ("not-object", "is not a JSON object", True),
    ("cut-short", "ended before the answer did", True),
    ("only-done", "holds no answer", True),
])
async def test_a_stream_not_understood_fails_with_its_reason(
        server: Misbehaving, model: str, reason: str, retryable: bool) -> None:
    with pytest.raises(CallError, match=reason) as info:
        await chat(server, model)
    assert info.value.retryable is retryable


async def test_whole_message_events_and_streams_without_done_are_read(
        server: Misbehaving) -> None:
    assert (await chat(server, "whole-message")).text == ANSWER
    result = await chat(server, "no-done")  # finish_reason given: the answer is complete
    assert result.text == ANSWER and result.time_to_first_token_s is not None


async def test_an_answer_read_as_empty_stays_empty(server: Misbehaving) -> None:
    # the model said nothing and said it was done: a real empty answer, not a failure
    assert (await chat(server, "empty-stream")).text == ""
    assert (await chat(server, "really-empty", stream=False)).text == ""


@pytest.mark.parametrize(("model", "reason"), [
    ("no-content", "has no text"),
    ("null-cut", "has no text .*'length'"),
])
async def test_an_answer_without_text_is_not_an_empty_answer(
        server: Misbehaving, model: str, reason: str) -> None:
    for stream in (False, True):
        with pytest.raises(CallError, match=reason) as info:
            await chat(server, model, stream)
        assert not info.value.retryable


# --- end to end: inference-speed cases against a server that never streams ---------------

SPEED_SUITE = """\
- case_id: speed-1
  category: Inference Speed
  instruction: Describe a kettle.
  expected_response: A kettle boils water.
  expected_output_length: 9
"""


class NeverStreams(LocalApp):
    """Candidate and judge behind one server that answers every request with one JSON body."""

    url_path = "/v1"

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self.answer)

    async def answer(self, request: web.Request) -> web.Response:
        body = await request.json()
        if body["model"] == "judge":
            return web.json_response(completion("judge", json.dumps(
                {"score": 4, "feedback": "Close to the reference."})))
        return web.json_response(completion(body["model"]))


@pytest.fixture
def never_streams(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[NeverStreams]:
    monkeypatch.chdir(tmp_path)  # no models.yml of the checkout
    fake = NeverStreams()
    with fake.in_thread():
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        yield fake


def test_speed_cases_against_a_server_that_never_streams(never_streams: NeverStreams,
                                                        tmp_path: Path) -> None:
    suite = tmp_path / "inference_speed.yaml"
    suite.write_text(SPEED_SUITE, encoding="utf-8")
    result = CliRunner().invoke(app, [
        "eval", str(suite), "--model", "openai:candidate", "--judge", "openai:judge",
        "--results", str(tmp_path / "results"), "--run-name", "speed"])
    assert result.exit_code == 0, result.output
    with (tmp_path / "results" / "speed" / "tables" / "inference_speed.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1
    row = rows[0]
    assert int(row["output_words"]) == len(ANSWER.split()) == 12
    assert int(row["output_tokens"]) == 13
    assert float(row["length_adherence"]) == pytest.approx(1 - 3 / 9, abs=1e-3)
    assert row["time_to_first_token_s"] == ""  # not measurable: the server did not stream


# --- the anthropic provider: the same promise over the SDK -------------------------------

class MisbehavingMessages(LocalApp):
    """An Anthropic Messages API that answers streams with JSON, with nothing, or cut."""

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/messages", self.answer)

    async def answer(self, request: web.Request) -> web.StreamResponse:
        model = (await request.json())["model"]
        message: dict[str, Any] = {
            "id": "m1", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": ANSWER}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 12}}
        if model == "json-always":
            return web.json_response(message)
        if model == "empty-object":
            return web.json_response({})
        if model == "empty-body":
            return web.Response(status=200, body=b"", content_type="text/event-stream")
        start = {**message, "content": [], "stop_reason": None}
        events = [("message_start", {"type": "message_start", "message": start}),
                  ("content_block_start", {"type": "content_block_start", "index": 0,
                                           "content_block": {"type": "text", "text": ""}}),
                  ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                           "delta": {"type": "text_delta", "text": "Forty"}})]
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for name, data in events:  # "cut-short": no message_delta, no message_stop
            await response.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        await response.write_eof()
        return response


@pytest.mark.parametrize(("model", "stream", "reason"), [
    ("json-always", True, "holds no event"),
    ("empty-body", True, "holds no event"),
    ("empty-object", False, "no content list"),
    ("cut-short", True, "before it was complete"),
])
async def test_anthropic_answers_not_read_are_failures(model: str, stream: bool,
                                                       reason: str) -> None:
    pytest.importorskip("anthropic", reason="the anthropic extra is not installed")
    from eunomia.models.providers.anthropic import AnthropicProvider

    fake = MisbehavingMessages()
    await fake.start()
    provider = AnthropicProvider(model, api_key="sk-ant-test", base_url=fake.url)
    try:
        with pytest.raises(CallError, match=reason) as info:
            await provider.chat(ask(stream))
        assert info.value.retryable
    finally:
        await provider.close()
        await fake.close()
