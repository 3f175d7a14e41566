"""A model server (served model or relay) from a background thread with its own event loop,
for clients in other processes (the real Athena module) while the test blocks."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Awaitable, Callable, Iterator

from aiohttp import web

from eunomia.model_server import ServedModel, Upstream, start_model_server


@contextlib.contextmanager
def served_in_thread(make: Callable[[], Awaitable[ServedModel | Upstream]],
                     start_timeout: float = 120) -> Iterator[str]:
    """Serve what ``make`` returns (built and loaded in the server's loop); yields the base
    URL (``.../v1``); stops the server and closes the model at the end."""
    loop = asyncio.new_event_loop()
    started: concurrent.futures.Future[tuple[web.AppRunner, str, ServedModel | Upstream]] = \
        concurrent.futures.Future()

    async def begin() -> None:
        served = await make()
        await served.load()
        runner, url = await start_model_server(served)
        started.set_result((runner, url, served))

    def serve() -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(begin())
        except BaseException as exc:  # pragma: no cover - reported to the test below
            started.set_exception(exc)
            return
        loop.run_forever()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    runner, url, served = started.result(timeout=start_timeout)
    try:
        yield url
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(30)
        asyncio.run_coroutine_threadsafe(served.close(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()
