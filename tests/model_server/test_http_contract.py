"""The OpenAI wire contract of the model server, asked with a raw aiohttp client: the model
list, streamed answers as server-sent events, usage, errors and the API key."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest
from tests.model_server.conftest import ALIASES, MODEL, SPEC, Server, running

from eunomia.model_server import MAX_BODY_BYTES, served_model

pytestmark = pytest.mark.slow

USER = [{"role": "user", "content": "List three colours."}]


async def test_models_lists_the_spec_and_every_alias(server: Server) -> None:
    status, body = await server.get("/models")
    assert status == 200
    assert body["object"] == "list"
    assert [m["id"] for m in body["data"]] == [SPEC, *ALIASES]
    assert all(m["object"] == "model" and m["owned_by"] == "eunomia" for m in body["data"])
    assert any("gpt" in m["id"] for m in body["data"])  # what Athena's module keeps
    status, one = await server.get(f"/models/{ALIASES[0]}")
    assert (status, one["id"]) == (200, ALIASES[0])
    status, missing = await server.get("/models/gpt-4o")
    assert status == 404 and missing["error"]["code"] == "model_not_found"


async def test_every_listed_id_answers_and_others_do_not(server: Server) -> None:
    texts = set()
    for model_id in (SPEC, *ALIASES):
        status, body = await server.post({"model": model_id, "messages": USER, "max_tokens": 8})
        assert status == 200, body
        texts.add(body["choices"][0]["message"]["content"])
    assert len(texts) == 1  # one model under several names
    status, body = await server.post({"model": "gpt-4o-mini", "messages": USER})
    assert status == 404
    assert body["error"]["code"] == "model_not_found"
    assert body["error"]["param"] == "model"
    assert ALIASES[0] in body["error"]["message"]


async def sse_events(server: Server, body: dict[str, Any]) -> list[Any]:
    async with server.session.post(server.url + "/chat/completions", json=body) as r:
        assert r.status == 200
        assert r.headers["Content-Type"].startswith("text/event-stream")
        raw = (await r.read()).decode()
    assert raw.endswith("data: [DONE]\n\n")
    events = [block for block in raw.split("\n\n") if block]
    assert all(block.startswith("data: ") for block in events)
    return [json.loads(block[6:]) for block in events[:-1]]


async def test_streamed_answer_as_server_sent_events(server: Server) -> None:
    whole_body = {"model": ALIASES[0], "messages": USER, "max_tokens": 24}
    status, whole = await server.post(whole_body)
    assert status == 200
    events = await sse_events(server, {**whole_body, "stream": True,
                                       "stream_options": {"include_usage": True}})
    *chunks, last = events
    assert {e["id"] for e in events} == {events[0]["id"]}
    assert all(e["object"] == "chat.completion.chunk" and e["model"] == MODEL for e in events)
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    pieces = [c["choices"][0]["delta"].get("content", "") for c in chunks]
    assert len([p for p in pieces if p]) > 1  # the text came piece by piece
    assert "".join(pieces) == whole["choices"][0]["message"]["content"]
    assert [c["choices"][0]["finish_reason"] for c in chunks][-1] == \
        whole["choices"][0]["finish_reason"]
    assert all(c["choices"][0]["finish_reason"] is None for c in chunks[:-1])
    assert all(c["usage"] is None for c in chunks)
    assert last["choices"] == [] and last["usage"] == whole["usage"]
    # without include_usage: no usage chunk and no usage field
    plain = await sse_events(server, {**whole_body, "stream": True})
    assert all("usage" not in e and len(e["choices"]) == 1 for e in plain)
    assert "".join(e["choices"][0]["delta"].get("content", "") for e in plain) == \
        whole["choices"][0]["message"]["content"]


async def test_usage_counts_the_prompt_and_the_answer(server: Server) -> None:
    short = await server.post({"model": SPEC, "messages": USER, "max_tokens": 5})
    longer = await server.post({"model": SPEC, "messages": [
        {"role": "system", "content": "You are terse. " * 12}, *USER], "max_tokens": 5})
    for status, body in (short, longer):
        assert status == 200
        usage = body["usage"]
        assert usage["completion_tokens"] == 5  # cut at max_tokens
        assert usage["total_tokens"] == usage["prompt_tokens"] + 5
    assert longer[1]["usage"]["prompt_tokens"] > short[1]["usage"]["prompt_tokens"] + 12


BAD_BODIES: list[tuple[str, Any, str]] = [
    ("no messages", {"model": SPEC}, "messages"),
    ("empty messages", {"model": SPEC, "messages": []}, "messages"),
    ("messages not a list", {"model": SPEC, "messages": "hi"}, "messages"),
    ("tool role", {"model": SPEC, "messages": [{"role": "tool", "content": "x"}]},
     "messages[0].role"),
    ("image part", {"model": SPEC, "messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "x"}}]}]}, "messages[0].content"),
    ("unknown argument", {"model": SPEC, "messages": USER, "top_k": 3}, "top_k"),
    ("temperature too high", {"model": SPEC, "messages": USER, "temperature": 3}, "temperature"),
    ("max_tokens zero", {"model": SPEC, "messages": USER, "max_tokens": 0}, "max_tokens"),
    ("n above one", {"model": SPEC, "messages": USER, "n": 2}, "n"),
    ("penalty", {"model": SPEC, "messages": USER, "frequency_penalty": 1.5},
     "frequency_penalty"),
    ("tools", {"model": SPEC, "messages": USER, "tools": [{"type": "function"}]}, "tools"),
    ("stream_options without stream", {"model": SPEC, "messages": USER,
                                       "stream_options": {"include_usage": True}}, "body"),
    ("json_schema without schema object", {"model": SPEC, "messages": USER,
                                           "response_format": {"type": "json_schema"}},
     "response_format"),
    ("unknown response format", {"model": SPEC, "messages": USER,
                                 "response_format": {"type": "yaml"}}, "response_format.type"),
    ("body is a list", [1, 2], ""),
]


@pytest.mark.parametrize(("body", "param"), [(b, p) for _, b, p in BAD_BODIES],
                         ids=[name for name, _, _ in BAD_BODIES])
async def test_bad_bodies_get_openai_shaped_400s(server: Server, body: Any, param: str) -> None:
    status, answer = await server.post(body)
    assert status == 400, answer
    error = answer["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == "invalid_request_error"
    if param:
        assert error["param"] == param
        assert param.split("[")[0].split(".")[0] in error["message"] or param == "body"
    assert server.log == []  # refused before the model was asked


async def test_bodies_that_are_not_requests(server: Server) -> None:
    url = server.url + "/chat/completions"
    async with server.session.post(url, data=b"{not json",
                                   headers={"Content-Type": "application/json"}) as r:
        assert r.status == 400
        assert (await r.json())["error"]["type"] == "invalid_request_error"
    async with server.session.post(url, data=b"x" * (MAX_BODY_BYTES + 1)) as r:
        assert r.status == 413
        assert (await r.json())["error"]["code"] == "request_too_large"
    status, body = await server.get("/chat/completions")
    assert status == 405 and "POST" in body["error"]["message"]
    status, body = await server.get("/embeddings")
    assert status == 404 and body["error"]["code"] == "unknown_url"


async def test_a_schema_without_a_grammar_and_a_prompt_too_long(server: Server) -> None:
    status, body = await server.post({"model": SPEC, "messages": USER, "response_format": {
        "type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "frobnicate"}}}})
    assert status == 400
    assert body["error"]["code"] == "invalid_json_schema"
    assert body["error"]["param"] == "response_format.json_schema.schema"
    huge = [{"role": "user", "content": "word " * 20_000}]  # beyond the 8,192-token context
    status, body = await server.post({"model": SPEC, "messages": huge, "max_tokens": 5})
    assert status == 400
    assert body["error"]["code"] == "context_length_exceeded"
    status, body = await server.post({"model": SPEC, "messages": huge, "max_tokens": 5,
                                      "stream": True})
    assert status == 400  # failed before the first token: an ordinary error, not a stream
    assert body["error"]["code"] == "context_length_exceeded"


async def test_api_key_required_when_set(keyed_server: Server) -> None:
    body = {"model": SPEC, "messages": USER, "max_tokens": 3}
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "sk-test-key"}):
        status, answer = await keyed_server.post(body, headers=headers)
        assert status == 401
        assert answer["error"]["code"] == "invalid_api_key"
        status, _ = await keyed_server.get("/models", headers=headers)
        assert status == 401
    good = {"Authorization": "Bearer sk-test-key"}
    status, answer = await keyed_server.post(body, headers=good)
    assert status == 200 and answer["usage"]["completion_tokens"] == 3
    status, listing = await keyed_server.get("/models", headers=good)
    assert status == 200 and len(listing["data"]) == 3
    async with keyed_server.session.get(keyed_server.url.removesuffix("/v1") + "/health") as r:
        assert r.status == 200 and (await r.json())["model"] == SPEC  # no key needed


async def test_json_object_schema_constrains_json_object_answers() -> None:
    schema = {"type": "object", "properties": {"feedbacks": {"type": "array", "items": {
        "type": "object", "properties": {"title": {"type": "string"}},
        "required": ["title"]}}}, "required": ["feedbacks"]}
    async with running(json_object_schema=schema) as server:
        status, body = await server.post({"model": SPEC, "messages": USER, "max_tokens": 60,
                                          "response_format": {"type": "json_object"}})
        assert status == 200, body
        content = body["choices"][0]["message"]["content"]
        assert content.startswith('{"feedbacks":[')
        # the fingerprint says the answers differ from the plain server's, and is stable
        assert body["system_fingerprint"] == server.served.fingerprint
        assert served_model(SPEC, json_object_schema=schema).fingerprint == \
            server.served.fingerprint != served_model(SPEC).fingerprint
        if body["choices"][0]["finish_reason"] == "stop":
            answer = json.loads(content)
            assert all(set(item) >= {"title"} for item in answer["feedbacks"])
        # a request's own json_schema is still its own
        status, body = await server.post({"model": SPEC, "messages": USER, "max_tokens": 20,
                                          "response_format": {"type": "json_schema",
                                                              "json_schema": {"name": "n",
                                                                              "schema": {
            "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}})
        assert status == 200
        assert body["choices"][0]["message"]["content"].startswith('{"n":')


async def test_a_client_that_goes_away_stops_the_generation(server: Server) -> None:
    body = {"model": SPEC, "messages": [{"role": "user", "content": "Count to 1000."}],
            "max_tokens": 2000, "stream": True}
    async with server.session.post(server.url + "/chat/completions", json=body) as r:
        assert r.status == 200
        await r.content.readuntil(b"\n\n")  # the first chunk, then hang up
    # the model is free again at once, not after 2,000 tokens
    timeout = aiohttp.ClientTimeout(total=60)
    async with server.session.post(server.url + "/chat/completions", timeout=timeout,
                                   json={"model": SPEC, "messages": USER,
                                         "max_tokens": 3}) as r:
        assert r.status == 200
