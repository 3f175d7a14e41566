"""The model server on the real embedded gemma3-270m, in the test's event loop.

Needs the ``local`` extra and gemma3-270m's weights (``scripts/setup-local-model.sh
gemma3-270m``); the tests skip without them. The model is loaded once per process and
shared by the server and the in-process provider the answers are compared with.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest_asyncio
from aiohttp import web
from tests.support.local_model import require_local_model
from tests.support.served_thread import served_in_thread

from eunomia.model_server import ServedModel, served_model, start_model_server

MODEL = "gemma3-270m"
SPEC = f"local:{MODEL}"
ALIASES = ("gpt-eunomia-local", "grader")


def _needs_model() -> None:
    require_local_model(MODEL)


@dataclass(slots=True)
class Server:
    """A started model server and a client session for raw requests."""

    url: str
    """The base URL, ``http://127.0.0.1:<port>/v1``."""
    served: ServedModel
    session: aiohttp.ClientSession
    log: list[str]

    async def post(self, body: Any, *, path: str = "/chat/completions",
                   headers: dict[str, str] | None = None) -> tuple[int, Any]:
        async with self.session.post(self.url + path, json=body, headers=headers) as r:
            return r.status, await r.json(content_type=None)

    async def get(self, path: str, *, headers: dict[str, str] | None = None
                  ) -> tuple[int, Any]:
        async with self.session.get(self.url + path, headers=headers) as r:
            return r.status, await r.json(content_type=None)


async def start(api_key: str | None = None, model: ServedModel | None = None,
                **served: Any) -> tuple[web.AppRunner, Server]:
    """A server for ``model`` (default: gemma3-270m under :data:`ALIASES`)."""
    _needs_model()
    model = model or served_model(SPEC, ALIASES, **served)
    await model.load()
    log: list[str] = []
    runner, url = await start_model_server(model, api_key=api_key, log=log.append)
    session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=600))
    return runner, Server(url=url, served=model, session=session, log=log)


@pytest_asyncio.fixture
async def server() -> AsyncIterator[Server]:
    runner, srv = await start()
    try:
        yield srv
    finally:
        await srv.session.close()
        await runner.cleanup()


@contextlib.asynccontextmanager
async def running(api_key: str | None = None, model: ServedModel | None = None,
                  **served: Any) -> AsyncIterator[Server]:
    runner, srv = await start(api_key, model, **served)
    try:
        yield srv
    finally:
        await srv.session.close()
        await runner.cleanup()


@pytest_asyncio.fixture
async def keyed_server() -> AsyncIterator[Server]:
    """The same server requiring ``Authorization: Bearer sk-test-key``."""
    runner, srv = await start(api_key="sk-test-key")
    try:
        yield srv
    finally:
        await srv.session.close()
        await runner.cleanup()


@contextlib.contextmanager
def serving_in_thread(**served: Any) -> Iterator[str]:
    """gemma3-270m served from a background thread with its own event loop (for clients in
    other processes while the test blocks); yields the base URL."""
    _needs_model()

    async def make() -> ServedModel:
        return served_model(SPEC, ALIASES, **served)

    with served_in_thread(make) as url:
        yield url
