"""The ``eunomia`` command line: ``run``, ``validate``, ``serve-example``, ``demo``."""

from __future__ import annotations

import sys

from eunomia.cli._app import app
from eunomia.errors import EunomiaError


def main() -> None:
    """Entry point: user errors are printed plainly (never a traceback) with exit code 2."""
    from rich.console import Console
    from rich.markup import escape

    try:
        app(standalone_mode=False)
    except EunomiaError as exc:
        Console(stderr=True, highlight=False).print(f"[red]error:[/] {escape(str(exc))}",
                                                    soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        Console(stderr=True).print("[yellow]interrupted[/]: finished cases are saved")
        sys.exit(130)


__all__ = ["app", "main"]
