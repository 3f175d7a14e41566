"""An Athena-contract server that answers every request with a very large body, for the memory
benchmark of issue 31 (``bench_big_answers.py``). Run it as its own process so its memory is
not counted as Eunomia's:

    python bench/big_answer_server.py --mb 50 --mode garbage

``--mode garbage``: 200 with ``--mb`` MB of text that is not JSON (a misbehaving module);
``--mode valid``: 200 with a valid feedback answer whose one item has a description of ``--mb``
MB (a module that talks too much). The body is built once and sent in 1 MB pieces with its
``Content-Length``, or with ``--chunked`` without one (chunked transfer encoding: the reader
only finds out the size as it reads). ``GET /stats`` returns how many requests it answered.
"""

from __future__ import annotations

import json

from aiohttp import web

from _fast_server import run

_PIECE = 1 << 20


def garbage_body(size: int) -> bytes:
    line = b"<p>this module answers with a page, not with JSON</p>\n"
    return (line * (size // len(line) + 1))[:size]


def valid_body(size: int) -> bytes:
    """A feedback answer of ``size`` bytes (give or take the envelope): one item whose
    description fills it. The SGI id is a placeholder replaced per request."""
    envelope = {"data": [{"id": None, "title": "talkative", "description": "",
                          "credits": 0.0, "structuredGradingInstructionId": 0,
                          "isGraded": False, "meta": {}, "elementIds": []}],
                "meta": {"llmRequests": [{"model": "gpt-4o", "numInputTokens": 1000,
                                          "numOutputTokens": 100}]}}
    head, tail = json.dumps(envelope).encode().split(b'"description": ""', 1)
    filler = b"x" * max(0, size - len(head) - len(tail) - 20)
    return head + b'"description": "' + filler + b'"' + tail


async def handle(request: web.Request) -> web.StreamResponse:
    body = await request.json()
    request.app["counter"][0] += 1
    data: bytes = request.app["body"]
    if request.app["mode"] == "valid":  # name the exercise's first instruction
        first = body["exercise"]["gradingCriteria"][0]["structuredGradingInstructions"][0]
        data = data.replace(b'"structuredGradingInstructionId": 0',
                            f'"structuredGradingInstructionId": {first["id"]}'.encode(), 1)
    response = web.StreamResponse(headers={"Content-Type": "application/json"})
    if request.app["chunked"]:
        response.enable_chunked_encoding()
    else:
        response.content_length = len(data)
    await response.prepare(request)
    view = memoryview(data)
    for start in range(0, len(data), _PIECE):
        await response.write(view[start:start + _PIECE])
    await response.write_eof()
    return response


def _body(app: web.Application) -> None:
    """The answer, built once before the server listens."""
    size = int(app["mb"] * 1_000_000)
    app["body"] = garbage_body(size) if app["mode"] == "garbage" else valid_body(size)


if __name__ == "__main__":
    run(handle, "/feedback_suggestions", prepare=_body, mb={"type": float, "default": 50.0},
        mode={"choices": ("garbage", "valid"), "default": "garbage"},
        chunked={"action": "store_true"})
