"""``eunomia runs`` and ``eunomia export``: reading the run store."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from eunomia import defaults
from eunomia.cli._common import console
from eunomia.errors import EunomiaError

if TYPE_CHECKING:
    from eunomia.store import RunStore


def _open(results: Path, store: Path | None) -> RunStore:
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
    out = console()
    db = _open(results, store)
    try:
        table = Table(title=f"Runs in {escape(str(db.path))}", title_justify="left")
        for col, justify in (("Name", "left"), ("Date", "left"), ("Suites", "left"),
                             ("Target / model", "left"), ("Status", "left"),
                             ("Cases", "right"), ("Failed", "right"), ("Score", "right"),
                             ("Cost", "right"), ("Duration", "right")):
            table.add_column(col, justify=justify)  # type: ignore[arg-type]
        for run in db.list_runs():
            totals = db.run_totals(run)
            suites = ", ".join(s.name for s in db.suites(run))
            table.add_row(
                escape(run.name), run.created[:19].replace("T", " "), escape(suites),
                escape(", ".join(run.targets)), run.status, str(totals.cases),
                str(totals.failed),
                "-" if totals.mean_score is None else f"{totals.mean_score:.1f}",
                "-" if totals.cost is None else f"{totals.cost:.4f}",
                "-" if totals.duration_s is None else f"{totals.duration_s:.1f} s",
            )
        out.print(table)
    finally:
        db.close()


def export(
    run: Annotated[str, typer.Argument(help="Run name.")],
    results: Annotated[Path, typer.Option(help="Results folder.")] = defaults.RESULTS_DIR,
    store: Annotated[Path | None, typer.Option(
        help="Run store (SQLite).", show_default="<results>/eunomia.db")] = None,
    output: Annotated[Path | None, typer.Option(
        help="Write the files under this folder instead of the results folder.")] = None,
) -> None:
    """Write a run's CSV/JSON result files again from the store."""
    from eunomia.run import export_run

    out = console()
    db = _open(results, store)
    try:
        info = db.require_run(run)
        exported = export_run(db, info, output or results)
    finally:
        db.close()
    for item in exported:
        out.print(f"{escape(item.suite or info.name)} ({escape(item.target)}): "
                  f"files written to {escape(str(item.folder))}")
