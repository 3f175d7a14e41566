"""A fast OpenAI-compatible chat-completions server for benchmarks (answers at once, or
after --latency seconds).

``POST /v1/chat/completions`` answers every request with ``--answer`` (default
"The answer is 42.") and a fixed token usage; ``"stream": true`` is answered as a
server-sent event stream with a usage chunk. ``GET /stats`` returns how many chat
requests it has answered (``{"requests": N}``), so a benchmark can check that a cached
re-run made none. Run it as its own process so its CPU is not counted as Eunomia's;
it prints its base URL as JSON on the first line:

    python bench/fast_openai_server.py --port 0 --latency 0.2
    {"url": "http://127.0.0.1:41234/v1"}
"""

from __future__ import annotations

import asyncio
import json
import time

from aiohttp import web

from _fast_server import run

USAGE = {"prompt_tokens": 50, "completion_tokens": 8, "total_tokens": 58}


def _completion(model: str, answer: str) -> dict[str, object]:
    return {
        "id": "chatcmpl-bench", "object": "chat.completion", "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": answer}}],
        "usage": USAGE,
    }


async def chat(request: web.Request) -> web.StreamResponse:
    app = request.app
    body = await request.json()
    app["counter"][0] += 1
    if app["latency"]:
        await asyncio.sleep(app["latency"])
    model = str(body.get("model", "bench"))
    answer: str = app["answer"]
    if not body.get("stream"):
        return web.json_response(_completion(model, answer))
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    base = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "model": model}
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": answer},
                              "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {**base, "choices": [], "usage": USAGE},
    ]
    for chunk in chunks:
        await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
    await response.write(b"data: [DONE]\n\n")
    await response.write_eof()
    return response


if __name__ == "__main__":
    run(chat, "/v1/chat/completions", "/v1", latency={"type": float, "default": 0.0},
        answer={"default": "The answer is 42."})
