"""The ``http`` provider against a scripted server: what it sends (templates) and how it
reads what comes back (paths, events, text, failures)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web
from tests.support.local_app import LocalApp
from tests.support.scripted_server import RecordedRequest, Reply, ScriptedServer

from eunomia.models import ChatMessage, ChatRequest, GenerationSettings
from eunomia.models._http_config import HttpEndpoint
from eunomia.models.providers.http import HttpProvider
from eunomia.scheduler import CallError

SECRET = "tok-3b9d1f0a77"


def _provider(server: ScriptedServer, **config: Any) -> HttpProvider:
    endpoint = HttpEndpoint.model_validate({"url": server.base_url + "/chat", **config})
    return HttpProvider(endpoint.located("models.yml:3 [models.t.http]"), "http:t",
                        environ={"T_KEY": SECRET})


def _ask(*turns: str, system: str = "", stream: bool = False, **kw: Any) -> ChatRequest:
    messages = [ChatMessage(role="system", content=system)] if system else []
    for i, text in enumerate(turns):
        messages.append(ChatMessage(role="user" if i % 2 == 0 else "assistant", content=text))
    return ChatRequest(messages=tuple(messages), stream=stream, **kw)


@pytest_asyncio.fixture
async def scripted_server() -> AsyncIterator[ScriptedServer]:
    """A scripted server answering by path (``/chat``)."""
    async with ScriptedServer(key=lambda r: r.path) as server:
        yield server


class QueryApp(LocalApp):
    """Records the method and query of each request; answers in plain text."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, str], bytes]] = []

    def add_routes(self, app: web.Application) -> None:
        app.router.add_route("*", "/chat", self._answer)

    async def _answer(self, request: web.Request) -> web.Response:
        self.seen.append((request.method, dict(request.query), await request.read()))
        return web.Response(text=f"plain words for {request.query.get('q')}")


def _by_path(server: ScriptedServer, reply: Reply | Any) -> None:
    server.script("/chat", reply)


async def test_a_mapping_body_keeps_values_and_a_string_body_is_checked(
        scripted_server: ScriptedServer) -> None:
    _by_path(scripted_server, Reply(json={"out": {"text": "fine"}}))
    provider = _provider(scripted_server, answer="$.out.text", body={
        "q": "{{ instruction }}", "sys": "{{ system_prompt }}", "all": "{{ messages }}",
        "before": "{{ history }}", "t": "{{ settings.temperature }}",
        "label": "{{ name }} at {{ settings.max_tokens }}", "fixed": [1, {"deep": True}]})
    try:
        got = await provider.chat(_ask("first", "reply", 'say "hi"', system="be kind",
                                       settings=GenerationSettings(temperature=0.3)))
    finally:
        await provider.close()
    assert got.text == "fine" and got.model == "http:t" and got.time_to_first_token_s is None
    sent = scripted_server.requests[-1].json
    assert sent["q"] == 'say "hi"' and sent["sys"] == "be kind" and sent["t"] == 0.3
    assert [m["role"] for m in sent["all"]] == ["system", "user", "assistant", "user"]
    assert sent["before"] == [{"role": "user", "content": "first"},
                              {"role": "assistant", "content": "reply"}]
    assert sent["label"].startswith("http:t at ") and sent["fixed"] == [1, {"deep": True}]
    assert scripted_server.requests[-1].headers["Content-Type"] == "application/json"

    text_body = _provider(scripted_server, answer="$.out.text",
                          body='{"q": {{ instruction | tojson }}}')
    broken = _provider(scripted_server, answer="$.out.text", body='{"q": "{{ instruction }}"}')
    try:
        await text_body.chat(_ask('a "quoted" word'))
        assert scripted_server.requests[-1].json == {"q": 'a "quoted" word'}
        with pytest.raises(CallError) as caught:
            await broken.chat(_ask('a "quoted" word'))
    finally:
        await text_body.close()
        await broken.close()
    assert not caught.value.retryable
    assert "rendered body is not JSON" in caught.value.reason and "tojson" in caught.value.reason


async def test_a_template_typo_fails_the_case_naming_where(
        scripted_server: ScriptedServer) -> None:
    provider = _provider(scripted_server, answer="$.a",
                         body={"t": "{{ settings.temprature }}"})
    count = len(scripted_server.requests)
    with pytest.raises(CallError) as caught:
        await provider.chat(_ask("hi"))
    await provider.close()
    reason = caught.value.reason
    assert not caught.value.retryable and len(scripted_server.requests) == count  # never sent
    assert "has no attribute 'temprature'" in reason and "(in t)" in reason
    assert "models.yml:3 [models.t.http]" in reason


async def test_get_with_query_and_a_text_answer() -> None:
    app = QueryApp()
    await app.start()
    endpoint = HttpEndpoint.model_validate({
        "url": app.url + "/chat", "method": "get", "format": "text",
        "query": {"q": "{{ instruction }}", "n": "{{ settings.max_tokens }}"}})
    provider = HttpProvider(endpoint, "http:t")
    try:
        got = await provider.chat(_ask("what & why?"))
    finally:
        await provider.close()
        await app.close()
    assert got.text == "plain words for what & why?"
    method, query, body = app.seen[-1]
    assert (method, body) == ("GET", b"")
    assert query == {"q": "what & why?", "n": str(GenerationSettings().max_tokens)}


