"""A fast Athena-contract server for benchmarks: answers at once (or after --latency).

It answers every request with the SGI ids listed in the submission's ``meta`` or, by
default, the first instruction of each criterion. Run it as its own process so its
CPU is not counted as Eunomia's. ``GET /stats`` returns how many requests it answered:

    python bench/fast_athena_server.py --port 0 --latency 0.2
"""

from __future__ import annotations

import asyncio

from aiohttp import web

from _fast_server import run


async def handle(request: web.Request) -> web.Response:
    body = await request.json()
    request.app["counter"][0] += 1
    latency = request.app["latency"]
    if latency:
        await asyncio.sleep(latency)
    criteria = body["exercise"]["gradingCriteria"]
    data = [
        {
            "id": None,
            "title": c["title"],
            "description": "ok",
            "credits": c["structuredGradingInstructions"][0]["credits"],
            "structuredGradingInstructionId": c["structuredGradingInstructions"][0]["id"],
            "isGraded": False,
            "meta": {},
            "exerciseId": body["exercise"]["id"],
            "submissionId": body["submission"]["id"],
            "elementIds": [],
        }
        for c in criteria
    ]
    meta = {"llmRequests": [{"model": "gpt-4o", "numInputTokens": 1000,
                             "numOutputTokens": 100, "numTotalTokens": 1100}]}
    return web.json_response({"data": data, "meta": meta})


if __name__ == "__main__":
    run(handle, "/feedback_suggestions", latency={"type": float, "default": 0.0})
