"""What the commands over task suites share (``eval``, ``eval --pairwise``, ``judge-check``):
the suites loaded with every problem printed, the candidate models as given or stored, and
what a run's end says about them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError
from rich.console import Console

from eunomia.errors import EunomiaError, Severity, print_diagnostics
from eunomia.matrix import MatrixModel
from eunomia.run import RunResult
from eunomia.tasks import TaskSuite, load_suites


def load_task_suites(paths: Sequence[Path], out: Console) -> tuple[list[TaskSuite], int]:
    """The suites of ``paths`` and how many errors their files have (printed, with the file,
    key path and line of each: the other cases run)."""
    if not paths:
        raise EunomiaError("give at least one task suite file or folder (or --resume RUN)")
    suites, problems = load_suites(list(paths))
    print_diagnostics(out, problems)
    if not any(s.cases for s in suites):
        raise EunomiaError("no runnable test case in the given suites")
    return suites, sum(d.severity is Severity.ERROR for d in problems)


def given_models(specs: Sequence[str]) -> list[MatrixModel]:
    """``--model`` specs as the matrix file's models (not validated here: resolving a spec
    says what is wrong with a bad one)."""
    return [MatrixModel.model_construct(spec=m) for m in specs]


def stored_models(run: str, stored: object) -> list[MatrixModel]:
    """The models a run stored (its ``settings["models"]``)."""
    try:
        return [MatrixModel.model_validate(e) for e in stored] \
            if isinstance(stored, list) else []
    except ValidationError as exc:
        raise EunomiaError(f"run {run!r}: its stored models cannot be read "
                           f"({exc.error_count()} problem(s)); start a new run") from None


def with_load_errors(result: RunResult[object], load_errors: int) -> None:
    """Problems in the suite files make the exit code 1 (after the run: the rest ran)."""
    if load_errors:
        result.failures.append(f"{load_errors} problem(s) in the suite files (listed above); "
                               "the other cases ran")