async def test_events_are_joined_with_the_time_to_the_first_piece(
        scripted_server: ScriptedServer) -> None:
    events = [{"delta": ""}, {"delta": "Hel"}, {"other": 1}, {"delta": "lo"},
              {"usage": {"in": 3, "out": 2}, "model": "m-1"}]
    # no blank line between events, a comment, a non-JSON line, then the end
    stream = ": hi\n" + "".join(f"data: {json.dumps(e)}\n" for e in events) + \
        "data: not json\n\ndata: [DONE]\n\ndata: {\"delta\": \"after the end\"}\n\n"
    _by_path(scripted_server, Reply(text=stream))
    provider = _provider(scripted_server, format="sse", answer="$.delta", model="$.model",
                         usage={"input_tokens": "$.usage.in", "output_tokens": "$.usage.out"},
                         body={"q": "{{ instruction }}"})
    try:
        got = await provider.chat(_ask("hi", stream=True))
    finally:
        await provider.close()
    assert got.text == "Hello" and got.model == "m-1"
    assert (got.usage.input_tokens, got.usage.output_tokens) == (3, 2)
    assert got.time_to_first_token_s is not None
    assert 0 < got.time_to_first_token_s <= got.latency_s


@pytest.mark.parametrize(("reply", "config", "expected", "retryable"), [
    (Reply(json={"choices": []}), {"answer": "$.choices[0].message.content"},
     "the answer path $.choices[0].message.content found nothing (or only null) in the "
     'response: {"choices":[]}', False),
    (Reply(json={"a": None}), {"answer": "$.a"}, "found nothing (or only null)", False),
    (Reply(json={"a": {"b": 1}}), {"answer": "$.a"}, "found an object, not text", False),
    (Reply(json={"a": "x", "u": "many"}), {"answer": "$.a", "usage": {"input_tokens": "$.u"}},
     'the value at the usage path $.u is "many", not a number of tokens', False),
    # impossible numbers are named, never rounded or read as 0 (issue 31)
    (Reply(text='{"a": "x", "u": NaN}'), {"answer": "$.a", "usage": {"input_tokens": "$.u"}},
     "the value at the usage path $.u is NaN: an impossible number of tokens", False),
    (Reply(text='{"a": "x", "u": -Infinity}'),
     {"answer": "$.a", "usage": {"output_tokens": "$.u"}},
     "the value at the usage path $.u is -Infinity: an impossible number of tokens", False),
    (Reply(json={"a": "x", "u": -5}), {"answer": "$.a", "usage": {"input_tokens": "$.u"}},
     "the value at the usage path $.u is -5: an impossible number of tokens", False),
    (Reply(json={"a": "x", "u": 2.5}), {"answer": "$.a", "usage": {"input_tokens": "$.u"}},
     "the value at the usage path $.u is 2.5: an impossible number of tokens", False),
    (Reply(text='{"a": "x", "c": NaN}'), {"answer": "$.a", "cost": "$.c"},
     "the cost path $.c found NaN, not a number of at least 0", False),
    (Reply(json={"a": "x", "c": "free"}), {"answer": "$.a", "cost": "$.c"},
     "the cost path $.c found free", False),
    (Reply(text="data: {\"x\": 1}\n\n"), {"answer": "$.a", "format": "sse"},
     "found nothing (or only null) in any of the 1 events", False),
    (Reply(text="event: error\ndata: overloaded\n\n"), {"answer": "$.a", "format": "sse"},
     "error event in the stream: overloaded", True),
    (Reply(text="<html>bad gateway</html>"), {"answer": "$.a"},
     "is not JSON (give 'format: text' for a plain-text answer): <html>bad gateway</html>",
     True),
    (Reply(status=429, json={"error": "slow"}, headers={"Retry-After": "7"}), {"answer": "$.a"},
     "HTTP 429 from", True),
    (Reply(status=404, json={"error": "no route"}), {"answer": "$.a"},
     'HTTP 404 from http://127.0.0.1', False),
])
async def test_unusable_answers_fail_clearly(
        scripted_server: ScriptedServer, reply: Reply, config: dict[str, Any], expected: str,
        retryable: bool) -> None:
    _by_path(scripted_server, reply)
    provider = _provider(scripted_server, body={"q": "{{ instruction }}"}, **config)
    try:
        with pytest.raises(CallError) as caught:
            await provider.chat(_ask("hi"))
    finally:
        await provider.close()
    assert expected in caught.value.reason
    assert caught.value.retryable is retryable
    if reply.status == 429:
        assert caught.value.rate_limited and caught.value.retry_after == 7.0


async def test_a_secret_echoed_back_is_hidden(scripted_server: ScriptedServer) -> None:
    def echo(request: RecordedRequest) -> Reply:
        key = request.headers.get("X-Key", "")
        if request.json.get("q") == "fail":
            return Reply(status=503, text=f"upstream refused key {key}")
        return Reply(json={"a": f"your key is {key}"})

    _by_path(scripted_server, echo)
    provider = _provider(scripted_server, answer="$.a", headers={"X-Key": {"env": "T_KEY"}},
                         body={"q": "{{ instruction }}"})
    try:
        got = await provider.chat(_ask("hi"))
        with pytest.raises(CallError) as caught:
            await provider.chat(_ask("fail"))
    finally:
        await provider.close()
    assert got.text == "your key is ***"
    assert SECRET not in caught.value.reason and "refused key ***" in caught.value.reason
    assert caught.value.retryable and caught.value.status == 503


async def test_a_judge_schema_is_parsed(scripted_server: ScriptedServer) -> None:
    _by_path(scripted_server, Reply(json={"a": 'Sure: {"score": 4, "feedback": "ok"}'}))
    provider = _provider(scripted_server, answer="$.a",
                         body={"q": "{{ instruction }}", "schema": "{{ json_schema }}"})
    schema = {"type": "object", "required": ["score"], "properties": {"score": {
        "type": "integer"}}}
    try:
        got = await provider.chat(_ask("judge this", json_schema=schema))
    finally:
        await provider.close()
    assert got.parsed == {"score": 4, "feedback": "ok"}
    assert scripted_server.requests[-1].json["schema"] == schema
