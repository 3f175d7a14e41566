"""Helpers shared by the commands: console, diagnostics, argument checks."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, NamedTuple, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from eunomia import defaults
from eunomia.errors import Diagnostic, EunomiaError, Severity

if TYPE_CHECKING:
    from pathlib import Path

    from eunomia.matrix import ScenarioMatrix, TaskMatrix
    from eunomia.store import RunInfo

_PIPE_WIDTH = 160
T = TypeVar("T")


def console() -> Console:
    """Standard output; when it is not a terminal, wide enough that tables stay readable."""
    out = Console(stderr=False, highlight=False, emoji=False)
    if not out.is_terminal:
        out = Console(stderr=False, highlight=False, emoji=False, width=_PIPE_WIDTH)
    return out


def print_diagnostics(out: Console, diagnostics: list[Diagnostic]) -> None:
    for d in diagnostics:
        colour = "red" if d.severity is Severity.ERROR else "yellow"
        out.print(f"[{colour}]{escape(str(d))}[/]", soft_wrap=True)


LIMITS: dict[str, float] = {
    "--concurrency": defaults.MAX_CONCURRENCY, "--timeout": defaults.MAX_TIMEOUT_S,
    "--repeat": defaults.MAX_REPEATS, "--judge-repeats": defaults.MAX_REPEATS,
    "--retries": defaults.MAX_RETRIES,
}
"""The largest value of each numeric option (others: 1e9)."""


_RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def check_run_name(name: str) -> None:
    """A run name is a folder name on every system: refuse anything else, saying why."""
    if not _RUN_NAME.match(name):
        raise EunomiaError(f"invalid run name {name!r}: use letters, digits, '.', '_' "
                           "and '-' (at most 100 characters)")


def check_positive(name: str, value: float | None, allow_zero: bool = False) -> None:
    """An option's number: finite, positive (or zero) and at most its :data:`LIMITS`."""
    most = LIMITS.get(name, 1e9)
    if value is None:
        return
    if math.isnan(value) or value < 0 or (value == 0 and not allow_zero):
        raise EunomiaError(f"{name} must be {'non-negative' if allow_zero else 'positive'}, "
                           f"got {value:g}")
    if math.isinf(value) or value > most:
        raise EunomiaError(f"{name} must be at most {most:g}, got {value:g}")


def given(ctx: typer.Context, name: str) -> bool:
    """Whether option ``name`` (its parameter name) was given on the command line (or by its
    environment variable), rather than left at its default: given options override a
    matrix file's."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT")


def from_matrix(ctx: typer.Context, name: str, value: T, in_file: T | None) -> T:
    """The value of option ``name``: the command line's when given there, else the matrix
    file's when it sets one, else the option's default."""
    return value if in_file is None or given(ctx, name) else in_file


class RunOptionValues(NamedTuple):
    """The run options both commands share, as finally chosen (command line or matrix)."""

    run_name: str | None
    case: list[str]
    max_cases: int | None
    repeat: int
    concurrency: int
    timeout: float
    retries: int


def run_options_from_matrix(ctx: typer.Context, given_values: RunOptionValues,
                            matrix: ScenarioMatrix | TaskMatrix) -> RunOptionValues:
    """Each shared run option from :func:`from_matrix` (``matrix``: a loaded matrix file)."""
    in_file = {"run_name": matrix.run_name, "case": matrix.cases,
               "max_cases": matrix.max_cases, "repeat": matrix.repeat,
               "concurrency": matrix.concurrency, "timeout": matrix.timeout,
               "retries": matrix.retries}
    return RunOptionValues(**{
        name: from_matrix(ctx, name, value, in_file[name])
        for name, value in given_values._asdict().items()
    })


def run_to_resume(store_path: Path, name: str, kind: str) -> RunInfo:
    """The stored run ``--resume NAME`` continues; refused, naming the command that resumes
    it, when the run is of another kind."""
    from eunomia.kinds import kind_named
    from eunomia.store import RunStore

    if not store_path.is_file():
        raise EunomiaError(f"no run store at {store_path}; give --results or --store")
    db = RunStore(store_path)
    try:
        info = db.require_run(name)
    finally:
        db.close()
    if info.kind != kind:
        raise EunomiaError(f"run {name!r} is a {info.kind} run; resume it with "
                           f"'eunomia {kind_named(info.kind).command} --resume {name}'")
    return info
