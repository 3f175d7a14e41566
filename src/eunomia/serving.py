"""Running Eunomia's small HTTP servers (the Athena-contract module of ``eunomia serve``, the
example server, the model server, the viewer, the label server): an aiohttp app started in
the running event loop on a host and port, its URL, and the blocking form of the commands,
served until Ctrl+C or SIGTERM. The apps themselves are their packages'."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import signal
from collections.abc import Callable, Coroutine
from typing import Any

from aiohttp import web


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def http_url(host: str, port: int, path: str = "") -> str:
    """``http://host:port/path`` (an IPv6 address in brackets)."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}"


async def start_app(app: web.Application, host: str = "127.0.0.1", port: int = 0,
                    **runner_options: Any) -> tuple[web.AppRunner, int]:
    """Serve ``app`` in the running event loop; ``port=0`` picks a free port.

    Returns the runner (``await runner.cleanup()`` stops it) and the port it listens on.
    ``runner_options`` go to :class:`aiohttp.web.AppRunner` (no access log)."""
    runner = web.AppRunner(app, access_log=None, **runner_options)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    return runner, int(runner.addresses[0][1])


async def until_stopped(runner: web.AppRunner) -> None:
    """Serve until the command is stopped (Ctrl+C or SIGTERM, which cancel its task: see
    :func:`serve_forever`), then stop ``runner``."""
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


async def serve_app(app: web.Application, host: str, port: int,
                    announce: Callable[[str], None], path: str = "/") -> None:
    """Serve ``app`` until the command is stopped (see :func:`serve_forever`); ``announce``
    gets the URL of ``path`` once the server listens (on the port it got, for ``port=0``)."""
    runner, real_port = await start_app(app, host, port)
    announce(http_url(host, real_port, path))
    await until_stopped(runner)


def say(text: str) -> None:
    """A line for the terminal, shown at once."""
    print(text, flush=True)


async def _stopped_by_sigterm(serve: Coroutine[Any, Any, None]) -> None:
    """``serve``, cancelled by SIGTERM as by Ctrl+C; the handler is in place before anything
    starts, so a SIGTERM sent as soon as the server says it listens stops it cleanly."""
    task = asyncio.current_task()
    assert task is not None
    terminated = False

    def terminate() -> None:
        nonlocal terminated
        terminated = True
        task.cancel()

    with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, terminate)
    try:
        await serve
    except asyncio.CancelledError:
        if not terminated:
            raise


def serve_forever(serve: Coroutine[Any, Any, None], stopped: str | None,
                  announce: Callable[[str], None] = say) -> None:
    """Run ``serve`` (which starts a server and awaits :func:`until_stopped`) until Ctrl+C
    or SIGTERM; then ``announce`` the ``stopped`` line (``None``: nothing said)."""
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_stopped_by_sigterm(serve))
    if stopped is not None:
        announce(stopped)
