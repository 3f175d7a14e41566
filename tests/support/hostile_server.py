"""A misbehaving server on 127.0.0.1 for the response-limit tests: it answers with bodies too
large, with no end, or with an error page of many megabytes, as an Athena module, an
``http:`` system or an OpenAI-compatible endpoint would send them.

Routes (every method; ``/big`` is the default):

* ``/big?bytes=N&chunked=0|1&kind=text|feedback|openai``: a 200 of N bytes: text that is not
  JSON; a valid Athena feedback answer whose one item's description fills it (``feedback``,
  naming the instruction ``sgi``, default 1); or an OpenAI chat completion whose content fills
  it (``openai``). ``chunked=1`` leaves out the Content-Length.
* ``/endless?sse=0|1``: a 200 that never ends (text, or server-sent events of JSON data).
* ``/error?bytes=N``: an HTTP 500 of N bytes.
* ``/openai/N/...``: an OpenAI chat completion of N bytes (``/openai/N`` is an
  ``$OPENAI_BASE_URL``: the provider appends ``/chat/completions``).

Bodies are sent in 64 KB pieces; a client that hangs up ends the answer. ``sent[path]``
counts the bytes written per route, so a test can tell a body was not read to its end.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter

from aiohttp import web
from tests.support.scripted_server import ScriptedServer

PIECE = 65_536


def feedback_body(size: int, sgi: int = 1) -> bytes:
    """A valid Athena answer of about ``size`` bytes: one item with a long description."""
    head = json.dumps({"data": [{"credits": 1.0, "structuredGradingInstructionId": sgi,
                                 "title": "talkative", "description": "@"}],
                       "meta": {}}).encode()
    before, after = head.split(b'"@"')
    return before + b'"' + b"y" * max(0, size - len(head)) + b'"' + after


def openai_body(size: int) -> bytes:
    head = json.dumps({"model": "m", "choices": [{"message": {"content": "@"},
                                                  "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 1, "completion_tokens": 1}}).encode()
    before, after = head.split(b'"@"')
    return before + b'"' + b"z" * max(0, size - len(head)) + b'"' + after


class HostileServer(ScriptedServer):
    """See the module docstring. Served as a :class:`ScriptedServer` (``in_thread()``, or
    ``await start()``), answering by path instead of by script."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: Counter[str] = Counter()

    async def _send(self, request: web.Request, data: bytes | None, *, status: int = 200,
                    chunked: bool = False, content_type: str = "application/json"
                    ) -> web.StreamResponse:
        await request.read()
        response = web.StreamResponse(status=status, headers={"Content-Type": content_type})
        if data is not None and not chunked:
            response.content_length = len(data)
        else:
            response.enable_chunked_encoding()
        await response.prepare(request)
        try:
            if data is None:  # never ends
                piece = (b'data: {"pad": "' + b"e" * 1000 + b'"}\n\n'
                         if content_type == "text/event-stream" else b"<p>" * (PIECE // 3))
                while True:
                    await response.write(piece)
                    self.sent[request.path] += len(piece)
            view = memoryview(data)
            for start in range(0, len(data), PIECE):
                await response.write(view[start:start + PIECE])
                self.sent[request.path] += len(view[start:start + PIECE])
            await response.write_eof()
        except (ConnectionError, asyncio.CancelledError):
            pass  # the client hung up: what it did not read is not sent
        return response

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        query = request.query
        size = int(query.get("bytes", "1000"))
        parts = request.path.strip("/").split("/")
        if parts[0] == "openai" and len(parts) > 1:
            return await self._send(request, openai_body(int(parts[1])))
        if request.path.startswith("/endless"):
            sse = query.get("sse") == "1"
            return await self._send(request, None,
                                    content_type="text/event-stream" if sse else "text/html")
        if request.path.startswith("/error"):
            return await self._send(request, b"E" * size, status=500, content_type="text/plain")
        kind = query.get("kind", "text")
        if kind == "feedback":
            data = feedback_body(size, int(query.get("sgi", "1")))
        elif kind == "openai":
            data = openai_body(size)
        else:
            data = (b"not json " * (size // 9 + 1))[:size]
        return await self._send(request, data, chunked=query.get("chunked") == "1",
                                content_type="text/plain" if kind == "text"
                                else "application/json")
