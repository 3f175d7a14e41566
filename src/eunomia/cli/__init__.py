"""The ``eunomia`` command line: ``run``, ``validate``, ``serve-example``, ``demo``."""

from __future__ import annotations

import gc
import sys

import typer

from eunomia import defaults
from eunomia.cli._app import app
from eunomia.errors import EunomiaError


def main() -> None:
    """Entry point: user errors are printed plainly (never a traceback) with exit code 2."""
    from rich.console import Console
    from rich.markup import escape

    gc.set_threshold(*defaults.GC_THRESHOLDS)
    err = Console(stderr=True, highlight=False, emoji=False)
    try:
        # standalone_mode=False: click returns the exit code instead of exiting, and
        # leaves usage errors to us, so every failure is printed without a traceback.
        code = app(standalone_mode=False)
    except EunomiaError as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}", soft_wrap=True)
        sys.exit(2)
    except (KeyboardInterrupt, typer.Abort):
        err.print("[yellow]interrupted[/]: finished cases are kept in the run store; "
                  "continue with --resume RUN")
        sys.exit(130)
    except typer.TyperException as exc:  # usage errors: a message, exit code 2, no traceback
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            err.print(f"[red]error:[/] {escape(str(exc))}")
        sys.exit(int(getattr(exc, "exit_code", 2)))
    sys.exit(code if isinstance(code, int) else 0)


__all__ = ["app", "main"]
