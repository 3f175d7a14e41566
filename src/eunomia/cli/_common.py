"""Helpers shared by the commands: the console, printing a run's end."""

from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.markup import escape

from eunomia.errors import print_diagnostics
from eunomia.limits import check_positive

if TYPE_CHECKING:
    from eunomia.run import RunResult

_PIPE_WIDTH = 160


def console() -> Console:
    """Standard output; when it is not a terminal, wide enough that tables stay readable."""
    out = Console(stderr=False, highlight=False, emoji=False)
    if not out.is_terminal:
        out = Console(stderr=False, highlight=False, emoji=False, width=_PIPE_WIDTH)
    return out


def finish(out: Console, result: "RunResult[object]") -> None:
    """The CI files written, then what went wrong (in red): exit code 1 when anything did."""
    for path in result.written:
        out.print(f"Written: {escape(str(path))}", soft_wrap=True)
    for line in result.failures:
        out.print(f"[red]{escape(line)}[/]")
    if result.failures:
        raise typer.Exit(1)


__all__ = ["check_positive", "console", "finish", "print_diagnostics"]
