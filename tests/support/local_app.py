"""Serving a test's fake outside-world server on 127.0.0.1: in the test's event loop or
from a background thread (for CLI tests that run their own loop)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from typing import Self

from aiohttp import web


class LocalApp:
    """Base of the fake servers: subclasses add their routes and say their URL path."""

    url_path = ""
    url = ""
    _runner: web.AppRunner | None = None

    def add_routes(self, app: web.Application) -> None:
        raise NotImplementedError

    async def start(self) -> None:
        app = web.Application()
        self.add_routes(app)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = int(self._runner.addresses[0][1])
        self.url = f"http://127.0.0.1:{port}{self.url_path}"

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @contextlib.contextmanager
    def in_thread(self) -> Iterator[Self]:
        """Serve from a background thread with its own loop (for synchronous CLI tests)."""
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(loop)
            loop.run_until_complete(self.start())
            ready.set()
            loop.run_forever()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        assert ready.wait(10), "fake server did not start"
        try:
            yield self
        finally:
            asyncio.run_coroutine_threadsafe(self.close(), loop).result(10)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)
            loop.close()
