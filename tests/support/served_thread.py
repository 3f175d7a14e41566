"""A server from a background thread with its own event loop, for clients in other processes
(the real Athena module, a browser) while the test blocks: a model server (served model or
relay), or any aiohttp app (the viewer)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, TypeVar

from aiohttp import web

from eunomia.model_server import ServedModel, Upstream, start_model_server
from eunomia.serving import http_url, start_app

Started = TypeVar("Started")


@contextlib.contextmanager
def _loop_in_thread(start: Callable[[], Awaitable[Started]],
                    stop: Callable[[Started], Coroutine[Any, Any, None]],
                    start_timeout: float) -> Iterator[Started]:
    """Run ``start()`` in a loop of its own in a background thread, yield what it returns,
    then ``stop`` it there and end the thread."""
    loop = asyncio.new_event_loop()
    started: concurrent.futures.Future[Started] = concurrent.futures.Future()

    def serve() -> None:
        asyncio.set_event_loop(loop)
        try:
            started.set_result(loop.run_until_complete(start()))
        except BaseException as exc:  # pragma: no cover - reported to the test below
            started.set_exception(exc)
            return
        loop.run_forever()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    value = started.result(timeout=start_timeout)
    try:
        yield value
    finally:
        asyncio.run_coroutine_threadsafe(stop(value), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()


@contextlib.contextmanager
def served_in_thread(make: Callable[[], Awaitable[ServedModel | Upstream]],
                     start_timeout: float = 120) -> Iterator[str]:
    """Serve what ``make`` returns (built and loaded in the server's loop); yields the base
    URL (``.../v1``); stops the server and closes the model at the end."""

    async def begin() -> tuple[web.AppRunner, str, ServedModel | Upstream]:
        served = await make()
        await served.load()
        runner, url = await start_model_server(served)
        return runner, url, served

    async def end(started: tuple[web.AppRunner, str, ServedModel | Upstream]) -> None:
        runner, _, served = started
        await runner.cleanup()
        await served.close()

    with _loop_in_thread(begin, end, start_timeout) as (_, url, _):
        yield url


@contextlib.contextmanager
def app_in_thread(app: web.Application, start_timeout: float = 10) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 (a free port); yields its URL (``http://host:port``, the
    address the server listens on); stops it at the end."""

    async def begin() -> web.AppRunner:
        runner, _ = await start_app(app)
        return runner

    async def end(runner: web.AppRunner) -> None:
        await runner.cleanup()

    with _loop_in_thread(begin, end, start_timeout) as runner:
        host, port = runner.addresses[0][:2]
        yield http_url(host, port)
