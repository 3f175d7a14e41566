"""Running the example server: in-process (tests, demos) or blocking (the CLI)."""

from __future__ import annotations

from aiohttp import web

from eunomia import serving
from eunomia.athena.server import start_module_server
from eunomia.example_server._app import create_app


async def start_example_server(
    host: str = "127.0.0.1", port: int = 0, secret: str | None = None
) -> tuple[web.AppRunner, str]:
    """Start the server in the running event loop; ``port=0`` picks a free port.

    Returns the runner (call ``await runner.cleanup()`` to stop) and the feedback URL.
    """
    return await start_module_server(create_app(secret), host, port)


async def _serve(host: str, port: int, secret: str | None) -> None:
    runner, url = await start_example_server(host, port, secret)
    serving.say(f"Example feedback server listening on {url} (Ctrl+C to stop)")
    await serving.until_stopped(runner)


def serve_forever(host: str, port: int, secret: str | None) -> None:
    """Serve until Ctrl+C or SIGTERM; prints the feedback URL first."""
    serving.serve_forever(_serve(host, port, secret), "Example feedback server stopped.")
