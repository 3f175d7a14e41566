"""``eunomia runs`` and ``eunomia export``: reading the run store."""

import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from eunomia import defaults
from eunomia.cli._common import console
from eunomia.errors import EunomiaError
from eunomia.exports import FORMATS

if TYPE_CHECKING:
    from eunomia.store import RunStore


def _open(results: Path, store: Path | None) -> "RunStore":
    from eunomia.store import RunStore

    path = store or results / defaults.STORE_FILE
    if not path.is_file():
        raise EunomiaError(f"no run store at {path}; give --results or --store")
    return RunStore(path)


def runs(
    results: Annotated[Path, typer.Option(help="Results folder.")] = defaults.RESULTS_DIR,
    store: Annotated[Path | None, typer.Option(
        help="Run store (SQLite).", show_default="<results>/eunomia.db")] = None,
) -> None:
    """List the runs in the store."""
    from eunomia.kinds import kind_entry
    from eunomia.store import status_text

    out = console()
    db = _open(results, store)
    try:
        table = Table(title=f"Runs in {escape(str(db.path))}", title_justify="left")
        for col, justify in (("Name", "left"), ("Date", "left"), ("Suites", "left"),
                             ("Target / model", "left"), ("Status", "left"),
                             ("Cases", "right"), ("Failed", "right"), ("Unscored", "right"),
                             ("Score", "right"),
                             ("Cost", "right"), ("Duration", "right")):
            table.add_column(col, justify=justify)  # type: ignore[arg-type]
        for run in db.list_runs():
            totals = db.run_totals(run)
            suites = ", ".join(s.name for s in db.suites(run))
            table.add_row(
                escape(run.name), run.created[:19].replace("T", " "), escape(suites),
                escape(", ".join(run.targets)),
                escape(status_text(run, kind_entry(run.kind).command)), str(totals.cases),
                str(totals.failed) + (f" +{totals.invalid} invalid" if totals.invalid else ""),
                str(totals.unscored),
                "per target (report)" if len(run.targets) > 1 else "-"
                if totals.mean_score is None
                else f"{totals.mean_score:.{kind_entry(run.kind).score_digits}f}",
                "-" if totals.cost is None else f"{totals.cost:.4f}",
                "-" if totals.duration_s is None else f"{totals.duration_s:.1f} s",
            )
        out.print(table)
    finally:
        db.close()


# built from the registry (mypy reads only literal members, hence the ignore)
ExportFormat = StrEnum("ExportFormat", {n: n for n in ("csv", *FORMATS)})  # type: ignore[misc]
"""What ``eunomia export`` writes: the run's files again, or a format of ``FORMATS``."""
_CSV = ExportFormat("csv")


def export(
    run: Annotated[str, typer.Argument(help="Run name.")],
    results: Annotated[Path, typer.Option(help="Results folder.")] = defaults.RESULTS_DIR,
    store: Annotated[Path | None, typer.Option(
        help="Run store (SQLite).", show_default="<results>/eunomia.db")] = None,
    output: Annotated[str | None, typer.Option(
        metavar="<path>",
        help="csv: the folder to write the files under instead of the results folder (a "
             "file name is refused); otherwise the file to write ('-': standard output), or "
             "a folder (existing, or ending in '/') to write it under as <folder>/<run>/.",
        show_default="<results>, or " + ", ".join(f"<results>/<run>/{f.file}"
                                                  for f in FORMATS.values()))
    ] = None,
    fmt: Annotated[ExportFormat, typer.Option(
        "--format", help="csv: the run's CSV/JSON result files; " + "; ".join(
            f"{f.name}: {f.about}" for f in FORMATS.values()) + ".")] = _CSV,
    pass_score: Annotated[float | None, typer.Option(
        help="Task runs: a case passes when its mean judge score is at least this (0-5).",
        show_default="3")] = None,
) -> None:
    """Write a run's result files again from the store (CSV/JSON, or JSON Lines, JUnit XML
    or a Markdown summary)."""
    from eunomia.run import csv_folder, export_format, export_run, format_file

    out = console()
    if fmt == "csv":  # refused before anything is read
        folder = csv_folder(output, results)
    else:
        file = format_file(fmt.value, output, run, results)
    db = _open(results, store)
    try:
        info = db.require_run(run)
        if fmt != "csv":
            try:
                path = export_format(db, info, fmt.value, file, results, pass_score)
            except BrokenPipeError:  # standard output closed early (``| head``): quietly
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                return
            if str(path) != "-":
                out.print(f"{escape(info.name)}: {fmt.value} written to "
                          f"{escape(str(path))}", soft_wrap=True)
            return
        if pass_score is not None:
            raise EunomiaError(f"--pass-score applies to --format {', '.join(FORMATS)}")
        exported = export_run(db, info, folder)
    finally:
        db.close()
    for item in exported:
        out.print(f"{escape(item.suite or info.name)} ({escape(item.target)}): "
                  f"files written to {escape(str(item.folder))}")
