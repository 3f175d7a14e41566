"""``eunomia validate PATH...``: check suites of any kind without calling anything."""

from pathlib import Path
from typing import Annotated

import typer

from eunomia.cli._common import console, print_diagnostics
from eunomia.errors import Diagnostic, Severity, error

_DEPTH = 3
"""How far below a named folder suites are looked for."""


def _claims(path: Path, depth: int = 0) -> tuple[list[tuple[str, Path]], list[Diagnostic]]:
    """(kind name, path) for every kind whose suites ``path`` holds, looking into the
    sub-folders of a folder no kind owns."""
    from eunomia.kinds import kinds_for

    try:
        exists, is_dir = path.exists(), path.is_dir()
    except OSError as exc:  # e.g. a name too long for the file system
        return [], [error(path, f"cannot read: {exc.strerror or exc}")]
    if not exists:
        return [], [error(path, "no such file or folder")]
    owners = [(kind.name, path) for kind in kinds_for(path)]
    if not is_dir or depth >= _DEPTH:
        return owners, [] if owners else [error(
            path, "not a suite: expected a scenario folder (with manifest.yml), a task suite "
                  "(.yaml/.yml), or a folder of them")]
    # a folder some kind owns may hold more suites below it (a folder with a config file
    # beside a folder of task suites): its sub-folders are looked into all the same
    found: list[tuple[str, Path]] = list(owners)
    for sub in sorted(p for p in path.iterdir() if p.is_dir()):
        below, _ = _claims(sub, depth + 1)
        found += below
    if not found:
        return [], [error(path, "no scenario folder or task suite here nor in any sub-folder")]
    return found, []


def validate(
    paths: Annotated[list[Path], typer.Argument(
        help="Scenario folders, task suite files, or folders of them (any kind).")],
) -> None:
    """Check suites of any kind without calling anything; list every problem with its file
    and line. Exit code 1 when there is an error."""
    from eunomia.kinds import kind_named

    out = console()
    problems: list[Diagnostic] = []
    by_kind: dict[str, list[Path]] = {}
    for path in paths:
        claimed, found = _claims(path)
        problems += found
        for kind, where in claimed:
            by_kind.setdefault(kind, []).append(where)
    for name, folders in by_kind.items():
        checked = kind_named(name).validate(folders)
        for line in checked.lines:
            out.print(line)
        problems += checked.diagnostics
    print_diagnostics(out, problems)
    errors = sum(d.severity is Severity.ERROR for d in problems)
    out.print(f"{errors} error(s), {len(problems) - errors} warning(s)")
    if errors:
        raise typer.Exit(1)
