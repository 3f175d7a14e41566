"""Running the example server: in-process (tests, demos) or blocking (the CLI)."""

from __future__ import annotations

import asyncio
import contextlib
import signal

from aiohttp import web

from eunomia.example_server._app import MODULE_PATH, create_app


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{MODULE_PATH}"


async def start_example_server(
    host: str = "127.0.0.1", port: int = 0, secret: str | None = None
) -> tuple[web.AppRunner, str]:
    """Start the server in the running event loop; ``port=0`` picks a free port.

    Returns the runner (call ``await runner.cleanup()`` to stop) and the feedback URL.
    """
    runner = web.AppRunner(create_app(secret), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    real_port = int(runner.addresses[0][1])
    return runner, _url(host, real_port)


async def _serve(host: str, port: int, secret: str | None) -> None:
    runner, url = await start_example_server(host, port, secret)
    print(f"Example feedback server listening on {url} (Ctrl+C to stop)", flush=True)
    stop = asyncio.Event()
    with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def serve_forever(host: str, port: int, secret: str | None) -> None:
    """Serve until Ctrl+C or SIGTERM; prints the feedback URL first."""
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(host, port, secret))
    print("Example feedback server stopped.", flush=True)
