"""Every call the model server serves is recorded and readable at ``GET /eunomia/usage``;
``--upstream`` relays to another OpenAI-compatible endpoint, metered. The upstream is the
outside world, faked here on 127.0.0.1 (:class:`FakeUpstream`)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from aiohttp import web
from tests.support.local_app import LocalApp
from tests.support.local_model import require_local_model

from eunomia.metering import UsagePage, UsageSource
from eunomia.model_server import Upstream, served_model, start_model_server

KEY = "sk-upstream-secret-0123456789"


class FakeUpstream(LocalApp):
    """An OpenAI-compatible endpoint: lists two models, answers with usage, streams."""

    url_path = "/v1"

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.headers: list[dict[str, str]] = []
        self.delay_s = 0.0

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/chat/completions", self._chat)

    async def _models(self, request: web.Request) -> web.Response:
        self.headers.append(dict(request.headers))
        return web.json_response({"object": "list", "data": [
            {"id": "qwen-up", "object": "model", "created": 1, "owned_by": "x"},
            {"id": "gpt-up", "object": "model", "created": 1, "owned_by": "x"}]})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        self.bodies.append(raw)
        self.headers.append(dict(request.headers))
        body = json.loads(raw)
        await asyncio.sleep(self.delay_s)
        model = body["model"]
        if model == "boom":
            return web.json_response({"error": {"message": "overloaded"}}, status=500)
        if model == "refused":
            return web.json_response({"error": {"message": "bad request"}}, status=400)
        prompt = sum(len(m["content"]) for m in body["messages"])
        usage = {"prompt_tokens": prompt, "completion_tokens": 3, "total_tokens": prompt + 3,
                 "prompt_tokens_details": {"cached_tokens": 2}}
        if model == "no-usage":
            usage = {}
        head = {"id": "c1", "created": 1, "model": f"{model}-2026-01-01"}
        if not body.get("stream"):
            return web.json_response({**head, "object": "chat.completion", "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "a b c"},
                 "finish_reason": "stop"}], **({"usage": usage} if usage else {})})
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        with_usage = (body.get("stream_options") or {}).get("include_usage")
        extra = {"usage": None} if with_usage else {}
        for piece in ("a ", "b ", "c"):
            chunk = {**head, "object": "chat.completion.chunk", **extra,
                     "choices": [{"index": 0, "delta": {"content": piece}}]}
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        if with_usage:
            chunk = {**head, "object": "chat.completion.chunk", "choices": [], "usage": usage}
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response


@pytest_asyncio.fixture
async def upstream() -> AsyncIterator[FakeUpstream]:
    server = FakeUpstream()
    await server.start()
    try:
        yield server
    finally:
        await server.close()


@pytest_asyncio.fixture
async def relay(upstream: FakeUpstream) -> AsyncIterator[tuple[str, list[str]]]:
    """serve-model relaying to the fake upstream (aliases gpt-local -> qwen-up); yields its
    base URL and its log lines."""
    log: list[str] = []
    served = Upstream(upstream.url, api_key=KEY, model="qwen-up", aliases=["gpt-local"])
    runner, url = await start_model_server(served, log=log.append)
    try:
        yield url, log
    finally:
        await runner.cleanup()
        await served.close()


async def _post(url: str, body: Any, headers: dict[str, str] | None = None
                ) -> tuple[int, bytes]:
    async with aiohttp.ClientSession() as session, session.post(
            url + "/chat/completions", json=body, headers=headers) as r:
        return r.status, await r.read()


async def _usage(url: str, query: str = "", headers: dict[str, str] | None = None
                 ) -> tuple[int, Any]:
    base = url.removesuffix("/v1")
    async with aiohttp.ClientSession() as session, session.get(
            f"{base}/eunomia/usage{query}", headers=headers) as r:
        return r.status, await r.json(content_type=None)


USER = [{"role": "user", "content": "Hello there"}]


async def test_relay_passes_requests_and_answers_through_and_records_them(
        relay: tuple[str, list[str]], upstream: FakeUpstream) -> None:
    url, log = relay
    before = time.time()
    body = {"model": "gpt-up", "messages": USER, "temperature": 0, "response_format":
            {"type": "json_object"}, "some_new_parameter": [1, 2]}
    status, answer = await _post(url, body)
    assert status == 200
    assert json.loads(upstream.bodies[-1]) == body  # as the client sent it, unknown keys too
    assert json.loads(answer)["model"] == "gpt-up-2026-01-01"  # the upstream's answer
    assert upstream.headers[-1]["Authorization"] == f"Bearer {KEY}"
    # an alias is sent for the upstream model it stands for
    status, _ = await _post(url, {"model": "gpt-local", "messages": USER})
    assert status == 200 and json.loads(upstream.bodies[-1])["model"] == "qwen-up"

    status, page = await _usage(url)
    assert status == 200
    record = UsagePage.model_validate(page)
    first, second = record.calls
    assert (first.seq, first.model, first.answered_by) == (1, "gpt-up", "gpt-up-2026-01-01")
    assert (first.input_tokens, first.output_tokens, first.cached_input_tokens) == (11, 3, 2)
    assert (second.model, second.answered_by) == ("gpt-local", "qwen-up-2026-01-01")
    assert before <= first.started_at <= first.ended_at <= second.started_at <= time.time()
    assert record.last_seq == 2 and not record.more
    # the key is nowhere but in the upstream's Authorization header
    assert KEY not in json.dumps(page) and not any(KEY in line for line in log)


async def test_relay_lists_the_aliases_with_the_upstream_models(
        relay: tuple[str, list[str]]) -> None:
    url, _ = relay
    async with aiohttp.ClientSession() as session, session.get(url + "/models") as r:
        ids = [m["id"] for m in (await r.json())["data"]]
    assert ids == ["gpt-local", "qwen-up", "gpt-up"]


async def test_streams_are_metered_without_changing_what_the_client_reads(
        relay: tuple[str, list[str]], upstream: FakeUpstream) -> None:
    url, _ = relay
    status, raw = await _post(url, {"model": "gpt-up", "messages": USER, "stream": True})
    assert status == 200
    # the relay asked for usage upstream, and kept the usage-only chunk from the client
    assert json.loads(upstream.bodies[-1])["stream_options"] == {"include_usage": True}
    events = [block[6:] for block in raw.decode().split("\n\n") if block.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert len(chunks) == 3 and all(c["choices"] for c in chunks)
    # a client that asked for usage gets it
    status, raw = await _post(url, {"model": "gpt-up", "messages": USER, "stream": True,
                                    "stream_options": {"include_usage": True}})
    assert b'"choices": [], "usage": {"prompt_tokens": 11' in raw
    _, page = await _usage(url)
    calls = UsagePage.model_validate(page).calls
    assert [(c.streamed, c.input_tokens, c.output_tokens) for c in calls] == [
        (True, 11, 3), (True, 11, 3)]


async def test_failures_are_recorded_with_what_is_known_of_their_cost(
        relay: tuple[str, list[str]], upstream: FakeUpstream) -> None:
    url, _ = relay
    assert (await _post(url, {"model": "boom", "messages": USER}))[0] == 500
    assert (await _post(url, {"model": "refused", "messages": USER}))[0] == 400
    assert (await _post(url, {"model": "no-usage", "messages": USER}))[0] == 200
    async with aiohttp.ClientSession() as session, session.post(
            url + "/chat/completions", data=b"[1") as r:
        assert r.status == 400
    _, page = await _usage(url)
    boom, refused, no_usage, garbage = UsagePage.model_validate(page).calls
    assert (boom.status, boom.input_tokens, boom.error) == (500, None, '{"error": {"message": '
                                                                     '"overloaded"}}')
    assert (refused.status, refused.input_tokens, refused.output_tokens) == (400, 0, 0)
    assert (no_usage.status, no_usage.input_tokens) == (200, None)
    assert (garbage.status, garbage.model, garbage.input_tokens) == (400, "", 0)


async def test_an_unreachable_upstream_is_a_502_naming_no_key(upstream: FakeUpstream) -> None:
    served = Upstream("http://127.0.0.1:9/v1", api_key=KEY)  # discard port: nothing listens
    runner, url = await start_model_server(served)
    try:
        status, raw = await _post(url, {"model": "x", "messages": USER})
        assert status == 502 and KEY not in raw.decode()
        _, page = await _usage(url)
        (call,) = UsagePage.model_validate(page).calls
        assert (call.status, call.input_tokens) == (502, 0)  # nothing reached it
    finally:
        await runner.cleanup()
        await served.close()


async def test_usage_record_needs_the_servers_key_and_valid_cursors(
        upstream: FakeUpstream) -> None:
    served = Upstream(upstream.url)
    runner, url = await start_model_server(served, api_key="sk-own")
    try:
        assert (await _usage(url))[0] == 401
        auth = {"Authorization": "Bearer sk-own"}
        assert (await _usage(url, "?after=x", auth))[0] == 400
        assert (await _usage(url, "?after=-1", auth))[0] == 400
        assert (await _usage(url, "?since=nan", auth))[0] == 400
        status, page = await _usage(url, "?after=0&since=0", auth)
        assert status == 200 and page["calls"] == [] and page["last_seq"] == 0
        # the client of the record, with the key from its variable
        source = UsageSource(url, api_key="sk-own")
        assert source.url == url.removesuffix("/v1") + "/eunomia/usage"
        assert await source.open() == 0 and source.same_clock and source.offset == 0
        await source.close()
    finally:
        await runner.cleanup()
        await served.close()


def test_relay_options_are_checked() -> None:
    from eunomia.errors import EunomiaError

    with pytest.raises(EunomiaError, match="--upstream"):
        Upstream("ftp://x")
    with pytest.raises(EunomiaError, match="needs --model"):
        Upstream("http://127.0.0.1:1/v1", aliases=["gpt-local"])


async def test_local_answers_are_recorded_with_the_usage_they_report() -> None:
    require_local_model("gemma3-270m")
    served = served_model("local:gemma3-270m", ["gpt-local"])
    await served.load()
    runner, url = await start_model_server(served)
    try:
        status, raw = await _post(url, {"model": "gpt-local", "messages": USER,
                                        "max_tokens": 3})
        assert status == 200
        usage = json.loads(raw)["usage"]
        status, raw = await _post(url, {"model": "gpt-local", "messages": USER,
                                        "max_tokens": 3, "stream": True})
        assert status == 200
        assert (await _post(url, {"model": "nope", "messages": USER}))[0] == 404
        _, page = await _usage(url)
        whole, streamed, unknown = UsagePage.model_validate(page).calls
        assert (whole.model, whole.answered_by) == ("gpt-local", "gemma3-270m")
        assert (whole.input_tokens, whole.output_tokens) == (usage["prompt_tokens"],
                                                             usage["completion_tokens"])
        assert whole.cached_input_tokens == usage["prompt_tokens_details"]["cached_tokens"]
        assert streamed.streamed and streamed.output_tokens == 3
        assert (unknown.status, unknown.input_tokens) == (404, 0)
    finally:
        await runner.cleanup()
        await served.close()
