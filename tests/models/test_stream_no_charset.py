"""A streamed request answered without events and without a charset (a proxy's
``Content-Type: text/html`` error page, a small server's ``text/plain`` JSON) is read or
fails with its reason — not with aiohttp's "Cannot compute fallback encoding of a not yet
read body" (the body was read from the stream, so aiohttp cannot guess the charset)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from aiohttp import web
from tests.support.local_app import LocalApp

from eunomia.models import ChatMessage, ChatRequest
from eunomia.models.providers.openai import OpenAIProvider
from eunomia.scheduler import CallError

ANSWER = "Nine words, read although the server did not stream."
COMPLETION = {"id": "c1", "object": "chat.completion", "model": "m",
              "choices": [{"index": 0, "finish_reason": "stop",
                           "message": {"role": "assistant", "content": ANSWER}}],
              "usage": {"prompt_tokens": 5, "completion_tokens": 9, "total_tokens": 14}}


class NoCharset(LocalApp):
    """The request's ``model`` picks the Content-Type; the header is set by hand, so
    aiohttp's server adds no charset."""

    url_path = "/v1"

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self.answer)

    async def answer(self, request: web.Request) -> web.Response:
        model = (await request.json())["model"]
        content_type, body = {
            "html": ("text/html", b"<html><body>502 Bad Gateway</body></html>"),
            "json-plain": ("text/plain", json.dumps(COMPLETION).encode()),
            "json-octets": ("application/octet-stream", json.dumps(COMPLETION).encode()),
            "bogus-charset": ("text/plain; charset=no-such-codec",
                              json.dumps(COMPLETION).encode()),
        }[model]
        return web.Response(body=body, headers={"Content-Type": content_type})


@pytest_asyncio.fixture
async def server() -> AsyncIterator[NoCharset]:
    fake = NoCharset()
    await fake.start()
    try:
        yield fake
    finally:
        await fake.close()


async def chat(server: NoCharset, model: str) -> str:
    provider = OpenAIProvider(model, base_url=server.url)
    try:
        result = await provider.chat(ChatRequest(
            messages=(ChatMessage(role="user", content="Nine words."),), stream=True))
        return result.text
    finally:
        await provider.close()


@pytest.mark.parametrize("model", ["json-plain", "json-octets", "bogus-charset"])
async def test_a_json_answer_without_charset_is_read(server: NoCharset, model: str) -> None:
    assert await chat(server, model) == ANSWER


async def test_an_html_page_without_charset_fails_with_its_reason(server: NoCharset) -> None:
    with pytest.raises(CallError, match="neither server-sent events nor JSON: <html>"):
        await chat(server, "html")
