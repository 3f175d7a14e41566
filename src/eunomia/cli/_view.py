"""``eunomia view``: serve the run store's reports on this machine."""

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from eunomia import defaults
from eunomia.cli._common import console
from eunomia.errors import EunomiaError


def view(
    results: Annotated[Path, typer.Option(help="Results folder.")] = defaults.RESULTS_DIR,
    store: Annotated[Path | None, typer.Option(
        help="Run store (SQLite).", show_default="<results>/eunomia.db")] = None,
    host: Annotated[str, typer.Option(
        help="Address to bind; anything but a loopback address shares every run "
             "with the network.")] = defaults.VIEWER_HOST,
    port: Annotated[int, typer.Option(help="Port to listen on.")] = defaults.VIEWER_PORT,
) -> None:
    """Browse the runs in a browser: the list, a run's report, any two runs compared."""
    from eunomia.viewer import serve_forever
    from eunomia.viewer._app import is_loopback

    if not 0 <= port <= 65535:
        raise EunomiaError(f"--port must be between 0 and 65535, got {port}")
    out = console()
    path = store or results / defaults.STORE_FILE
    if not is_loopback(host):
        out.print(f"[yellow]warning:[/] serving on {escape(host)}: anyone who can reach it "
                  "can read every run in the store")

    def announce(url: str) -> None:
        out.print(f"Serving {escape(str(path))} on {escape(url)} (Ctrl-C to stop)",
                  soft_wrap=True)

    try:
        serve_forever(path, host, port, announce)
    except OSError as exc:
        raise EunomiaError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
