"""The ``eunomia`` command line: ``run``, ``validate``, ``serve-example``, ``demo``."""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import sys
import threading

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


def _observed() -> bool:
    """Whether a profiler, tracer or coverage tool watches this process: it writes its
    results at Python's exit, which the quick exit would skip."""
    monitoring = getattr(sys, "monitoring", None)  # Python 3.12+ (coverage's sysmon core)
    watched = monitoring is not None and any(
        monitoring.get_tool(tool) is not None for tool in range(6))
    return sys.getprofile() is not None or sys.gettrace() is not None or watched


def command() -> None:
    """The installed ``eunomia`` command: :func:`main`, then a quick exit.

    Python's own exit frees every object of every module one by one (~0.1 s after a run
    that loaded numpy, pydantic and aiohttp: a sixth of a one-case run); the operating
    system frees a process's memory at once. So once :func:`main` is done and only this
    thread is left, the exit handlers run (temporary files, logging), the output is
    flushed and the process ends with its exit code. Otherwise (other threads, an exit
    with a message, a profiler or coverage watching) Python exits as usual."""
    try:
        main()
        code: object = 0
    except SystemExit as exc:
        code = 0 if exc.code is None else exc.code
    if not isinstance(code, int) or threading.active_count() > 1 or _observed():
        raise SystemExit(code)
    atexit._run_exitfuncs()  # what Python's exit would run (weakref.finalize, logging)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more to say
            stream.flush()
    os._exit(code)


__all__ = ["app", "command", "main"]
