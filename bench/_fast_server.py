"""What the benchmarks' fast servers share: the app with a request counter, ``GET /stats``,
serving on 127.0.0.1 with the URL printed as JSON for the parent process, and the command
that does it (``run``: ``--port`` and the server's options, stopped by Ctrl+C)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


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


def _nothing(_: web.Application) -> None:
    return None


async def _serve(args: argparse.Namespace, handler: Handler, route: str, url_path: str,
                 prepare: Callable[[web.Application], None]) -> None:
    app = make_app(0.0)
    for name in vars(args):
        app[name] = getattr(args, name)
    prepare(app)
    app.router.add_post(route, handler)
    await serve_forever(app, args.port, url_path)


def run(handler: Handler, route: str, url_path: str | None = None, *,
        prepare: Callable[[web.Application], None] = _nothing,
        **options: dict[str, Any]) -> None:
    """The server's command: ``--port`` (0: a free one) and ``--NAME`` for each of
    ``options`` (``add_argument``'s keywords), whose value the app holds as ``app["NAME"]``.
    Serves ``handler`` at ``POST route`` once ``prepare(app)`` is done, prints its URL
    (ending in ``url_path``, else ``route``: see :func:`serve_forever`) and exits with 0 on
    Ctrl+C."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    for name, keywords in options.items():
        parser.add_argument(f"--{name}", **keywords)
    args = parser.parse_args()
    try:
        asyncio.run(_serve(args, handler, route, url_path or route, prepare))
    except KeyboardInterrupt:
        sys.exit(0)
