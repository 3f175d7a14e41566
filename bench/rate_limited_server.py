"""A server that answers 429 (with Retry-After) whenever more than --max-in-flight
requests are being served at once, for the adaptive-concurrency benchmark.

    python bench/rate_limited_server.py --max-in-flight 8 --latency 0.05 --retry-after 0.3
"""

from __future__ import annotations

import argparse
import asyncio
import json

from aiohttp import web


async def main(max_in_flight: int, latency: float, retry_after: float) -> None:
    state = {"in_flight": 0, "ok": 0, "limited": 0}

    async def handle(request: web.Request) -> web.Response:
        await request.read()
        if state["in_flight"] >= max_in_flight:
            state["limited"] += 1
            return web.json_response({"error": "rate limited"}, status=429,
                                     headers={"Retry-After": f"{retry_after:g}"})
        state["in_flight"] += 1
        try:
            await asyncio.sleep(latency)
        finally:
            state["in_flight"] -= 1
        state["ok"] += 1
        return web.json_response({"ok": True})

    async def stats(_: web.Request) -> web.Response:
        return web.json_response(state)

    app = web.Application()
    app.router.add_post("/call", handle)
    app.router.add_get("/stats", stats)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    print(json.dumps({"url": f"http://127.0.0.1:{port}"}), flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-in-flight", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--retry-after", type=float, default=0.3)
    a = parser.parse_args()
    asyncio.run(main(a.max_in_flight, a.latency, a.retry_after))
