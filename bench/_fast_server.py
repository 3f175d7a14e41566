"""What the benchmarks' fast servers share: the app with a request counter, ``GET /stats``,
and serving on 127.0.0.1 with the URL printed as JSON for the parent process."""

from __future__ import annotations

import asyncio
import json

from aiohttp import web


async def stats(request: web.Request) -> web.Response:
    return web.json_response({"requests": request.app["counter"][0]})


def make_app(latency: float) -> web.Application:
    """An app counting requests (``app["counter"][0]``) with ``GET /stats``."""
    app = web.Application(client_max_size=64 * 1024 * 1024)
    app["latency"] = latency
    app["counter"] = [0]
    app.router.add_get("/stats", stats)
    return app


async def serve_forever(app: web.Application, port: int, path: str) -> None:
    """Serve ``app`` on 127.0.0.1 and print ``{"url": ...}`` (ending in ``path``)."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port, backlog=1024)
    await site.start()
    real_port = runner.addresses[0][1]
    print(json.dumps({"url": f"http://127.0.0.1:{real_port}{path}"}), flush=True)
    await asyncio.Event().wait()
